"""Layout solver: scene graph -> `ScenePlan` (bodies, regions, articulations, stations).

Rules (each relation of G0 becomes geometry that reads back as the same relation):
- rooms are laid out in a row along y in breadth-first order of ADJACENT edges, with a doorway
  in each wall between consecutive rooms;
- furniture IN_ROOM stands against the room's +x wall, fronts facing the robot's corridor;
- a piece of furniture is a *carcass* built bottom-up from levels: drawers (slide joints) for its
  drawer children, a compartment behind hinged double doors when it is an openable container,
  one shelf or bin level per inner furniture child, and a top surface for ON children;
- movable containers and carriers are open vessels (a lid on a hinge when openable) sized to fit
  their contents; other movable nodes are primitives from the object catalog;
- children of a region are packed in rows from the front; an OCCLUDES pair becomes a column with
  the blocker directly in front of its target (the head camera looks from the front), the
  blocker made tall and wide enough to hide the target.
Sizes grow to fit contents, never shrink below the catalog's, so nothing interpenetrates.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from math import ceil
from typing import Any

from backends.mujoco_kitchen.catalog import Appearance, appearance
from backends.mujoco_kitchen.plan import (
    CORRIDOR_X,
    RGBA,
    ROOM_DEPTH,
    STANDOFF,
    WALL_FINGER_MARGIN,
    Articulation,
    Body,
    Button,
    Geom,
    ItemPlan,
    Joint,
    Region,
    RoomPlan,
    ScenePlan,
    Vec3,
)
from backends.mujoco_kitchen.robot import PALM_HALF_LENGTH
from robograph.graph import (
    ADJACENT,
    ASSEMBLY,
    CONTAINER,
    FURNITURE,
    IN_ROOM,
    INSIDE,
    OBJECT,
    OCCLUDES,
    ON,
    OPENABLE,
    PART_OF,
    PRESSABLE,
    ROBOT,
    ROOM,
    SURFACE,
    SceneGraph,
)

GAP = 0.07  # between packed units: room for the hand's width (m)
WALL = 0.01  # vessel wall thickness (m)
PANEL = 0.02  # carcass panel thickness (m)
HAND_CLEARANCE = 0.42  # free height above contents for the hand and wrist (m)
LEVEL_CLEARANCE = 0.4  # the same inside shelf/bin levels, entered from the front
LEVEL_ITEM = 0.24  # a level is at least tall enough for a typical item put there later (m)
DOOR_OPEN = 3.1  # hinged doors swing flat (178 deg) into the front plane: an open leaf stands
# out < 5 cm, behind the base's front at its closest stance (166 deg: 11 cm, and the base pushed
# the leaves of an open fridge and was turned off heading; 175 deg still fails 3 fridge scenes)
SLOT = 0.09  # footprint reserved per capacity unit in a movable vessel (m)
BUTTON_DEPTH = 0.012
SPARE_PARK = (-2.0, 0.0)
OPEN_VESSEL_RIM = 0.07  # wall height of open (lidless) movable containers (m)
SLENDER = 3.0  # height/diameter above which a cylinder is built as a box
PALM_DEEP = 2 * (PALM_HALF_LENGTH + WALL) + 0.03  # outer depth of a box the palm goes down into (m)
LID_HEADROOM = 0.03  # a lidded vessel is this much taller than its tallest possible content (m)
LOOSE_ITEM_MAX = 0.14  # taller items are not expected to go into lidded vessels (m)
LOOSE_ITEM_WIDTH_MAX = 0.16  # a lidded vessel's row is sized for items up to this wide (m)
TALL = 1.5  # height/width above which an item gets a bottom-weighted centre of mass
TALL_COM_DROP = 0.6  # ... lowered by this fraction of its half height (to 20 % of its height)
COLUMN_GAP = 0.035  # blocker to hidden object: lifting a tall blocker 1 cm off knocked its target over
OCCLUDER_SLOPE = 0.9  # tan of the head camera's view angle below horizontal, with margin
SLOT_GAP = 0.045  # free width between the items of neighbouring slots (hand side, open fingers)
SLOT_ITEM = 0.1  # a slot is sized for the scene's items up to this wide; wider ones take a run
SIDE_MARGIN = 0.08  # roofed levels: slots keep the elbow this far from the side walls (m)
BIN_RIM = 0.07  # wall height of open bins standing on furniture (a fruit basket)

WOOD: tuple[float, float, float, float] = (0.62, 0.45, 0.30, 1.0)
STEEL: tuple[float, float, float, float] = (0.70, 0.72, 0.75, 1.0)
TOP: tuple[float, float, float, float] = (0.35, 0.35, 0.38, 1.0)


def body_name(node: str) -> str:
    return f"n_{node}"


@dataclass(slots=True)
class _Unit:
    """One packing unit: a node, or an (occluder, target) column. Extents are full sizes."""

    nodes: tuple[str, ...]  # front to back
    depth: float  # along x
    width: float  # along y


class _Solver:
    def __init__(self, graph: SceneGraph, catalog: Mapping[str, Mapping[str, Any]] | None,
                 spares: int) -> None:
        self.g = graph
        self.catalog = catalog
        self.n_spares = spares
        self.apps: dict[str, Appearance] = {}
        self.size_cache: dict[str, Vec3] = {}
        self.bodies: list[Body] = []
        self.node_body: dict[str, str] = {}
        self.regions: dict[str, Region] = {}
        self.tops: dict[str, Region] = {}
        self.arts: dict[str, list[Articulation]] = {}
        self.buttons: dict[str, Button] = {}
        self.items: dict[str, ItemPlan] = {}
        self.stations: dict[str, tuple[float, float, float]] = {}
        self.blocking: dict[str, tuple[str, Vec3]] = {}
        self.initial_open: dict[str, bool] = {}
        self.occluders = self._occluders()

    # helpers ---------------------------------------------------------------------------------------
    def app(self, nid: str) -> Appearance:
        if nid not in self.apps:
            self.apps[nid] = appearance(self.g.nodes[nid], self.catalog)
        return self.apps[nid]

    def kids(self, nid: str, rel: str | None = None) -> list[str]:
        out = []
        for c in self.g.children(nid):
            edge = self.g.location[c]
            if rel is None or edge.rel == rel:
                out.append(c)
        return out

    def _occluders(self) -> dict[str, str]:
        """target -> blocker, for OCCLUDES edges between two movable-or-not objects sharing a
        support (furniture-level occlusion such as stacked drawers is geometric already)."""
        out: dict[str, str] = {}
        for e in sorted(self.g.edges):
            if e.rel != OCCLUDES or e.when:
                continue
            if self.g.nodes[e.src].kind == FURNITURE or self.g.nodes[e.dst].kind == FURNITURE:
                continue
            if e.dst not in out and e.src not in out.values():
                out[e.dst] = e.src
        return out

    def is_drawer(self, nid: str) -> bool:
        node = self.g.nodes[nid]
        return node.kind == FURNITURE and self.app(nid).articulation == "drawer"

    def is_vessel(self, nid: str) -> bool:
        node = self.g.nodes[nid]
        return node.has(CONTAINER) or node.has(SURFACE)

    # sizes -----------------------------------------------------------------------------------------
    def movable_size(self, nid: str) -> Vec3:
        """Full extents (x depth, y width, z height) of a movable node, grown to fit contents."""
        if nid in self.size_cache:
            return self.size_cache[nid]
        a = self.app(nid)
        # catalog x is the long horizontal side: lay it along the wall (our y)
        dx, dy, dz = a.size[1], a.size[0], a.size[2]
        if self.is_vessel(nid):
            units = self.units(self.kids(nid))
            need_w, need_d = self.pack_extent(units)
            dx = max(dx, need_d + 2 * WALL + 2 * WALL_FINGER_MARGIN)
            dy = max(dy, need_w + 2 * WALL + 0.02)
            cap = self.g.nodes[nid].capacity
            lidded = self.g.nodes[nid].has(OPENABLE)
            if cap:  # room for `capacity` typical items, so goals that fill it are placeable
                per_row = cap if lidded else min(cap, 4)
                unit = self.loose_item_width() if lidded else SLOT  # one row: room for the widest
                dy = max(dy, per_row * (unit + 0.012) + 2 * WALL)
                dx = max(dx, -(-cap // per_row) * (SLOT + 0.03) + 2 * WALL)
            dz = max(dz, 0.02)
            if lidded:
                # the lid must close over whatever may be put in: the scene's tallest loose item
                # (a yogurt cup in a lunch box held the lid 60 % open); so deep a box is entered
                # with the palm between its front and back walls: one row along its middle
                dz = max(dz, self.tallest_loose_item() + LID_HEADROOM)
                dx = max(dx, PALM_DEEP)
            else:
                # an open bin/bag is kept shallow so a top-down hand reaches its contents
                # without its wrist hitting the walls (contents standing on its floor are INSIDE)
                dz = min(dz, OPEN_VESSEL_RIM)
        if nid in self.occluders.values():
            target = next(t for t, b in self.occluders.items() if b == nid)
            tx, ty, tz = self.movable_size(target)
            dy = max(dy, ty + 0.03)
            dz = max(dz, tz + OCCLUDER_SLOPE * (dx + tx + GAP) + 0.03)
        self.size_cache[nid] = (dx, dy, dz)
        return self.size_cache[nid]

    def loose_items(self) -> list[tuple[float, float, float]]:
        """Catalog sizes of the plain objects (no container or surface, no occluder) small
        enough for a slot: what may end up in a lidded box."""
        out = []
        for nid, node in self.g.nodes.items():
            if node.kind != OBJECT or self.is_vessel(nid) or nid in self.occluders.values():
                continue
            x, y, z = self.app(nid).size
            if min(x, y) <= SLOT_ITEM:
                out.append((x, y, z))
        return out

    def tallest_loose_item(self) -> float:
        """Height of the tallest loose item, capped at LOOSE_ITEM_MAX."""
        return max((min(z, LOOSE_ITEM_MAX) for _, _, z in self.loose_items()), default=0.0)

    def loose_item_width(self) -> float:
        """Width along a row (catalog x, laid along y) of the widest loose item, capped."""
        return max((min(x, LOOSE_ITEM_WIDTH_MAX) for x, _, _ in self.loose_items()), default=SLOT)

    def units(self, children: list[str]) -> list[_Unit]:
        out: list[_Unit] = []
        taken: set[str] = set()
        for c in sorted(children):
            if c in taken or self.g.nodes[c].kind == FURNITURE:
                continue
            blocker = self.occluders.get(c)
            if blocker is not None and blocker in children:
                tx, ty, _ = self.movable_size(c)
                bx, by, _ = self.movable_size(blocker)
                out.append(_Unit((blocker, c), bx + tx + COLUMN_GAP, max(ty, by)))
                taken |= {c, blocker}
                continue
            if c in self.occluders.values():
                continue  # placed with its target
            x, y, _ = self.movable_size(c)
            out.append(_Unit((c,), x, y))
            taken.add(c)
        return out

    def slot_size(self) -> tuple[float, float]:
        """Footprint (x depth, y width) of one placement slot: the largest of the scene's
        ordinary items (up to SLOT_ITEM wide) plus the gap the hand needs beside it."""
        if "__slot__" not in self.size_cache:
            sizes = [self.movable_size(n) for n, node in self.g.nodes.items()
                     if node.kind == OBJECT and not self.is_vessel(n) and n not in self.occluders.values()]
            small = [sz for sz in sizes if sz[1] <= SLOT_ITEM]
            sx = min(max((sz[0] for sz in small), default=0.07), 0.12) + 0.03
            sy = max((sz[1] for sz in small), default=0.07) + SLOT_GAP
            self.size_cache["__slot__"] = (sx, sy, 0.0)
        sx, sy, _ = self.size_cache["__slot__"]
        return sx, sy

    def slot_grid(self, half: tuple[float, float], capacity: int, per_row: int | None = None,
                  side: float = 0.0) -> tuple[tuple[float, float], ...]:
        """Centres (region-local x, y) of `capacity` slots, front row first, rows centred
        along y, `side` kept free at both ends of a row."""
        sx, sy = self.slot_size()
        fit = max(1, int((2 * half[1] - 2 * side + 1e-6) // sy))
        per_row = min(per_row or fit, fit, capacity)
        out = []
        for k in range(capacity):
            row, col = divmod(k, per_row)
            x = -half[0] + 0.015 + sx / 2 + row * sx
            if x + sx / 2 > half[0] + 1e-6:
                break  # no deeper row fits; the region keeps what it has
            out.append((round(x, 4), round((col - (per_row - 1) / 2) * sy, 4)))
        return tuple(out)

    def slots_for(self, width: float) -> int:
        """How many adjacent slots of a row an item `width` wide needs."""
        _, sy = self.slot_size()
        return max(1, ceil((width + SLOT_GAP) / sy - 1e-6))

    def is_bin(self, nid: str) -> bool:
        """Open furniture container standing on other furniture (fruit basket, serving bowl),
        or one with a lid on top (chafing dish)."""
        node = self.g.nodes[nid]
        loc = self.g.location.get(nid)
        return (node.kind == FURNITURE and node.has(CONTAINER)
                and (not node.has(OPENABLE) or self.app(nid).articulation == "lid")
                and loc is not None and loc.rel == ON and self.g.nodes[loc.dst].kind == FURNITURE
                and not any(self.g.nodes[c].kind == FURNITURE for c in self.kids(nid)))

    def bin_size(self, nid: str) -> tuple[float, float]:
        """(depth, width) of an open bin: room for its capacity in two rows, and its contents.
        A lidded bin is deep-walled: one row along its middle, and deep enough for the palm
        (wider than many items, along the finger axis) to go down between front and back."""
        sx, sy = self.slot_size()
        cap, per_row = self.bin_rows(nid)
        rows = ceil(cap / per_row)
        need_w, need_d = self.pack_extent(self.units(self.kids(nid)))
        depth = max(rows * sx, need_d) + 2 * WALL + 0.04
        if self.g.nodes[nid].has(OPENABLE):
            depth = max(depth, PALM_DEEP)
        return (depth, max(per_row * sy, need_w) + 2 * WALL + 0.02)

    def bin_rows(self, nid: str) -> tuple[int, int]:
        """(capacity, slots per row) of an open bin."""
        cap = self.g.nodes[nid].capacity or len(self.kids(nid)) + 2
        if self.g.nodes[nid].has(OPENABLE):
            return cap, cap
        return cap, ceil(cap / 2) if cap > 2 else cap

    @staticmethod
    def pack_extent(units: list[_Unit], max_width: float = 1e9) -> tuple[float, float]:
        """(width, depth) the units need when packed in rows of at most max_width."""
        rows = _rows(units, max_width)
        width = max((sum(u.width for u in r) + GAP * (len(r) - 1) for r in rows), default=0.0)
        depth = sum(max(u.depth for u in r) for r in rows) + GAP * max(len(rows) - 1, 0)
        return width, depth

    def content_height(self, children: list[str]) -> float:
        return max((self.movable_size(c)[2] for c in children if self.g.nodes[c].kind != FURNITURE),
                   default=0.1)

    # placement -------------------------------------------------------------------------------------
    def place_units(self, region: Region, children: list[str], origin: Vec3, drawer_offset: float = 0.0) -> None:
        """Place every movable child of a region (world coordinates for free bodies). `origin`
        is the world position of the region's body frame; `drawer_offset` shifts contents of an
        open drawer toward the robot."""
        units = self.units(children)
        if region.slots and self._place_in_slots(region, units, origin):
            return
        rows = _rows(units, 2 * region.half[1])
        x_front = origin[0] + region.center[0] - region.half[0] - drawer_offset
        z_floor = origin[2] + region.center[2]
        y_mid = origin[1] + region.center[1]
        # a finger must fit between the walls and what stands by them (a finger pressed on the
        # front wall of a grocery bag could not close on the cheese beside it)
        x = x_front + (WALL_FINGER_MARGIN if region.rim > 0.0 else 0.01)
        if (region.open_top or region.centre_row) and rows:  # the rows centred front to back
            # (the palm of a hand reaching down into a deep box clears both walls only there)
            block = sum(max(u.depth for u in row) for row in rows) + GAP * (len(rows) - 1)
            x = max(x, x_front + region.half[0] - block / 2)
        for row in rows:
            row_depth = max(u.depth for u in row)
            width = sum(u.width for u in row) + GAP * (len(row) - 1)
            y = y_mid + width / 2
            for u in row:
                y_c = y - u.width / 2
                ux = x
                for nid in u.nodes:
                    sx, _, _ = self.movable_size(nid)
                    self.place_movable(nid, (ux + sx / 2, y_c, z_floor))
                    if len(u.nodes) == 2 and nid == u.nodes[0]:
                        self.blocking[nid] = (u.nodes[1], (ux + sx / 2, y_c, z_floor))
                    ux += sx + COLUMN_GAP
                y -= u.width + GAP
            x += row_depth + GAP

    def _place_in_slots(self, region: Region, units: list[_Unit], origin: Vec3) -> bool:
        """Initial contents of a slotted region go into its reserved slots (a run of adjacent
        slots for a wide item), so later placements find whole free slots. False (nothing
        placed) when a unit is an occlusion column or the slots do not take every unit."""
        if any(len(u.nodes) > 1 for u in units):
            return False
        free = list(range(len(region.slots)))
        chosen: list[tuple[str, float, float]] = []
        for u in units:
            run = _free_run(region.slots, free, self.slots_for(u.width), self.slot_size()[1])
            if run is None:
                return False
            free = [k for k in free if k not in run]
            xs = [region.slots[k][0] for k in run]
            ys = [region.slots[k][1] for k in run]
            chosen.append((u.nodes[0], sum(xs) / len(xs), sum(ys) / len(ys)))
        for nid, x, y in chosen:
            self.place_movable(nid, (origin[0] + region.center[0] + x, origin[1] + region.center[1] + y,
                                     origin[2] + region.center[2]))
        return True

    def place_movable(self, nid: str, floor_pos: Vec3) -> None:
        """Create the free body of a movable node standing on `floor_pos` (world)."""
        sx, sy, sz = self.movable_size(nid)
        a = self.app(nid)
        name = body_name(nid)
        pos = (floor_pos[0], floor_pos[1], floor_pos[2] + sz / 2 + 0.002)
        body = Body(name, pos, joint=Joint(f"{name}_free", "free"))
        node = self.g.nodes[nid]
        if self.is_vessel(nid):
            self._vessel(body, nid, (sx, sy, sz), a, pos)
            self.items[nid] = ItemPlan(nid, name, (sx / 2, sy / 2, sz / 2), "box", True)
        else:
            half = (sx / 2, sy / 2, sz / 2)
            shape = a.geometry if a.geometry in ("box", "cylinder", "sphere") else "box"
            if nid in self.occluders.values() or (shape == "cylinder" and sz > SLENDER * min(sx, sy)):
                shape = "box"  # tall thin cylinders (grown occluders, paper rolls) rock and topple
            if shape == "cylinder":
                half = (min(sx, sy) / 2, min(sx, sy) / 2, sz / 2)
            elif shape == "sphere":
                r = min(sx, sy, sz) / 2
                half = (r, r, r)
                pos = (pos[0], pos[1], floor_pos[2] + r + 0.002)
                body.pos = pos
            body.geoms.append(Geom(f"{name}_g", shape, (0, 0, 0), half, a.rgba, friction=1.2))
            body.mass = max(0.05, min(0.6, 400.0 * 8 * half[0] * half[1] * half[2]))
            if half[2] > TALL * min(half[0], half[1]):
                # a tall, thin item (cereal box, bottle) toppled when a neighbour was grasped or
                # it was set down with a small tilt; weighting its bottom keeps it standing
                body.com_z = TALL_COM_DROP * half[2]
            self.items[nid] = ItemPlan(nid, name, half, shape, False)
            if node.has(PRESSABLE):
                self._button(body, nid, half[2])
        self.bodies.append(body)
        self.node_body[nid] = name
        # contents of a movable vessel
        if self.is_vessel(nid):
            self.place_units(self.regions[nid], self.kids(nid), pos)

    def _vessel(self, body: Body, nid: str, size: Vec3, a: Appearance, pos: Vec3) -> None:
        sx, sy, sz = size
        hx, hy, hz = sx / 2, sy / 2, sz / 2
        n = body.name
        col = a.rgba
        body.geoms.append(Geom(f"{n}_base", "box", (0, 0, -hz + 0.004), (hx, hy, 0.004), col, friction=1.0))
        rim = sz if self.g.nodes[nid].has(CONTAINER) else min(sz, 0.03)
        rz = -hz + rim / 2
        body.geoms += [
            Geom(f"{n}_wf", "box", (-hx + WALL / 2, 0, rz), (WALL / 2, hy, rim / 2), col),
            Geom(f"{n}_wb", "box", (hx - WALL / 2, 0, rz), (WALL / 2, hy, rim / 2), col),
            Geom(f"{n}_wl", "box", (0, hy - WALL / 2, rz), (hx - WALL, WALL / 2, rim / 2), col),
            Geom(f"{n}_wr", "box", (0, -hy + WALL / 2, rz), (hx - WALL, WALL / 2, rim / 2), col),
        ]
        body.mass = 0.3
        inside = self.g.nodes[nid].has(CONTAINER)
        self.regions[nid] = Region(nid, n, (0.0, 0.0, -hz + 0.008), (hx - WALL, hy - WALL),
                                   max(rim - 0.008, 0.02), inside, rim=rim - 0.008)
        if self.g.nodes[nid].has(OPENABLE):
            self._lid(body, nid, hx, hy, -hz + rim, col, a.articulation)
            self.regions[nid] = Region(nid, n, (0.0, 0.0, -hz + 0.008), (hx - WALL, hy - WALL),
                                       max(rim - 0.018, 0.02), inside, rim=rim - 0.008, centre_row=True)

    def _lid(self, body: Body, nid: str, hx: float, hy: float, z: float, col: RGBA, kind: str) -> None:
        """A lid hinged at the back edge of an open box whose walls end at height `z`."""
        n = body.name
        lid = Body(f"{n}_lid", (hx, 0, z), joint=Joint(f"{n}_lid_hinge", "hinge", (0, 1, 0),
                                                       range=(0.0, 2.0), damping=0.05))
        lid.geoms.append(Geom(f"{n}_lid_g", "box", (-hx, 0, 0.005), (hx, hy, 0.005), _shade(col)))
        # a tab at the front edge: something for fingers to pinch or lift (the lid is flush
        # with the walls otherwise)
        lid.geoms.append(Geom(f"{n}_lid_tab", "box", (-2 * hx - 0.0125, 0, 0.005), (0.0125, 0.015, 0.005), STEEL))
        lid.sites.append((f"{n}_handle", (-2 * hx - 0.0125, 0, 0.005)))
        lid.mass = 0.05
        body.children.append(lid)
        self._articulation(nid, f"{n}_lid_hinge", kind, 0.0, 1.9, f"{n}_handle", lid.name)

    def _button(self, body: Body, nid: str, top: float) -> None:
        n = body.name
        b = Body(f"{n}_button", (0, 0, top + 0.006),
                 joint=Joint(f"{n}_press", "slide", (0, 0, 1), range=(-BUTTON_DEPTH, 0.0), damping=30.0,
                             frictionloss=8.0))
        b.geoms.append(Geom(f"{n}_button_g", "cylinder", (0, 0, 0), (0.02, 0.02, 0.008), (0.85, 0.1, 0.1, 1)))
        b.sites.append((f"{n}_button_site", (0, 0, 0.008)))
        b.mass = 0.02
        b.gravcomp = 1.0  # frictionloss is a soft constraint: under gravity the latch creeps
        body.children.append(b)
        self.buttons[nid] = Button(nid, f"{n}_press", f"{n}_button_site", BUTTON_DEPTH)

    def _articulation(self, nid: str, joint: str, kind: str, closed: float, opened: float,
                      site: str, body: str) -> None:
        self.arts.setdefault(nid, []).append(Articulation(nid, joint, kind, closed, opened, site, body))
        self.initial_open[nid] = bool(self.g.is_open(nid))

    # furniture -------------------------------------------------------------------------------------
    def carcass(self, nid: str, base: Vec3) -> tuple[Body, float, float]:
        """Build a carcass whose front-bottom-centre is `base` (world). Returns (body, width, depth)."""
        g = self.g
        a = self.app(nid)
        node = g.nodes[nid]
        depth = max(a.size[1], 0.45)
        inner = self.kids(nid, INSIDE)
        drawers = [c for c in inner if self.is_drawer(c)]
        levels = [c for c in inner if g.nodes[c].kind == FURNITURE and c not in drawers]
        direct = [c for c in inner if g.nodes[c].kind != FURNITURE]
        on_top = self.kids(nid, ON)
        is_box = node.has(CONTAINER) and (node.has(OPENABLE) or direct or levels)
        width = self.fixture_width(nid)
        cx = base[0] + depth / 2
        name = body_name(nid)
        body = Body(name, (cx, base[1], base[2]))
        col = a.rgba
        hw, hd = width / 2, depth / 2
        z = 0.06
        body.geoms.append(Geom(f"{name}_plinth", "box", (0, 0, 0.03), (hd - 0.03, hw - 0.02, 0.03), _shade(col)))
        # drawers: stacked from the top of the lower section; the first id is the upper one
        drawer_heights = []
        for d in drawers:
            hh = max(self.app(d).size[2], self.content_height(self.kids(d)) + 0.05, 0.12)
            drawer_heights.append(hh)
        # drawers sit right under the top of plain furniture and under the compartment of boxes
        lower_top = max(z + sum(drawer_heights), 0.42 if is_box else a.size[2] - 0.04)
        # solid filler under the drawers (surface furniture) or a plinth block (boxes)
        filler_top = lower_top - sum(drawer_heights)
        if filler_top > z + 0.005:
            body.geoms.append(Geom(f"{name}_fill", "box", (0, 0, (z + filler_top) / 2),
                                   (hd, hw, (filler_top - z) / 2), col))
        zd = lower_top
        for d, hh in zip(drawers, drawer_heights, strict=True):
            zd -= hh
            self._drawer(body, d, (cx, base[1], base[2]), zd, hh, width, depth)
        # side panels over the drawer section (drawers slide between them)
        if drawers:
            zmid = (filler_top + lower_top) / 2
            half_h = (lower_top - filler_top) / 2
            body.geoms += [
                Geom(f"{name}_dsl", "box", (0, hw - PANEL / 2, zmid), (hd, PANEL / 2, half_h), col),
                Geom(f"{name}_dsr", "box", (0, -hw + PANEL / 2, zmid), (hd, PANEL / 2, half_h), col),
                Geom(f"{name}_dback", "box", (hd - PANEL / 2, 0, zmid), (PANEL / 2, hw, half_h), col),
            ]
        z = lower_top
        if is_box:
            body.geoms.append(Geom(f"{name}_floor", "box", (0, 0, z + PANEL / 2), (hd, hw, PANEL / 2), col))
            z += PANEL
            z0 = z
            h0 = max(self.content_height(direct) + HAND_CLEARANCE, 0.32) if direct or not levels else 0.3
            half = (hd - PANEL - 0.04, hw - PANEL - 0.01)
            slots = self.slot_grid(half, node.capacity, side=SIDE_MARGIN) if node.capacity else ()
            self.regions[nid] = Region(nid, name, (-0.02, 0.0, z), half, h0, True, slots, self.slot_size())
            self.place_units(self.regions[nid], direct, body.pos)
            z += h0
            for lv in levels:
                self._level(body, lv, z, width, depth)
                z += PANEL + self._level_height(lv)
            top = max(z, a.size[2] - PANEL)
            body.geoms += [
                Geom(f"{name}_sl", "box", (0, hw - PANEL / 2, (z0 + top) / 2), (hd, PANEL / 2, (top - z0) / 2), col),
                Geom(f"{name}_sr", "box", (0, -hw + PANEL / 2, (z0 + top) / 2), (hd, PANEL / 2, (top - z0) / 2), col),
                Geom(f"{name}_back", "box", (hd - PANEL / 2, 0, (z0 + top) / 2), (PANEL / 2, hw, (top - z0) / 2), col),
            ]
            if node.has(OPENABLE):
                self._doors(body, nid, z0, top, width, depth, col)
            z = top
        else:
            top = max(z, a.size[2] - 0.04)
            if top > z + 0.005:
                body.geoms.append(Geom(f"{name}_upper", "box", (0, 0, (z + top) / 2), (hd, hw, (top - z) / 2), col))
            z = top
        body.geoms.append(Geom(f"{name}_top", "box", (-0.01, 0, z + 0.02), (hd + 0.01, hw + 0.01, 0.02), TOP))
        z += 0.04
        top_region = Region(nid, name, (0.0, 0.0, z), (hd - 0.03, hw - 0.03), 1.0, False)
        self.tops[nid] = top_region
        # furniture standing on the top takes its -y end; the movables are packed beside it
        furn = self._furniture_span(on_top)
        movables = top_region
        if furn > 0:
            half_y = max(top_region.half[1] - furn / 2, 0.05)
            movables = Region(nid, name, (0.0, furn / 2, z), (top_region.half[0], half_y), 1.0, False)
            # what can be put on the top is the part beside that furniture (a cloche set down
            # "beside" the chafing dish was pushed into it)
            self.tops[nid] = movables
        self.place_units(movables, on_top, body.pos)
        self.bodies_on_top(nid, on_top, body, top_region)
        self.node_body[nid] = name
        return body, width, depth

    def _furniture_span(self, on_top: list[str]) -> float:
        """Width along the top taken by furniture standing on it (with gaps)."""
        furn = [self.fixture_width(c) for c in on_top if self.g.nodes[c].kind == FURNITURE]
        return sum(furn) + GAP * len(furn) + (0.02 if furn else 0.0)

    def bodies_on_top(self, nid: str, on_top: list[str], body: Body, region: Region) -> None:
        """Furniture standing on a carcass (a drawer cabinet on a desk) is a static child body."""
        y = -region.half[1] + 0.02
        for c in sorted(on_top):
            if self.g.nodes[c].kind != FURNITURE:
                continue
            w = self.fixture_width(c)
            front = (body.pos[0] - region.half[0], body.pos[1] + y + w / 2, body.pos[2] + region.center[2])
            if self.is_bin(c):
                sub, width = self._bin(c, front), w
            else:
                sub, width, _ = self.carcass(c, front)
            y += width + GAP
            sub.pos = (sub.pos[0] - body.pos[0], sub.pos[1] - body.pos[1], sub.pos[2] - body.pos[2])
            body.children.append(sub)


    def _bin(self, nid: str, front: Vec3) -> Body:
        """An open bin (static) standing on a top, its front-bottom-centre at `front` (world):
        a floor and a low rim, one reserved slot per capacity unit, reached from above."""
        dx, dy = self.bin_size(nid)
        name = body_name(nid)
        hx, hy = dx / 2, dy / 2
        body = Body(name, (front[0] + 0.01 + hx, front[1], front[2]))
        a = self.app(nid)
        col = a.rgba
        lidded = self.g.nodes[nid].has(OPENABLE)
        # a lidded bin (chafing dish) is deep enough for the lid to close over its contents
        rim = max(BIN_RIM, self.tallest_loose_item() + LID_HEADROOM) if lidded else BIN_RIM
        rz = rim / 2
        body.geoms += [
            Geom(f"{name}_base", "box", (0, 0, 0.004), (hx, hy, 0.004), col, friction=1.0),
            Geom(f"{name}_wf", "box", (-hx + WALL / 2, 0, rz), (WALL / 2, hy, rz), col),
            Geom(f"{name}_wb", "box", (hx - WALL / 2, 0, rz), (WALL / 2, hy, rz), col),
            Geom(f"{name}_wl", "box", (0, hy - WALL / 2, rz), (hx - WALL, WALL / 2, rz), col),
            Geom(f"{name}_wr", "box", (0, -hy + WALL / 2, rz), (hx - WALL, WALL / 2, rz), col),
        ]
        if lidded:
            self._lid(body, nid, hx, hy, rim, col, a.articulation)
        half = (hx - WALL, hy - WALL)
        cap, per_row = self.bin_rows(nid)
        slots = self.slot_grid(half, cap, per_row)
        if lidded:  # the single row runs along the middle, the palm clear of front and back
            slots = tuple((0.0, y) for _, y in slots)
        self.regions[nid] = Region(nid, name, (0.0, 0.0, 0.008), half, rim - (0.018 if lidded else 0.008), True,
                                   slots, self.slot_size(), open_top=True, rim=rim - 0.008, centre_row=lidded)
        self.node_body[nid] = name
        self.place_units(self.regions[nid], self.kids(nid), body.pos)
        return body

    def _level_height(self, nid: str) -> float:
        return max(self.content_height(self.kids(nid)), LEVEL_ITEM) + LEVEL_CLEARANCE

    def _level(self, body: Body, nid: str, z: float, width: float, depth: float) -> None:
        """A shelf (SURFACE) or bin (CONTAINER) level inside a carcass, as its own static body."""
        name = body_name(nid)
        a = self.app(nid)
        hw, hd = width / 2 - PANEL, depth / 2 - PANEL
        sub = Body(name, (0.0, 0.0, z))
        sub.geoms.append(Geom(f"{name}_plate", "box", (0, 0, PANEL / 2), (hd, hw, PANEL / 2), a.rgba))
        inside = self.g.nodes[nid].has(CONTAINER) and not self.g.nodes[nid].has(SURFACE)
        if inside:
            lip = 0.06
            sub.geoms.append(Geom(f"{name}_lip", "box", (-hd + 0.005, 0, PANEL + lip / 2), (0.005, hw, lip / 2), a.rgba))
        body.children.append(sub)
        h = self._level_height(nid)
        half = (hd - 0.04, hw - 0.01)
        cap = self.g.nodes[nid].capacity
        slots = self.slot_grid(half, cap, side=SIDE_MARGIN) if cap else ()
        region = Region(nid, name, (-0.02, 0.0, PANEL), half, h, inside, slots, self.slot_size())
        self.regions[nid] = region
        self.node_body[nid] = name
        world = (body.pos[0], body.pos[1], body.pos[2] + z)
        self.place_units(region, self.kids(nid), world)

    def _drawer(self, body: Body, nid: str, origin: Vec3, z: float, h: float, width: float, depth: float) -> None:
        name = body_name(nid)
        a = self.app(nid)
        hw = width / 2 - PANEL - 0.005
        hd = depth / 2 - 0.03
        travel = min(0.36, 2 * hd - 0.1)
        dz = h / 2 - 0.005
        q0 = travel if self.g.is_open(nid) else 0.0
        sub = Body(name, (-0.01, 0.0, z + h / 2), joint=Joint(f"{name}_slide", "slide", (-1, 0, 0),
                                                               range=(0.0, travel), damping=15.0))
        col = a.rgba
        sub.geoms += [
            Geom(f"{name}_bottom", "box", (0, 0, -dz + 0.005), (hd, hw, 0.005), col, friction=1.0),
            Geom(f"{name}_back", "box", (hd - 0.005, 0, 0), (0.005, hw, dz), col),
            Geom(f"{name}_sl", "box", (0, hw - 0.005, 0), (hd, 0.005, dz), col),
            Geom(f"{name}_sr", "box", (0, -hw + 0.005, 0), (hd, 0.005, dz), col),
            Geom(f"{name}_front", "box", (-hd - 0.01, 0, 0), (0.01, hw + 0.004, dz + 0.004), _shade(col)),
            Geom(f"{name}_bar", "box", (-hd - 0.06, 0, 0.0), (0.01, 0.07, 0.01), STEEL),
            Geom(f"{name}_post_l", "box", (-hd - 0.035, 0.06, 0.0), (0.025, 0.008, 0.008), STEEL),
            Geom(f"{name}_post_r", "box", (-hd - 0.035, -0.06, 0.0), (0.025, 0.008, 0.008), STEEL),
        ]
        sub.sites.append((f"{name}_handle", (-hd - 0.06, 0, 0)))
        sub.mass = 1.5
        body.children.append(sub)
        self._articulation(nid, f"{name}_slide", "drawer", 0.0, travel, f"{name}_handle", name)
        # contents sit in the front part of the drawer so they are exposed when it is open
        region = Region(nid, name, (0.0, 0.0, -dz + 0.01), (hd - 0.02, hw - 0.02), 2 * dz - 0.02, True,
                        rim=2 * dz - 0.01)
        self.regions[nid] = region
        self.node_body[nid] = name
        world = (origin[0] + sub.pos[0], origin[1], origin[2] + sub.pos[2])
        self.place_units(region, self.kids(nid), world, drawer_offset=q0)

    def _doors(self, body: Body, nid: str, z0: float, top: float, width: float, depth: float, col: Any) -> None:
        """Double doors (half width each) so a door never sweeps through the robot's stance."""
        name = body_name(nid)
        hd = depth / 2
        half_h = (top - z0) / 2
        zc = (z0 + top) / 2
        w = width / 2
        for side, sign in (("l", 1.0), ("r", -1.0)):
            door = Body(f"{name}_door_{side}", (-hd - 0.012, sign * width / 2, zc),
                        joint=Joint(f"{name}_hinge_{side}", "hinge", (0, 0, sign * -1.0), range=(0.0, DOOR_OPEN + 0.2),
                                    damping=1.0))
            door.geoms.append(Geom(f"{name}_door_{side}_g", "box", (0, -sign * w / 2, 0),
                                   (0.01, w / 2 - 0.003, half_h), _shade(col)))
            door.geoms.append(Geom(f"{name}_door_{side}_h", "box", (-0.03, -sign * (w - 0.05), 0),
                                   (0.01, 0.01, min(0.1, half_h - 0.02)), STEEL))
            door.sites.append((f"{name}_door_{side}_handle", (-0.04, -sign * (w - 0.05), 0)))
            door.mass = 1.0
            body.children.append(door)
            self._articulation(nid, f"{name}_hinge_{side}", "hinged_door", 0.0, DOOR_OPEN,
                               f"{name}_door_{side}_handle", door.name)

    # rooms -----------------------------------------------------------------------------------------
    def room_order(self) -> list[str]:
        rooms = sorted(self.g.rooms())
        if not rooms:
            return []
        start = self.g.robot_room() or rooms[0]
        order, seen, queue = [], {start}, deque([start])
        while queue:
            r = queue.popleft()
            order.append(r)
            for nb in self.g.adjacent_rooms(r):
                if nb not in seen and self.g.nodes[nb].kind == ROOM:
                    seen.add(nb)
                    queue.append(nb)
        return order + [r for r in rooms if r not in seen]

    def solve(self) -> ScenePlan:
        g = self.g
        rooms = self.room_order()
        if not rooms:
            rooms = ["__room__"]
        room_plans: list[RoomPlan] = []
        y = 0.0
        for room in rooms:
            furn = [c for c in self.kids(room, IN_ROOM) if g.nodes[c].kind == FURNITURE] if room in g.nodes else \
                [n for n, node in g.nodes.items() if node.kind == FURNITURE and n not in g.location]
            widths = [self.fixture_width(f) for f in sorted(furn)]
            length = max(3.6, sum(widths) + 0.5 * len(widths) + 1.4)
            fy = y + 0.9
            for f, w in zip(sorted(furn), widths, strict=True):
                depth = max(self.app(f).size[1], 0.45)
                body, width, depth = self.carcass(f, (ROOM_DEPTH - depth - 0.02, fy + w / 2, 0.0))
                self.bodies.append(body)
                self.stations[f] = (ROOM_DEPTH - depth - 0.02 - STANDOFF, fy + w / 2, 0.0)
                fy += w + 0.5
            floor_items = [c for c in (self.kids(room, IN_ROOM) if room in g.nodes else [])
                           if g.nodes[c].kind != FURNITURE]
            if floor_items:
                region = Region(room, "world", (0.7, y + length / 2, 0.0), (0.4, length / 2 - 0.3), 2.0, False)
                self.regions[room] = region
                self.place_units(region, floor_items, (0.0, 0.0, 0.0))
            room_plans.append(RoomPlan(room, y, y + length))
            y += length
        self._unplaced_parts()
        spares = []
        for k in range(self.n_spares):
            name = f"spare_{k}"
            b = Body(name, (SPARE_PARK[0] - 0.3 * k, SPARE_PARK[1], 0.03), joint=Joint(f"{name}_free", "free"))
            b.geoms.append(Geom(f"{name}_g", "box", (0, 0, 0), (0.03, 0.03, 0.03), (0.5, 0.5, 0.5, 1), friction=1.2))
            b.mass = 0.1
            self.bodies.append(b)
            spares.append(name)
        start_room = room_plans[0]
        robot_start = (CORRIDOR_X, (start_room.y0 + start_room.y1) / 2, 0.0)
        return ScenePlan(room_plans, self.bodies, self.node_body, self.regions, self.tops, self.arts, self.buttons,
                         self.items, self.stations, self.blocking, spares, robot_start, self.initial_open)

    def fixture_width(self, nid: str) -> float:
        """Width along the wall: the catalog's, grown so every level's contents fit."""
        if self.is_bin(nid):
            return self.bin_size(nid)[1]
        a = self.app(nid)
        inner = self.kids(nid, INSIDE)
        needs = [a.size[0], 0.3]
        if self.g.nodes[nid].has(CONTAINER) and self.g.nodes[nid].capacity:  # its own compartment
            needs.append(self.g.nodes[nid].capacity * self.slot_size()[1] + 2 * SIDE_MARGIN + 2 * PANEL + 0.04)
        needs.append(self.pack_extent(self.units([c for c in inner if self.g.nodes[c].kind != FURNITURE]))[0] + 0.12)
        for c in inner:
            if self.g.nodes[c].kind == FURNITURE:
                needs.append(self.pack_extent(self.units(self.kids(c)))[0] + 0.12)
                cap = self.g.nodes[c].capacity
                if cap:  # one front-row slot per capacity unit, clear of the side walls
                    needs.append(cap * self.slot_size()[1] + 2 * SIDE_MARGIN + 2 * PANEL + 0.04)
        on_top = self.kids(nid, ON)
        needs.append(self.pack_extent(self.units(on_top))[0] + self._furniture_span(on_top) + 0.12)
        return max(needs)

    def _unplaced_parts(self) -> None:
        """Parts of an assembly that has a location (assembled in G0) stand where the whole is."""
        for e in sorted(self.g.edges):
            if e.rel != PART_OF or e.src in self.node_body:
                continue
            whole = e.dst
            loc = self.g.location.get(whole)
            if loc is None or whole in self.node_body or not self.g.nodes[whole].has(ASSEMBLY):
                continue
            region = self.regions.get(loc.dst)
            if region is None:
                continue
            # a simple stand-in: place the part at the region's back centre
            self.place_movable(e.src, (region.center[0], region.center[1], region.center[2]))


def _free_run(slots: tuple[tuple[float, float], ...], free: list[int], n: int, pitch: float) -> list[int] | None:
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


def _rows(units: list[_Unit], max_width: float) -> list[list[_Unit]]:
    rows: list[list[_Unit]] = []
    width = 0.0
    for u in units:
        if rows and width + GAP + u.width <= max_width:
            rows[-1].append(u)
            width += GAP + u.width
        else:
            rows.append([u])
            width = u.width
    return rows


def _shade(rgba: Any) -> tuple[float, float, float, float]:
    return (rgba[0] * 0.85, rgba[1] * 0.85, rgba[2] * 0.85, rgba[3])


def solve_layout(graph: SceneGraph, *, catalog: Mapping[str, Mapping[str, Any]] | None = None,
                 spares: int = 3) -> ScenePlan:
    """Place every node of `graph` so that its relations hold geometrically (see module doc)."""
    if not any(n.kind == ROBOT for n in graph.nodes.values()):
        pass  # tabletop graphs without a robot node still build; the robot stands in front
    _ = ADJACENT, ON  # relations handled implicitly through graph.children / adjacent_rooms
    return _Solver(graph, catalog, spares).solve()
