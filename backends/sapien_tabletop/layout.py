"""Graph -> tabletop layout: where every node's body goes, as pure arithmetic (no SAPIEN).

The table is the scene's root surface (the SURFACE furniture no location edge points from); the
robot stands at its front edge (-x) and the head camera looks along +x. Children of a region are
packed in rows from the front with the MuJoCo backend's pure packing (an OCCLUDES pair becomes a
column, the blocker in front of its target as seen from the head camera; `hiding.py` then sizes
the blockers so they really hide). Drawer tiers inside a cabinet are stacked top-down, their
fronts flush with the cabinet's open front. Sizes and colours come from the shared object
catalog (`assets/objects.yaml`); a category the catalog does not list is refused, naming it.

Reach (RoboTwin-like compact layout): the Pandas reach a top-down grasp from ~0.3 to ~0.7 m
ahead of their shoulders, so what stands on free-standing furniture is packed in the band
REACH_NEAR..REACH_FAR ahead of the arms' base line, the furniture growing along y (the rail)
until its rows fit the band; free-standing furniture has its long side along y, its front on
one line; drawer tiers are at most TIER_DEPTH deep and a piece holding them stands TIER_SETBACK
from the arms, so a drawer pulled out ends where the hand still reaches its bar.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from robograph.graph import (
    CONTAINER,
    FURNITURE,
    GRABBABLE,
    INSIDE,
    MOVABLE,
    OBJECT,
    OCCLUDES,
    ON,
    PART_OF,
    PRESSABLE,
    SURFACE,
    Node,
    SceneGraph,
)
from robograph_backends.mujoco_kitchen.catalog import Appearance, appearance, load_catalog
from robograph_backends.mujoco_kitchen.packing import (
    GAP,
    Placed,
    Unit,
    column,
    pack_extent,
    pack_rows,
    single,
)
from robograph_backends.mujoco_kitchen.tuning import COLUMN_GAP, MAX_GRASP_WIDTH, SLENDER
from robograph_backends.sapien_tabletop.errors import UnsupportedScene

WALL = 0.01  # wall and floor thickness of containers (m)
FRONT_MARGIN = 0.03  # first packed row behind a region's front edge (m)
TIER_GAP = 0.01  # vertical clearance between stacked drawer tiers (m)
CLEARANCE = 0.01  # a closed lid's gap above the tallest thing inside (m)
FLOOR_GAP = 0.15  # between free-standing furniture beside the table, along -y (m)
ARTICULATED = ("drawer", "lid", "book_cover", "hinged_door")
SLOT = 0.075  # m across per capacity unit of a movable container (a 62 mm item and the gap to place it)
SLOTS_PER_ROW = 4
SETBACK = 0.10  # m from the arms' base line to the front edge of free-standing furniture ...
TIER_SETBACK = 0.36  # ... holding drawer tiers (a drawer pulled out 0.21 m ends 0.15 m ahead)
REACH_NEAR = 0.32  # m ahead of the arms' base line the first packed row on a free-standing top starts
REACH_FAR = 0.66  # ... and the rows end by this (top-down IK holds out to ~0.7 m)
TIER_DEPTH = 0.26  # m: deepest drawer tier (its travel is DRAWER_TRAVEL of this)
COVER_SIDE = 0.02  # m a book cover hiding a target reaches past it on each side (`_widen_covers`)
FIXTURE_HEIGHT = 0.3  # m: furniture standing on a top is at most this tall (grown for its contents)
MIN_BASE_Z = 0.22  # m: the arms' bases stand at least this high (over a play mat on the floor, the
# lids of 30 cm bins rise 35 cm above their rims: top-down IK holds from 0.3 m below the base to 0.45 above)
TOP_SPARE = 1.0  # m of free width a free-standing top gets beyond its packed rows
SHALLOW_BLOCKERS = ("toy_bin", "toy_chest")  # lidded blockers whose column is laid shallow and wide (`_lay_shallow`)
SHALLOW_MARGIN = 0.02  # m a shallow column's blocker is wider than its target on each side
ROW_END = 0.05  # m free at each end of that row: the hand (8 cm across) beside a toy there (Toy-B1's ball)
SHALLOW_MIN_DEPTH = 0.32  # m: the Panda hand (22 cm along its closing axis) and its wrist between front and back walls
DEEP_WALLS = 0.2  # m: an open container at least this tall is one the hand reaches down into (`_lay_deep_open`)
DEEP_DEPTH = 0.44  # m: ... at least this deep (x), its row centred front to back, and ...
DEEP_ROW_END = 0.12  # m ... this much free at the ends of its row
DEEP_SIDE = 0.06  # m more room beside it in the row it stands in (`_units`)
DRAWER_ROW_END = 0.1  # m a drawer keeps free at the ends of its rows (it grows wider for them): the
# hand closes across y in a drawer (`TabletopScene._in_drawer`), 11 cm each side of the grip along
# the rows, and over a side wall 6 cm from a spoon's middle its palm stayed above the walls
DRAWER_ROW = 0.9  # m: a drawer's row may grow this wide before a second row starts (a 0.35 m deep desk
# drawer with two rows, pulled out, brought its front row within 20 cm of the arms)
FOREARM_ROOM = 0.19  # m from the front wall of a box DEEP_WALLS tall to what starts in it, where the
# box is deep enough (`_clear_of_front_wall`): reaching 25 cm down to a ball 15 cm behind a toy
# chest's front wall, the forearm (link 5, round joint 6) met the wall's top 18 cm behind the
# hand's axis and the hand stopped 3 cm high (Toy-B3)
LOW_WALLS = 0.045  # m: walls the Panda's palm (4.7 cm above its grip) clears over what lies on the floor
FRONT_STRIP = MAX_GRASP_WIDTH + 0.005  # m: a free strip the widest graspable item fits in, with the spots'
# INSIDE_MARGIN to its neighbours (`_front_strip_free`)
WINDOW_KEEP = 0.055  # m each side of a window box's middle (along its length) what starts in it keeps
# free (`_clear_of_window`): the 3 cm the grip may move in, a 4 cm cap's half and a margin
INSIDE_GAP = 0.01  # m between what starts in a window box and its walls or neighbours
LOW_GAP = 0.02  # m between neighbours that start in such a lidded box (`_content_gap`)
HAND_HALF = 0.115  # m: half the Panda hand along its closing axis (it closes across x in such a box),
# and 1 cm: with 0.11 the hand reaching down to a ball in a 0.32 m toy chest touched the back wall (Toy-B1)
WIDE_LID_OPEN = 1.6  # rad (92 deg, just past vertical, as MuJoCo's lids): the lid stop of a lidded box ...
BOOK_OPEN = 1.85  # rad (106 deg): a book cover's stop, leaning back past vertical. A hand taking
# something out of an open book lies front to back over it (22 cm along its closing axis over a
# 17 cm book): at 75 deg it swept the cover shut on its way down to the scissors in it, at 92 deg
# it met the cover's top, at 100 deg it lifted the book by the cover when the scissors lay 1 cm
# behind the book's middle (Desk-14). The book, carried by its front wall, then hangs further
# from the pinch (the cover's weight behind it): `SapienRobot` carries it slower (HANGING_SLOW)
BOOK_SWEEP = 0.02  # m a book hiding something stands further forward in its column: at BOOK_OPEN its
# cover's face sweeps 1.2 cm behind the back wall 2 cm above it, where the tab of a pencil case
# behind (LIP 4 cm over the 3.5 cm column gap) reaches over that wall: set open, the cover pushed
# book and case 1.1 and 0.6 cm apart (Desk-1). The case stays: 2 cm further back, it was out of
# reach for closing its lid (Desk-14)
EDGE_DEPTH = 0.04  # m in from a closed book's front edge its pinch takes it (`TabletopScene._edge_grasps`)
FIRST_ROW = 0.1  # m: an object whose front is this close behind its top's front edge is in the first row
BOOK_OVERHANG = 0.06  # m a closed book nothing starts in stands over its top's front edge: it is
# taken closed, pinched across its thickness at that edge (the lower finger under it); a person
# slides a book to the table's edge to pick it up. Pinched 4 cm in with 7 cm over, a 56 cm book
# rose level (Desk-1); the same book 1 cm behind the edge took no grasp (wider than the fingers)
LIP = 0.04  # m a lid's or cover's tab reaches past the box's front wall (pinched from above)
TAB_CLEAR = 0.01  # m the tab of a lidded column target ends behind its lidded blocker's back wall:
# the blocker's lid, raised, stands there (its back face 0.5 cm behind the hinge). Packed
# COLUMN_GAP behind, the tab reached 0.5 cm over that wall: a makeup box's lid pulled to 91 deg
# pushed the storage bag's tab, was pushed back to 57 deg once let go, and the palette brought
# to the box met it and shut it (Cosmetics-Ts14); another rested on the tab at 75 deg and took a
# lipstick cap brought to the box's back (Cosmetics-Ts20). The target moves back (`TAB_SWEEP`),
# not the blocker forward: 2.5 cm nearer the arms, the makeup boxes lost steps in Cosmetics-10
# (22 -> 15) and -12, and Toy-A3 its last step
TAB_SWEEP = LIP + TAB_CLEAR - COLUMN_GAP
WIDE_LID_DEPTH = 0.33  # m: ... at most this deep (its lid this long): just past vertical a longer lid lifts
# its tab out of reach for closing (a mini chest fridge's 0.36 m lid on a counter: a bottle was
# then not put into its door bin either, Fridge-T5)
MAX_LID_WIDTH = 0.52  # m: a lidded box grows at most this wide to keep its contents in one row
# (0.6: the case reached in toward the middle of the desk, and the lower tier's bar then was not
# reached from the stance the arm got; 0.45: no free spot for a pen, Desk-14)
MAX_TOP_WIDTH = 8.0  # m: a free-standing top grows along y at most this wide to fit the band
MINI_FOOTPRINT = 0.1  # m: a mini fridge's depth before it grows round what it holds
MINI_WIDTH = 0.88  # m: a mini fridge's width: its bin and its MINI_SHELF side by side, all within the reach band (wider with a wider shelf)
MINI_SHELF = (0.28, 0.36)  # m: depth (x) and width (y) of a shelf in a mini fridge (six jars, 3 cm apart; wider for more, `_mini_shelf`)
MINI_BIN = (0.2, 0.4)  # m: ... of a bin in it, at least (its capacity's slots left no spot for the last
# of five bottles: they stand where the spots fell, not in slots)


@dataclass(frozen=True, slots=True)
class Placement:
    """A node's body: centre of its bounding box in the world (m), full size, and its parent region."""

    node: str
    centre: tuple[float, float, float]
    size: tuple[float, float, float]
    app: Appearance
    parent: str | None
    rel: str | None
    container: bool  # built as an open box (walls and floor) rather than a solid
    cabinet: bool = False  # holds stacked drawer tiers: a case open at the front (-x)
    button: bool = False  # PRESSABLE: a push button on top
    handle: bool = False  # moved but not GRABBABLE (no hand spans it): a hollow body with a carry handle on top


