"""The event schedule Lambda = {<trigger psi, rewrite delta, timing kappa>} and the six
interventions of Table 4.

Triggers refer to task progress, not to fixed steps. Timing: I1 acts *during* an action (it
suppresses the effect of the first otherwise-successful execution of each action type); I2-I6
are evaluated at the start of a step, before the observation is built, and fire at most once per
rollout. Every firing is recorded with the facts it invalidated (and, for I6, the goal it added).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from robograph.actions import CATALOG, Action, expected_facts
from robograph.facts import Fact, Goal, changed_facts, holds, parse_fact
from robograph.graph import INSIDE, MOVABLE, OCCLUDES, ON, OPENABLE, Edge, Node, SceneGraph
from robograph.rewrite import AddEdge, AddNode, MoveNode, Rewrite, SetAttr, apply_all
from robograph.view import compute_view

INTERVENTIONS: tuple[str, ...] = ("I1", "I2", "I3", "I4", "I5", "I6")
CONDITIONS: tuple[str, ...] = ("baseline", *INTERVENTIONS)
INTERVENTION_NAMES: Mapping[str, str] = {
    "I1": "action failure",
    "I2": "state regression",
    "I3": "completed-subgoal rollback",
    "I4": "wrong relocation",
    "I5": "added occlusion",
    "I6": "added object",
}
# actions whose success achieves a reversible node state (I2), with the attribute they set
REVERSIBLE_ACTIONS: Mapping[str, str] = {"open": "open", "close": "open", "move_aside": "moved_aside"}


@dataclass(frozen=True)
class EventSpec:
    """One scheduled event. `params` are kind-specific (see `docs/interventions.md`)."""

    id: str
    kind: str
    min_step: int = 0
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "min_step": self.min_step, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EventSpec:
        return cls(
            id=str(data.get("id", data.get("kind", "event"))),
            kind=str(data["kind"]),
            min_step=int(data.get("min_step", 0)),
            params=dict(data.get("params") or {}),
        )


@dataclass(frozen=True)
class FiredEvent:
    event_id: str
    kind: str
    step: int
    rewrites: tuple[Rewrite, ...]
    invalidated: tuple[Fact, ...]
    goal_added: tuple[Fact, ...] = ()
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "event_id": self.event_id,
            "kind": self.kind,
            "step": self.step,
            "rewrites": [r.to_json() for r in self.rewrites],
            "invalidated": [str(f) for f in self.invalidated],
            "goal_added": [str(f) for f in self.goal_added],
            "detail": self.detail,
        }


class EventEngine:
    """Mutable per-rollout trigger state for a fixed list of `EventSpec`s."""

    def __init__(self, specs: Sequence[EventSpec], initial: SceneGraph, goal: Goal) -> None:
        self.specs = list(specs)
        self.fired_ids: set[str] = set()
        self.failed_actions: dict[str, set[str]] = {}
        # I2 candidates: event id -> (node, attribute, prior value)
        self.pending_regression: dict[str, tuple[str, str, Any]] = {}
        # progress triggers only count facts the agent achieved, not ones true from the start
        # (goal facts, and I6 source facts, which need not be goal facts)
        watched = list(goal) + [
            parse_fact(str(s.params["source_fact"]))
            for s in self.specs
            if s.kind == "I6" and "source_fact" in s.params
        ]
        self.initially_true = {f for f in watched if holds(initial, f)}

    @property
    def history(self) -> list[str]:
        return sorted(self.fired_ids)

    # I1 ----------------------------------------------------------------------------------------
    def intercept(self, step: int, graph: SceneGraph, action: Action) -> FiredEvent | None:
        """Called for an action whose preconditions hold. Returns a firing when I1 suppresses it."""
        for spec in self.specs:
            if spec.kind != "I1" or step < spec.min_step:
                continue
            eligible = spec.params.get("actions") or [
                n for n, s in CATALOG.items() if s.failure_injectable
            ]
            done = self.failed_actions.setdefault(spec.id, set())
            if action.name in eligible and action.name not in done:
                done.add(action.name)
                self.fired_ids.add(spec.id)
                lost = tuple(parse_fact(f) for f in expected_facts(graph, action))
                return FiredEvent(spec.id, "I1", step, (), lost, detail=f"{action} failed to execute")
        return None

    def observe_success(self, step: int, before: SceneGraph, action: Action) -> None:
        """Record the first reversible state an action achieves after the guard (I2's trigger)."""
        key = REVERSIBLE_ACTIONS.get(action.name)
        if key is None:
            return
        for spec in self.specs:
            if spec.kind != "I2" or spec.id in self.fired_ids or spec.id in self.pending_regression:
                continue
            if step < spec.min_step:
                continue
            attrs = spec.params.get("attributes")
            if attrs and key not in attrs:
                continue
            node = action.args[0]
            self.pending_regression[spec.id] = (node, key, bool(before.attr(node, key, False)))

    # I2-I6 -------------------------------------------------------------------------------------
    def fire_due(
        self, step: int, graph: SceneGraph, goal: Goal
    ) -> tuple[SceneGraph, Goal, list[FiredEvent]]:
        fired: list[FiredEvent] = []
        for spec in self.specs:
            if spec.kind == "I1" or spec.id in self.fired_ids or step < spec.min_step:
                continue
            result = self._try(spec, step, graph, goal)
            if result is None:
                continue
            rewrites, added, detail, touched = result
            after = apply_all(graph, rewrites)
            lost, _ = changed_facts(graph, after, touched)
            self.fired_ids.add(spec.id)
            self.pending_regression.pop(spec.id, None)
            fired.append(FiredEvent(spec.id, spec.kind, step, tuple(rewrites), tuple(lost), tuple(added), detail))
            graph = after
            if added:
                goal = goal.extended(added)
        return graph, goal, fired

    def _try(
        self, spec: EventSpec, step: int, graph: SceneGraph, goal: Goal
    ) -> tuple[list[Rewrite], list[Fact], str, set[str]] | None:
        kind = spec.kind
        if kind == "I2":
            pending = self.pending_regression.get(spec.id)
            if pending is None:
                return None
            node, key, prior = pending
            if bool(graph.attr(node, key, False)) == prior:
                return None
            return [SetAttr(node, key, prior)], [], f"{node}.{key} reset to {prior}", {node}
        if kind in ("I3", "I4"):
            return self._relocate(spec, graph, goal)
        if kind == "I5":
            return self._occlude(spec, graph, goal)
        if kind == "I6":
            return self._add_object(spec, graph)
        return None

    def _achieved(self, graph: SceneGraph, goal: Goal, preds: Iterable[str]) -> list[Fact]:
        return [
            f
            for f in goal
            if f.pred in preds and f not in self.initially_true and holds(graph, f)
        ]

    def _relocate(
        self, spec: EventSpec, graph: SceneGraph, goal: Goal
    ) -> tuple[list[Rewrite], list[Fact], str, set[str]] | None:
        preds = ("INSIDE", "ON") if spec.kind == "I3" else ("INSIDE",)
        wanted = {parse_fact(f) for f in spec.params.get("facts", ())}
        candidates = list(spec.params.get("staging" if spec.kind == "I3" else "containers", ()))
        visible = compute_view(graph).visible if spec.kind == "I4" else frozenset()
        for fact in self._achieved(graph, goal, preds):
            if wanted and fact not in wanted:
                continue
            obj, target = fact.args
            for cand in candidates:
                if not self._can_receive(graph, cand, obj, target):
                    continue
                if spec.kind == "I4":
                    node = graph.nodes[cand]
                    if cand not in visible or (node.has(OPENABLE) and not graph.is_open(cand)):
                        continue
                    rel = INSIDE
                else:
                    if graph.room_of(cand) != graph.room_of(obj):
                        continue
                    rel = ON
                detail = f"{obj} moved from {target} {'onto' if rel == ON else 'into'} {cand}"
                return [MoveNode(obj, rel, cand)], [], detail, {obj}
        return None

    @staticmethod
    def _can_receive(graph: SceneGraph, cand: str, obj: str, goal_target: str) -> bool:
        if cand not in graph.nodes or cand in (obj, goal_target):
            return False
        if obj in graph.ancestors(cand) or graph.hand_of(cand) is not None:
            return False
        return not graph.is_full(cand)

    def _occlude(
        self, spec: EventSpec, graph: SceneGraph, goal: Goal
    ) -> tuple[list[Rewrite], list[Fact], str, set[str]] | None:
        occluded = {e.dst for e in graph.edges if e.rel == OCCLUDES and graph.occlusion_active(e)}
        for blocker, target in spec.params.get("pairs", ()):
            if blocker not in graph.nodes or target not in graph.nodes or blocker == target:
                continue
            if not graph.nodes[blocker].has(MOVABLE):
                continue  # Table 4: only occlusions an action (move_aside/grab) can resolve
            if graph.hand_of(target) or graph.hand_of(blocker) or target in occluded:
                continue
            support = graph.location.get(blocker)
            if support is None or support.rel not in (ON, INSIDE):
                continue
            if target in graph.ancestors(blocker) or blocker in graph.ancestors(target):
                continue
            rewrites: list[Rewrite] = []
            here = graph.location.get(target)
            if here is None or (here.rel, here.dst) != (support.rel, support.dst):
                if graph.is_full(support.dst):
                    continue
                rewrites.append(MoveNode(target, support.rel, support.dst))
            rewrites.append(AddEdge(Edge(blocker, OCCLUDES, target)))
            if graph.attr(blocker, "moved_aside"):
                rewrites.append(SetAttr(blocker, "moved_aside", False))
            return rewrites, [], f"{target} hidden behind {blocker}", {target, blocker}
        return None

    def _add_object(
        self, spec: EventSpec, graph: SceneGraph
    ) -> tuple[list[Rewrite], list[Fact], str, set[str]] | None:
        params = spec.params
        if params.get("mode", "inherit") == "capacity":
            container = str(params["container"])
            if not graph.is_full(container):
                return None
            why = f"{container} reached capacity"
        else:
            source = parse_fact(str(params["source_fact"]))
            if source in self.initially_true or not holds(graph, source):
                return None
            why = f"{source} satisfied"
        node = Node.from_json(params["node"])
        if node.id in graph.nodes:
            return None
        staging = str(params["staging"])
        attrs = tuple(sorted(dict(params["node"].get("attrs") or {}).items()))
        rewrites: list[Rewrite] = [AddNode(node, attrs), MoveNode(node.id, ON, staging)]
        added = [parse_fact(f) for f in params.get("goal", ())]
        return rewrites, added, f"{node.id} appeared on {staging} ({why})", {node.id}
