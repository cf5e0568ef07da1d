"""World -> graph for the tabletop: measure every object's location and every joint, then let
the shared `robograph_backends.reading` decide what that means (the same predicates and the same
`rewrites_to` as the MuJoCo backend).

Measured: HELD by contact from both Panda fingers, INSIDE/ON by the object's centre in a
region's floor frame (regions move with their bodies: a drawer's floor slides with it), `open`
by joint travel, `pressed` by button travel, `assembled` by the two parts stacked and touching,
which placed object hides which from the head camera (`occlusion.py`: OCCLUDES and
`moved_aside` then follow from the shared `occlusion_rewrites`). Nothing is tested against the
expected graph first: INSIDE the innermost container wins, except where the object rests on a
support that lies within every container holding it (a shelf in a fridge) nearer its bottom than
the innermost container's floor; else ON the support
its bottom is closest to; ties by name. Furniture locations are static structure.
"""

from __future__ import annotations

import math

import numpy as np

from robograph.graph import INSIDE, OBJECT, ON, PART_OF, SceneGraph
from robograph.rewrite import DETACHED, HELD, apply_all
from robograph_backends.reading import Location, Reading, is_open, resting, rewrites_to, within
from robograph_backends.sapien_tabletop.layout import Region
from robograph_backends.sapien_tabletop.world import BUTTON_DEPTH, World, built_round

FINGERS = ("panda_leftfinger", "panda_rightfinger")
ASSEMBLY_GAP = 0.01  # parts whose facing ends are this close (m), centred within it, are joined


def body_pose(world: World, node: str) -> np.ndarray:
    """4x4 world pose of the link that carries a node's region and position: a drawer's sliding
    box, a lidded case's or a button's base (the root), or the actor itself."""
    body = world.bodies[node]
    if not hasattr(body, "get_links"):
        return np.asarray(body.get_pose().to_transformation_matrix())
    links = body.get_links()
    drawer = world.layout.placements[node].app.articulation == "drawer"
    return np.asarray((links[-1] if drawer else links[0]).entity_pose.to_transformation_matrix())


def floor_frame(world: World, node: str) -> tuple[np.ndarray, Region]:
    """World pose of the region's floor frame and the region (half extents, wall height)."""
    pl = world.layout.placements[node]
    region = world.layout.regions[node]
    T = body_pose(world, node)
    offset = np.asarray(region.centre) - np.asarray(pl.centre)  # floor centre relative to the body
    F = T.copy()
    F[:3, 3] = T[:3, :3] @ offset + T[:3, 3]
    return F, region


def to_local(F: np.ndarray, point: np.ndarray) -> np.ndarray:
    return F[:3, :3].T @ (np.asarray(point) - F[:3, 3])


def position(world: World, node: str) -> np.ndarray:
    return body_pose(world, node)[:3, 3]


def region_holds(world: World, node: str, rel: str, dst: str) -> bool:
    if dst not in world.layout.regions:
        return False
    F, region = floor_frame(world, dst)
    p = to_local(F, position(world, node))
    hz = world.layout.placements[node].size[2] / 2
    walled = world.layout.placements[dst].container
    if rel == INSIDE:
        # the bottom below the rim as well: a flat object lying on a case's top over its top
        # drawer is within the shared tolerance of that drawer's rim, yet not in it
        return walled and within(p, region.half, region.height, hz) and p[2] - hz < region.height
    return not walled and resting(p, region.half, hz)


def finger_contacts(world: World, node: str) -> dict[str, tuple[set[str], float]]:
    """hand -> (its finger links touching the node's body, the summed contact impulse of those
    touches (N s, this step)): how firmly each hand's fingers press on it."""
    body = world.bodies[node]
    ids = {lk.entity.per_scene_id for lk in body.get_links()} if hasattr(body, "get_links") else {body.per_scene_id}
    out: dict[str, tuple[set[str], float]] = {}
    for contact in world.scene.get_contacts():
        a, b = (c.entity for c in contact.bodies)
        for mine, other in ((a, b), (b, a)):
            if mine.per_scene_id in ids and other.name in FINGERS:
                hand = world.hand_of_entity.get(other.per_scene_id)
                if hand is not None and any(p.separation < 1e-3 for p in contact.points):
                    fingers, impulse = out.get(hand, (set(), 0.0))
                    push = sum(float(np.linalg.norm(p.impulse)) for p in contact.points)
                    out[hand] = (fingers | {other.name}, impulse + push)
    return out


