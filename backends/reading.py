"""World measurements -> graph facts, shared by every physical backend (pure: no simulator).

A backend measures; this module decides what the measurements mean. The region predicates
(INSIDE: centre within a container's interior; ON: bottom resting on a support's floor) take a
point already expressed in the region's floor frame, so MuJoCo and SAPIEN read the same facts
from the same geometry, and `rewrites_to` turns a `Reading` into the rewrites from the expected
graph to the measured one. Nothing here tests a measurement against the expected graph first:
`expected` only says what changed, never what was seen.

OCCLUDES and `moved_aside` come from measured coverage (`occlusion_rewrites`); how coverage is
measured (ray casts from the head camera in MuJoCo) stays in the backend. A backend that does
not measure coverage leaves `Reading.placed_blockers` empty: its OCCLUDES edges then stay as
static structure, except that a blocker in a hand has none (as after a grab).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robograph.graph import OCCLUDES, ROBOT_ID, Edge, SceneGraph
from robograph.rewrite import DETACHED, HELD, AddEdge, MoveNode, RemoveEdge, Rewrite, SetAttr

OPEN_FRACTION = 0.5  # an articulation is open when its joints have travelled more than half way
TOL = 0.025  # m, position tolerance for containment / support; set by hand
REST = 0.03  # m, an object's bottom at most this far above a floor still rests on it; set by hand

Location = tuple[str, str]  # (relation, target) with relation INSIDE/ON/IN_ROOM/HELD/DETACHED


@dataclass(frozen=True, slots=True)
class Reading:
    """What the world shows: each body's location, measured attributes, the robot's room, and
    the (blocker, target) pairs the camera sees covered, over the blockers that could be
    measured (placed, not held; empty where the backend does not measure coverage)."""

    locations: dict[str, Location]
    attrs: dict[tuple[str, str], object]
    robot_room: str | None
    occlusions: frozenset[tuple[str, str]] = frozenset()
    placed_blockers: frozenset[str] = frozenset()


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


def rewrites_to(expected: SceneGraph, reading: Reading) -> list[Rewrite]:
    """Rewrites turning `expected` into the measured graph (empty when they agree). Occlusions of
    an object a grab failed to pick up are measured like any other, so no pre-action graph is needed."""
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
    out += into_hands
    for (node, key), value in sorted(reading.attrs.items()):
        if bool(expected.attr(node, key, False)) != bool(value):
            out.append(SetAttr(node, key, value))
    out += occlusion_rewrites(expected, reading)
    if reading.robot_room is not None and reading.robot_room != expected.robot_room():
        out.append(SetAttr(ROBOT_ID, "room", reading.robot_room))
    return out


def occlusion_rewrites(expected: SceneGraph, reading: Reading) -> list[Rewrite]:
    """OCCLUDES edges and `moved_aside` from the measured coverage. The graph keeps a blocker's
    edges while it is set aside (`moved_aside`) and drops them when it is picked up (grab), so:
    a blocker in a hand has no edges; an edge to a target in a hand is left as it is (nothing
    to measure); a placed blocker that covers nothing it has edges to is moved aside; one that covers a target has an active edge to it (an attribute-conditioned
    edge must agree with its condition under the measured attributes, else it is corrected)."""
    out: list[Rewrite] = []
    held = {n for n, (rel, _) in reading.locations.items() if rel == HELD}
    blockers = {e.src for e in expected.edges_of(OCCLUDES)} | {b for b, _ in reading.occlusions}
    for b in sorted(blockers):
        # an edge to a target in a hand says nothing either way: the target is not there to be
        # hidden (a hidden object grabbed when the runtime's view rules are bypassed)
        edges = [e for e in expected.edges_from(b, OCCLUDES) if e.dst not in held]
        aside = bool(expected.attr(b, "moved_aside"))
        if b in held:  # picked up: occludes nothing, as after a grab
            out += [RemoveEdge(e) for e in edges]
            if aside:
                out.append(SetAttr(b, "moved_aside", False))
            continue
        if b not in reading.placed_blockers:
            continue  # no body of its own (an assembled part, a node without geometry)
        covered = {t for blocker, t in reading.occlusions if blocker == b}
        for e in edges:
            if not e.when:
                continue
            holds = all(bool(reading.attrs.get((b, k), expected.attr(b, k, False))) == bool(v) for k, v in e.when)
            seen = e.dst in covered
            if holds and not seen:
                out.append(RemoveEdge(e))
            elif holds:
                covered.discard(e.dst)  # accounted for by the conditioned edge
            # covered while the condition fails: a plain edge, below
        plain = {e.dst for e in edges if not e.when}
        if not covered:
            if plain and not aside:
                out.append(SetAttr(b, "moved_aside", True))
            continue
        if aside:
            out.append(SetAttr(b, "moved_aside", False))
        out += [AddEdge(Edge(b, OCCLUDES, t)) for t in sorted(covered - plain)]
        out += [RemoveEdge(Edge(b, OCCLUDES, t)) for t in sorted(plain - covered)]
    return out
