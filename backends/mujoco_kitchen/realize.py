"""Graph -> world for exogenous rewrites: make the physical state agree with a graph.

Rather than interpreting each rewrite, `sync` compares the measured state with the target graph
and fixes every difference, which makes realization idempotent and covers any rewrite mix:
relocations teleport the object to a free spot of the new region (or into a hand, with a weld),
`open` sets the joints (carrying a drawer's contents along), `pressed` the button, `assembled`
the parts' weld, `moved_aside` and new OCCLUDES edges rearrange blocker and target, added nodes
take a pre-allocated spare body resized to their catalog size, and a room change moves the base.
"""

from __future__ import annotations

import numpy as np

from robograph.errors import BackendError
from robograph.graph import IN_ROOM, OCCLUDES, ROBOT_ID, Edge, SceneGraph
from robograph.rewrite import DETACHED, HELD
from robograph.rotations import heading_of, mat_from_quat, quat_from_yaw
from robograph_backends.mujoco_kitchen.catalog import appearance
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.dress import collision_geoms, undress
from robograph_backends.mujoco_kitchen.placement import contains, free_spot, local
from robograph_backends.mujoco_kitchen.plan import CORRIDOR_X, ItemPlan, Region
from robograph_backends.mujoco_kitchen.robot import FINGER_OPEN, HANDS, RobotNames
from robograph_backends.mujoco_kitchen.sense import (
    half_of,
    joint_fraction,
    measure_location,
    measure_locations,
    measure_occlusions,
    node_bodies,
    pair_coverage,
    placed_bodies,
)
from robograph_backends.mujoco_kitchen.tuning import (
    BLOCKER_GAP,
    GROW_COVER,
    GROW_MARGIN,
    GROW_STEP,
    GROW_STEPS,
    PLACE_CLEARANCE,
    TALL,
    TALL_COM_DROP,
)
from robograph_backends.mujoco_kitchen.world import World, assembly_pairs


class RealizeError(BackendError):
    """A rewrite that cannot be made physical (no spare body left, no room in a region)."""


def sync(world: World, graph: SceneGraph) -> None:
    _add_nodes(world, graph)
    _robot_room(world, graph)
    _attributes(world, graph)
    for node in sorted(world.plan.items):
        if node in graph.nodes:
            _location(world, graph, node)
    _occlusions(world, graph)
    world.forward()
    world.step(150)


def _add_nodes(world: World, graph: SceneGraph) -> None:
    bodies = node_bodies(world)
    for node in sorted(graph.nodes):
        n = graph.nodes[node]
        if node in bodies or node in world.plan.node_body or n.kind in ("room", "robot", "furniture"):
            continue
        if graph.location.get(node) is None and graph.hand_of(node) is None:
            continue  # an assembly whole or a part without a place needs no body
        free = [s for s in world.plan.spares if s not in world.spare_of.values()]
        if not free:
            raise RealizeError(f"no spare body left for added node {node!r}; build with more spares")
        body = free[0]
        app = appearance(n)
        half = np.array([app.size[1] / 2, app.size[0] / 2, app.size[2] / 2])
        bid = world.body_id(body)
        gid = int(world.model.body_geomadr[bid])
        world.model.geom_size[gid] = half
        _refit_bounds(world, bid)
        world.model.geom_rgba[gid] = app.rgba
        world.model.body_gravcomp[bid] = 0.0  # parked weightless (bodies.spare)
        world.spare_of[node] = body
        world.plan.items[node] = ItemPlan(node, body, (float(half[0]), float(half[1]), float(half[2])), "box", False)


def _robot_room(world: World, graph: SceneGraph) -> None:
    room = graph.robot_room() if ROBOT_ID in graph.nodes else None
    if room is None or world.plan.room_at(world.qpos("base_x"), world.qpos("base_y")) == room:
        return
    span = world.plan.room_span(room)
    y = (span.y0 + span.y1) / 2
    for name, v in (("base_x", CORRIDOR_X), ("base_y", y), ("base_yaw", 0.0)):
        world.set_qpos(name, v)
        world.data.ctrl[world.actuator(f"act_{name}")] = v
    world.forward()