def holding_hand(world: World, node: str) -> str | None:
    """The hand whose two fingers both touch the node's body."""
    return next((h for h, (f, _) in sorted(finger_contacts(world, node).items()) if len(f) == 2), None)


def hand_holding(world: World, node: str) -> str | None:
    """The hand holding the node's body: its assisted weld, else the two fingers on it."""
    return world.welds[node][0] if node in world.welds else holding_hand(world, node)


def measure_location(world: World, node: str, expected: SceneGraph, *, grip: bool = True) -> Location:
    """Where a node's body is, from measurement alone (`expected` only names the candidates).
    `grip` false: where it is apart from any hand (a hand holds one thing: `one_per_hand`)."""
    hand = hand_holding(world, node) if grip else None
    if hand is not None:
        return (HELD, hand)
    # candidates exclude what the node itself holds (a book's own contents do not hold the book)
    candidates = [c for c in sorted(world.layout.regions)
                  if c != node and c in expected.nodes and node not in ancestors(world, c)]
    inside = sorted((float(np.prod(world.layout.regions[c].half)) * world.layout.regions[c].height, c)
                    for c in candidates if region_holds(world, node, INSIDE, c))
    on = sorted((_height_above_floor(world, node, c), c) for c in candidates if region_holds(world, node, ON, c))
    # a support within every container the node is in (a shelf in a fridge) is more specific,
    # unless the node stands on the container's own floor: a stapler set down on a drawer's
    # floor 2 mm beside a pair of scissors (2 cm high) was within the tolerances of resting
    # on them (Desk-1)
    floor = _height_above_floor(world, node, inside[0][1]) if inside else math.inf
    nested = [(d, c) for d, c in on if all(box in ancestors(world, c) for _, box in inside) and d < floor]
    if inside and not nested:
        return (INSIDE, inside[0][1])
    if on:
        return (ON, (nested or on)[0][1])
    return (DETACHED, "")


def one_per_hand(world: World, locations: dict[str, Location], bodies_of: dict[str, tuple[str, ...]],
                 expected: SceneGraph) -> None:
    """A hand holds at most one thing (the graph refuses a second: RewriteError). Where two
    read HELD by one hand (assisted mode: a welded body and another both fingers brushed), the
    one it holds is chosen by measurement: a welded one first, else the firmest grip (the
    largest finger contact impulse), ties by name; the others are measured where they are
    apart from the hand. `bodies_of`: a node's bodies (an assembly whole: its parts)."""
    by_hand: dict[str, list[str]] = {}
    for node, (rel, hand) in sorted(locations.items()):
        if rel == HELD:
            by_hand.setdefault(hand, []).append(node)
    for hand, nodes in sorted(by_hand.items()):
        if len(nodes) < 2:
            continue

        def firmness(node: str, hand: str = hand) -> tuple[bool, float]:
            parts = bodies_of.get(node, (node,))
            welded = any(world.welds.get(p, ("",))[0] == hand for p in parts)
            return welded, sum(finger_contacts(world, p).get(hand, (set(), 0.0))[1] for p in parts)

        keep = max(nodes, key=firmness)  # the first of equals: nodes are sorted by name
        for node in nodes:
            if node != keep:
                low = min(bodies_of.get(node, (node,)), key=lambda p: float(position(world, p)[2]))
                locations[node] = measure_location(world, low, expected, grip=False)


def _height_above_floor(world: World, node: str, dst: str) -> float:
    """How far the node's bottom, as it stands (a jar lying on its side is as low as it is
    wide), is from `dst`'s floor (m): the closest floor is its support. Measured with the
    jar's upright height, a jar tipped over on a mini fridge's shelf, 1 cm above the fridge's
    floor, read nearer the fridge's floor (Fridge-T6)."""
    F, _region = floor_frame(world, dst)
    T = body_pose(world, node)
    pl = world.layout.placements[node]
    half = np.asarray(pl.size, dtype=float) / 2
    if built_round(pl, fixed=False):  # an upright cylinder: its rim, not its box's corner
        tilt = min(1.0, abs(float(T[2, 2])))
        low = half[2] * tilt + min(half[0], half[1]) * math.sqrt(1.0 - tilt * tilt)
    else:
        low = float(np.abs(T[2, :3]) @ half)
    return abs(float(to_local(F, T[:3, 3])[2]) - low)


