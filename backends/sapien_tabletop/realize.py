"""Graph -> world for exogenous rewrites (I2-I6) on the tabletop: make the SAPIEN world agree
with a graph.

As in the MuJoCo backend, `sync` compares what the world measures with the target graph and
fixes each difference rather than interpreting rewrites one by one, so it is idempotent and
covers any mix: `open` sets the joint (what lies in a drawer rides along), `pressed` the button;
a relocated object is put at a free spot of its new region (`spots.free_spots`, measured from
the bodies standing there now); an added node (I6) gets a new body of its catalog size; an
active OCCLUDES edge puts its blocker in front of its target as seen from the head camera (-x),
target and blocker taking a free spot of their support together; a removed edge, or a blocker
`moved_aside`, moves the blocker off that spot. An object put into a hand is welded to its
grip (as an assisted grasp).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from robograph.errors import BackendError
from robograph.graph import CONTAINER, INSIDE, OBJECT, OCCLUDES, ON, SceneGraph
from robograph.rewrite import DETACHED, HELD
from robograph_backends.mujoco_kitchen.catalog import appearance
from robograph_backends.sapien_tabletop.hiding import GROW_MARGIN, grown_box, grown_placement
from robograph_backends.sapien_tabletop.layout import Placement
from robograph_backends.sapien_tabletop.sense import (
    body_pose,
    floor_frame,
    measure_location,
    position,
    region_holds,
)
from robograph_backends.sapien_tabletop.spots import aside_spots, half_of, spots_on
from robograph_backends.sapien_tabletop.world import World

SETTLE_STEPS = 150  # physics steps after realizing, so moved bodies come to rest (0.3 s)
BLOCKER_GAP = 0.012  # m between a blocker's back and its target's front; as the MuJoCo kitchen
ASIDE_DISTANCE = 0.04  # m a blocker this far from its hiding spot no longer stands there; set by hand
RIM_CLEARANCE = 0.01  # m a blocker grown in a container stays below its walls' top
ASIDE_CLEAR = 0.05  # m kept around a blocker's hiding spot when it is moved aside
PARK = (-3.0, 0.0)  # m: where an added node's body is built before it is put in place
SPOT_TRIES = 60  # free spots a relocated node tries for one where no new occlusion is measured
QUARTER_TURN = (0.7071068, 0.0, 0.0, 0.7071068)  # w, x, y, z: a quarter turn about z


class RealizeError(BackendError):
    """A rewrite that cannot be made physical here (no room in a region, an object into a hand)."""


def sync(world: World, graph: SceneGraph) -> None:
    _add_nodes(world, graph)
    _attributes(world, graph)
    for node in sorted(world.bodies):
        n = graph.nodes.get(node)
        if n is not None and n.kind == OBJECT:
            _location(world, graph, node)
    _occlusions(world, graph)
    world.step(SETTLE_STEPS)


def _add_nodes(world: World, graph: SceneGraph) -> None:
    for node in sorted(graph.nodes):
        n = graph.nodes[node]
        if node in world.bodies or n.kind != OBJECT:
            continue
        if graph.location.get(node) is None and graph.hand_of(node) is None:
            continue  # an assembly whole or a part without a place needs no body
        app = appearance(n)
        x, y = PARK[0], PARK[1] - 0.5 * len(world.bodies)  # apart from anything parked before
        edge = graph.location.get(node)
        pl = Placement(node, (x, y, app.size[2] / 2), app.size, app, edge.dst if edge else None,
                       edge.rel if edge else None, n.has(CONTAINER) or app.articulation == "drawer")
        world.add_object(pl, n)


def _attributes(world: World, graph: SceneGraph) -> None:
    from robograph_backends.sapien_tabletop.sense import joint_fraction
    from robograph_backends.sapien_tabletop.world import BUTTON_DEPTH

    for node, (articulation, closed, opened) in sorted(world.joints.items()):
        if node not in graph.nodes or (joint_fraction(world, node) > 0.5) == bool(graph.is_open(node)):
            continue
        drawer = world.layout.placements[node].app.articulation == "drawer"
        contents = [o for o in sorted(world.bodies) if o != node and graph.nodes.get(o) is not None
                    and graph.nodes[o].kind == OBJECT and region_holds(world, o, INSIDE, node)] if drawer else []
        before = body_pose(world, node)
        articulation.set_qpos(np.array([opened if graph.is_open(node) else closed]))
        articulation.set_qvel(np.zeros(articulation.dof))
        if drawer:  # contents ride along with the drawer's box
            shift = body_pose(world, node)[:3, 3] - before[:3, 3]
            for o in contents:
                world.teleport(o, position(world, o) + shift)
    for node, articulation in sorted(world.buttons.items()):
        if node in graph.nodes:
            articulation.set_qpos(np.array([BUTTON_DEPTH if graph.attr(node, "pressed") else 0.0]))
            articulation.set_qvel(np.zeros(articulation.dof))


def _location(world: World, graph: SceneGraph, node: str) -> None:
    hand = graph.hand_of(node)
    edge = graph.location.get(node)
    want = (HELD, hand) if hand else ((edge.rel, edge.dst) if edge else (DETACHED, ""))
    if want[0] == DETACHED or measure_location(world, node, graph) == want:
        return
    world.unweld(node)
    if want[0] == HELD:  # into the hand's grip, welded there (as an assisted grasp)
        world.teleport(node, world.grip_pose(want[1])[:3, 3])
        world.weld(node, want[1])
        return
    rel, dst = want
    if dst not in world.layout.regions:
        raise RealizeError(f"{dst!r} has no region to put {node!r} {rel}; regions: {', '.join(sorted(world.layout.regions))}")
    _reparent(world, node, dst, rel)
    if not _unhidden_spot(world, graph, node, dst):
        raise RealizeError(f"no free spot {rel} {dst} for {node!r}")


def _unhidden_spot(world: World, graph: SceneGraph, node: str, dst: str) -> bool:
    """Put `node` at a free spot of `dst` where it neither hides nor is hidden by anything the
    graph has no OCCLUDES edge for (a relocation moves a node, it adds no occlusion: Cosmetics-1's
    makeup sponge put on the vanity at the first free spot stood behind the 22 cm hand mirror),
    trying the first SPOT_TRIES spots; else the first spot. False when there is no free spot."""
    first = None
    for k, spot in enumerate(spots_on(world, node, dst)):
        first = spot if first is None else first
        if k >= SPOT_TRIES:
            break
        world.teleport(node, spot)
        if _new_occlusions(world, graph, node) == set():
            return True
    if first is None:
        return False
    world.teleport(node, first)
    return True


def _new_occlusions(world: World, graph: SceneGraph, node: str) -> set[tuple[str, str]]:
    """Measured (blocker, target) pairs involving `node` that are not active edges of `graph`."""
    from robograph_backends.sapien_tabletop.occlusion import covered_pairs

    locations = {n: (e.rel, e.dst) for n, e in graph.location.items() if n in world.bodies}
    placed = {n for n, (rel, _) in locations.items() if rel in (INSIDE, ON) and graph.nodes[n].kind == OBJECT}
    pairs = covered_pairs(world, graph, locations, placed, involving=node)
    want = {(e.src, e.dst) for e in graph.edges_of(OCCLUDES) if graph.occlusion_active(e)}
    return {p for p in pairs if node in p and p not in want}


def _reparent(world: World, node: str, dst: str, rel: str) -> None:
    world.layout.placements[node] = replace(world.layout.placements[node], parent=dst, rel=rel)


def _occlusions(world: World, graph: SceneGraph) -> None:
    """Active OCCLUDES edges: blocker in front of its target; removed edges and blockers moved
    aside: the blocker off its hiding spot."""
    for e in sorted(graph.edges):
        if e.rel != OCCLUDES or e.when or e.src not in world.bodies or e.dst not in world.bodies:
            continue
        if not graph.occlusion_active(e) or graph.hand_of(e.src) or graph.hand_of(e.dst):
            continue
        record = world.blocking.get(e.src)
        here = position(world, e.src)[:2]
        if record is not None and record[0] == e.dst and np.linalg.norm(here - record[1]) <= ASIDE_DISTANCE:
            continue
        if graph.location.get(e.src) is None or graph.location.get(e.dst) is None or \
                (graph.location[e.src].rel, graph.location[e.src].dst) != (graph.location[e.dst].rel, graph.location[e.dst].dst):
            world.blocking.pop(e.src, None)  # the graph puts them apart: locations win, nothing hides
            continue
        _hide(world, graph, e.src, e.dst)
    for blocker, (target, spot) in sorted(world.blocking.items()):
        edge = next((e for e in graph.edges_from(blocker, OCCLUDES) if e.dst == target), None) \
            if blocker in graph.nodes else None
        aside = edge is not None and bool(graph.attr(blocker, "moved_aside"))
        if edge is None:
            del world.blocking[blocker]
        if (edge is None or aside) and graph.hand_of(blocker) is None and blocker in world.bodies \
                and np.linalg.norm(position(world, blocker)[:2] - spot) <= ASIDE_DISTANCE:
            _set_aside(world, graph, blocker, target, spot)


def _hide(world: World, graph: SceneGraph, blocker: str, target: str) -> None:
    """Target and blocker take one free spot of the target's support together, the blocker in
    front (-x, toward the head camera) of the target, centred on it across."""
    loc = graph.location.get(target)
    if loc is None or loc.dst not in world.layout.regions:
        raise RealizeError(f"{target!r} has no support on which {blocker!r} could hide it")
    th, bh = half_of(world, target), half_of(world, blocker)
    # room for the blocker as `_grow_to_hide` will widen it
    half = np.array([th[0] + bh[0] + BLOCKER_GAP / 2, max(th[1] + GROW_MARGIN, bh[1]), max(th[2], bh[2])])
    centre = next(spots_on(world, target, loc.dst, half=half, skip=(blocker,), prefer_front=False), None)
    if centre is None:
        raise RealizeError(f"no room on {loc.dst!r} for {blocker!r} in front of {target!r}")
    F, _ = floor_frame(world, loc.dst)
    along = F[:3, 0]  # the region's x: away from the robot
    world.teleport(target, centre + along * (half[0] - th[0]) + np.array([0, 0, th[2] - half[2]]))
    world.teleport(blocker, centre - along * (half[0] - bh[0]) + np.array([0, 0, bh[2] - half[2]]))
    _grow_to_hide(world, graph, blocker, target)
    _reparent(world, target, loc.dst, loc.rel)
    bloc = graph.location.get(blocker)
    if bloc is not None:
        _reparent(world, blocker, bloc.dst, bloc.rel)
    world.blocking[blocker] = (target, position(world, blocker)[:2].copy())


def _grow_to_hide(world: World, graph: SceneGraph, blocker: str, target: str) -> None:
    """Make a blocker standing in front of its target hide it from the head camera, as the
    layout does for G0's blockers (`hiding.grown_box` on the two boxes where they now stand):
    its body is rebuilt wider and taller where it stands, inside a container no higher than its
    walls. One that holds or carries something keeps its size (reconcile then reports what it
    really hides)."""
    loc = graph.location.get(target)
    if loc is None or any(pl.parent == blocker for pl in world.layout.placements.values()):
        return
    top = None
    if loc.rel == INSIDE and loc.dst in world.layout.regions:  # no higher than the walls: a taller
        F, region = floor_frame(world, loc.dst)  # blocker in a drawer pushed the drawers open
        top = float(F[2, 3]) + region.height - RIM_CLEARANCE
    pl = world.layout.placements[blocker]
    b_centre, t_centre = position(world, blocker), position(world, target)
    b_half, t_half = np.asarray(pl.size) / 2, half_of(world, target)
    centre, half = grown_box(b_centre, b_half, t_centre, t_half, top=top)
    if np.allclose(half, b_half):
        return
    world.rebuild(grown_placement(replace(pl, centre=tuple(float(v) for v in b_centre)), centre, half))


def _set_aside(world: World, graph: SceneGraph, blocker: str, target: str, spot: np.ndarray) -> None:
    """The blocker off its hiding spot, on the same support (the graph's `moved_aside` keeps its
    location: a blocker moved aside in a bin stays in the bin): a free spot ASIDE_CLEAR clear of
    where it hid, else, in a walled container, `_aside_within`."""
    loc = graph.location.get(blocker)
    if loc is None or loc.dst not in world.layout.regions:
        return
    to = next(aside_spots(world, blocker, loc.dst, spot, ASIDE_CLEAR), None)
    if to is not None:
        world.teleport(blocker, to)
        return
    if world.layout.placements[loc.dst].container and target in world.bodies \
            and _aside_within(world, graph, blocker, target, loc.dst, spot):
        return
    raise RealizeError(f"no room on {loc.dst!r} to move {blocker!r} aside")


def _aside_within(world: World, graph: SceneGraph, blocker: str, target: str, container: str,
                  spot: np.ndarray) -> bool:
    """Inside a container there is rarely ASIDE_CLEAR all round a hiding spot (Desk-1's trash bin,
    20 x 30 cm inside, holds a note card and the crumpled paper grown 15 cm wide to hide it). So:
    any free spot more than ASIDE_DISTANCE from the hiding spot, the blocker as it stands or
    turned a quarter about z (its long side along x, beside the target), where it is measured
    (`occlusion.pair_coverage`) no longer hiding the target. False, the blocker back where it
    was, when there is none."""
    from robograph_backends.coverage import COVER_FRACTION
    from robograph_backends.sapien_tabletop.occlusion import pair_coverage

    before, quat_before = position(world, blocker).copy(), _quat(world, blocker)
    half = half_of(world, blocker)
    for quat, h in ((quat_before, half), (QUARTER_TURN, half[[1, 0, 2]])):
        for centre in spots_on(world, blocker, container, half=h):
            if np.linalg.norm(centre[:2] - spot) <= ASIDE_DISTANCE + 0.01:
                continue
            world.teleport(blocker, centre, quat)
            if pair_coverage(world, graph, blocker, target) < COVER_FRACTION:
                return True
    world.teleport(blocker, before, quat_before)
    return False


def _quat(world: World, node: str) -> tuple[float, ...]:
    from robograph.rotations import quat_from_mat

    return tuple(float(v) for v in quat_from_mat(body_pose(world, node)[:3, :3]))
