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

This module decides sizes and places (graph -> footprints and regions); `packing.py` arranges
footprints on a floor (pure arithmetic, no graph), `bodies.py` draws the parts, `tuning.py`
holds the numbers with their reasons.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from math import ceil
from typing import Any

from robograph.graph import (
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
    ROOM,
    SURFACE,
    SceneGraph,
)
from robograph_backends.appearance import describe
from robograph_backends.mujoco_kitchen import bodies, packing
from robograph_backends.mujoco_kitchen.bodies import Hinge, body_name
from robograph_backends.mujoco_kitchen.catalog import Appearance, appearance
from robograph_backends.mujoco_kitchen.packing import Unit
from robograph_backends.mujoco_kitchen.plan import (
    Articulation,
    Body,
    Button,
    ItemPlan,
    Joint,
    Region,
    RoomPlan,
    ScenePlan,
    Vec3,
)
from robograph_backends.mujoco_kitchen.robot import PALM_HALF_LENGTH
from robograph_backends.mujoco_kitchen.tuning import (
    BIN_DEPTH_PLAY,
    BIN_RIM,
    BOTTOM_COMPARTMENT,
    BUTTON_DEPTH,
    COMPARTMENT_MIN_HEIGHT,
    COMPARTMENT_MIN_Z,
    CORRIDOR_X,
    DRAWER_CONTENT_HEADROOM,
    DRAWER_MIN_HEIGHT,
    DROP_CLEARANCE,
    EMPTY_CONTENT_HEIGHT,
    FIRST_FIXTURE_Y,
    FIXTURE_CONTENT_MARGIN,
    FIXTURE_MIN_DEPTH,
    FIXTURE_MIN_WIDTH,
    FIXTURE_SLOT_MARGIN,
    FIXTURE_SPACING,
    FIXTURE_WALL_GAP,
    FLOOR_ITEMS_HALF_DEPTH,
    FLOOR_ITEMS_X,
    GAP,
    HAND_CLEARANCE,
    LEVEL_CLEARANCE,
    LEVEL_DEPTH_INSET,
    LEVEL_ITEM,
    LEVEL_SHIFT,
    LEVEL_SIDE_INSET,
    LID_HEADROOM,
    LOOSE_ITEM_MAX,
    LOOSE_ITEM_WIDTH_MAX,
    OCCLUDER_MARGIN,
    OCCLUDER_SLOPE,
    OPEN_VESSEL_RIM,
    PANEL,
    PLINTH_HEIGHT,
    ROOM_DEPTH,
    ROOM_END_MARGIN,
    ROOM_MIN_LENGTH,
    ROW_FRONT_MARGIN,
    SIDE_MARGIN,
    SLENDER,
    SLOT,
    SLOT_GAP,
    SLOT_ITEM,
    SLOT_ROW_DEPTH,
    SLOT_ROW_MAX,
    SLOT_SPACING,
    SPARE_HALF,
    SPARE_LIFT,
    SPARE_PARK,
    SPARE_SPACING,
    STANDOFF,
    TOP_EDGE_MARGIN,
    TOP_THICKNESS,
    VESSEL_SIDE_PLAY,
    WALL,
    WALL_FINGER_MARGIN,
)

__all__ = ["SLOT_GAP", "body_name", "solve_layout"]  # SLOT_GAP: read by the place skills

PALM_DEEP = 2 * (PALM_HALF_LENGTH + WALL) + 0.03  # outer depth of a box the palm goes down into (m)


