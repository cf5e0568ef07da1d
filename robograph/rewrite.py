"""The rewrite algebra: the only way a scene graph changes.

Action effects, exogenous events and physical reconciliation all produce lists of `Rewrite`s, so
every change to G_t is explicit, serializable into the trace, and replayable on a backend
(`Backend.realize`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from robograph.errors import RewriteError
from robograph.graph import (
    HANDS,
    LOCATION_RELATIONS,
    ROBOT_ID,
    Edge,
    Node,
    SceneGraph,
)

HELD = "HELD"  # MoveNode relation meaning "into the robot hand named by `target`"
DETACHED = "DETACHED"  # MoveNode relation meaning "no location" (a part merged into its assembly)


@dataclass(frozen=True, slots=True)
class SetAttr:
    node: str
    key: str
    value: Any

    def to_json(self) -> dict[str, Any]:
        return {"op": "set_attr", "node": self.node, "key": self.key, "value": self.value}


@dataclass(frozen=True, slots=True)
class AddEdge:
    edge: Edge

    def to_json(self) -> dict[str, Any]:
        return {"op": "add_edge", **self.edge.to_json()}


@dataclass(frozen=True, slots=True)
class RemoveEdge:
    edge: Edge

    def to_json(self) -> dict[str, Any]:
        return {"op": "remove_edge", **self.edge.to_json()}


@dataclass(frozen=True, slots=True)
class AddNode:
    node: Node
    attrs: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"op": "add_node", "node": self.node.to_json(), "attrs": dict(self.attrs)}


@dataclass(frozen=True, slots=True)
class MoveNode:
    """Relocate a node: drop its current location (edge or hand) and put it `relation` `target`.
    relation is INSIDE, ON, IN_ROOM, HELD (target = 'left' | 'right') or DETACHED (no location;
    target names the assembly that absorbed the part, for the trace)."""

    node: str
    relation: str
    target: str

    def to_json(self) -> dict[str, Any]:
        return {"op": "move_node", "node": self.node, "relation": self.relation, "to": self.target}


Rewrite = SetAttr | AddEdge | RemoveEdge | AddNode | MoveNode


def _check_node(graph: SceneGraph, node_id: str) -> None:
    if node_id not in graph.nodes:
        raise RewriteError(f"rewrite refers to unknown node {node_id!r}")


def apply(graph: SceneGraph, rewrite: Rewrite) -> SceneGraph:
    """Return a new graph with one rewrite applied (the input graph is untouched)."""
    if isinstance(rewrite, SetAttr):
        _check_node(graph, rewrite.node)
        attrs = dict(graph.attrs)
        node_attrs = dict(attrs.get(rewrite.node, {}))
        node_attrs[rewrite.key] = rewrite.value
        attrs[rewrite.node] = node_attrs
        return graph.derive(attrs=attrs)
    if isinstance(rewrite, AddEdge):
        edge = rewrite.edge
        _check_node(graph, edge.src)
        _check_node(graph, edge.dst)
        if edge.rel in LOCATION_RELATIONS:
            return apply(graph, MoveNode(edge.src, edge.rel, edge.dst))
        return graph.derive(free_edges=graph.edges | {edge})
    if isinstance(rewrite, RemoveEdge):
        edge = rewrite.edge
        if edge not in graph.edges:
            raise RewriteError(f"cannot remove missing edge {edge.src} {edge.rel} {edge.dst}")
        if edge.rel in LOCATION_RELATIONS:
            return graph.relocate(edge.src, None)
        return graph.derive(free_edges=graph.edges - {edge})
    if isinstance(rewrite, AddNode):
        if rewrite.node.id in graph.nodes:
            raise RewriteError(f"node {rewrite.node.id!r} already exists")
        nodes = dict(graph.nodes)
        nodes[rewrite.node.id] = rewrite.node
        attrs = dict(graph.attrs)
        attrs[rewrite.node.id] = dict(rewrite.attrs)
        return graph.derive(nodes=nodes, attrs=attrs)
    if isinstance(rewrite, MoveNode):
        return _move(graph, rewrite)
    raise RewriteError(f"not a rewrite: {rewrite!r}")


def _move(graph: SceneGraph, move: MoveNode) -> SceneGraph:
    _check_node(graph, move.node)
    attrs = graph.attrs
    hand = graph.hand_of(move.node)
    if hand is not None or move.relation == HELD:
        attrs = dict(attrs)
        robot = dict(attrs[ROBOT_ID])
        if hand is not None:
            robot[hand] = None
        if move.relation == HELD:
            if move.target not in HANDS:
                raise RewriteError(f"hand must be one of {HANDS}, got {move.target!r}")
            if robot.get(move.target) and robot.get(move.target) != move.node:
                raise RewriteError(f"{move.target} hand already holds {robot[move.target]!r}")
            robot[move.target] = move.node
        attrs[ROBOT_ID] = robot
    new: Edge | None = None
    if move.relation not in (HELD, DETACHED):
        if move.relation not in LOCATION_RELATIONS:
            raise RewriteError(f"cannot move into relation {move.relation!r}")
        _check_node(graph, move.target)
        new = Edge(move.node, move.relation, move.target)
    if new is None and move.node not in graph.location:  # hand to hand, or hand to nowhere
        return graph.derive(attrs=attrs)
    return graph.relocate(move.node, new, attrs)


def apply_all(graph: SceneGraph, rewrites: Iterable[Rewrite]) -> SceneGraph:
    for rw in rewrites:
        graph = apply(graph, rw)
    return graph


def from_json(data: Mapping[str, Any]) -> Rewrite:
    op = data.get("op")
    if op == "set_attr":
        return SetAttr(str(data["node"]), str(data["key"]), data.get("value"))
    if op == "add_edge":
        return AddEdge(Edge.from_json(data))
    if op == "remove_edge":
        return RemoveEdge(Edge.from_json(data))
    if op == "add_node":
        attrs = tuple(sorted(dict(data.get("attrs") or {}).items()))
        return AddNode(Node.from_json(data["node"]), attrs)
    if op == "move_node":
        return MoveNode(str(data["node"]), str(data["relation"]), str(data["to"]))
    raise RewriteError(f"unknown rewrite op {op!r}; valid: set_attr, add_edge, remove_edge, add_node, move_node")


def diff(before: SceneGraph, after: SceneGraph) -> list[Rewrite]:
    """Rewrites that turn `before` into `after` (used to turn a reconciled physical state into
    graph edits). Node additions first, then moves, edge edits and attribute changes."""
    out: list[Rewrite] = []
    for nid in sorted(after.nodes.keys() - before.nodes.keys()):
        out.append(AddNode(after.nodes[nid], tuple(sorted(after.attrs.get(nid, {}).items()))))
    # hands are robot attributes but are expressed as moves, so skip them in attribute diffs.
    # Moves into hands come last, after every hand they need has been emptied (objects that change
    # hands are detached first), so a swap between the two hands replays without a conflict.
    into_hands: list[Rewrite] = []
    for nid in sorted(after.nodes):
        hand = after.hand_of(nid)
        old_edge, new_edge = before.location.get(nid), after.location.get(nid)
        if hand is not None and before.hand_of(nid) != hand:
            if before.hand_of(nid) is not None:
                out.append(MoveNode(nid, DETACHED, ""))
            into_hands.append(MoveNode(nid, HELD, hand))
        elif new_edge is not None and new_edge != old_edge:
            out.append(MoveNode(nid, new_edge.rel, new_edge.dst))
        elif new_edge is None and hand is None and (old_edge is not None or before.hand_of(nid)):
            out.append(MoveNode(nid, DETACHED, ""))
    out += into_hands
    other_before = {e for e in before.edges if e.rel not in LOCATION_RELATIONS}
    other_after = {e for e in after.edges if e.rel not in LOCATION_RELATIONS}
    out += [RemoveEdge(e) for e in sorted(other_before - other_after)]
    out += [AddEdge(e) for e in sorted(other_after - other_before)]
    for nid in sorted(after.nodes):
        a_old, a_new = before.attrs.get(nid, {}), after.attrs.get(nid, {})
        for key in sorted(a_old.keys() | a_new.keys()):
            if nid == ROBOT_ID and key in HANDS:
                continue
            if a_old.get(key) != a_new.get(key):
                out.append(SetAttr(nid, key, a_new.get(key)))
    return out
