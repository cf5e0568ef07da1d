"""The observation operator O(G_t, h_t) of Eq. 9.

Visible nodes are those in the robot's current room that can be reached from the room (or, on a
tabletop, from the scene roots) along location edges without crossing a blocking edge:
an INSIDE edge into a closed opaque container, or an active OCCLUDES edge onto the node. Blocking
is attribute-conditioned (`SceneGraph.occlusion_active`), which gives Figure 3's case where
opening drawer 1 hides the open drawer 2 below it. Facts that leave the view are dropped, not
remembered: the view is recomputed from G_t every step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from robograph.graph import (
    ADJACENT,
    ASSEMBLY,
    INSIDE,
    OCCLUDES,
    OPENABLE,
    PART_OF,
    PRESSABLE,
    TRANSPARENT,
    SceneGraph,
)


@dataclass(frozen=True, slots=True)
class View:
    """Visible node ids and the subset the robot can physically reach (visible through a closed
    transparent container is visible but not reachable)."""

    visible: frozenset[str]
    reachable: frozenset[str]


_NO_ATTRS: dict[str, Any] = {}


def compute_view(graph: SceneGraph) -> View:
    """The view of `graph`, computed once per graph object: the graph is immutable, and most steps
    of a weak agent fail and leave it unchanged, so the runtime asks again for the same graph."""
    view: View = graph.derived("view", _project)
    return view


def _project(graph: SceneGraph) -> View:
    occluded = graph.occluded()
    room = graph.robot_room()
    held = graph.held()
    # without rooms, the roots are the unlocated furniture and objects (a desk, a shelf), except
    # held objects and assembly parts/wholes, which are seen through their holder
    roots = [room] if room is not None else [nid for nid in graph.unlocated_roots() if nid not in held]
    visible: set[str] = set()
    reachable: set[str] = set()
    nodes, attrs, location = graph.nodes, graph.attrs, graph.location
    children = graph.children_index().get
    see, reach = visible.add, reachable.add
    # depth-first walk carrying "still reachable" down the containment tree
    stack: list[tuple[str, bool]] = [(r, True) for r in roots if r not in occluded]
    stack.extend((h, True) for h in held)
    push, pop = stack.append, stack.pop
    while stack:
        nid, can_reach = pop()
        if nid in visible:
            continue
        see(nid)
        if can_reach:
            reach(nid)
        kids = children(nid)
        if not kids:
            continue
        affordances = nodes[nid].affordances
        if OPENABLE in affordances and not attrs.get(nid, _NO_ATTRS).get("open", False):
            glass = TRANSPARENT in affordances
            for child in kids:
                if child in occluded:
                    continue
                if location[child].rel == INSIDE:
                    if glass:  # seen through a closed transparent container, not reachable
                        push((child, False))
                    continue
                push((child, can_reach))
        else:
            for child in kids:
                if child not in occluded:
                    push((child, can_reach))
    _add_assemblies(graph, visible, reachable)
    visible.discard("robot")
    reachable.discard("robot")
    return View(frozenset(visible), frozenset(reachable))


def _add_assemblies(graph: SceneGraph, visible: set[str], reachable: set[str]) -> None:
    """Parts of an assembled object are seen with it; an unassembled assembly is 'seen' through
    any of its visible parts (it has no location of its own yet)."""
    for edge in graph.edges_of(PART_OF):
        part, whole = edge.src, edge.dst
        if whole in visible and part not in graph.location and graph.hand_of(part) is None:
            visible.add(part)
            if whole in reachable:
                reachable.add(part)
        elif part in visible and whole not in graph.location and graph.hand_of(whole) is None:
            visible.add(whole)
            if part in reachable:
                reachable.add(whole)


def node_record(graph: SceneGraph, nid: str) -> dict[str, Any]:
    node = graph.nodes[nid]
    rec: dict[str, Any] = {"id": nid, "name": node.name, "category": node.category}
    if node.has(OPENABLE):
        rec["open"] = graph.is_open(nid)
    if node.has(ASSEMBLY):
        rec["assembled"] = bool(graph.attr(nid, "assembled"))
    if node.has(PRESSABLE):
        rec["pressed"] = bool(graph.attr(nid, "pressed"))
    if node.capacity is not None:
        rec["is_full"] = bool(graph.is_full(nid))
    return rec


def observation(graph: SceneGraph, view: View | None = None) -> dict[str, Any]:
    """The `current_observation` object of Appendix B, Figure 11."""
    if view is None:
        view = compute_view(graph)
    vis = view.visible
    nodes = [node_record(graph, nid) for nid in sorted(vis)]
    edges = []
    for e in sorted(graph.edges):
        if e.src in vis and e.dst in vis:
            if e.rel == OCCLUDES and not graph.occlusion_active(e):
                continue
            edges.append({"from": e.src, "to": e.dst, "relation": e.rel})
    held = [{"id": h, "name": graph.nodes[h].name} for h in graph.held()]
    robot: dict[str, Any] = {
        "hands": {
            "left": graph.attr("robot", "left"),
            "right": graph.attr("robot", "right"),
        },
    }
    if navigation_enabled(graph):  # Figure 11: the navigation fields only "when applicable"
        room = graph.robot_room()
        robot["navigation_enabled"] = True
        robot["current_room"] = room
        robot["adjacent_rooms"] = graph.adjacent_rooms(room)
    return {
        "visible_nodes": nodes,
        "visible_edges": edges,
        "held_objects": held,
        "robot": robot,
    }


def navigation_enabled(graph: SceneGraph) -> bool:
    """Indoor scenes (rooms joined by ADJACENT edges, robot in a room) enable `walk`."""
    return graph.robot_room() is not None and bool(graph.edges_of(ADJACENT))