class _Solver:
    """One solve: walks the graph from the rooms down, sizing each node (sizes are cached, as
    containers ask for their contents' sizes) and recording what it builds into the plan."""

    def __init__(self, graph: SceneGraph, catalog: Mapping[str, Mapping[str, Any]] | None,
                 spares: int) -> None:
        self.g = graph
        self.catalog = catalog
        self.n_spares = spares
        self.apps: dict[str, Appearance] = {}
        self.size_cache: dict[str, Vec3] = {}
        self._slot: tuple[float, float] | None = None
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
            need_w, need_d = packing.pack_extent(units)
            dx = max(dx, need_d + 2 * WALL + 2 * WALL_FINGER_MARGIN)
            dy = max(dy, need_w + 2 * WALL + VESSEL_SIDE_PLAY)
            cap = self.g.nodes[nid].capacity
            lidded = self.g.nodes[nid].has(OPENABLE)
            if cap:  # room for `capacity` typical items, so goals that fill it are placeable
                per_row = cap if lidded else min(cap, SLOT_ROW_MAX)
                unit = self.loose_item_width() if lidded else SLOT  # one row: room for the widest
                dy = max(dy, per_row * (unit + SLOT_SPACING) + 2 * WALL)
                dx = max(dx, -(-cap // per_row) * (SLOT + SLOT_ROW_DEPTH) + 2 * WALL)
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
            dy = max(dy, ty + OCCLUDER_MARGIN)
            dz = max(dz, tz + OCCLUDER_SLOPE * (dx + tx + GAP) + OCCLUDER_MARGIN)
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

    def units(self, children: list[str]) -> list[Unit]:
        """Packing units of a region's movable children in id order: an OCCLUDES pair whose
        blocker is among them is one column, everything else a single unit."""
        out: list[Unit] = []
        taken: set[str] = set()
        for c in sorted(children):
            if c in taken or self.g.nodes[c].kind == FURNITURE:
                continue
            blocker = self.occluders.get(c)
            if blocker is not None and blocker in children:
                tx, ty, _ = self.movable_size(c)
                bx, by, _ = self.movable_size(blocker)
                out.append(packing.column(blocker, (bx, by), c, (tx, ty)))
                taken |= {c, blocker}
                continue
            if c in self.occluders.values():
                continue  # placed with its target
            x, y, _ = self.movable_size(c)
            out.append(packing.single(c, x, y))
            taken.add(c)
        return out

    def slot_size(self) -> tuple[float, float]:
        """Footprint (x depth, y width) of one placement slot, from the scene's ordinary items
        (one size for the whole scene, so any item fits any slot)."""
        if self._slot is None:
            sizes = [self.movable_size(n) for n, node in self.g.nodes.items()
                     if node.kind == OBJECT and not self.is_vessel(n) and n not in self.occluders.values()]
            self._slot = packing.slot_size([(sz[0], sz[1]) for sz in sizes])
        return self._slot

    def slot_grid(self, half: tuple[float, float], capacity: int, per_row: int | None = None,
                  side: float = 0.0) -> tuple[tuple[float, float], ...]:
        return packing.slot_grid(half, capacity, self.slot_size(), per_row, side)

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
        need_w, need_d = packing.pack_extent(self.units(self.kids(nid)))
        depth = max(rows * sx, need_d) + 2 * WALL + BIN_DEPTH_PLAY
        if self.g.nodes[nid].has(OPENABLE):
            depth = max(depth, PALM_DEEP)
        return (depth, max(per_row * sy, need_w) + 2 * WALL + VESSEL_SIDE_PLAY)

    def bin_rows(self, nid: str) -> tuple[int, int]:
        """(capacity, slots per row) of an open bin."""
        cap = self.g.nodes[nid].capacity or len(self.kids(nid)) + 2
        if self.g.nodes[nid].has(OPENABLE):
            return cap, cap
        return cap, ceil(cap / 2) if cap > 2 else cap

    def content_height(self, children: list[str]) -> float:
        return max((self.movable_size(c)[2] for c in children if self.g.nodes[c].kind != FURNITURE),
                   default=EMPTY_CONTENT_HEIGHT)

    # placement -------------------------------------------------------------------------------------
    def place_units(self, region: Region, children: list[str], origin: Vec3, drawer_offset: float = 0.0) -> None:
        """Place every movable child of a region (world coordinates for free bodies). `origin`
        is the world position of the region's body frame; `drawer_offset` shifts contents of an
        open drawer toward the robot."""
        units = self.units(children)
        if region.slots and self._place_in_slots(region, units, origin):
            return
        z_floor = origin[2] + region.center[2]
        # a finger must fit between the walls and what stands by them (a finger pressed on the
        # front wall of a grocery bag could not close on the cheese beside it)
        placed = packing.pack_rows(
            units, x_front=origin[0] + region.center[0] - region.half[0] - drawer_offset,
            y_mid=origin[1] + region.center[1], max_width=2 * region.half[1],
            front_margin=WALL_FINGER_MARGIN if region.rim > 0.0 else ROW_FRONT_MARGIN,
            centre_depth=region.half[0] if region.open_top or region.centre_row else None)
        for p in placed:
            self.place_movable(p.node, (p.x, p.y, z_floor))
            if p.hides is not None:
                self.blocking[p.node] = (p.hides, (p.x, p.y, z_floor))

    def _place_in_slots(self, region: Region, units: list[Unit], origin: Vec3) -> bool:
        """Initial contents of a slotted region go into its reserved slots (a run of adjacent
        slots for a wide item), so later placements find whole free slots. False (nothing
        placed) when packing.assign_slots refuses."""
        placed = packing.assign_slots(units, region.slots, self.slot_size()[1])
        if placed is None:
            return False
        for p in placed:
            self.place_movable(p.node, (origin[0] + region.center[0] + p.x, origin[1] + region.center[1] + p.y,
                                        origin[2] + region.center[2]))
        return True

    def place_movable(self, nid: str, floor_pos: Vec3) -> None:
        """Create the free body of a movable node standing on `floor_pos` (world)."""
        sx, sy, sz = self.movable_size(nid)
        a = self.app(nid)
        name = body_name(nid)
        pos = (floor_pos[0], floor_pos[1], floor_pos[2] + sz / 2 + DROP_CLEARANCE)
        body = Body(name, pos, joint=Joint(f"{name}_free", "free"))
        node = self.g.nodes[nid]
        if self.is_vessel(nid):
            self._vessel(body, nid, (sx, sy, sz), a)
            self.items[nid] = ItemPlan(nid, name, (sx / 2, sy / 2, sz / 2), "box", True)
            if node.has(CONTAINER):  # walls as tall as the vessel: its name on the front wall
                body.visual = describe(node.category, node.name, "box", (sx / 2, sy / 2, sz / 2), a.rgba, hollow=True)
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
                pos = (pos[0], pos[1], floor_pos[2] + r + DROP_CLEARANCE)
                body.pos = pos
            bodies.solid_item(body, shape, half, a.rgba)
            self.items[nid] = ItemPlan(nid, name, half, shape, False)
            body.visual = describe(node.category, node.name, shape, half, a.rgba)
            if node.has(PRESSABLE):
                joint, site = bodies.button(body, half[2])
                self.buttons[nid] = Button(nid, joint, site, BUTTON_DEPTH)
        self.bodies.append(body)
        self.node_body[nid] = name
        # contents of a movable vessel
        if self.is_vessel(nid):
            self.place_units(self.regions[nid], self.kids(nid), pos)

    def _vessel(self, body: Body, nid: str, size: Vec3, a: Appearance) -> None:
        """Walls of a movable vessel, its interior region and, when openable, its lid."""
        sx, sy, sz = size
        hx, hy, hz = sx / 2, sy / 2, sz / 2
        n = body.name
        inside = self.g.nodes[nid].has(CONTAINER)
        rim = bodies.vessel(body, size, a.rgba, inside)
        self.regions[nid] = Region(nid, n, (0.0, 0.0, -hz + 0.008), (hx - WALL, hy - WALL),
                                   max(rim - 0.008, 0.02), inside, rim=rim - 0.008)
        if self.g.nodes[nid].has(OPENABLE):
            self._articulation(nid, bodies.lid(body, hx, hy, -hz + rim, a.rgba, a.articulation))
            self.regions[nid] = Region(nid, n, (0.0, 0.0, -hz + 0.008), (hx - WALL, hy - WALL),
                                       max(rim - 0.018, 0.02), inside, rim=rim - 0.008, centre_row=True)

    def _articulation(self, nid: str, hinge: Hinge) -> None:
        self.arts.setdefault(nid, []).append(Articulation(nid, hinge.joint, hinge.kind, 0.0, hinge.open,
                                                          hinge.handle_site, hinge.body))
        self.initial_open[nid] = bool(self.g.is_open(nid))

    # furniture -------------------------------------------------------------------------------------
    def carcass(self, nid: str, base: Vec3) -> tuple[Body, float, float]:
        """Build a carcass whose front-bottom-centre is `base` (world). Returns (body, width, depth)."""
        g = self.g
        a = self.app(nid)
        node = g.nodes[nid]
        depth = max(a.size[1], FIXTURE_MIN_DEPTH)
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
        z = PLINTH_HEIGHT
        body.geoms.append(bodies.plinth(name, hd, hw, col))
        # drawers: stacked from the top of the lower section; the first id is the upper one
        drawer_heights = []
        for d in drawers:
            hh = max(self.app(d).size[2], self.content_height(self.kids(d)) + DRAWER_CONTENT_HEADROOM,
                     DRAWER_MIN_HEIGHT)
            drawer_heights.append(hh)
        # drawers sit right under the top of plain furniture and under the compartment of boxes
        lower_top = max(z + sum(drawer_heights), COMPARTMENT_MIN_Z if is_box else a.size[2] - TOP_THICKNESS)
        # solid filler under the drawers (surface furniture) or a plinth block (boxes)
        filler_top = lower_top - sum(drawer_heights)
        if filler_top > z + 0.005:
            body.geoms.append(bodies.slab(f"{name}_fill", hd, hw, z, filler_top, col))
        zd = lower_top
        for d, hh in zip(drawers, drawer_heights, strict=True):
            zd -= hh
            self._drawer(body, d, (cx, base[1], base[2]), zd, hh, width, depth)
        # side panels over the drawer section (drawers slide between them)
        if drawers:
            body.geoms += bodies.side_and_back_panels((f"{name}_dsl", f"{name}_dsr", f"{name}_dback"),
                                                      hd, hw, filler_top, lower_top, col)
        z = lower_top
        if is_box:
            body.geoms.append(bodies.panel(f"{name}_floor", hd, hw, z, col))
            z += PANEL
            z0 = z
            h0 = (max(self.content_height(direct) + HAND_CLEARANCE, COMPARTMENT_MIN_HEIGHT)
                  if direct or not levels else BOTTOM_COMPARTMENT)
            half = (hd - PANEL - LEVEL_DEPTH_INSET, hw - PANEL - LEVEL_SIDE_INSET)
            slots = self.slot_grid(half, node.capacity, side=SIDE_MARGIN) if node.capacity else ()
            self.regions[nid] = Region(nid, name, (LEVEL_SHIFT, 0.0, z), half, h0, True, slots, self.slot_size())
            self.place_units(self.regions[nid], direct, body.pos)
            z += h0
            for lv in levels:
                self._level(body, lv, z, width, depth)
                z += PANEL + self._level_height(lv)
            top = max(z, a.size[2] - PANEL)
            body.geoms += bodies.side_and_back_panels((f"{name}_sl", f"{name}_sr", f"{name}_back"),
                                                      hd, hw, z0, top, col)
            if node.has(OPENABLE):
                for hinge in bodies.double_doors(body, name, z0, top, width, depth, col):
                    self._articulation(nid, hinge)
            z = top
        else:
            top = max(z, a.size[2] - TOP_THICKNESS)
            if top > z + 0.005:
                body.geoms.append(bodies.slab(f"{name}_upper", hd, hw, z, top, col))
            z = top
        body.geoms.append(bodies.counter_top(name, hd, hw, z))
        z += TOP_THICKNESS
        top_region = Region(nid, name, (0.0, 0.0, z), (hd - TOP_EDGE_MARGIN, hw - TOP_EDGE_MARGIN), 1.0, False)
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
        body.geoms += bodies.open_box(name, hx, hy, 0.0, rim, col)
        if lidded:
            self._articulation(nid, bodies.lid(body, hx, hy, rim, col, a.articulation))
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
        inside = self.g.nodes[nid].has(CONTAINER) and not self.g.nodes[nid].has(SURFACE)
        bodies.level(body, name, z, hd, hw, a.rgba, lip=inside)
        h = self._level_height(nid)
        half = (hd - LEVEL_DEPTH_INSET, hw - LEVEL_SIDE_INSET)
        cap = self.g.nodes[nid].capacity
        slots = self.slot_grid(half, cap, side=SIDE_MARGIN) if cap else ()
        region = Region(nid, name, (LEVEL_SHIFT, 0.0, PANEL), half, h, inside, slots, self.slot_size())
        self.regions[nid] = region
        self.node_body[nid] = name
        world = (body.pos[0], body.pos[1], body.pos[2] + z)
        self.place_units(region, self.kids(nid), world)

    def _drawer(self, body: Body, nid: str, origin: Vec3, z: float, h: float, width: float, depth: float) -> None:
        """A drawer of the carcass `body` (at world `origin`) and its contents, which ride in its
        front part so they are exposed when it is open."""
        name = body_name(nid)
        sub, hinge, (hd, hw, dz) = bodies.drawer(body, name, z, h, width, depth, self.app(nid).rgba)
        self._articulation(nid, hinge)
        q0 = hinge.open if self.g.is_open(nid) else 0.0
        region = Region(nid, name, (0.0, 0.0, -dz + 0.01), (hd - 0.02, hw - 0.02), 2 * dz - 0.02, True,
                        rim=2 * dz - 0.01)
        self.regions[nid] = region
        self.node_body[nid] = name
        world = (origin[0] + sub.pos[0], origin[1], origin[2] + sub.pos[2])
        self.place_units(region, self.kids(nid), world, drawer_offset=q0)

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
            length = max(ROOM_MIN_LENGTH, sum(widths) + FIXTURE_SPACING * len(widths) + ROOM_END_MARGIN)
            fy = y + FIRST_FIXTURE_Y
            for f, w in zip(sorted(furn), widths, strict=True):
                depth = max(self.app(f).size[1], FIXTURE_MIN_DEPTH)
                body, width, depth = self.carcass(f, (ROOM_DEPTH - depth - FIXTURE_WALL_GAP, fy + w / 2, 0.0))
                self.bodies.append(body)
                self.stations[f] = (ROOM_DEPTH - depth - FIXTURE_WALL_GAP - STANDOFF, fy + w / 2, 0.0)
                fy += w + FIXTURE_SPACING
            floor_items = [c for c in (self.kids(room, IN_ROOM) if room in g.nodes else [])
                           if g.nodes[c].kind != FURNITURE]
            if floor_items:
                region = Region(room, "world", (FLOOR_ITEMS_X, y + length / 2, 0.0),
                                (FLOOR_ITEMS_HALF_DEPTH, length / 2 - 0.3), 2.0, False)
                self.regions[room] = region
                self.place_units(region, floor_items, (0.0, 0.0, 0.0))
            room_plans.append(RoomPlan(room, y, y + length))
            y += length
        self._unplaced_parts()
        spares = []
        for k in range(self.n_spares):
            b = bodies.spare(k, (SPARE_PARK[0] - SPARE_SPACING * k, SPARE_PARK[1], SPARE_HALF + SPARE_LIFT))
            self.bodies.append(b)
            spares.append(b.name)
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
        needs = [a.size[0], FIXTURE_MIN_WIDTH]
        if self.g.nodes[nid].has(CONTAINER) and self.g.nodes[nid].capacity:  # its own compartment
            needs.append(self._slot_row_width(self.g.nodes[nid].capacity))
        direct = self.units([c for c in inner if self.g.nodes[c].kind != FURNITURE])
        needs.append(packing.pack_extent(direct)[0] + FIXTURE_CONTENT_MARGIN)
        for c in inner:
            if self.g.nodes[c].kind == FURNITURE:
                needs.append(packing.pack_extent(self.units(self.kids(c)))[0] + FIXTURE_CONTENT_MARGIN)
                cap = self.g.nodes[c].capacity
                if cap:  # one front-row slot per capacity unit, clear of the side walls
                    needs.append(self._slot_row_width(cap))
        on_top = self.kids(nid, ON)
        needs.append(packing.pack_extent(self.units(on_top))[0] + self._furniture_span(on_top) + FIXTURE_CONTENT_MARGIN)
        return max(needs)

    def _slot_row_width(self, capacity: int) -> float:
        """Carcass width for one front row of `capacity` slots clear of the side walls."""
        return capacity * self.slot_size()[1] + 2 * SIDE_MARGIN + 2 * PANEL + FIXTURE_SLOT_MARGIN

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


def solve_layout(graph: SceneGraph, *, catalog: Mapping[str, Mapping[str, Any]] | None = None,
                 spares: int = 3) -> ScenePlan:
    """Place every node of `graph` so that its relations hold geometrically (see module doc)."""
    return _Solver(graph, catalog, spares).solve()
