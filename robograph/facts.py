"""Facts and goals: atomic assertions over a scene graph and their conjunctions.

A fact is written `PRED(arg, ...)`, e.g. `INSIDE(red_pen, pencil_case)` or `CLOSED(drawer_1)`.
A goal is a conjunction, serialized as a list of such strings (the `success_criterion` of the
payload), so it reads the same in JSON, YAML and the agent's prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

from robograph.errors import FactSyntaxError
from robograph.graph import INSIDE, ON, SceneGraph


class Fact(NamedTuple):
    pred: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(self.args)})"

    @property
    def subject(self) -> str:
        return self.args[0]


def _inside(g: SceneGraph, a: tuple[str, ...]) -> bool:
    edge = g.location.get(a[0])
    return edge is not None and edge.rel == INSIDE and edge.dst == a[1]


def _on(g: SceneGraph, a: tuple[str, ...]) -> bool:
    edge = g.location.get(a[0])
    return edge is not None and edge.rel == ON and edge.dst == a[1]


PREDICATES: Mapping[str, tuple[int, Callable[[SceneGraph, tuple[str, ...]], bool]]] = {
    "INSIDE": (2, _inside),
    "ON": (2, _on),
    "OPEN": (1, lambda g, a: g.is_open(a[0])),
    "CLOSED": (1, lambda g, a: not g.is_open(a[0])),
    "ASSEMBLED": (1, lambda g, a: bool(g.attr(a[0], "assembled"))),
    "PRESSED": (1, lambda g, a: bool(g.attr(a[0], "pressed"))),
    "HELD": (1, lambda g, a: g.hand_of(a[0]) is not None),
    "IN_ROOM": (2, lambda g, a: g.room_of(a[0]) == a[1]),
    "ROBOT_IN": (1, lambda g, a: g.robot_room() == a[0]),
    "MOVED_ASIDE": (1, lambda g, a: bool(g.attr(a[0], "moved_aside"))),
}
PLACEMENT_PREDICATES = frozenset({"INSIDE", "ON"})

_FACT_RE = re.compile(r"^\s*([A-Z_]+)\s*\(\s*([^()]*?)\s*\)\s*$")


def parse_fact(text: str) -> Fact:
    match = _FACT_RE.match(text)
    if not match:
        raise FactSyntaxError(f"cannot parse fact {text!r}; expected PRED(arg, ...)")
    pred, raw = match.group(1), match.group(2)
    if pred not in PREDICATES:
        raise FactSyntaxError(f"unknown predicate {pred!r} in {text!r}; valid: {sorted(PREDICATES)}")
    args = tuple(a.strip() for a in raw.split(",")) if raw.strip() else ()
    arity = PREDICATES[pred][0]
    if len(args) != arity or any(not a for a in args):
        raise FactSyntaxError(f"{pred} takes {arity} argument(s), got {text!r}")
    return Fact(pred, args)


def holds(graph: SceneGraph, fact: Fact) -> bool:
    return PREDICATES[fact.pred][1](graph, fact.args)


class Goal(NamedTuple):
    """A conjunction of facts. Order is kept for display; identity is the set."""

    facts: tuple[Fact, ...]

    @classmethod
    def of(cls, facts: Iterable[Fact | str]) -> Goal:
        out: list[Fact] = []
        for f in facts:
            fact = parse_fact(f) if isinstance(f, str) else f
            if fact not in out:
                out.append(fact)
        return cls(tuple(out))

    def __iter__(self) -> Iterator[Fact]:  # type: ignore[override]
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def satisfied(self, graph: SceneGraph) -> bool:
        return all(holds(graph, f) for f in self.facts)

    def unsatisfied(self, graph: SceneGraph) -> list[Fact]:
        return [f for f in self.facts if not holds(graph, f)]

    def progress(self, graph: SceneGraph) -> float:
        """Fraction of goal facts that hold (NGP's per-state quantity)."""
        if not self.facts:
            return 1.0
        return sum(holds(graph, f) for f in self.facts) / len(self.facts)

    def extended(self, facts: Iterable[Fact]) -> Goal:
        return Goal.of([*self.facts, *facts])

    def placement_facts(self) -> list[Fact]:
        return [f for f in self.facts if f.pred in PLACEMENT_PREDICATES]

    def to_json(self) -> list[str]:
        return [str(f) for f in self.facts]

    @classmethod
    def from_json(cls, data: Iterable[str]) -> Goal:
        return cls.of(data)

    def node_ids(self) -> set[str]:
        return {a for f in self.facts for a in f.args}


def node_facts(graph: SceneGraph, nid: str) -> set[Fact]:
    """Ground facts about one node: its location and its boolean state attributes."""
    out: set[Fact] = set()
    edge = graph.location.get(nid)
    if edge is not None and edge.rel in PLACEMENT_PREDICATES:
        out.add(Fact(edge.rel, (nid, edge.dst)))
    if graph.hand_of(nid) is not None:
        out.add(Fact("HELD", (nid,)))
    attrs = graph.attrs.get(nid, {})
    if "open" in attrs or graph.nodes[nid].has("OPENABLE"):
        out.add(Fact("OPEN" if attrs.get("open") else "CLOSED", (nid,)))
    for key, pred in (("assembled", "ASSEMBLED"), ("pressed", "PRESSED"), ("moved_aside", "MOVED_ASIDE")):
        if attrs.get(key):
            out.add(Fact(pred, (nid,)))
    return out


def changed_facts(
    before: SceneGraph, after: SceneGraph, nodes: Iterable[str]
) -> tuple[list[Fact], list[Fact]]:
    """(facts lost, facts gained) about `nodes` between two graphs, sorted for stable traces."""
    lost: set[Fact] = set()
    gained: set[Fact] = set()
    for nid in nodes:
        old = node_facts(before, nid) if nid in before.nodes else set()
        new = node_facts(after, nid) if nid in after.nodes else set()
        lost |= old - new
        gained |= new - old
    return sorted(lost), sorted(gained)
