"""Free spots on a region's floor, from the bodies standing there now (realize, placements).

Everything is in the region's floor frame (x away from the robot, y across, z up from the
floor): `occupants` reads the footprints of the bodies that stand in the slab a new object
would fill; `free_spots` walks a grid, nearest the front middle first (least depth plus distance
across), and yields centres where a footprint keeps `margin` from every occupant.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from robograph.graph import FURNITURE
from robograph_backends.sapien_tabletop.hiding import ARM_ROOM
from robograph_backends.sapien_tabletop.layout import REACH_FAR, REACH_NEAR, Region
from robograph_backends.sapien_tabletop.sense import ancestors, body_pose, floor_frame, to_local
from robograph_backends.sapien_tabletop.world import World, built_round

GRID = 0.02  # m between candidate centres
MARGIN = 0.015  # m kept between a spot's footprint and each occupant ...
TOP_MARGIN = 0.03  # ... on free-standing furniture (1.5 cm: the hand coming down knocked a neighbour over)
ROOMY_MARGIN = 0.08  # ... preferred there for what the hands put down: the Panda hand reaches ~10 cm
# to each side of its grip along the closing axis, so a blanket set down 3 cm from a toy dinosaur
# stopped the palm coming down on the dinosaur later (Toy-A3)
INSIDE_MARGIN = 0.005  # ... inside a walled container (the object drops in from above the walls)
WALL_MARGIN = 0.015  # m between a tall body's footprint and a container's walls, preferred: a 14 cm spray
# carried 5 deg out of upright (the arm reaching 45 cm across) came down with its foot on the rim
# of an organizer's front wall from a spot touching that wall, and fell over (Cosmetics-4)
INNER_REACH = 0.2  # m past REACH_FAR a spot on a raised region still counts as reachable: the
# hands tilt forward (a toy dinosaur went into a bin 0.79 m ahead; a bunny's spot 0.97 m ahead failed)
CLEARANCE = 0.003  # m a placed body starts above the floor (it settles onto it)
UPRIGHT = 0.95  # cos of the tilt up to which a round body counts as standing (its footprint a circle's)


@dataclass(frozen=True, slots=True)
class Box:
    """A footprint on a floor: centre (x, y) and half extents (x, y), m, floor frame."""

    centre: np.ndarray
    half: np.ndarray


def occupants(world: World, region: str, F: np.ndarray, height: float, skip: set[str]) -> list[Box]:
    """Footprints (floor frame F of `region`) of the bodies reaching into the slab from the
    floor up to `height`: not the region's own body or what it stands on, nor `skip`."""
    exclude = {region} | ancestors(world, region) | skip
    out = []
    for node in sorted(world.bodies):
        if node in exclude:
            continue
        T = body_pose(world, node)
        pl = world.layout.placements[node]
        half = np.asarray(pl.size, dtype=float) / 2
        R = F[:3, :3].T @ T[:3, :3]
        c = F[:3, :3].T @ (T[:3, 3] - F[:3, 3])
        h = np.abs(R) @ half
        furniture = node in world.graph_nodes and world.graph_nodes[node].kind == FURNITURE
        if built_round(pl, furniture) and abs(R[2, 2]) > UPRIGHT:  # a standing jar turned 40 deg is no wider
            h[:2] = min(half[0], half[1])
        if c[2] + h[2] < -0.005 or c[2] - h[2] > height:
            continue
        out.append(Box(c[:2], h[:2]))
    return out