@dataclass(frozen=True, slots=True)
class Region:
    """Where a node holds its children: floor centre (m) and half extents in x, y; height of the walls."""

    centre: tuple[float, float, float]
    half: tuple[float, float]
    height: float


@dataclass
class Layout:
    table: str
    placements: dict[str, Placement] = field(default_factory=dict)
    regions: dict[str, Region] = field(default_factory=dict)
    blocking: dict[str, str] = field(default_factory=dict)  # blocker -> the node it hides
    robot_x: float = 0.0  # x of the arms' base line (m, world), in front (-x) of the table
    robot_z: float = 0.0  # height of the arms' bases (m): the table top, at least MIN_BASE_Z
    lid_open: dict[str, float] = field(default_factory=dict)  # lid -> its open angle (rad) where not world's LID_OPEN


def setback(placement: Placement) -> float:
    """How far the free-standing `placement` stands behind the arms' base line (m)."""
    return TIER_SETBACK if placement.cabinet else SETBACK


def band_margin(setback_m: float) -> float:
    """Front margin (m) of the first packed row on a free-standing top `setback_m` from the arms."""
    return max(FRONT_MARGIN, REACH_NEAR - setback_m)


def buildable(graph: SceneGraph) -> list[str]:
    """Categories of the graph's furniture and objects the catalog has no entry for."""
    catalog = load_catalog()
    return sorted({n.category for n in graph.nodes.values()
                   if n.kind in (FURNITURE, OBJECT) and n.category not in catalog})