def _attributes(world: World, graph: SceneGraph) -> None:
    for node, arts in world.plan.articulations.items():
        if node not in graph.nodes:
            continue
        want = bool(graph.is_open(node))
        if (joint_fraction(world, node) > 0.5) == want:
            continue
        region = world.plan.regions.get(node)
        inside = _contents(world, region) if region is not None else []
        for a in arts:
            old = world.qpos(a.joint)
            new = a.open if want else a.closed
            world.set_qpos(a.joint, new)
            world.release_joint(a.joint)
            if a.kind == "drawer":
                for body in inside:  # the slide axis is -x: contents ride along
                    pos = world.body_pos(body) + np.array([-(new - old), 0.0, 0.0])
                    world.set_free_pose(body, pos, world.data.xquat[world.body_id(body)])
        world.forward()
    for node, button in world.plan.buttons.items():
        if node in graph.nodes:
            world.set_qpos(button.joint, -button.depth if graph.attr(node, "pressed") else 0.0)
    for whole, _a, _b in assembly_pairs(graph):
        name = f"asm_{whole}"
        if name in world.eq_names():
            if graph.attr(whole, "assembled") and not world.weld_active(name):
                world.activate_weld(name)
            elif not graph.attr(whole, "assembled") and world.weld_active(name):
                world.deactivate_weld(name)
    world.forward()


def _contents(world: World, region: Region) -> list[str]:
    out = []
    for item in world.plan.items.values():
        if contains(world, region, world.body_pos(item.body), item.half[2]):
            out.append(item.body)
    return out


def _release(world: World, body: str) -> None:
    for hand in HANDS:
        name = f"weld_{hand}_{body}"
        if world.weld_active(name):
            world.deactivate_weld(name)
            for a in RobotNames.finger_actuators(hand):
                aid = world.actuator(a)
                world.data.ctrl[aid] = FINGER_OPEN if a.endswith("1") else -FINGER_OPEN


def _location(world: World, graph: SceneGraph, node: str) -> None:
    hand = graph.hand_of(node)
    edge = graph.location.get(node)
    want = (HELD, hand) if hand else ((edge.rel, edge.dst) if edge else (DETACHED, ""))
    if want[0] == DETACHED:
        return
    have = measure_location(world, node, graph, assisted_only=False)
    if have == want:
        return
    body = node_bodies(world)[node]
    half = half_of(world, node)
    _release(world, body)
    if want[0] == HELD:
        grip = world.site_pos(RobotNames.grip_site(want[1]))
        world.set_free_pose(body, grip - np.array([0.0, 0.0, max(half[2] - 0.02, 0.0)]),
                            _across_fingers(world, want[1], half))
        world.forward()
        world.activate_weld(f"weld_{want[1]}_{body}")
        return
    if want[0] == IN_ROOM:
        span = world.plan.room_span(want[1])
        region = Region(want[1], "world", (0.7, (span.y0 + span.y1) / 2, 0.0), (0.4, (span.y1 - span.y0) / 2 - 0.3),
                        2.0, False)
    else:
        region = world.plan.support_region(want[1], want[0])
        if region is None:
            raise RealizeError(f"{want[1]!r} has no region to put {node!r} {want[0]}")
    spot = free_spot(world, region, half, {body})
    if spot is None:
        raise RealizeError(f"no free spot {want[0]} {want[1]} for {node!r}")
    world.set_free_pose(body, spot)
    world.forward()


def _across_fingers(world: World, hand: str, half: np.ndarray) -> np.ndarray:
    """Orientation (quaternion) that puts an object's narrower horizontal side between the
    fingers of `hand`, as a real grasp would (the fingers close along the grip site's x)."""
    axis = np.array(world.data.site(RobotNames.grip_site(hand)).xmat).reshape(3, 3)[:, 0]
    return quat_from_yaw(heading_of(axis) + (0.0 if half[0] <= half[1] else np.pi / 2))


