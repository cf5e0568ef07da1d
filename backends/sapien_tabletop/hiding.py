"""Blockers made to hide their targets (pure: layout arithmetic, no SAPIEN).

The layout puts each OCCLUDES pair in a column, the blocker in front of its target; whether the
head camera then really cannot see the target depends on sizes. A 2 cm laptop in front of a pen
hides nothing from a camera 0.8 m above the table. So, as the MuJoCo kitchen does for its
occluders (`mujoco_kitchen.layout` sizes them, `realize._grow_to_hide` for added ones), a blocker
that covers too little of its target grows: at least as wide as the target plus a margin each
side, then taller in steps until the coverage, measured on the layout's boxes with the shared
geometry (`robograph_backends.coverage`) from the viewpoint reconcile uses, passes GROW_COVER.
A conditioned pair ("hides it when open") is measured with the lid or cover raised: the raised
cover is as tall as the blocker is deep, so `solve_hiding` makes the blocker deeper and packs
again; its width grows as above, its height does not.

Only blockers grow; their footprint's centre stays where the packing put it, so the neighbours
keep theirs (the width may eat GROW_MARGIN into the 7 cm gap on each side).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from robograph.graph import OBJECT, OCCLUDES, SceneGraph
from robograph_backends.coverage import COVER_FRACTION, Primitives, coverage, surface
from robograph_backends.sapien_tabletop.cameras import head_viewpoint
from robograph_backends.sapien_tabletop.layout import WALL, Layout, Placement, region_of, solve
from robograph_backends.sapien_tabletop.world import ARM_BASES, LID_OPEN

GROW_STEP = 0.02  # m a blocker grows taller per try (as the MuJoCo kitchen's)
GROW_STEPS = 20  # ... at most this many tries (40 cm); set by hand
GROW_MARGIN = 0.015  # m a blocker is at least this much wider than its target on each side
GRASP_WIDTH = 0.062  # m: a grown blocker stays this narrow (if it was) so the 8 cm gripper still
# closes round it with room to spare (the MuJoCo catalog's MAX_GRASP_WIDTH); a 7 cm laptop grown
# to hide a 4 cm cap was hit by the descending fingers and flew off
GROW_COVER = 0.8  # coverage a blocker grows to, well past COVER_FRACTION: settling moves it; set by hand
UNPLANNED_COVER = 0.8 * COVER_FRACTION  # coverage that counts as one box hiding another where no edge says so
SIDESTEP = 0.02  # m steps in which a hidden object is moved sideways, out from behind another
SIDE_ROOM = 0.07  # m kept between footprints when something is moved sideways (packing's GAP): a
# yogurt cup moved out of the arms' room to 2.8 cm beside a mini fridge's 30 cm wall was not reached,
# the forearm on the wall (Fridge-T1), a paper towel roll 2.9 cm from a hot sauce bottle knocked it over
# when carried away (Fridge-T2); 1 cm before
# room the Pandas take at their ready posture, relative to each base (m): their links' shape
# centres measured at x -0.09..0.48, y +-0.04, z 0.33..0.66, plus the links' radii. A blocker
# grown into it (a 48 cm blanket on the Toy mat, where the bases stand at floor level) is
# pushed out when the world settles
ARM_ROOM = (np.array([-0.17, -0.12, 0.25]), np.array([0.56, 0.12, 1.0]))
DEEPER_STEP = 0.02  # m a lidded blocker whose raised lid is too short grows deeper per try
DEEPER_STEPS = 15  # ... at most this many tries (30 cm); set by hand


def _box(centre: np.ndarray, half: np.ndarray) -> Primitives:
    return Primitives.of([(centre, np.eye(3), half)], [])


def covers(b_centre: np.ndarray, b_half: np.ndarray, t_centre: np.ndarray, t_half: np.ndarray) -> bool:
    """Whether box b hides box t from the head camera: coverage past UNPLANNED_COVER, the
    shared COVER_FRACTION less a margin (settling moves bodies a little)."""
    return box_coverage(_box(b_centre, b_half), t_centre, t_half) > UNPLANNED_COVER


def raised_lid(centre: np.ndarray, half: np.ndarray, angle: float = LID_OPEN) -> Primitives:
    """The box of a lidded body (centre, half extents) with its lid opened to `angle` about
    the hinge on its back top edge: body and raised lid panel as two boxes."""
    hinge = centre + np.array([half[0], 0.0, half[2] + WALL / 2])
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])  # about +y: the front edge rises
    panel_centre = hinge + rot @ np.array([-half[0], 0.0, 0.0])
    return Primitives.of([(centre, np.eye(3), half), (panel_centre, rot, np.array([half[0], half[1], WALL / 2]))], [])


def _shift(layout: Layout, node: str, delta: np.ndarray) -> None:
    """Move a node's placement, and everything the layout puts on or in it, by `delta` (m)."""
    pl = layout.placements[node]
    layout.placements[node] = replace(pl, centre=tuple(float(v) for v in np.asarray(pl.centre) + delta))
    layout.regions[node] = region_of(layout.placements[node])
    for child, cp in list(layout.placements.items()):
        if cp.parent == node:
            _shift(layout, child, delta)


