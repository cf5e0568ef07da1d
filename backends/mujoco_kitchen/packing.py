"""Packing rectangles on a region's floor: rows from the front, occlusion columns, reserved slots.

Pure arithmetic on footprints (x depth toward the back, y width along the wall): no scene graph,
no simulator, so the rules that make a layout read back as its graph (nothing overlaps, a
blocker stands in front of what it hides, a capacity fits) are testable on their own. The
layout solver turns nodes into `Unit`s and the positions back into bodies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil

from robograph_backends.mujoco_kitchen.tuning import (
    COLUMN_GAP,
    GAP,
    SLOT_DEFAULT_ITEM,
    SLOT_DEPTH_MARGIN,
    SLOT_DEPTH_MAX,
    SLOT_FRONT_MARGIN,
    SLOT_GAP,
    SLOT_ITEM,
)

Slots = tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class Unit:
    """One packing unit: a single node, or an occlusion column (blocker first, then what it
    hides behind it). `depths` are the nodes' own depths, front to back; extents are full sizes."""

    nodes: tuple[str, ...]
    depths: tuple[float, ...]
    width: float

    @property
    def depth(self) -> float:
        """Depth along x of the whole unit, a COLUMN_GAP between a blocker and its target."""
        if len(self.depths) == 2:
            return self.depths[0] + self.depths[1] + COLUMN_GAP
        return self.depths[0]


def single(node: str, depth: float, width: float) -> Unit:
    return Unit((node,), (depth,), width)


def column(blocker: str, blocker_size: tuple[float, float], target: str,
           target_size: tuple[float, float]) -> Unit:
    """An OCCLUDES pair: the blocker directly in front of (at lower x than) its target, as wide
    as the wider of the two. Sizes are (depth, width)."""
    return Unit((blocker, target), (blocker_size[0], target_size[0]), max(target_size[1], blocker_size[1]))


@dataclass(frozen=True, slots=True)
class Placed:
    """Where packing put a node: the centre of its footprint. `hides` names the target when the
    node is the blocker of a column."""

    node: str
    x: float
    y: float
    hides: str | None = None


def rows(units: Sequence[Unit], max_width: float, gap: float = GAP) -> list[list[Unit]]:
    """Units in order, `gap` apart, a new row whenever the next one would make the row wider
    than max_width (a unit wider than max_width gets a row of its own)."""
    out: list[list[Unit]] = []
    width = 0.0
    for u in units:
        if out and width + gap + u.width <= max_width:
            out[-1].append(u)
            width += gap + u.width
        else:
            out.append([u])
            width = u.width
    return out


def pack_extent(units: Sequence[Unit], max_width: float = 1e9) -> tuple[float, float]:
    """(width, depth) the units need when packed in rows of at most max_width."""
    packed = rows(units, max_width)
    width = max((sum(u.width for u in r) + GAP * (len(r) - 1) for r in packed), default=0.0)
    depth = sum(max(u.depth for u in r) for r in packed) + GAP * max(len(packed) - 1, 0)
    return width, depth


def pack_rows(units: Sequence[Unit], *, x_front: float, y_mid: float, max_width: float,
              front_margin: float, centre_depth: float | None = None,
              centre_in_row: bool = False, gap: float = GAP) -> list[Placed]:
    """Footprint centres of the units packed in rows from the front edge `x_front` (the first
    row `front_margin` behind it), each row centred on `y_mid`, `gap` (GAP unless given) between
    rows and between neighbours. `centre_depth`: the region's half depth when the block of rows is to be centred
    front to back (the palm of a hand reaching down into a deep box clears both walls only
    there). `centre_in_row`: a unit shallower than its row stands in the row's middle instead of
    at its front (in a drawer pulled out toward the arms, a cup beside a 22 cm knife lay 6 cm
    behind the front wall, where the forearm met that wall). Works in whatever frame x_front and
    y_mid are given in."""
    packed = rows(units, max_width, gap)
    x = x_front + front_margin
    if centre_depth is not None and packed:
        block = sum(max(u.depth for u in row) for row in packed) + gap * (len(packed) - 1)
        x = max(x, x_front + centre_depth - block / 2)
    out: list[Placed] = []
    for row in packed:
        row_depth = max(u.depth for u in row)
        width = sum(u.width for u in row) + gap * (len(row) - 1)
        y = y_mid + width / 2
        for u in row:
            y_c = y - u.width / 2
            ux = x + ((row_depth - u.depth) / 2 if centre_in_row else 0.0)
            for k, (nid, sx) in enumerate(zip(u.nodes, u.depths, strict=True)):
                hides = u.nodes[1] if len(u.nodes) == 2 and k == 0 else None
                out.append(Placed(nid, ux + sx / 2, y_c, hides))
                ux += sx + COLUMN_GAP
            y -= u.width + gap
        x += row_depth + gap
    return out