def _grow_to_hide(world: World, graph: SceneGraph, blocker: str, target: str) -> None:
    """Make a blocker standing in front of its target hide it from the head camera, as the
    layout does for G0's occluders: rebuilt as a box at least as wide as the target, grown
    taller in GROW_STEP steps until the measured coverage passes COVER_FRACTION. A vessel (several
    geoms) keeps its shape; reconcile then reports what it really hides."""
    if pair_coverage(world, graph, blocker, target) >= GROW_COVER:
        return
    item = world.plan.items[blocker]
    bid = world.body_id(item.body)
    if item.hollow or len(collision_geoms(world.model, bid)) != 1:
        return
    pos = world.body_pos(item.body)
    floor = float(pos[2]) - float(item.half[2]) - PLACE_CLEARANCE  # placed that far above it
    th = half_of(world, target)
    half = np.array([item.half[0], max(item.half[1], float(th[1]) + GROW_MARGIN), item.half[2]])
    for _ in range(GROW_STEPS):
        _resize_box(world, blocker, half)
        world.set_free_pose(item.body, (pos[0], pos[1], floor + half[2] + PLACE_CLEARANCE))
        world.forward()
        if pair_coverage(world, graph, blocker, target) >= GROW_COVER:
            return
        half[2] += GROW_STEP / 2


def _resize_box(world: World, node: str, half: np.ndarray) -> None:
    """Turn a single-geom body into a box of half extents `half` (same mass, box inertia)."""
    mj = mujoco_module()
    item = world.plan.items[node]
    bid = world.body_id(item.body)
    gid = int(world.model.body_geomadr[bid])
    m = world.model
    m.geom_type[gid] = mj.mjtGeom.mjGEOM_BOX
    m.geom_size[gid] = half
    hx, hy, hz = (float(v) for v in half)
    mass = float(m.body_mass[bid])
    m.body_inertia[bid] = (mass / 3 * (hy**2 + hz**2), mass / 3 * (hx**2 + hz**2), mass / 3 * (hx**2 + hy**2))
    # bottom-weighted as the layout builds tall items (they topple otherwise), centred if not tall
    m.body_ipos[bid] = (0.0, 0.0, -TALL_COM_DROP * hz if hz > TALL * min(hx, hy) else 0.0)
    # the compiler flagged a body built with its centre of mass at its origin as "same frame",
    # and kinematics then ignores body_ipos: without this the drop above never took effect
    m.body_sameframe[bid] = mj.mjtSameFrame.mjSAMEFRAME_NONE
    _refit_bounds(world, bid)
    undress(m, bid)  # the cameras show the grown box the physics and the occlusion use
    world.plan.items[node] = ItemPlan(node, item.body, (hx, hy, hz), "box", False)


def _refit_bounds(world: World, bid: int) -> None:
    """Refit the collision bounds of a single-geom box body after its size or centre of mass
    changed at run time. MuJoCo computes them once at compile time: the geom's bounding sphere
    and box (`geom_rbound`, `geom_aabb`, geom frame) and the body's bounding-volume box
    (`bvh_aabb`, in the body's inertial frame), which the mid-phase tests before any narrow
    phase. A grown blocker left with its old, smaller `bvh_aabb` sank through the counter until
    that old box touched it (2.7 cm for a croissant grown from 4 to 10 cm tall) and then read
    IN_ROOM instead of ON."""
    m = world.model
    gid = int(m.body_geomadr[bid])
    half = np.asarray(m.geom_size[gid], dtype=float)
    m.geom_rbound[gid] = float(np.linalg.norm(half))
    m.geom_aabb[gid] = np.concatenate([np.zeros(3), half])
    rot_i, rot_g = mat_from_quat(m.body_iquat[bid]), mat_from_quat(m.geom_quat[gid])
    geom_in_inertial = rot_i.T @ rot_g
    centre = rot_i.T @ (np.asarray(m.geom_pos[gid]) - np.asarray(m.body_ipos[bid]))
    m.bvh_aabb[int(m.body_bvhadr[bid])] = np.concatenate([centre, np.abs(geom_in_inertial) @ half])


