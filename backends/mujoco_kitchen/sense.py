"""World -> graph: read the physical state back into scene-graph facts (reconcile).

Everything mutable is measured; only static structure (the node set, furniture and its PART_OF
and location edges, ADJACENT rooms) comes from the expected graph. Locations: HELD by an active
weld or finger contacts, INSIDE by the centre in a container's interior volume (innermost wins),
ON by the bottom resting on a support region (closest wins), else IN_ROOM of the room under it.
`open` by joint position, `pressed` by button travel, `assembled` by the parts' weld, the robot's
room by its base position. OCCLUDES by the head camera's view (`occlusion.py`): a blocker that
covers a target gets the edge; a blocker whose edges cover nothing any more is `moved_aside`
(that is how the graph encodes "still there, no longer in the way"). Nothing is tested against
the expected graph first, so an unchanged world reads back as the graph that built it only
because the world was built right; ties between readings are broken by measurement alone.
"""

from __future__ import annotations

import numpy as np

from robograph.graph import FURNITURE, IN_ROOM, INSIDE, OCCLUDES, ON, ROBOT_ID, ROOM, SceneGraph
from robograph.rewrite import DETACHED, HELD, apply_all
from robograph_backends.mujoco_kitchen.occlusion import (
    body_geoms,
    coverage,
    covered_pairs,
    surface,
    viewpoint,
)
from robograph_backends.mujoco_kitchen.placement import contains, local, supports
from robograph_backends.mujoco_kitchen.robot import HANDS, RobotNames
from robograph_backends.mujoco_kitchen.tuning import PINCH_REACH
from robograph_backends.mujoco_kitchen.world import World, assembly_pairs
from robograph_backends.reading import Location, Reading, is_open, rewrites_to


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
    touching = _bodies_touching(world, sub)
    if not touching:
        return None
    for hand in HANDS:
        left = {world.body_id(f"{hand}_gripper_leftfinger"), world.body_id(f"{hand}_gripper_finger_joint1_tip")}
        right = {world.body_id(f"{hand}_gripper_rightfinger"), world.body_id(f"{hand}_gripper_finger_joint2_tip")}
        touch_left, touch_right = bool(touching & left), bool(touching & right)
        if touch_left and touch_right:
            return hand
        if (touch_left or touch_right) and all(world.model.body(b).name.startswith(f"{hand}_") for b in touching) \
                and float(np.linalg.norm(world.body_pos(body) - world.site_pos(RobotNames.grip_site(hand)))) < PINCH_REACH:
            return hand
    return None


def _bodies_touching(world: World, sub: set[int]) -> set[int]:
    """Bodies outside `sub` in contact with a body in it (one pass over the contacts, in numpy)."""
    d = world.data
    if d.ncon == 0:
        return set()
    ids = np.asarray(world.model.geom_bodyid)[np.asarray(d.contact.geom)[: d.ncon]]  # (ncon, 2)
    inside = np.isin(ids, np.fromiter(sub, dtype=int))
    cross = inside[:, 0] != inside[:, 1]
    return {int(b) for b in np.where(inside[cross][:, 0], ids[cross][:, 1], ids[cross][:, 0])}


def _resting_on(world: World, node: str, dst: str) -> bool:
    bodies = node_bodies(world)
    target = bodies.get(dst) or world.plan.node_body.get(dst)
    if target is None:
        return False
    return world.contacts(world.subtree(bodies[node]), world.subtree(target)) > 0


def measure_location(world: World, node: str, graph: SceneGraph, assisted_only: bool) -> Location:
    """Where a node's body is: in a hand, else where it lies (`graph` only names the candidates)."""
    hand = holding_hand(world, node_bodies(world)[node], assisted_only)
    if hand is not None:
        return (HELD, hand)
    return placed_location(world, node, graph)


def placed_location(world: World, node: str, graph: SceneGraph) -> Location:
    """INSIDE the innermost (smallest) container volume holding the node's centre, else ON the
    support its bottom rests closest to, else IN_ROOM of the room under it."""
    pos = world.body_pos(node_bodies(world)[node])
    hz = float(half_of(world, node)[2])
    inner: list[tuple[float, str]] = []
    for cand, region in sorted(world.plan.regions.items()):
        if cand == node or cand not in graph.nodes or not region.inside:
            continue
        if contains(world, region, pos, hz):
            inner.append((region.half[0] * region.half[1] * region.height, cand))
    if inner:
        return (INSIDE, min(inner)[1])
    resting: list[tuple[float, str]] = []
    for cand in sorted(set(world.plan.regions) | set(world.plan.tops)):
        if cand == node or cand not in graph.nodes:
            continue
        region = world.plan.support_region(cand, ON)
        if region is None or region.inside:
            continue
        # on the floor of the support, or standing in its footprint touching it (a tall item in
        # an open bin, leaning on its rim)
        if supports(world, region, pos, hz) or (contains(world, region, pos, hz) and _resting_on(world, node, cand)):
            resting.append((abs(float(local(world, region, pos)[2]) - hz), cand))
    if resting:
        return (ON, min(resting)[1])
    room = world.plan.room_at(pos[0], pos[1])
    return (IN_ROOM, room) if room is not None and room in graph.nodes else (DETACHED, "")


def joint_fraction(world: World, node: str) -> float:
    arts = world.plan.articulations[node]
    fr = [(world.qpos(a.joint) - a.closed) / (a.open - a.closed) for a in arts]
    return float(np.mean(fr))