def free_spots(region_half: tuple[float, float], half: np.ndarray, taken: list[Box], *,
               prefer_front: bool = True, margin: float = MARGIN, wall: float = 0.0) -> Iterator[np.ndarray]:
    """Centres (floor frame) where a body of half extents `half` stands clear of `taken`, and
    `wall` clear of the region's edges."""
    hx, hy = region_half[0] - half[0] - wall, region_half[1] - half[1] - wall
    if hx < -0.01 or hy < -0.01:
        return
    xs, ys = _grid(hx), _grid(hy)
    X, Y = (a.ravel() for a in np.meshgrid(xs, ys, indexing="ij"))
    # nearest the front middle (between the arms, in the head camera's view) first
    depth = X - X.min() if prefer_front else X.max() - X
    for k in np.argsort(depth + np.abs(Y), kind="stable"):
        x, y = float(X[k]), float(Y[k])
        if all(abs(b.centre[0] - x) >= b.half[0] + half[0] + margin
               or abs(b.centre[1] - y) >= b.half[1] + half[1] + margin for b in taken):
            yield np.array([x, y, half[2] + CLEARANCE])


def _grid(h: float) -> np.ndarray:
    """Candidate offsets from -h to h, GRID apart, and h itself: the far edge is where the last
    free strip often is (a lip balm fitted 0.103-0.119 m across a storage bag, between a sponge
    and the wall; the grid's last point before, 0.101 m, was 2 mm into the sponge)."""
    if h <= 0:
        return np.array([0.0])
    xs = np.arange(-h, h + 1e-9, GRID)
    return xs if xs[-1] > h - 1e-6 else np.append(xs, h)


def half_of(world: World, node: str) -> np.ndarray:
    return np.asarray(world.layout.placements[node].size, dtype=float) / 2


def aligned_box(world: World, node: str) -> tuple[np.ndarray, np.ndarray]:
    """(centre, half extents) of the world-axis-aligned box round `node`'s body as it stands now."""
    T = body_pose(world, node)
    return T[:3, 3].copy(), np.abs(T[:3, :3]) @ half_of(world, node)


def spots_on(world: World, node: str, dst: str, *, half: np.ndarray | None = None, skip: tuple[str, ...] = (),
             avoid: list[Box] | None = None, prefer_front: bool = True, roomy: bool = False,
             clear_of_arms: bool = False) -> Iterator[np.ndarray]:
    """World centres of free spots for `node` (or a footprint of half extents `half`) on `dst`'s
    floor. Inside a walled container the gap to neighbours is INSIDE_MARGIN: the layout packs a
    container's contents tightly and leaves no slot for what is put in later. `roomy`: on a
    top or shelf (not inside walls), the spots ROOMY_MARGIN clear of every neighbour come first (room
    for the hand that later comes down beside it), and on any region only spots in the reach
    band count (a toy shelf's back, the far half of a bin behind another one). `clear_of_arms`:
    every spot out of the room the arms sweep (`arm_room`) first, then all of them again."""
    F, region = floor_frame(world, dst)
    h = half_of(world, node) if half is None else half
    taken = occupants(world, dst, F, float(2 * h[2]), skip={node, *skip}) + list(avoid or []) \
        + out_of_reach(world, dst, F, region.half, anywhere=roomy)
    pl = world.layout.placements[dst]
    margin = INSIDE_MARGIN if pl.container else (TOP_MARGIN if pl.parent is None else MARGIN)
    margins = (ROOMY_MARGIN, margin) if roomy and not pl.container else (margin,)
    # a tall body in a container: clear of the walls first, then against them
    walls = (WALL_MARGIN, 0.0) if pl.container and h[2] > max(h[0], h[1]) else (0.0,)
    arms = arm_room(world, F, region, h) if clear_of_arms else []
    for kept in ([*taken, *arms], taken) if arms else (taken,):
        for m in margins:
            for wall in walls:
                for local in free_spots(region.half, h, kept, prefer_front=prefer_front, margin=m, wall=wall):
                    yield F[:3, :3] @ local + F[:3, 3]