def assembly_wholes(graph: SceneGraph) -> set[str]:
    """Nodes made of PART_OF parts: they have no body of their own (the joined parts are it)."""
    return {e.dst for e in graph.edges_of(PART_OF)}


def _roots(graph: SceneGraph) -> tuple[str, list[str]]:
    """The table (the largest SURFACE furniture standing on nothing) and the other free-standing
    furniture, which stands on the floor beside it (a sideboard next to a dining table)."""
    wholes = assembly_wholes(graph)
    free = [n for n in graph.nodes.values() if n.kind in (FURNITURE, OBJECT)
            and n.id not in graph.location and n.id not in wholes]
    loose = sorted(n.id for n in free if n.kind == OBJECT)
    if loose:
        raise UnsupportedScene("objects with no location (every object must be ON or INSIDE something)", loose, [])
    tables = sorted((n for n in free if n.has(SURFACE)),
                    key=lambda n: (-appearance(n).size[0] * appearance(n).size[1], n.id))
    if not tables:
        raise UnsupportedScene("a scene without a table (no SURFACE furniture that stands on nothing)",
                               sorted(n.id for n in free), [])
    return tables[0].id, sorted(n.id for n in free if n.id != tables[0].id)


def _children(graph: SceneGraph) -> Mapping[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for node in sorted(graph.location):
        e = graph.location[node]
        out.setdefault(e.dst, []).append((node, e.rel))
    return out


def _is_container(graph: SceneGraph, node: str, app: Appearance) -> bool:
    return graph.nodes[node].has(CONTAINER) or app.articulation == "drawer"


def solve(graph: SceneGraph, deeper: Mapping[str, float] | None = None) -> Layout:
    """Place every furniture and object node; raises `UnsupportedScene` naming what it cannot make.
    `deeper`: metres added to a node's catalog depth (x), so a raised lid or cover is tall
    enough to hide what stands behind it (`hiding.solve_hiding`)."""
    missing = buildable(graph)
    if missing:
        raise UnsupportedScene("these categories (not in assets/objects.yaml)", missing, list(load_catalog()))
    table, others = _roots(graph)
    kids = _children(graph)
    wholes = assembly_wholes(graph)
    apps = {n: appearance(graph.nodes[n]) for n in graph.nodes
            if graph.nodes[n].kind in (FURNITURE, OBJECT) and n not in wholes}
    for node, app in apps.items():
        tx, ty, tz = app.size
        if app.articulation == "drawer":  # shallow drawers: pulled out, the bar stays within reach
            if tx > TIER_DEPTH:
                apps[node] = replace(app, size=(TIER_DEPTH, max(tx, ty), tz))
        elif tx > ty:  # long side across the robot (y): rows stay shallow, the far edge within reach
            apps[node] = replace(app, size=(ty, tx, tz))
        loc = graph.location.get(node)
        if loc is not None and loc.dst in apps and apps[loc.dst].articulation == "drawer" \
                and graph.nodes[node].kind == OBJECT and app.articulation == "none":
            # in a drawer the long side runs front to back where it fits: the fingers then
            # close across y and the hand (22 cm along its closing axis) lies along the drawer's
            # width; closing across x, it did not fit between the case's top and the pulled-out
            # drawer's front wall (a fork in a sideboard drawer)
            sx, sy, sz = apps[node].size
            if sy > sx and sy <= min(TIER_DEPTH, apps[loc.dst].size[0]) - 2 * WALL - 2 * TIER_GAP:
                apps[node] = replace(apps[node], size=(sy, sx, sz))
        if graph.nodes[node].kind == FURNITURE and loc is not None and loc.dst in (table, *others):
            # furniture standing on a top (a toy shelf, a mini fridge) low enough for the arms
            # to reach over it (what it must hold still grows it back)
            apps[node] = replace(apps[node], size=(*apps[node].size[:2], min(apps[node].size[2], FIXTURE_HEIGHT)))
    shallow = _shallow_pairs(graph, apps)  # once: the steps below keep every pair's kinds and articulations
    _lay_shallow(graph, apps, kids, shallow)
    _lay_deep_open(graph, apps, kids, {n for pair in shallow for n in pair})
    _square_slender_stacks(graph, apps)
    _mini_fridges(graph, apps, {table, *others})
    for node, extra in (deeper or {}).items():
        a = apps[node]
        apps[node] = replace(a, size=(a.size[0] + extra, a.size[1], a.size[2]))
    sizes = _fitted_sizes(graph, kids, apps, {table, *others})
    lay = Layout(table)
    # lidded boxes open just past vertical, out of the way of the arm working in them: resting
    # at 75 deg a lid leant in over the box's back, the forearm taking a toy from a toy chest's
    # middle stopped against it, a hand bringing a toy dinosaur to a bin pushed it past its
    # balance and it fell shut, an eyeshadow palette carried to the back of a makeup box caught
    # the lid's edge (Cosmetics-4). Its tab stays within reach for closing it where the box is
    # shallow (a shallow column's boxes are laid so). The hiding is still sized at 75 deg: a lid
    # past vertical stands higher and further back, so it hides at least as much behind it.
    columns = {n for pair in shallow for n in pair}
    lay.lid_open.update({n: WIDE_LID_OPEN for n in apps if apps[n].articulation == "lid"
                         and (sizes[n][0] <= WIDE_LID_DEPTH or n in columns)})
    lay.lid_open.update({n: BOOK_OPEN for n in apps if apps[n].articulation == "book_cover"})
    tsize = sizes[table]
    lay.placements[table] = Placement(table, (0.0, 0.0, tsize[2] / 2), tsize, apps[table], None, None, False,
                                      _holds_tiers(table, kids, apps))
    lay.regions[table] = Region((0.0, 0.0, tsize[2]), (tsize[0] / 2, tsize[1] / 2), 0.0)
    lay.robot_x = -tsize[0] / 2 - setback(lay.placements[table])
    lay.robot_z = max(tsize[2], MIN_BASE_Z)
    y = -tsize[1] / 2 - FLOOR_GAP
    for other in [table, *others]:
        if other != table:
            s = sizes[other]
            front = lay.robot_x + (TIER_SETBACK if _holds_tiers(other, kids, apps) else SETBACK)
            centre = (front + s[0] / 2, y - s[1] / 2, s[2] / 2)
            y -= s[1] + FLOOR_GAP
            container = _is_container(graph, other, apps[other])
            lay.placements[other] = Placement(other, centre, s, apps[other], None, None, container,
                                              _holds_tiers(other, kids, apps))
            lay.regions[other] = region_of(lay.placements[other])
        _place_children(graph, other, kids, apps, sizes, lay, {t for _, t in shallow}, root=True)
    for node, pl in list(lay.placements.items()):
        if graph.nodes[node].has(PRESSABLE):
            if pl.container or pl.app.articulation != "none":
                raise UnsupportedScene("a pressable that is also a container or articulated", [node], [])
            lay.placements[node] = replace(pl, button=True)
        elif _carried_by_handle(graph, node, pl):
            lay.placements[node] = replace(pl, handle=True)
    return lay


def _carried_by_handle(graph: SceneGraph, node: str, pl: Placement) -> bool:
    """Whether `node` is an object the task moves (MOVABLE) that no hand takes (not GRABBABLE):
    a monitor stand, 22 x 45 cm, wider than the open fingers (8 cm) both ways. Built solid it
    took no grasp and no push cleared it (3 cm from the desk's front edge, 7 cm free beside it,
    what it hides right behind it: Desk-4); it is built as a riser is, a hollow box of boards,
    with a carry handle on top that the fingers close across."""
    n = graph.nodes[node]
    return n.kind == OBJECT and n.has(MOVABLE) and not n.has(GRABBABLE) and not pl.container \
        and pl.app.articulation == "none"


def _shallow_pairs(graph: SceneGraph, apps: Mapping[str, Appearance]) -> list[tuple[str, str]]:
    """(blocker, target) of each conditioned OCCLUDES pair whose blocker is a SHALLOW_BLOCKERS
    lidded box: a toy bin or chest whose raised lid hides the bin or basket behind it."""
    return [(e.src, e.dst) for e in graph.edges_of(OCCLUDES)
            if e.when and e.src in apps and e.dst in apps and apps[e.src].articulation == "lid"
            and graph.nodes[e.src].category in SHALLOW_BLOCKERS]


def _square_slender_stacks(graph: SceneGraph, apps: dict[str, Appearance]) -> None:
    """Round parts of an assembly whose stacked whole is slender (height over SLENDER times its
    narrowest width) are built as boxes (in place), as a slender cylinder is (world.py, MuJoCo's
    rule): a toy rocket's parts, 6 cm round and 20 cm tall stacked, set down on the toy shelf
    rolled over on its rim (it then read "toy_rocket ON rocket_nose"), each part alone being
    squat enough to stay round."""
    parts: dict[str, list[str]] = {}
    for e in graph.edges_of(PART_OF):
        if e.src in apps:
            parts.setdefault(e.dst, []).append(e.src)
    for ps in parts.values():
        height = sum(apps[p].size[2] for p in ps)
        if height > SLENDER * min(min(apps[p].size[:2]) for p in ps):
            for p in ps:
                if apps[p].geometry in ("cylinder", "capsule", "sphere"):
                    apps[p] = replace(apps[p], geometry="box")


def _lay_shallow(graph: SceneGraph, apps: dict[str, Appearance], kids: Mapping[str, list[tuple[str, str]]],
                 shallow: list[tuple[str, str]]) -> None:
    """Lay each `_shallow_pairs` column shallow and wide (in place): both boxes only two
    capacity rows deep behind the packing's front margin (their contents may still grow them),
    the target as wide as its catalog floor area needs at that depth, the blocker SHALLOW_MARGIN
    wider than the target each side so its raised lid can cover it; the blocker then deepens
    until its lid hides (`hiding.solve_hiding`). Why: at their catalog depths the blocker had to
    grow to 0.40-0.45 m and the column ran 1.0-1.1 m ahead of the arms, where the target's back
    half and its lid's tab were out of reach (no free spot in it for what the task puts in);
    a shallow target is also easier to hide (its top recedes less). What starts in the target is
    packed at its back, not centred (`_place_children`), so the front row stays free for
    what is put in later, and the extra width lets a long toy go in beside one put in the
    middle (a bunny found no spot next to a dinosaur in a 0.38 m wide bin). The blocker, which
    the task also takes toys out of, is at least SHALLOW_MIN_DEPTH deep and wide enough for
    what starts in it to stand in one row, ROW_END free at its ends: the hand closing across a toy in that
    row goes down between its front and back walls (in a 0.24 m deep toy chest it stayed above
    the 0.30 m walls, 20 cm over a toy ball, and a hand turned along the row hit the toys beside;
    in a 0.26 m deep one the wrist, whose link 6 stands ~9 cm off the hand's axis, stopped on
    the front wall 10 cm above the ball)."""
    for blocker, target in shallow:
        depth: dict[str, float] = {}
        for node in (blocker, target):
            room = capacity_room(graph, node, apps[node])
            depth[node] = (room[0] if room else apps[node].size[0]) + FRONT_MARGIN
        tx, ty, tz = apps[target].size
        wide = max(ty, tx * ty / depth[target])
        apps[target] = replace(apps[target], size=(depth[target], wide, tz))
        bx, by, bz = apps[blocker].size
        apps[blocker] = replace(apps[blocker], size=(bx, max(by, wide + 2 * SHALLOW_MARGIN), bz))
        _one_row(apps, kids, blocker, depth[blocker])


def _one_row(apps: dict[str, Appearance], kids: Mapping[str, list[tuple[str, str]]], node: str,
             depth: float, end: float = ROW_END) -> None:
    """Make the box `node` (in place) at least `depth` and SHALLOW_MIN_DEPTH deep and wide
    enough for what starts in it to stand in one row, `end` free at its ends: the hand
    closing across x goes down between its front and back walls to any of them."""
    bx, by, bz = apps[node].size
    inside = [c for c, _ in kids.get(node, []) if c in apps]
    row = pack_extent([single(c, apps[c].size[0], apps[c].size[1]) for c in inside])[0] + 2 * (WALL + end)
    apps[node] = replace(apps[node], size=(max(depth, SHALLOW_MIN_DEPTH), max(by, row), bz))


def _lay_deep_open(graph: SceneGraph, apps: dict[str, Appearance],
                   kids: Mapping[str, list[tuple[str, str]]], columns: set[str]) -> None:
    """An open container at least DEEP_WALLS tall that something starts in (a 32 cm grocery
    bag) holds it in one row (`_one_row`): the hand reaches down into it closing across x,
    which needs 12 cm between the grip and the front and back walls, and over walls that tall
    the fingers reach nothing. Packed two rows deep in an 18-41 cm deep bag, a jar at a corner
    had a wall within the hand's footprint both ways round (7 of 10 Fridge-T episodes). Not
    a box of a shallow column (`columns`: laid by `_lay_shallow`, its front row in reach)."""
    for node, app in list(apps.items()):
        if node not in columns and _deep_open(graph, node, app) and any(rel == INSIDE and c in apps for c, rel in kids.get(node, [])):
            _one_row(apps, kids, node, max(app.size[0], DEEP_DEPTH), DEEP_ROW_END)


def _deep_open(graph: SceneGraph, node: str, app: Appearance) -> bool:
    """Whether `node` is an open (lidless) container at least DEEP_WALLS tall."""
    return app.articulation == "none" and app.size[2] >= DEEP_WALLS and _is_container(graph, node, app)


def _mini_fridges(graph: SceneGraph, apps: dict[str, Appearance], tops: set[str]) -> None:
    """A fridge standing on a top (a kitchen fridge's door on a vertical hinge) is a mini
    chest fridge: its door is a lid hinged at the back top edge (taken by its tab, as a bin's
    lid), and it is MINI_WIDTH wide and as deep as its bins need (MINI_BIN or a bin's capacity,
    MINI_SHELF for a shelf, side by side) instead of a kitchen fridge's 0.55-0.7 m parts. A
    front door swings toward the arms, whose base cannot move in x: a 0.38 m leaf pulled by its
    bar swung into their base line and knocked a bottle over, and a 0.7 m one open 46 deg
    reaches 0.18 m behind it; a roof over the shelf needs grasps from the front, which the
    skills do not make (docs/sapien_backend.md, "Fridge-T")."""
    for node, app in list(apps.items()):
        loc = graph.location.get(node)
        if app.articulation != "hinged_door" or graph.nodes[node].kind != FURNITURE or loc is None \
                or loc.dst not in tops:
            continue
        width = MINI_WIDTH  # side by side: grown by what its shelves are grown by
        for child, edge in graph.location.items():
            if edge.dst != node or child not in apps or graph.nodes[child].kind != FURNITURE \
                    or apps[child].articulation != "none":
                continue
            if graph.nodes[child].has(CONTAINER):
                footprint = MINI_BIN
            else:
                footprint = _mini_shelf(graph, child)
                width += footprint[1] - MINI_SHELF[1]
            apps[child] = replace(apps[child], size=(*footprint, apps[child].size[2]))
        apps[node] = replace(app, size=(MINI_FOOTPRINT, width, app.size[2]), articulation="lid")


def _mini_shelf(graph: SceneGraph, node: str) -> tuple[float, float]:
    """(depth, width) of a mini fridge's shelf: MINI_SHELF holds six jars in two rows of three;
    wider by a third of it for each further column its capacity asks for (a shelf of capacity 9
    holding a seventh item, a butter, had no spot where the hand fits between the fridge's
    walls: Fridge-T4, -T6)."""
    depth, width = MINI_SHELF
    columns = -(-int(graph.nodes[node].capacity or 0) // 2)
    return depth, width * max(3, columns) / 3


def _holds_tiers(node: str, kids: Mapping[str, list[tuple[str, str]]], apps: Mapping[str, Appearance]) -> bool:
    return any(rel == INSIDE and apps[c].articulation == "drawer" for c, rel in kids.get(node, []))


def capacity_room(graph: SceneGraph, node: str, app: Appearance) -> tuple[float, float] | None:
    """(depth, width) in m a movable container needs for its `capacity` items of up to SLOT
    across, SLOTS_PER_ROW to a row (what the task puts in later needs a free spot; the packing
    alone leaves none); None for anything else."""
    cap = graph.nodes[node].capacity
    if not cap or not _is_container(graph, node, app) or app.articulation == "drawer":
        return None
    per_row = min(int(cap), SLOTS_PER_ROW)
    rows = -(-int(cap) // per_row)
    return rows * SLOT + 2 * WALL, per_row * SLOT + 2 * WALL


def _fitted_sizes(graph: SceneGraph, kids: Mapping[str, list[tuple[str, str]]],
                  apps: Mapping[str, Appearance], roots: set[str]) -> dict[str, tuple[float, float, float]]:
    """Catalog sizes, grown bottom-up where a node must hold what the graph puts in or on it:
    a cabinet its stacked drawer tiers, a container or surface its packed children (a
    container also as tall as its tallest child, so a lid closes over it); a free-standing
    top (`roots`) as wide as its children need to fit the reach band in rows."""
    sizes: dict[str, tuple[float, float, float]] = {}

    def size(node: str) -> tuple[float, float, float]:
        if node in sizes:
            return sizes[node]
        sx, sy, sz = apps[node].size
        children = kids.get(node, [])
        tiers = [c for c, rel in children if rel == INSIDE and apps[c].articulation == "drawer"]
        rest = [c for c, _ in children if c not in tiers and c in apps]
        for c in children:
            if c[0] in apps:
                size(c[0])
        _widen_covers(graph, [c for c, _ in children if c in apps], apps, sizes)
        if tiers:
            sx = max(sx, max(sizes[t][0] for t in tiers) + 2 * WALL)
            sy = max(sy, max(sizes[t][1] for t in tiers) + 2 * WALL + 2 * TIER_GAP)
            sz = max(sz, sum(sizes[t][2] + TIER_GAP for t in tiers) + 2 * WALL + TIER_GAP)
        room = capacity_room(graph, node, apps[node])
        if room is not None:
            sx, sy = max(sx, room[0]), max(sy, room[1])
        if rest:
            walls = 2 * WALL if _is_container(graph, node, apps[node]) else 0.0
            units = _units(graph, rest, sizes, apps)
            inner = max(sy - walls, max(u.width for u in units))
            drawer = apps[node].articulation == "drawer"
            if drawer:  # one row where it fits DRAWER_ROW: each row more deepens the drawer, and
                # pulled out its front row comes that much nearer the arms
                inner = max(inner, min(pack_extent(units)[0], DRAWER_ROW))
            margin = FRONT_MARGIN
            if node in roots:
                margin = band_margin(TIER_SETBACK if tiers else SETBACK)
                band = REACH_FAR - (TIER_SETBACK if tiers else SETBACK) - margin
                # ... or to one row where a unit is deeper than the band (a toy bin hiding another
                # behind it): the rows then cannot fit the band, and widening only to a cap left
                # the toy shelf, last of 16 on the play mat, alone in a second row 0.95 m ahead
                # of the arms, its whole top out of reach (Toy-A1: no free spot ON toy_shelf)
                need = max(band, max(u.depth for u in units))
                while pack_extent(units, inner)[1] > need + 1e-9 and inner < MAX_TOP_WIDTH:
                    inner += 0.05
            widened = False
            if node not in roots and apps[node].articulation in ("lid", "book_cover"):
                # a lidded box grows wider, not deeper, for what it holds: its lid is as long as
                # the box is deep and, raised, stands that far above its back edge, where the
                # hand must reach its tab to close it (three items packed in two rows made a
                # pencil case 0.27 m deep; behind a book its raised tab stood 0.96 m ahead of the
                # arms, out of reach from above, tilted or level: Desk-14). An open book too:
                # a closed book and a crumpled paper in two rows made one 38 cm deep, and the
                # pencil case its raised cover hides stood behind it past the spots' reach
                # (Desk-12: no free spot for a pen)
                while pack_extent(units, inner)[1] + margin + FRONT_MARGIN + walls > sx and inner < MAX_LID_WIDTH:
                    inner += 0.05
                    widened = True
            width, depth = pack_extent(units, inner)
            if widened:  # ... with its free capacity beside the row (0.33 m wide, packed to the
                # last centimetre, it had no free spot for a pen)
                free = max(0, int(graph.nodes[node].capacity or 0) - len(rest))
                width = max(width, min(MAX_LID_WIDTH - walls, width + free * SLOT))
            if node in roots:  # free room in the band for what is moved aside or put down there
                width += TOP_SPARE
            sx = max(sx, depth + margin + FRONT_MARGIN + walls)
            sy = max(sy, width + walls + (2 * DRAWER_ROW_END if drawer else 0.0))
            if walls:
                sz = max(sz, max(sizes[c][2] for c in rest) + WALL + CLEARANCE)
        sizes[node] = (sx, sy, sz)
        return sizes[node]

    for node in sorted(apps):
        size(node)
    return sizes


def _widen_covers(graph: SceneGraph, siblings: list[str], apps: Mapping[str, Appearance],
                  sizes: dict[str, tuple[float, float, float]]) -> None:
    """A book whose raised cover hides a sibling ("hides it when open") is made COVER_SIDE wider
    than that target on each side: as wide as a 32 cm pencil case only, it no longer hid the
    case once closing the case's lid had pushed the case 7 cm sideways."""
    members = set(siblings)
    for e in graph.edges_of(OCCLUDES):
        if e.when and e.src in members and e.dst in members and apps[e.src].articulation == "book_cover":
            sx, sy, sz = sizes[e.src]
            sizes[e.src] = (sx, max(sy, sizes[e.dst][1] + 2 * COVER_SIDE), sz)


def _place_children(graph: SceneGraph, parent: str, kids: Mapping[str, list[tuple[str, str]]],
                    apps: Mapping[str, Appearance], sizes: Mapping[str, tuple[float, float, float]],
                    lay: Layout, at_back_of: set[str], root: bool = False) -> None:
    """(`at_back_of`: the shallow columns' targets, whose contents stand at their back.)"""
    region = lay.regions[parent]
    children = kids.get(parent, [])
    tiers = [c for c, rel in children if rel == INSIDE and apps[c].articulation == "drawer"]
    rest = [(c, rel) for c, rel in children if c not in tiers]
    if tiers:
        pc = lay.placements[parent]
        z = pc.centre[2] + pc.size[2] / 2 - WALL  # first tier at the top, the rest below it
        for t in tiers:
            s = sizes[t]
            z -= s[2] + TIER_GAP
            x = pc.centre[0] - pc.size[0] / 2 + s[0] / 2  # front flush with the case's open front
            lay.placements[t] = Placement(t, (x, pc.centre[1], z + s[2] / 2), s, apps[t], parent,
                                          INSIDE, True)
    units = _units(graph, [c for c, _ in rest], sizes, apps)
    cx, cy, floor = region.centre
    box = lay.placements[parent]
    at_back = parent in at_back_of or _front_strip_free(box, region, units)
    drawer = box.app.articulation == "drawer"
    centred = box.container and box.app.articulation != "book_cover" and not _under_a_tier(lay, parent) and not at_back
    # a drawer's rows leave DRAWER_ROW_END at each end (`_fitted_sizes` widened it for that; 1e-9:
    # the widest row, packed to that very width, stays one row)
    row_ends = 2 * DRAWER_ROW_END if drawer else 0.0
    placed = pack_rows(units, x_front=cx - region.half[0], y_mid=cy, max_width=2 * region.half[1] - row_ends + 1e-9,
                       front_margin=band_margin(setback(box)) if root else FRONT_MARGIN,
                       gap=_content_gap(box, region, units),
                       # in a walled container the rows are centred front to back: a palm reaching
                       # down to a croissant at the front of a chafing dish hit its front wall
                       # (not in a book: its raised cover leans over the back half, where a
                       # hand reaching for scissors lying in the middle ran into it; its 3 cm
                       # front wall keeps no palm out)
                       centre_depth=region.half[0] if centred else None,
                       # in a drawer (pulled out, its front wall comes within 13 cm of the arms)
                       # a short item beside a long one stands in the row's middle too
                       centre_in_row=centred and drawer)
    if window_box(box, graph.nodes.get(parent), region):
        placed = _clear_of_window(placed, sizes, region)
    tabbed = _tabbed_targets(placed, apps)
    # a closed book taken closed in the first row stands over the top's front edge
    # (`BOOK_OVERHANG`), and what its raised cover hides comes forward with it: left where it
    # was, the cover hid it only once grown 2 cm deeper, which pushed a pencil case 2 cm back,
    # where its lid no longer closed (Desk-1)
    over: dict[str, float] = {}
    for p in placed if root else ():
        front = p.x - sizes[p.node][0] / 2 - (BOOK_SWEEP if p.hides is not None else 0.0)
        if _taken_closed(graph, p.node, apps, kids) and front < cx - region.half[0] + FIRST_ROW:
            over[p.node] = cx - region.half[0] - BOOK_OVERHANG - front
            if p.hides is not None:
                over[p.hides] = over[p.node]
    for p in placed:
        s = sizes[p.node]
        rel = dict(rest)[p.node]
        # a shallow column's target holds what starts in it at its back, under its raised lid:
        # the front row stays free for what the hands put in (reaching the back row, a bunny
        # swung into the lid leaning over it and knocked the bin over)
        x = 2 * cx - p.x if at_back else _clear_of_front_wall(graph, lay, parent, p.node, p.x, s[0] / 2)
        if p.hides is not None and apps[p.node].articulation == "book_cover":
            x -= BOOK_SWEEP if not at_back else -BOOK_SWEEP  # room behind it for its cover (its target stays)
        if p.node in tabbed:  # room in front of it for its tab (`TAB_SWEEP`)
            x += TAB_SWEEP if not at_back else -TAB_SWEEP
        x += over.get(p.node, 0.0)
        lay.placements[p.node] = Placement(p.node, (x, p.y, floor + s[2] / 2), s, apps[p.node], parent, rel,
                                           _is_container(graph, p.node, apps[p.node]),
                                           _holds_tiers(p.node, kids, apps))
        if p.hides is not None:
            lay.blocking[p.node] = p.hides
    for c, _ in children:
        lay.regions[c] = region_of(lay.placements[c])
        _place_children(graph, c, kids, apps, sizes, lay, at_back_of)


def window_box(box: Placement, node: Node | None, region: Region) -> bool:
    """Whether `box` is one the hand goes down into only through a window at its middle: a
    lidded container a hand carries (`node` GRABBABLE: a bag) whose walls the palm does not
    clear (taller than LOW_WALLS), its floor leaving the grip of the hand (HAND_HALF along its
    closing axis, MAX_GRASP_WIDTH across, WALL from each wall) less than WINDOW_KEEP of play
    from the middle either way round."""
    if not (box.container and box.app.articulation == "lid" and node is not None and node.has(GRABBABLE)
            and region.height > LOW_WALLS):
        return False
    hx, hy = region.half
    across = MAX_GRASP_WIDTH / 2 + WALL
    along = HAND_HALF + WALL
    play = max(min(hx - across, hy - along), min(hx - along, hy - across))
    return 0.0 <= play < WINDOW_KEEP


def _clear_of_window(placed: list[Placed], sizes: Mapping[str, tuple[float, float, float]], region: Region) -> list[Placed]:
    """A window box's (`window_box`) one row moved out to its two ends, WINDOW_KEEP left free
    each side of its middle: the parts of an assembly are seated on each other there, the only place
    the hand holding one comes down between the walls to the other (a lip balm starting in the
    middle of the storage bag left the lipstick cap put in later 6 cm off it, and the body
    brought onto the cap stopped on the walls, 3.6 cm off its seat: Cosmetics-9, -12, -14).
    Each keeps its place front to back (the rows run along y, the box's length). As it was
    where the ends would reach into the middle."""
    if any(p.hides is not None for p in placed):
        return placed
    cy, end = region.centre[1], region.half[1] - INSIDE_GAP
    ends: dict[float, list[Placed]] = {1.0: [], -1.0: []}
    for k, p in enumerate(sorted(placed, key=lambda p: -sizes[p.node][1])):
        ends[1.0 if k % 2 == 0 else -1.0].append(p)
    out: list[Placed] = []
    for side, group in ends.items():
        y = end
        for p in group:
            w = sizes[p.node][1]
            out.append(replace(p, y=cy + side * (y - w / 2)))
            y -= w + INSIDE_GAP
        if y < WINDOW_KEEP:
            return placed
    return out


def _front_strip_free(box: Placement, region: Region, units: list[Unit]) -> bool:
    """Whether what starts in lidded box `box` stands at its back, leaving its front free for what
    is put in: where the packed rows, centred front to back, leave less than a SLOT in front
    and behind but packed at the back leave FRONT_STRIP in front. Centred, the blush and
    palette of a 16 cm deep makeup box left 4.9 cm on each side and 5.8 cm between them, and a
    6.2 cm concealer put in last found no spot (Cosmetics-15). Not in a box the hand reaches
    down into (DEEP_WALLS: its palm meets the walls at the back) nor one whose walls the palm
    clears (LOW_WALLS: its contents are spread along it instead, `_content_gap`)."""
    if not (box.container and box.app.articulation == "lid") or not units \
            or not LOW_WALLS < region.height < DEEP_WALLS:
        return False
    free = 2 * region.half[0] - pack_extent(units, 2 * region.half[1])[1]
    return free / 2 < SLOT and free - FRONT_MARGIN >= FRONT_STRIP


def _taken_closed(graph: SceneGraph, node: str, apps: Mapping[str, Appearance],
                  kids: Mapping[str, list[tuple[str, str]]]) -> bool:
    """A book that starts closed with nothing in it: nothing makes a task open it before it
    is taken, so it is taken closed (`BOOK_OVERHANG`). One that holds something is opened for
    that first and carried by its front wall."""
    return apps[node].articulation == "book_cover" and not graph.is_open(node) and not kids.get(node)


def _tabbed_targets(placed: list[Placed], apps: Mapping[str, Appearance]) -> set[str]:
    """The targets of lidded blockers' columns that have a lid or cover (and so a tab) too."""
    return {p.hides for p in placed if p.hides is not None and apps[p.node].articulation == "lid"
            and apps[p.hides].articulation in ("lid", "book_cover")}


def _content_gap(box: Placement, region: Region, units: list[Unit]) -> float:
    """The gap between neighbours that start in `box`: GAP (the room a hand needs between
    neighbours it takes), but LOW_GAP in a lidded box with walls no higher than LOW_WALLS (a
    pencil case) where GAP leaves less than a SLOT free at each end of the row. GAP apart, two
    pens 6.2 cm wide stood 7 cm apart in the middle of a 15 x 30 cm case and left 7 cm between
    them and 5.3 cm at each end: no spot for a third, 2 mm short with the 0.5 cm gaps (Desk-4,
    -7, -12); LOW_GAP apart, the free room lies at the ends. Where GAP leaves a slot at each
    end the contents stay GAP apart (a 50 cm case in Desk-14, whose episode is whole so)."""
    low = box.container and box.app.articulation == "lid" and region.height <= LOW_WALLS
    if not low or not units:
        return GAP
    width = pack_extent(units, 2 * region.half[1])[0]
    return LOW_GAP if region.half[1] - width / 2 < SLOT else GAP


def _under_a_tier(lay: Layout, node: str) -> bool:
    """Whether `node` is a drawer tier with another tier above it in its case: pulled out, only
    its front part is clear of the tier above, so its contents are packed from the front (a
    hand reaching for a note card lying in the middle of a desk's lower tier stopped 12 cm
    short, on the upper tier's handle bar)."""
    pl = lay.placements[node]
    if pl.app.articulation != "drawer" or pl.parent is None:
        return False
    return any(o.parent == pl.parent and o.app.articulation == "drawer" and o.centre[2] > pl.centre[2]
               for o in lay.placements.values())


def _clear_of_front_wall(graph: SceneGraph, lay: Layout, parent: str, node: str, x: float,
                         half_depth: float) -> float:
    """Centre x of an object starting in box `parent` moved back toward FOREARM_ROOM from the
    front wall where its walls are DEEP_WALLS tall, as far as the hand (HAND_HALF each side of
    the grip, closing across x) still fits before the back wall; never forward. Not in a
    drawer (pulled out toward the arms, its back stays under the furniture's top) nor for the
    furniture inside a box (a mini fridge's shelf and door bin)."""
    region = lay.regions[parent]
    if region.height < DEEP_WALLS or lay.placements[parent].app.articulation == "drawer" \
            or graph.nodes[node].kind != OBJECT:
        return x
    front, back = region.centre[0] - region.half[0], region.centre[0] + region.half[0]
    return max(x, min(front + FOREARM_ROOM, back - max(half_depth, HAND_HALF)))


def region_of(pl: Placement) -> Region:
    """A container holds its children on its floor inside its walls; anything else on its top."""
    x, y, z = pl.centre
    bottom = z - pl.size[2] / 2
    if pl.container:
        return Region((x, y, bottom + WALL), (pl.size[0] / 2 - WALL, pl.size[1] / 2 - WALL), pl.size[2] - WALL)
    return Region((x, y, bottom + pl.size[2]), (pl.size[0] / 2, pl.size[1] / 2), 0.0)


def _units(graph: SceneGraph, nodes: list[str], sizes: Mapping[str, tuple[float, float, float]],
           apps: Mapping[str, Appearance]) -> list[Unit]:
    """One unit per node; an OCCLUDES pair among them becomes one column. A deep open container
    (`_deep_open`) takes DEEP_SIDE more room on each side of its row: the forearm of a hand
    reaching down 12 cm beside its 32 cm wall met the wall (a hot sauce bottle standing 7 cm
    from a grocery bag, Fridge-T2)."""
    members = set(nodes)
    paired: dict[str, str] = {}
    for e in graph.edges_of(OCCLUDES):
        # a conditioned pair ("hides it when open") too: the raised lid or cover stands at the
        # blocker's back edge, so the target must stand right behind it
        if e.src in members and e.dst in members and e.src not in paired and e.dst not in paired \
                and e.src not in paired.values() and e.dst not in paired.values():
            paired[e.src] = e.dst
    hidden = set(paired.values())
    out: list[Unit] = []
    # rows are packed from the front: single objects first, then occlusion columns (their grown
    # blockers), then fixed furniture (a dish rack), so nothing hides what stands behind it
    # from the head camera unless the graph says so (stable: otherwise in id order)
    def order(n: str) -> tuple[bool, bool]:
        return graph.nodes[n].kind == FURNITURE, n in paired or n in hidden

    for n in sorted(nodes, key=order):
        if n in hidden:
            continue
        s = sizes[n]
        if n in paired:
            t = paired[n]
            out.append(column(n, (s[0], s[1]), t, (sizes[t][0], sizes[t][1])))
        else:
            out.append(single(n, s[0], s[1] + (2 * DEEP_SIDE if _deep_open(graph, n, apps[n]) else 0.0)))
    return out


_ = ON
