"""World -> graph: read the physical state back into scene-graph facts (reconcile).

Measured: every movable node's location (HELD by weld or two-finger contact, INSIDE by centre in
a container's interior volume, ON by its bottom resting on a support region, else IN_ROOM of the
room under it), `open` by joint position, `pressed` by button travel, `assembled` by the parts'
weld, `moved_aside` by a blocker's displacement from its blocking pose, the robot's room by its
base position. Relations that have no physical reading (ADJACENT, PART_OF, OCCLUDES) are taken
from the expected graph. The expected relation is tested first, so an unchanged world always
reads back as the same graph.
"""

from __future__ import annotations

import numpy as np

from backends.mujoco_kitchen.placement import contains, local, supports
from backends.mujoco_kitchen.robot import HANDS, RobotNames
from backends.mujoco_kitchen.world import World, assembly_pairs
from backends.reading import ASIDE_DISTANCE, Location, Reading, is_open, rewrites_to
from robograph.graph import FURNITURE, IN_ROOM, INSIDE, OCCLUDES, ON, ROBOT_ID, ROOM, SceneGraph
from robograph.rewrite import DETACHED, HELD, apply_all

PINCH_REACH = 0.15  # a body held by one finger has its centre this close to the grip point (m)


def node_bodies(world: World) -> dict[str, str]:
    out = {n: it.body for n, it in world.plan.items.items()}
    out.update(world.spare_of)
    return out


def stand_in(world: World, node: str) -> str:
    """The node whose body a skill handles for `node`: itself, or for an assembly whole (which
    has no body of its own) its upper part (the parts are welded together once assembled)."""
    if node in world.plan.items or node in world.spare_of:
        return node
    parts = assembly_parts(world, node)
    if parts is None:
        return node
    bodies = node_bodies(world)
    return max(parts, key=lambda p: float(world.body_pos(bodies[p])[2]))


def assembly_parts(world: World, node: str) -> tuple[str, str] | None:
    """The two parts (both with bodies) of an assembly whole, None for any other node."""
    bodies = node_bodies(world)
    for whole, a, b in assembly_pairs(world.graph0):
        if whole == node and a in bodies and b in bodies:
            return a, b
    return None


def half_of(world: World, node: str) -> np.ndarray:
    item = world.plan.items.get(node)
    if item is not None:
        return np.asarray(item.half)
    body = world.spare_of[node]
    return np.asarray(world.model.geom_size[world.model.body_geomadr[world.body_id(body)]])


def holding_hand(world: World, body: str, assisted_only: bool = False) -> str | None:
    """The hand holding a body: an active weld, or contacts from both fingers, or from one
    finger while the body touches nothing but that hand near its grip point (pinched between a
    finger and the palm: it rides along, though the other finger has lost touch)."""
    for hand in HANDS:
        if world.weld_active(f"weld_{hand}_{body}"):
            return hand
    if assisted_only:
        return None
    sub = world.subtree(body)
    for hand in HANDS:
        left = {world.body_id(f"{hand}_gripper_leftfinger"), world.body_id(f"{hand}_gripper_finger_joint1_tip")}
        right = {world.body_id(f"{hand}_gripper_rightfinger"), world.body_id(f"{hand}_gripper_finger_joint2_tip")}
        touch_left, touch_right = world.contacts(left, sub) > 0, world.contacts(right, sub) > 0
        if touch_left and touch_right:
            return hand
        if (touch_left or touch_right) and _only_touches_hand(world, sub, hand) and \
                float(np.linalg.norm(world.body_pos(body) - world.site_pos(RobotNames.grip_site(hand)))) < PINCH_REACH:
            return hand
    return None


def _only_touches_hand(world: World, sub: set[int], hand: str) -> bool:
    m = world.model
    for c in world.data.contact[: world.data.ncon]:
        b1, b2 = int(m.geom_bodyid[c.geom1]), int(m.geom_bodyid[c.geom2])
        if (b1 in sub) == (b2 in sub):
            continue
        other = m.body(b2 if b1 in sub else b1).name
        if not other.startswith(f"{hand}_"):
            return False
    return True


def region_holds(world: World, node: str, rel: str, dst: str, graph: SceneGraph) -> bool:
    pos = world.body_pos(node_bodies(world)[node])
    hz = float(half_of(world, node)[2])
    if rel == IN_ROOM:
        return world.plan.room_at(pos[0], pos[1]) == dst and pos[2] - hz < 0.05
    region = world.plan.support_region(dst, rel)
    if region is None:
        return False
    if rel == INSIDE:
        return contains(world, region, pos, hz)
    return supports(world, region, pos, hz) or (not region.inside and contains(world, region, pos, hz)
                                                 and _resting_on(world, node, dst))


def _resting_on(world: World, node: str, dst: str) -> bool:
    bodies = node_bodies(world)
    target = bodies.get(dst) or world.plan.node_body.get(dst)
    if target is None:
        return False
    return world.contacts(world.subtree(bodies[node]), world.subtree(target)) > 0