def out_of_reach(world: World, dst: str, F: np.ndarray, half: tuple[float, float], *,
                 anywhere: bool = False) -> list[Box]:
    """On free-standing furniture: the strips of its floor nearer than REACH_NEAR to the arms'
    base line (the Panda cannot bend down there) and deeper than REACH_FAR, as occupied
    footprints (floor frame F), so spots fall in the band the layout packs into. `anywhere`:
    on any other region too, the part deeper than REACH_FAR + INNER_REACH (an open drawer's
    floor nearer than REACH_NEAR is fine: the hand comes down from above its walls) and the
    part of a drawer's floor still under its furniture (`under_furniture`)."""
    standing = world.layout.placements[dst].parent is None
    if not standing and not anywhere:
        return []
    out = under_furniture(world, dst, F, half) if anywhere else []
    near = world.layout.robot_x + REACH_NEAR - F[0, 3]  # floor-frame x of the band's edges
    far = world.layout.robot_x + (REACH_FAR if standing else REACH_FAR + INNER_REACH) - F[0, 3]
    if near > -half[0] and standing:
        out.append(Box(np.array([(near - half[0]) / 2, 0.0]), np.array([(near + half[0]) / 2, half[1] + 1.0])))
    if far < half[0]:
        out.append(Box(np.array([(far + half[0]) / 2, 0.0]), np.array([(half[0] - far) / 2, half[1] + 1.0])))
    return out


def arm_room(world: World, F: np.ndarray, region: Region, half: np.ndarray) -> list[Box]:
    """The strip of a floor (frame F, `region`) within the room the arms sweep as the rail
    carries them (`hiding.ARM_ROOM`: out to its front, above its floor, along the whole rail),
    as an occupied footprint (floor frame), where a body of half extents `half` standing there
    would reach up into that room; [] elsewhere. The layout keeps blockers out of it; a put
    did not: stacking rings set down on a toy shelf 0.49 m ahead of the bases, 2.5 cm into
    the room, were knocked over by the arm sliding past for the next grab (Toy-B3)."""
    lo, hi = ARM_ROOM
    if float(F[2, 3]) + 2 * float(half[2]) <= world.layout.robot_z + float(lo[2]):
        return []
    edge = world.layout.robot_x + float(hi[0]) - float(F[0, 3])  # floor-frame x of the room's far side
    if edge <= -region.half[0]:
        return []
    return [Box(np.array([(edge - region.half[0]) / 2, 0.0]),
                np.array([(edge + region.half[0]) / 2, region.half[1] + 1.0]))]


def under_furniture(world: World, dst: str, F: np.ndarray, half: tuple[float, float]) -> list[Box]:
    """A pulled-out drawer's floor still under the furniture holding it (behind that
    furniture's front face), as an occupied footprint (floor frame F): a hand bringing
    scissors there met the desk's top, and they dropped 1.4 cm off onto the sticky notes
    beside them (Desk-14). The box starts INSIDE_MARGIN behind the face, which the spots keep
    from every occupant: a footprint needs to be out from under the face, not a margin away
    from it as from a neighbour it could knock (17 cm scissors along a drawer pulled 17.4 cm
    out of a desk missed it by 1 mm, Desk-14)."""
    pl = world.layout.placements[dst]
    if pl.app.articulation != "drawer" or pl.parent is None:
        return []
    holder = world.layout.placements[pl.parent]
    face = np.array([holder.centre[0] - holder.size[0] / 2, holder.centre[1], holder.centre[2]])
    front = float(to_local(F, face)[0]) + INSIDE_MARGIN  # floor-frame x of the furniture's front face
    if front >= half[0]:
        return []
    return [Box(np.array([(front + half[0]) / 2, 0.0]), np.array([(half[0] - front) / 2, half[1] + 1.0]))]


def aside_spots(world: World, node: str, support: str, hiding: np.ndarray, clear: float, *,
                roomy: bool = False) -> Iterator[np.ndarray]:
    """Spots on `support` for a blocker, keeping `clear` around the spot (world x, y) where it hid."""
    F, _ = floor_frame(world, support)
    centre = F[:3, :3].T @ (np.array([hiding[0], hiding[1], F[2, 3]]) - F[:3, 3])
    keep = [Box(centre[:2], half_of(world, node)[:2] + clear)]
    return spots_on(world, node, support, avoid=keep, roomy=roomy)