def _occlusions(world: World, graph: SceneGraph) -> None:
    """Put each active blocker in front of its target (as the head camera sees it)."""
    bodies = node_bodies(world)
    for e in sorted(graph.edges):
        if e.rel != OCCLUDES or e.when or e.src not in bodies or e.dst not in bodies:
            continue
        if not graph.occlusion_active(e):
            continue
        blocker, target = e.src, e.dst
        record = world.plan.blocking.get(blocker)
        bpos = world.body_pos(bodies[blocker])
        if record is not None and record[0] == target and np.linalg.norm(bpos[:2] - np.asarray(record[1][:2])) < 0.03:
            continue
        loc = graph.location.get(target)
        if loc is None:
            continue
        region = world.plan.support_region(loc.dst, loc.rel)
        if region is None:
            continue
        th, bh = half_of(world, target), half_of(world, blocker)
        tspot = free_spot(world, region, th, {bodies[target], bodies[blocker]}, prefer_front=False)
        if tspot is not None:
            world.set_free_pose(bodies[target], tspot)
            world.forward()
        tl = local(world, region, world.body_pos(bodies[target]))
        bl = np.array([tl[0] - th[0] - bh[0] - BLOCKER_GAP, tl[1], bh[2] + PLACE_CLEARANCE])
        if bl[0] - bh[0] < -region.half[0] - 0.02:
            bl[0] = -region.half[0] + bh[0]
        pos = np.asarray(region.center) + bl
        world_pos = pos if region.body == "world" else world.to_world(region.body, pos)
        world.set_free_pose(bodies[blocker], world_pos)
        world.forward()
        _grow_to_hide(world, graph, blocker, target)
        # at floor height, as the layout records G0's blockers (callers use only x and y)
        x, y, z = (float(v) for v in world.body_pos(bodies[blocker]))
        world.plan.blocking[blocker] = (target, (x, y, z - float(half_of(world, blocker)[2])))
    for blocker, (target, pose) in list(world.plan.blocking.items()):
        wants_aside = blocker in graph.nodes and bool(graph.attr(blocker, "moved_aside")) \
            and graph.hand_of(blocker) is None
        if wants_aside and np.linalg.norm(world.body_pos(bodies[blocker])[:2] - np.asarray(pose[:2])) < 0.05:
            loc = graph.location.get(blocker)
            region = world.plan.support_region(loc.dst, loc.rel) if loc else None
            if region is not None:
                spot = free_spot(world, region, half_of(world, blocker), {bodies[blocker], bodies[target]},
                                 avoid=[(local(world, region, np.asarray(pose)), half_of(world, blocker) + 0.05)])
                if spot is not None:
                    world.set_free_pose(bodies[blocker], spot)
    world.forward()
    _clear_uncalled_cover(world, graph)


def _clear_uncalled_cover(world: World, graph: SceneGraph) -> None:
    """A blocker still covering the target it was put in front of, though the graph no longer
    has it hiding that target (its OCCLUDES edge removed), moves to a free spot of its support,
    away from where it stood. Other covers the world shows are left for reconcile to report."""
    bodies = node_bodies(world)
    locations = measure_locations(world, graph)
    for blocker, target in sorted(measure_occlusions(world, graph, locations, placed_bodies(world, locations))):
        edge = Edge(blocker, OCCLUDES, target)
        record = world.plan.blocking.get(blocker)
        if record is None or record[0] != target or edge in graph.edges:
            continue
        loc = graph.location.get(blocker)
        region = world.plan.support_region(loc.dst, loc.rel) if loc else None
        if region is None:
            continue
        here, half = world.body_pos(bodies[blocker]), half_of(world, blocker)
        spot = free_spot(world, region, half, {bodies[blocker], bodies[target]},
                         avoid=[(local(world, region, here), half + 0.05)])
        if spot is not None:
            world.set_free_pose(bodies[blocker], spot)
            world.forward()
            del world.plan.blocking[blocker]