def measure_locations(world: World, expected: SceneGraph, *, assisted_only: bool = False) -> dict[str, Location]:
    """Location of every node with a body, and of every assembled whole (where its parts are)."""
    locations: dict[str, Location] = {}
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
        a, b = pairs[whole]
        if whole not in assembled:
            if a in bodies and b in bodies:
                locations[whole] = (DETACHED, "")  # apart, the whole is nowhere: its parts are
            continue
        held = [measure_location(world, p, expected, assisted_only) for p in (a, b)]
        held_loc = next((loc for loc in held if loc[0] == HELD), None)
        if held_loc is not None:
            locations[whole] = held_loc
        else:  # the whole stands where its lower part does
            low = min((a, b), key=lambda p: float(world.body_pos(bodies[p])[2]))
            locations[whole] = placed_location(world, low, expected)
    return locations


def read(world: World, expected: SceneGraph, *, assisted_only: bool = False) -> Reading:
    """Measure the world. `expected` supplies only the node set and static structure."""
    locations = measure_locations(world, expected, assisted_only=assisted_only)
    attrs: dict[tuple[str, str], object] = {}
    for whole, _a, _b in assembly_pairs(expected):
        welded = world.weld_active(f"asm_{whole}")
        if expected.attr(whole, "assembled") is not None or welded:
            attrs[(whole, "assembled")] = welded
    for node in sorted(world.plan.articulations):
        if node in expected.nodes:
            attrs[(node, "open")] = is_open(joint_fraction(world, node))
    for node, button in sorted(world.plan.buttons.items()):
        if node in expected.nodes:
            attrs[(node, "pressed")] = world.qpos(button.joint) <= -button.depth / 2
    room = None
    if ROBOT_ID in expected.nodes:
        room = world.plan.room_at(world.qpos("base_x"), world.qpos("base_y"))
    placed = placed_bodies(world, locations)
    occlusions = measure_occlusions(world, expected, locations, placed)
    return Reading(locations, attrs, room, frozenset(occlusions), placed)


def placed_bodies(world: World, locations: dict[str, Location]) -> frozenset[str]:
    """Nodes with a body of their own lying somewhere (not held, not an assembled part)."""
    bodies = node_bodies(world)
    return frozenset(n for n, (rel, _) in locations.items() if rel in (INSIDE, ON, IN_ROOM) and n in bodies)


def pair_coverage(world: World, graph: SceneGraph, blocker: str, target: str) -> float:
    """How much of `target` `blocker` covers, seen from the target's viewpoint (0 without one)."""
    bodies = node_bodies(world)
    cam = _view_of(world, graph, measure_locations(world, graph), target)
    if cam is None or blocker not in bodies:
        return 0.0
    surf = surface(world, bodies[target], half_of(world, target), cam)
    conditioned = any(e.when and e.src == blocker and e.dst == target for e in graph.edges_of(OCCLUDES))
    return coverage(world, body_geoms(world, bodies[blocker], moving_parts=conditioned), cam, surf)


def measure_occlusions(world: World, expected: SceneGraph, locations: dict[str, Location],
                       placed: frozenset[str]) -> dict[tuple[str, str], float]:
    """(blocker, target) -> coverage of the pairs the head camera sees covered, each target seen
    from the work pose in front of the furniture it stands in or on (see occlusion.py)."""
    views = {n: _view_of(world, expected, locations, n) for n in sorted(placed)}
    cams = {n: cam for n, cam in views.items() if cam is not None}
    chains = {n: _chain(expected, locations, n) for n in placed}
    unrelated = {t: frozenset(chains[t]) | frozenset(n for n, ch in chains.items() if t in ch) for t in cams}
    halves = {n: half_of(world, n) for n in placed}
    conditioned = frozenset((e.src, e.dst) for e in expected.edges_of(OCCLUDES) if e.when)
    return covered_pairs(world, cams, halves, node_bodies(world), placed, unrelated, conditioned)


def _view_of(world: World, expected: SceneGraph, locations: dict[str, Location], node: str) -> np.ndarray | None:
    """The head camera's position for looking at a placed node: on the station line of the
    furniture it stands in or on, straight in front of it (None on the floor, or without a body)."""
    bodies = node_bodies(world)
    if node not in bodies:
        return None
    for anc in _chain(expected, locations, node):
        if anc in world.plan.stations:
            return viewpoint(world, world.plan.stations[anc], float(world.body_pos(bodies[node])[1]))
    return None


def _chain(expected: SceneGraph, locations: dict[str, Location], node: str) -> list[str]:
    """Where a node stands, upwards: measured locations of movables, then the static furniture."""
    out: list[str] = []
    cur = node
    while True:
        loc = locations.get(cur)
        if loc is not None:
            rel, dst = loc
            if rel not in (INSIDE, ON, IN_ROOM):
                break
        else:
            edge = expected.location.get(cur)
            if edge is None:
                break
            dst = edge.dst
        if dst in out or dst == node:
            break
        out.append(dst)
        cur = dst
    return out


def reconcile(world: World, expected: SceneGraph, *, assisted_only: bool = False) -> SceneGraph:
    """The measured graph; `expected` itself (same object) when nothing differs."""
    rewrites = rewrites_to(expected, read(world, expected, assisted_only=assisted_only))
    if not rewrites:
        return expected
    return apply_all(expected, rewrites)
