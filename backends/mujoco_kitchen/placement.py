"""Geometry queries over the live world: which region a point lies in, and a free spot in a region
for an object of a given size. Used by the state reader, the realizer and the place skills."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from robograph_backends.mujoco_kitchen.plan import Region
from robograph_backends.mujoco_kitchen.tuning import (
    FINGER_REACH,
    HAND_SIDE,
    SPOT_GRID,
    SPOT_MARGIN,
    SPOT_SPACING,
)
from robograph_backends.mujoco_kitchen.world import World
from robograph_backends.reading import TOL, resting, within


def local(world: World, region: Region, point: np.ndarray) -> np.ndarray:
    """Point in the region's floor frame (origin at the floor centre)."""
    p = np.asarray(point, dtype=float) if region.body == "world" else world.to_local(region.body, point)
    return p - np.asarray(region.center)


def to_world(world: World, region: Region, p_local: Iterable[float]) -> np.ndarray:
    p = np.asarray(region.center) + np.asarray(list(p_local), dtype=float)
    return p if region.body == "world" else world.to_world(region.body, p)


def contains(world: World, region: Region, center: np.ndarray, half_z: float) -> bool:
    """INSIDE: the object's centre lies within the region's footprint, above its floor, and
    either below the rim or standing on the floor (a tall bottle in a shallow bin)."""
    return within(local(world, region, center), region.half, region.height, half_z, TOL)


def supports(world: World, region: Region, center: np.ndarray, half_z: float) -> bool:
    """ON: the object's bottom rests on the region's floor within its footprint."""
    return resting(local(world, region, center), region.half, half_z, TOL)


def _near(region: Region, p: np.ndarray) -> bool:
    """A local point within 5 cm of the region's footprint and between its floor and 10 cm
    above its free height: an occupant (centres of items leaning on a wall included)."""
    return bool(abs(p[0]) <= region.half[0] + 0.05 and abs(p[1]) <= region.half[1] + 0.05
                and -0.05 <= p[2] <= region.height + 0.1)


def occupants(world: World, region: Region, skip: set[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(local centre, half extents) of movable bodies resting in a region."""
    out = []
    skip = skip | {region.body}
    for item in world.plan.items.values():
        if item.body in skip:
            continue
        p = local(world, region, world.body_pos(item.body))
        if _near(region, p):
            out.append((p, np.asarray(item.half)))
    for node, body in world.spare_of.items():
        if body in skip or node in world.plan.items:
            continue
        p = local(world, region, world.body_pos(body))
        if _near(region, p):
            half = np.asarray(world.model.geom_size[world.model.body_geomadr[world.body_id(body)]])
            out.append((p, half))
    return out


def slot_spots(world: World, region: Region, half: np.ndarray, skip: set[str], gap: float) -> Iterator[np.ndarray]:
    """World positions (object centres) of every free run of the region's reserved slots, in
    slot order (front row first): as many adjacent slots of one row as the object's width
    needs (`gap`: the free width the slots keep between items). Empty when no run is free
    (the caller falls back to free_spots)."""
    if not region.slots:
        return
    sx, sy = region.slot_size
    n = max(1, int(np.ceil((2 * float(half[1]) + gap) / sy - 1e-6)))
    # only what stands on this floor (not the contents of the level above, within `height`)
    found = [(c, h) for c, h in occupants(world, region, skip) if c[2] - h[2] < 0.05]
    slots = region.slots
    for k in range(len(slots)):
        run = [k]
        for j in range(k + 1, len(slots)):
            if len(run) == n or abs(slots[j][0] - slots[k][0]) > 1e-6 or \
                    abs(abs(slots[j][1] - slots[run[-1]][1]) - sy) > 1e-3:
                break
            run.append(j)
        if len(run) < n:
            continue
        cx = slots[k][0]
        cy = float(np.mean([slots[j][1] for j in run]))
        reach_y = max(float(half[1]), (n * sy - gap) / 2)  # the run's own share of the row
        clear = all(not (abs(c[0] - cx) < h[0] + half[0] and abs(c[1] - cy) < h[1] + reach_y + 0.01)
                    for c, h in found)
        if clear:
            yield to_world(world, region, (cx, cy, float(half[2]) + 0.003))


def free_spot(world: World, region: Region, half: np.ndarray, skip: set[str], *, prefer_front: bool = True,
              avoid: list[tuple[np.ndarray, np.ndarray]] | None = None,
              front_path: bool = False, margin: float | tuple[float, float] = SPOT_MARGIN) -> np.ndarray | None:
    """World position (object centre) of a free spot for an object of half extents `half`
    standing on the region floor, front-most first, then nearest the middle. None if full.
    `front_path`: the hand comes in from the front, so spots behind an occupant are taken too.
    `margin`: free gap kept to every neighbour (room for the open fingers), or (along x, along y)."""
    return next(free_spots(world, region, half, skip, prefer_front=prefer_front, avoid=avoid,
                           front_path=front_path, margin=margin), None)


def free_spots(world: World, region: Region, half: np.ndarray, skip: set[str], *, prefer_front: bool = True,
               avoid: list[tuple[np.ndarray, np.ndarray]] | None = None,
               front_path: bool = False, margin: float | tuple[float, float] = SPOT_MARGIN,
               from_middle: bool = True) -> Iterator[np.ndarray]:
    """Every free spot in free_spot's order of preference, each at least SPOT_SPACING from
    the ones before it (a spot the arm cannot reach is rarely helped by one 2 cm away).
    `from_middle` False: along y from one end instead of nearest the middle first."""
    found = occupants(world, region, skip)
    others = found + list(avoid or [])
    if front_path:  # the fingers close along x there: keep them clear of the neighbours
        x_front = -region.half[0]
        others = [(c, h + np.array([FINGER_REACH, 0.0, 0.0])) for c, h in others]
        for c, h in found:
            depth = (c[0] - x_front) / 2
            if depth > 0:
                others.append((np.array([x_front + depth, c[1], c[2]]), np.array([depth, h[1] + HAND_SIDE, h[2]])))
    hx, hy = region.half[0] - half[0], region.half[1] - half[1]
    if hx < -0.01 or hy < -0.01:
        return
    xs = np.arange(-max(hx, 0.0), max(hx, 0.0) + 1e-9, SPOT_GRID) if hx > 0 else np.array([0.0])
    mx, my = margin if isinstance(margin, tuple) else (margin, margin)
    ys = np.arange(-max(hy, 0.0), max(hy, 0.0) + 1e-9, SPOT_GRID) if hy > 0 else np.array([0.0])
    # also right beside each neighbour, so a row packs without the grid's slack
    beside = [c[1] + sign * (h[1] + half[1] + my + 1e-4) for c, h in others for sign in (-1.0, 1.0)]
    ys = np.unique(np.concatenate([ys, [y for y in beside if abs(y) <= max(hy, 0.0)]]))
    if from_middle:
        ys = ys[np.argsort(np.abs(ys), kind="stable")]
    if not prefer_front:
        xs = xs[::-1]
    given: list[tuple[float, float]] = []
    for x in xs:
        for y in ys:
            ok = True
            for c, h in others:
                if abs(c[0] - x) < h[0] + half[0] + mx and abs(c[1] - y) < h[1] + half[1] + my:
                    ok = False
                    break
            if ok and all(abs(x - px) >= SPOT_SPACING or abs(y - py) >= SPOT_SPACING for px, py in given):
                given.append((x, y))
                yield to_world(world, region, (x, y, half[2] + 0.003))