def _lift(layout: Layout, node: str, dz: float) -> None:
    """Raise everything the layout puts on or in `node`, and what that holds, by `dz` (m)."""
    for child, pl in list(layout.placements.items()):
        if pl.parent == node:
            layout.placements[child] = replace(pl, centre=(pl.centre[0], pl.centre[1], pl.centre[2] + dz))
            layout.regions[child] = region_of(layout.placements[child])
            _lift(layout, child, dz)


def box_coverage(blocker: Primitives, t_centre: np.ndarray, t_half: np.ndarray) -> float:
    """Coverage of a target box by `blocker` from the viewpoint straight in front of the target."""
    cam = head_viewpoint(float(t_centre[1]))
    surf = surface(_box(t_centre, t_half), t_centre, np.eye(3), t_half, cam)
    return coverage(blocker, cam, surf)


def _cover(centre: np.ndarray, half: np.ndarray, raised: bool, t_centre: np.ndarray, t_half: np.ndarray,
           angle: float = LID_OPEN) -> float:
    """Coverage of the target box by a blocker box (its lid raised to `angle` when `raised`)."""
    return box_coverage(raised_lid(centre, half, angle) if raised else _box(centre, half), t_centre, t_half)


def _sizing_angle(layout: Layout, blocker: str) -> float:
    """The lid angle a blocker's hiding is sized at: LID_OPEN (75 deg), or a book cover's stop
    (BOOK_OPEN, past vertical: leaning back toward what it hides, it hides more; sized at 75
    deg, a book standing BOOK_SWEEP forward of its pencil case grew 2-4 cm deeper, which put
    the case further back, out of reach for closing it: Desk-14). Lids stopping at 92 deg
    keep 75 deg: a margin the layouts of the whole episodes were tuned with."""
    pl = layout.placements[blocker]
    return layout.lid_open.get(blocker, LID_OPEN) if pl.app.articulation == "book_cover" else LID_OPEN


def solve_hiding(graph: SceneGraph) -> Layout:
    """The layout with every OCCLUDES pair physically true from the head camera's viewpoint: a
    lidded blocker of a conditioned pair made deeper (so its raised lid is taller) and packed
    again until the raised lid hides its target, then `hide_targets` and `step_aside`."""
    deeper: dict[str, float] = {}
    layout = solve(graph)
    for _ in range(DEEPER_STEPS):
        short = [b for b, t in sorted(layout.blocking.items()) if _raised_short(layout, graph, b, t)]
        if not short:
            break
        for b in short:
            deeper[b] = deeper.get(b, 0.0) + DEEPER_STEP
        layout = solve(graph, deeper)
    return step_aside(hide_targets(layout, graph), graph)