def measure_location(world: World, node: str, graph: SceneGraph, assisted_only: bool) -> Location:
    body = node_bodies(world)[node]
    hand = holding_hand(world, body, assisted_only)
    if hand is not None:
        return (HELD, hand)
    exp = graph.location.get(node)
    if exp is not None and region_holds(world, node, exp.rel, exp.dst, graph):
        return (exp.rel, exp.dst)
    pos = world.body_pos(body)
    hz = float(half_of(world, node)[2])
    # innermost container first (smallest volume), then supports
    best: tuple[float, Location] | None = None
    for cand, region in world.plan.regions.items():
        if cand == node or cand not in graph.nodes or not region.inside:
            continue
        if contains(world, region, pos, hz):
            vol = region.half[0] * region.half[1] * region.height
            if best is None or vol < best[0]:
                best = (vol, (INSIDE, cand))
    if best is not None:
        return best[1]
    supports_found: list[tuple[float, Location]] = []
    for cand in sorted(set(world.plan.regions) | set(world.plan.tops)):
        if cand == node or cand not in graph.nodes:
            continue
        region = world.plan.support_region(cand, ON)
        if region is None or region.inside:
            continue
        if supports(world, region, pos, hz):
            p = local(world, region, pos)
            supports_found.append((abs(p[2] - hz), (ON, cand)))
    if supports_found:
        return min(supports_found)[1]
    room = world.plan.room_at(pos[0], pos[1])
    return (IN_ROOM, room) if room is not None and room in graph.nodes else (DETACHED, "")


def joint_fraction(world: World, node: str) -> float:
    arts = world.plan.articulations[node]
    fr = [(world.qpos(a.joint) - a.closed) / (a.open - a.closed) for a in arts]
    return float(np.mean(fr))


def read(world: World, expected: SceneGraph, *, assisted_only: bool = False) -> Reading:
    locations: dict[str, Location] = {}
    attrs: dict[tuple[str, str], object] = {}
    pairs = {w: (a, b) for w, a, b in assembly_pairs(expected)}
    assembled = {w for w in pairs if world.weld_active(f"asm_{w}")}
    parts_of_assembled = {p for w in assembled for p in pairs[w]}
    bodies = node_bodies(world)
    for node in sorted(expected.nodes):
        if node in parts_of_assembled:
            locations[node] = (DETACHED, "")
        elif node in bodies and expected.nodes[node].kind not in (FURNITURE, ROOM):
            locations[node] = measure_location(world, node, expected, assisted_only)
    for whole in sorted(pairs):
        if whole in assembled:
            a, b = pairs[whole]
            held = [measure_location(world, p, expected, assisted_only) for p in (a, b)]
            held_loc = next((loc for loc in held if loc[0] == HELD), None)
            if held_loc is not None:
                locations[whole] = held_loc
            else:
                exp = expected.location.get(whole)
                low = min((a, b), key=lambda p: float(world.body_pos(bodies[p])[2]))
                loc_low = _location_ignoring_parts(world, low, expected, exp, assisted_only)
                locations[whole] = loc_low
        if expected.attr(whole, "assembled") is not None or whole in assembled:
            attrs[(whole, "assembled")] = whole in assembled
    for node in sorted(world.plan.articulations):
        if node in expected.nodes:
            attrs[(node, "open")] = is_open(joint_fraction(world, node))
    for node, button in sorted(world.plan.buttons.items()):
        if node in expected.nodes:
            attrs[(node, "pressed")] = world.qpos(button.joint) <= -button.depth / 2
    for blocker, (_target, pose) in sorted(world.plan.blocking.items()):
        if blocker not in expected.nodes or not expected.edges_from(blocker, OCCLUDES):
            continue
        if locations.get(blocker, ("", ""))[0] == HELD:
            continue
        moved = float(np.linalg.norm(world.body_pos(bodies[blocker])[:2] - np.asarray(pose[:2]))) > ASIDE_DISTANCE
        attrs[(blocker, "moved_aside")] = moved
    room = None
    if ROBOT_ID in expected.nodes:
        room = world.plan.room_at(world.qpos("base_x"), world.qpos("base_y"))
    return Reading(locations, attrs, room)


def _location_ignoring_parts(world: World, part: str, expected: SceneGraph, exp: object,
                             assisted_only: bool) -> Location:
    loc = measure_location(world, part, expected, assisted_only)
    if exp is not None and region_holds(world, part, exp.rel, exp.dst, expected):  # type: ignore[attr-defined]
        return (exp.rel, exp.dst)  # type: ignore[attr-defined]
    return loc


def reconcile(world: World, expected: SceneGraph, *, before: SceneGraph | None = None,
              assisted_only: bool = False) -> SceneGraph:
    """The measured graph; `expected` itself (same object) when nothing differs."""
    rewrites = rewrites_to(expected, read(world, expected, assisted_only=assisted_only), before)
    if not rewrites:
        return expected
    return apply_all(expected, rewrites)


_ = ON