def slot_size(items: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Footprint (x depth, y width) of one placement slot, from the (depth, width) of the
    scene's ordinary items: the largest of those up to SLOT_ITEM wide plus the room the hand
    needs beside it (SLOT_GAP) and in front and behind (SLOT_DEPTH_MARGIN)."""
    small = [sz for sz in items if sz[1] <= SLOT_ITEM]
    sx = min(max((sz[0] for sz in small), default=SLOT_DEFAULT_ITEM), SLOT_DEPTH_MAX) + SLOT_DEPTH_MARGIN
    sy = max((sz[1] for sz in small), default=SLOT_DEFAULT_ITEM) + SLOT_GAP
    return sx, sy


def slot_grid(half: tuple[float, float], capacity: int, size: tuple[float, float],
              per_row: int | None = None, side: float = 0.0) -> Slots:
    """Centres (region-local x, y) of up to `capacity` slots of footprint `size`, front row
    first, rows centred along y, `side` kept free at both ends of a row. Fewer when no deeper
    row fits in `half` (the region keeps what it has)."""
    sx, sy = size
    fit = max(1, int((2 * half[1] - 2 * side + 1e-6) // sy))
    per_row = min(per_row or fit, fit, capacity)
    out = []
    for k in range(capacity):
        row, col = divmod(k, per_row)
        x = -half[0] + SLOT_FRONT_MARGIN + sx / 2 + row * sx
        if x + sx / 2 > half[0] + 1e-6:
            break
        out.append((round(x, 4), round((col - (per_row - 1) / 2) * sy, 4)))
    return tuple(out)


def slots_needed(width: float, pitch: float) -> int:
    """How many adjacent slots of a row (`pitch` apart) an item `width` wide needs."""
    return max(1, ceil((width + SLOT_GAP) / pitch - 1e-6))


def free_run(slots: Slots, free: Sequence[int], n: int, pitch: float) -> list[int] | None:
    """First run of `n` free slots side by side in one row (same x, one pitch apart)."""
    for k in free:
        run = [k]
        for j in range(k + 1, len(slots)):
            if len(run) == n:
                break
            if j not in free or abs(slots[j][0] - slots[k][0]) > 1e-6 or \
                    abs(abs(slots[j][1] - slots[run[-1]][1]) - pitch) > 1e-3:
                break
            run.append(j)
        if len(run) == n:
            return run
    return None


def assign_slots(units: Sequence[Unit], slots: Slots, pitch: float) -> list[Placed] | None:
    """Each unit in the first free run of slots it needs, centred on the run (region-local).
    None when a unit is an occlusion column (a column needs its own depth, not a slot) or the
    slots do not take every unit."""
    if any(len(u.nodes) > 1 for u in units):
        return None
    free = list(range(len(slots)))
    out: list[Placed] = []
    for u in units:
        run = free_run(slots, free, slots_needed(u.width, pitch), pitch)
        if run is None:
            return None
        free = [k for k in free if k not in run]
        xs = [slots[k][0] for k in run]
        ys = [slots[k][1] for k in run]
        out.append(Placed(u.nodes[0], sum(xs) / len(xs), sum(ys) / len(ys)))
    return out