def _raised_short(layout: Layout, graph: SceneGraph, blocker: str, target: str) -> bool:
    """A conditioned pair whose lidded blocker, lid raised, hides less than GROW_COVER of its target."""
    edge = next((e for e in graph.edges_from(blocker, OCCLUDES) if e.dst == target), None)
    pl, tp = layout.placements[blocker], layout.placements[target]
    if edge is None or not edge.when or pl.app.articulation not in ("lid", "book_cover"):
        return False
    t_centre, t_half = np.asarray(tp.centre), np.asarray(tp.size) / 2
    return _cover(np.asarray(pl.centre), np.asarray(pl.size) / 2, True, t_centre, t_half,
                  _sizing_angle(layout, blocker)) < GROW_COVER


def grown_box(centre: np.ndarray, half: np.ndarray, t_centre: np.ndarray, t_half: np.ndarray,
              raised: bool = False, top: float | None = None,
              angle: float = LID_OPEN) -> tuple[np.ndarray, np.ndarray]:
    """(centre, half extents) of a blocker box standing where it stands, grown to hide the target
    box: at least GROW_MARGIN wider than it on each side, then (unless its hiding part is a
    raised lid, which the box's depth sizes) taller in GROW_STEP steps until the coverage passes
    GROW_COVER (at most GROW_STEPS). A blocker narrow enough to grasp first tries staying at
    most GRASP_WIDTH wide (a laptop that hides a wide notebook cannot). Its bottom stays put."""
    wide = t_half[1] + GROW_MARGIN
    widths = [max(half[1], wide)]
    if half[1] <= GRASP_WIDTH / 2 < wide:  # narrow enough to grasp: try staying so first
        widths.insert(0, GRASP_WIDTH / 2)
    for width in widths:
        c, h = np.array(centre, dtype=float), np.array(half, dtype=float)
        floor = c[2] - h[2]
        h[1] = width
        for _ in range(0 if raised else GROW_STEPS):
            if _cover(c, h, raised, t_centre, t_half, angle) >= GROW_COVER:
                return c, h
            if top is not None and floor + 2 * h[2] + GROW_STEP > top:
                break  # `top`: the highest its top may reach (m, world), e.g. a drawer's rim
            h[2] += GROW_STEP / 2
            c[2] = floor + h[2]
        if _cover(c, h, raised, t_centre, t_half, angle) >= GROW_COVER:
            return c, h
    return c, h


def hide_targets(layout: Layout, graph: SceneGraph) -> Layout:
    """`layout` with each column's blocker grown until it hides its target (in place; returned)."""
    for blocker, target in sorted(layout.blocking.items()):
        edge = next((e for e in graph.edges_from(blocker, OCCLUDES) if e.dst == target), None)
        if edge is None:
            continue
        pl, tp = layout.placements[blocker], layout.placements[target]
        t_centre, t_half = np.asarray(tp.centre), np.asarray(tp.size) / 2
        lidded = pl.app.articulation in ("lid", "book_cover")
        if edge.when and not lidded:
            continue  # conditioned on something this builder does not raise
        raised = bool(edge.when)
        angle = _sizing_angle(layout, blocker)
        if _cover(np.asarray(pl.centre), np.asarray(pl.size) / 2, raised, t_centre, t_half, angle) >= GROW_COVER:
            continue
        centre, half = grown_box(np.asarray(pl.centre), np.asarray(pl.size) / 2, t_centre, t_half, raised,
                                 angle=angle)
        if not pl.container:  # what stands on its top goes up with it
            _lift(layout, blocker, float(2 * half[2] - pl.size[2]))
        layout.placements[blocker] = grown_placement(pl, centre, half)
        layout.regions[blocker] = region_of(layout.placements[blocker])
    return layout


def grown_placement(pl: Placement, centre: np.ndarray, half: np.ndarray) -> Placement:
    """`pl` with a new box; a grown solid is built as a box (a tall thin cylinder rocks and topples)."""
    grown = replace(pl, centre=tuple(float(v) for v in centre), size=tuple(float(2 * v) for v in half))
    if pl.app.geometry != "box" and not pl.container:
        grown = replace(grown, app=replace(pl.app, geometry="box"))
    return grown


def _placed_box(layout: Layout, node: str) -> tuple[np.ndarray, np.ndarray]:
    pl = layout.placements[node]
    return np.asarray(pl.centre, dtype=float), np.asarray(pl.size, dtype=float) / 2