def ancestors(world: World, node: str) -> set[str]:
    """The layout's chain of parents of a node (what it stands on or in, up to the table)."""
    out: set[str] = set()
    parent = world.layout.placements[node].parent if node in world.layout.placements else None
    while parent is not None:
        out.add(parent)
        parent = world.layout.placements[parent].parent
    return out


def assembly_pairs(graph: SceneGraph) -> dict[str, tuple[str, str]]:
    parts: dict[str, list[str]] = {}
    for e in graph.edges_of(PART_OF):
        parts.setdefault(e.dst, []).append(e.src)
    return {w: (ps[0], ps[1]) for w, ps in sorted(parts.items()) if len(ps) == 2}


def joined(world: World, a: str, b: str) -> bool:
    """Two parts stacked end to end: centred on one another and touching (within ASSEMBLY_GAP),
    measured along the lower part's own axis, not the world's vertical: a stack leaning a few
    degrees (set down leaning, or in a hand tilted forward for the far reach) shifts its parts'
    centres across the vertical (6 degrees: 1 cm on a 10 cm stack). Measured along the
    vertical, Toy-B4's rocket base seated on its nose read "rocket_base ON rocket_nose", not
    assembled. Not the upper part's axis: held in the fingers it may lean on its seat."""
    pose = {n: body_pose(world, n) for n in (a, b)}
    low, high = (a, b) if pose[a][2, 3] <= pose[b][2, 3] else (b, a)
    T = pose[low]  # the part below: the one a part held in the hand was seated on
    d = T[:3, :3].T @ (pose[high][:3, 3] - T[:3, 3])
    ha = world.layout.placements[a].size[2] / 2
    hb = world.layout.placements[b].size[2] / 2
    return bool(np.linalg.norm(d[:2]) < ASSEMBLY_GAP and abs(abs(d[2]) - (ha + hb)) < ASSEMBLY_GAP)


def joint_fraction(world: World, node: str) -> float:
    articulation, closed, opened = world.joints[node]
    return float((articulation.get_qpos()[-1] - closed) / (opened - closed))


def read(world: World, expected: SceneGraph) -> Reading:
    locations: dict[str, Location] = {}
    attrs: dict[tuple[str, str], object] = {}
    pairs = assembly_pairs(expected)
    assembled = {w for w, (a, b) in pairs.items() if a in world.bodies and b in world.bodies and joined(world, a, b)}
    part_of_assembled = {p for w in assembled for p in pairs[w]}
    for node in sorted(world.bodies):
        n = expected.nodes.get(node)
        if n is None or n.kind != OBJECT:
            continue
        locations[node] = (DETACHED, "") if node in part_of_assembled else measure_location(world, node, expected)
    for whole, (a, b) in pairs.items():
        if whole in assembled:
            low = min((a, b), key=lambda p: float(position(world, p)[2]))
            held = [loc for loc in (measure_location(world, p, expected) for p in (a, b)) if loc[0] == HELD]
            locations[whole] = held[0] if held else measure_location(world, low, expected)
        elif a in world.bodies and b in world.bodies:
            # apart, the whole is nowhere, its parts are (as in the MuJoCo reading); left
            # unmeasured, a whole the graph has in a hand stayed there while the hand held a part,
            # and moving that part into the hand raised RewriteError (Toy-B2's bench crash)
            locations[whole] = (DETACHED, "")
        if expected.attr(whole, "assembled") is not None or whole in assembled:
            attrs[(whole, "assembled")] = whole in assembled
    one_per_hand(world, locations, {w: pairs[w] for w in assembled}, expected)
    for node in sorted(world.joints):
        if node in expected.nodes:
            attrs[(node, "open")] = is_open(joint_fraction(world, node))
    for node, articulation in sorted(world.buttons.items()):
        if node in expected.nodes:
            attrs[(node, "pressed")] = float(articulation.get_qpos()[-1]) >= BUTTON_DEPTH / 2
    # occlusion.py imports this module's poses: imported here, not at the top
    from robograph_backends.sapien_tabletop.occlusion import covered_pairs

    placed = frozenset(n for n, (rel, _) in locations.items() if rel in (INSIDE, ON) and n in world.bodies)
    occlusions = covered_pairs(world, expected, locations, placed)
    return Reading(locations, attrs, None, frozenset(occlusions), placed)


def reconcile(world: World, expected: SceneGraph) -> SceneGraph:
    """The measured graph; `expected` itself (same object) when nothing differs."""
    rewrites = rewrites_to(expected, read(world, expected))
    return expected if not rewrites else apply_all(expected, rewrites)

