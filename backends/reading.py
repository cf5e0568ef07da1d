"""World measurements -> graph facts, shared by every physical backend (pure: no simulator).

A backend measures; this module decides what the measurements mean. The region predicates
(INSIDE: centre within a container's interior; ON: bottom resting on a support's floor) take a
point already expressed in the region's floor frame, so MuJoCo and SAPIEN read the same facts
from the same geometry, and `rewrites_to` turns a `Reading` into the rewrites from the expected
graph to the measured one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robograph.graph import OCCLUDES, ROBOT_ID, SceneGraph
from robograph.rewrite import DETACHED, HELD, AddEdge, MoveNode, Rewrite, SetAttr

OPEN_FRACTION = 0.5  # open when a joint has travelled more than half way
ASIDE_DISTANCE = 0.04  # a blocker displaced this far from its blocking pose is moved aside (m)
TOL = 0.025  # position tolerance for containment / support (m)
REST = 0.03  # an object's bottom at most this far above a floor still rests on it (m)

Location = tuple[str, str]  # (relation, target) with relation INSIDE/ON/IN_ROOM/HELD/DETACHED


@dataclass(frozen=True, slots=True)
class Reading:
    locations: dict[str, Location]
    attrs: dict[tuple[str, str], object]
    robot_room: str | None


def within(p: np.ndarray, half: tuple[float, float], height: float, half_z: float, tol: float = TOL) -> bool:
    """INSIDE: the object's centre `p` (in the region's floor frame) lies within the region's
    footprint, above its floor, and either below the rim or standing on the floor (a tall
    bottle in a shallow bin)."""
    bottom = p[2] - half_z
    return bool(abs(p[0]) <= half[0] + tol and abs(p[1]) <= half[1] + tol
                and bottom + 0.005 >= -tol and (p[2] <= height + tol or bottom <= REST))


def resting(p: np.ndarray, half: tuple[float, float], half_z: float, tol: float = TOL) -> bool:
    """ON: the object's bottom (centre `p` in the floor frame) rests on the floor within its footprint."""
    bottom = p[2] - half_z
    return bool(abs(p[0]) <= half[0] + tol and abs(p[1]) <= half[1] + tol and -tol <= bottom <= REST)


def is_open(fraction: float) -> bool:
    """`open` from the fraction of its travel a joint has moved (0 closed, 1 fully open)."""
    return fraction > OPEN_FRACTION


def rewrites_to(expected: SceneGraph, reading: Reading, before: SceneGraph | None = None) -> list[Rewrite]:
    """Rewrites turning `expected` into the measured graph (empty when they agree)."""
    out: list[Rewrite] = []
    into_hands: list[Rewrite] = []
    for node, (rel, dst) in sorted(reading.locations.items()):
        hand = expected.hand_of(node)
        edge = expected.location.get(node)
        current: Location = (HELD, hand) if hand else ((edge.rel, edge.dst) if edge else (DETACHED, ""))
        if current == (rel, dst):
            continue
        if rel == HELD:
            if hand is not None:
                out.append(MoveNode(node, DETACHED, ""))
            into_hands.append(MoveNode(node, HELD, dst))
        else:
            out.append(MoveNode(node, rel, dst))
            # an object the action failed to pick up keeps the occlusions it had
            if before is not None and hand is not None and before.hand_of(node) is None:
                out += [AddEdge(e) for e in before.edges_from(node, OCCLUDES) if e not in expected.edges]
    out += into_hands
    for (node, key), value in sorted(reading.attrs.items()):
        if bool(expected.attr(node, key, False)) != bool(value):
            out.append(SetAttr(node, key, value))
    if reading.robot_room is not None and reading.robot_room != expected.robot_room():
        out.append(SetAttr(ROBOT_ID, "room", reading.robot_room))
    return out