def unplanned_covers(layout: Layout, graph: SceneGraph, nodes: list[str]) -> list[tuple[str, str]]:
    """(blocker, target) pairs of objects on one support that the layout's boxes put in each
    other's way (coverage past COVER_FRACTION less a margin) though the graph has no such edge."""
    edges = {(e.src, e.dst) for e in graph.edges_of(OCCLUDES)}
    out = []
    for t in nodes:
        tc, th = _placed_box(layout, t)
        for b in nodes:
            if b == t or (b, t) in edges:
                continue
            bc, bh = _placed_box(layout, b)
            if bc[0] - bh[0] >= tc[0] + th[0]:
                continue  # behind it: hides nothing of it from the front
            if covers(bc, bh, tc, th):
                out.append((b, t))
    return out


def step_aside(layout: Layout, graph: SceneGraph) -> Layout:
    """Move an object that something the graph does not name hides (a wine glass in front of a
    salt shaker on a narrow sideboard: rows stand one behind the other) sideways on its support,
    with the blocker of its column if it has one, to the nearest spot where its footprint
    clears its neighbours' and no unplanned cover remains; likewise a column whose blocker
    stands in the room the arms take (ARM_ROOM). In place; returned."""
    column_of = {t: b for b, t in layout.blocking.items()}
    by_parent: dict[str, list[str]] = {}
    for n, pl in sorted(layout.placements.items()):
        if pl.parent is not None and graph.nodes[n].kind == OBJECT:
            by_parent.setdefault(pl.parent, []).append(n)
    for parent, nodes in sorted(by_parent.items()):
        region = layout.regions[parent]
        for _b, t in unplanned_covers(layout, graph, nodes):
            group = [t] + ([column_of[t]] if t in column_of else [])
            _sidestep(layout, graph, nodes, group, region.centre[1], region.half[1])
        for b, t in sorted(layout.blocking.items()):
            if b in nodes and _in_arm_room(layout, b):
                _sidestep(layout, graph, nodes, [t, b], region.centre[1], region.half[1])
    return layout


def _arm_rooms(layout: Layout) -> list[tuple[np.ndarray, np.ndarray]]:
    """ARM_ROOM of each Panda in the world: the bases stand on the layout's base line
    (`Layout.robot_x`, `robot_z`) at world.py's ARM_BASES."""
    out = []
    for y in ARM_BASES.values():
        base = np.array([layout.robot_x, y, layout.robot_z])
        out.append((base + ARM_ROOM[0], base + ARM_ROOM[1]))
    return out


def _in_arm_room(layout: Layout, node: str) -> bool:
    c, h = _placed_box(layout, node)
    return any(bool(np.all(c + h > lo) and np.all(c - h < hi)) for lo, hi in _arm_rooms(layout))


def _sidestep(layout: Layout, graph: SceneGraph, nodes: list[str], group: list[str], mid: float, half: float) -> None:
    others = [n for n in layout.placements if n not in group and layout.placements[n].parent == layout.placements[group[0]].parent]
    steps = sorted((k * SIDESTEP for k in range(-int(2 * half / SIDESTEP), int(2 * half / SIDESTEP) + 1)), key=abs)
    for dy in steps[1:]:
        delta = np.array([0.0, dy, 0.0])
        boxes = [(_placed_box(layout, g)[0] + delta, _placed_box(layout, g)[1]) for g in group]
        if any(abs(c[1] - mid) + h[1] > half for c, h in boxes):
            continue
        if any(_overlap(c, h, *_placed_box(layout, o)) for c, h in boxes for o in others):
            continue
        for g in group:
            _shift(layout, g, delta)
        if not [p for p in unplanned_covers(layout, graph, nodes) if set(p) & set(group)] \
                and not any(_in_arm_room(layout, g) for g in group):
            return
        for g in group:
            _shift(layout, g, -delta)


def _overlap(c1: np.ndarray, h1: np.ndarray, c2: np.ndarray, h2: np.ndarray) -> bool:
    """Footprints (x, y) closer than SIDE_ROOM."""
    return bool(np.all(np.abs(c1[:2] - c2[:2]) < h1[:2] + h2[:2] + SIDE_ROOM))
