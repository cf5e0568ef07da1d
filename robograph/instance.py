"""TaskInstance I = (G0, g, A, O, Lambda) plus metadata, its file format and its validator.

An instance file is JSON (or YAML) with keys: `id`, `task`, `task_type`, `settings`, `graph`
(`nodes`, `edges`), `goal` (list of fact strings), `actions` (catalog subset; defaults from the
scene), `events`, `step_budget`, `view` (view rules) and `metadata`; the JSON Schema of the format
is `robograph.schema.instance_schema()`. `validate_data` reports every problem with its JSON path
instead of stopping at the first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from robograph.actions import catalog_for
from robograph.errors import FactSyntaxError, InstanceError, Problem
from robograph.events import EventSpec
from robograph.facts import Goal, parse_fact
from robograph.graph import HANDS, LOCATION_RELATIONS, ROBOT_ID, ROOM, SceneGraph
from robograph.schema import structural_problems
from robograph.view import navigation_enabled

DEFAULT_STEP_BUDGET = 100
HISTORY_WINDOW = 16


@dataclass(frozen=True)
class TaskInstance:
    id: str
    task: str
    task_type: str
    settings: tuple[str, ...]
    graph: SceneGraph
    goal: Goal
    actions: tuple[str, ...]
    events: tuple[EventSpec, ...] = ()
    step_budget: int = DEFAULT_STEP_BUDGET
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def condition(self) -> str:
        return str(self.metadata.get("condition", "baseline"))

    @property
    def domain(self) -> str:
        return str(self.metadata.get("domain", "indoor" if "walk" in self.actions else "tabletop"))

    def with_events(self, events: Sequence[EventSpec], **metadata: Any) -> TaskInstance:
        return replace(self, events=tuple(events), metadata={**self.metadata, **metadata})

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "task": self.task,
            "task_type": self.task_type,
            "settings": list(self.settings),
            "graph": self.graph.to_json(),
            "goal": self.goal.to_json(),
            "actions": list(self.actions),
            "events": [e.to_json() for e in self.events],
            "step_budget": self.step_budget,
            "metadata": dict(self.metadata),
        }

    def dumps(self) -> str:
        """Canonical JSON text: sorted keys, so the same instance gives byte-identical files."""
        return json.dumps(self.to_json(), sort_keys=True, indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str = "<instance>", schema: str = "instance") -> TaskInstance:
        problems = validate_data(data, schema)
        if problems:
            raise InstanceError(source, problems)
        graph = SceneGraph.from_json(data["graph"])
        actions = tuple(data.get("actions") or catalog_for(navigation_enabled(graph)))
        return cls(
            id=str(data.get("id", "instance")),
            task=str(data.get("task", data.get("id", ""))),
            task_type=str(data.get("task_type", "custom")),
            settings=tuple(str(s) for s in data.get("settings", ())),
            graph=graph,
            goal=Goal.from_json(data["goal"]),
            actions=actions,
            events=tuple(EventSpec.from_json(e) for e in data.get("events", ())),
            step_budget=int(data.get("step_budget", DEFAULT_STEP_BUDGET)),
            metadata=dict(data.get("metadata") or {}),
        )


def read_data(path: str | Path) -> Mapping[str, Any]:
    """Parse a JSON or YAML instance file; syntax errors become an InstanceError with position."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InstanceError(str(p), [Problem("$", f"cannot read file: {exc.strerror or exc}")]) from None
    try:
        data = yaml.safe_load(text) if p.suffix.lower() in (".yaml", ".yml") else json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstanceError(str(p), [Problem("$", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise InstanceError(str(p), [Problem("$", f"invalid YAML{where}: {getattr(exc, 'problem', exc)}")]) from None
    if not isinstance(data, Mapping):
        raise InstanceError(str(p), [Problem("$", f"expected an object at the top level, got {type(data).__name__}")])
    return data


def load_instance(path: str | Path, schema: str = "instance") -> TaskInstance:
    """Read and check an instance file; `schema="episode"` also requires the compiler's metadata."""
    return TaskInstance.from_json(read_data(path), source=str(path), schema=schema)


# Validation --------------------------------------------------------------------------------------
def validate_data(data: Mapping[str, Any], schema: str = "instance") -> list[Problem]:
    """Every problem of an instance file, each with its JSON path: first the structural ones (the
    published JSON Schema, `robograph.schema`), then what a schema cannot say (references to nodes,
    duplicate ids, one location per node, location cycles, the robot's room and hands, fact
    syntax). Checks are defensive, so a structurally broken file still gets its semantic report."""
    problems = structural_problems(data, schema)
    add = lambda path, msg: problems.append(Problem(path, msg))  # noqa: E731

    graph = data.get("graph")
    graph = graph if isinstance(graph, Mapping) else {}
    nodes = graph.get("nodes", [])
    edges = graph.get("edges", [])
    nodes = nodes if isinstance(nodes, list) else []
    edges = edges if isinstance(edges, list) else []

    ids: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for i, node in enumerate(nodes):
        path = f"$.graph.nodes[{i}]"
        if not isinstance(node, Mapping) or "id" not in node:
            continue
        nid = str(node["id"])
        if nid in ids:
            add(f"{path}.id", f"duplicate node id {nid!r} (first at {ids[nid]})")
        ids[nid] = path
        kinds[nid] = str(node.get("kind", "object"))

    located: dict[str, str] = {}
    parent: dict[str, str] = {}
    for i, edge in enumerate(edges):
        path = f"$.graph.edges[{i}]"
        if not isinstance(edge, Mapping):
            continue
        for end in ("from", "to"):
            if end in edge and str(edge[end]) not in ids:
                add(f"{path}.{end}", f"unknown node {edge[end]!r}")
        rel = edge.get("relation")
        if rel in LOCATION_RELATIONS and "from" in edge:
            src = str(edge["from"])
            if src in located:
                add(path, f"{src} already has a location ({located[src]}); a node is in one place")
            else:
                located[src] = path
                parent[src] = str(edge.get("to"))
        if rel == "IN_ROOM" and str(edge.get("to")) in kinds and kinds[str(edge.get("to"))] != ROOM:
            add(f"{path}.to", f"IN_ROOM must point at a room, {edge.get('to')!r} is a {kinds[str(edge.get('to'))]}")
    for start in parent:
        seen = [start]
        cur = parent.get(start)
        while cur is not None:
            if cur in seen:
                add(located[start], f"location cycle: {' -> '.join([*seen, cur])}")
                break
            seen.append(cur)
            cur = parent.get(cur)

    robot = [n for n in nodes if isinstance(n, Mapping) and str(n.get("id")) == ROBOT_ID]
    if not robot:
        if nodes:
            add("$.graph.nodes", f"no robot node (id {ROBOT_ID!r})")
    else:
        rattrs = robot[0].get("attrs", {}) or {}
        rattrs = rattrs if isinstance(rattrs, Mapping) else {}
        room = rattrs.get("room")
        if room is not None and kinds.get(str(room)) != ROOM:
            add(f"{ids[ROBOT_ID]}.attrs.room", f"robot room {room!r} is not a room node")
        for hand in HANDS:
            held = rattrs.get(hand)
            if held is None:
                continue
            if str(held) not in ids:
                add(f"{ids[ROBOT_ID]}.attrs.{hand}", f"holds unknown node {held!r}")
            elif str(held) in located:
                add(f"{ids[ROBOT_ID]}.attrs.{hand}", f"{held} is held but also located at {located[str(held)]}")

    goal = data.get("goal")
    for i, text in enumerate(goal if isinstance(goal, list) else []):
        _check_fact(text, f"$.goal[{i}]", ids, add)

    events = data.get("events") or []
    for i, ev in enumerate(events if isinstance(events, list) else []):
        if isinstance(ev, Mapping):
            _check_event_refs(ev, f"$.events[{i}]", ids, add)
    return problems


def _check_fact(text: Any, path: str, ids: Mapping[str, str], add: Any) -> None:
    try:
        fact = parse_fact(str(text))
    except FactSyntaxError as exc:
        add(path, str(exc))
        return
    for arg in fact.args:
        if arg not in ids:
            add(path, f"{fact} refers to unknown node {arg!r}")


def _check_event_refs(ev: Mapping[str, Any], path: str, ids: Mapping[str, str], add: Any) -> None:
    params = ev.get("params") or {}
    new_ids = set(ids)
    node = params.get("node")
    if isinstance(node, Mapping) and "id" in node:
        new_ids.add(str(node["id"]))
    for key in ("staging", "containers", "container"):
        vals = params.get(key)
        for j, nid in enumerate(vals if isinstance(vals, list) else [vals] if vals else []):
            if str(nid) not in ids:
                add(f"{path}.params.{key}" + (f"[{j}]" if isinstance(vals, list) else ""), f"unknown node {nid!r}")
    for j, pair in enumerate(params.get("pairs", []) or []):
        for nid in pair:
            if str(nid) not in ids:
                add(f"{path}.params.pairs[{j}]", f"unknown node {nid!r}")
    lookup = {k: k for k in new_ids}
    for key in ("facts", "goal"):
        for j, text in enumerate(params.get(key, []) or []):
            _check_fact(text, f"{path}.params.{key}[{j}]", lookup, add)
    if "source_fact" in params:
        _check_fact(params["source_fact"], f"{path}.params.source_fact", lookup, add)
