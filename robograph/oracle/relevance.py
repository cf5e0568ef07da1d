"""Relevance pruning: which nodes may be the *subject* of an oracle action.

A node outside the returned set is *frozen*: the search never grabs, opens, closes, presses,
attaches or moves it aside (it may still be a placement target). docs/oracle.md proves that an
optimal plan never needs such an action: deleting every action whose subject is frozen from a
valid plan leaves a valid plan that reaches the same goal, because a frozen node

* is not named by the goal, is not held at the start, and is no PART_OF partner of a relevant node;
* is no ancestor and no occluder of a relevant node or of any placement target, and is not itself a
  placement target that can move or open (so its location, openness and occlusion state never
  change what the plan can see, reach, place onto or cycle-check);
* is not carried by a relevant movable node (so it never blocks that node's grab as a load);
* does not sit in a capacity-limited node whose capacity could ever bind (so leaving it in place
  never blocks a put).

Deleting its actions only frees hands and leaves everything else the plan touches unchanged.
"""

from __future__ import annotations

from robograph.facts import Goal
from robograph.graph import (
    ASSEMBLY,
    CONTAINER,
    GRABBABLE,
    MOVABLE,
    OCCLUDES,
    OPENABLE,
    PART,
    PART_OF,
    ROBOT_ID,
    ROOM,
    SURFACE,
    SceneGraph,
)


def relevant_nodes(graph: SceneGraph, goal: Goal) -> frozenset[str]:
    """The closure described in the module docstring (rooms excluded: walks are always kept)."""
    nodes = graph.nodes
    occluders: dict[str, set[str]] = {}
    partners: dict[str, set[str]] = {}
    for e in graph.edges:
        if e.rel == OCCLUDES:
            occluders.setdefault(e.dst, set()).add(e.src)
        elif e.rel == PART_OF:
            partners.setdefault(e.src, set()).add(e.dst)
            partners.setdefault(e.dst, set()).add(e.src)

    def mobile(nid: str) -> bool:
        nd = nodes[nid]
        return (nd.has(GRABBABLE) and nd.has(MOVABLE)) or nd.has(PART) or nd.has(ASSEMBLY)

    def keep(nid: str) -> bool:
        return nid in nodes and nid != ROBOT_ID and nodes[nid].kind != ROOM

    receivers = sorted(nid for nid, nd in nodes.items()
                       if keep(nid) and (nd.has(SURFACE) or nd.has(CONTAINER)))
    rel: set[str] = {a for f in goal for a in f.args if keep(a)}
    rel.update(graph.held())
    # a placement target whose location or openness can change is relevant itself
    rel.update(t for t in receivers if mobile(t) or nodes[t].has(OPENABLE))
    # every placement target's view depends on its ancestors and occluders
    for t in receivers:
        rel.update(a for a in graph.ancestors(t) if keep(a))
        rel.update(occluders.get(t, ()))
    while True:
        new: set[str] = set()
        for nid in rel:
            new.update(graph.ancestors(nid))
            new.update(occluders.get(nid, ()))
            new.update(partners.get(nid, ()))
            if mobile(nid):
                new.update(graph.children(nid))  # a loaded carrier cannot be grabbed
        movers = sum(1 for x in rel if mobile(x))
        for t in receivers:  # a full target must be emptied first
            cap = nodes[t].capacity
            if cap is not None and graph.load(t) + movers > cap:
                new.update(graph.children(t))
        new = {x for x in new if keep(x)} - rel
        if not new:
            return frozenset(rel)
        rel |= new
