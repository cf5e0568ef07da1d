"""Plain data describing a physical kitchen, produced by the layout solver and consumed by the
MjSpec builder (mjcf.py), the world-state reader and the skills. Pure Python (no simulator) so
the layout can be checked without MuJoCo.

Frames: world z up; every room spans x in [0, ROOM_DEPTH] and its own y interval; furniture
stands against the +x wall with its open front facing -x, where the robot stands (yaw 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from robograph_backends.mujoco_kitchen.tuning import (
    CORRIDOR_X,
    DOOR_HALF_WIDTH,
    ROOM_DEPTH,
    STANDOFF,
    WALL_FINGER_MARGIN,
    WALL_HEIGHT,
)

if TYPE_CHECKING:
    from robograph_backends.appearance import Visual

# the room and stance constants live in tuning.py; they stay importable from here for the
# modules that read them with the plan
__all__ = ["CORRIDOR_X", "DOOR_HALF_WIDTH", "ROOM_DEPTH", "STANDOFF", "WALL_FINGER_MARGIN", "WALL_HEIGHT"]

Vec3 = tuple[float, float, float]
RGBA = tuple[float, float, float, float]


@dataclass(slots=True)
class Geom:
    """One primitive. `half` are MuJoCo half sizes (box: hx,hy,hz; cylinder: r, -, hz; sphere: r)."""

    name: str
    shape: str
    pos: Vec3
    half: Vec3
    rgba: RGBA
    friction: float | None = None
    collide: bool = True


@dataclass(slots=True)
class Joint:
    name: str
    kind: str  # free | slide | hinge
    axis: Vec3 = (0.0, 0.0, 1.0)
    pos: Vec3 = (0.0, 0.0, 0.0)
    range: tuple[float, float] | None = None
    damping: float = 0.0
    frictionloss: float = 0.0  # dry friction: keeps a button where it was pushed (a latch)


@dataclass(slots=True)
class Body:
    name: str
    pos: Vec3
    geoms: list[Geom] = field(default_factory=list)
    joint: Joint | None = None
    mass: float | None = None
    children: list[Body] = field(default_factory=list)
    sites: list[tuple[str, Vec3]] = field(default_factory=list)
    gravcomp: float = 0.0  # 1: gravity compensated (a latched button must not creep down)
    com_z: float = 0.0  # centre of mass below the body origin (m): tall items are bottom-weighted
    # what the cameras show of a movable node (robograph_backends.appearance): visual-only parts
    # added after `geoms`; None: the geoms themselves are what the cameras show
    visual: Visual | None = None


@dataclass(frozen=True, slots=True)
class Region:
    """Where children of a node rest: a floor rectangle in the frame of `body` (local coords).
    `inside` regions are containment volumes (INSIDE); others are supports (ON)."""

    node: str
    body: str
    center: Vec3  # floor centre (local); z = floor height
    half: tuple[float, float]  # half extents along x (depth) and y (width)
    height: float  # free height above the floor (m)
    inside: bool
    # placement slots reserved at build time, one per capacity unit (local x, y of their
    # centres) and their common footprint (x depth, y width): placing skills fill these first
    slots: tuple[tuple[float, float], ...] = ()
    slot_size: tuple[float, float] = (0.0, 0.0)
    open_top: bool = False  # an open bin standing on furniture: reached from above, not the front
    rim: float = 0.0  # height of the walls' top above the floor (0: no walls); the palm stays above
    centre_row: bool = False  # contents stand in one row along the middle, front to back (deep,
    # lidded boxes: there the palm, longer than the box is deep, fits between front and back wall)


@dataclass(frozen=True, slots=True)
class Articulation:
    """One joint that realizes a node's `open` attribute. q in [closed, open]."""

    node: str
    joint: str
    kind: str  # drawer | hinged_door | lid | book_cover
    closed: float
    open: float
    handle_site: str
    body: str


@dataclass(frozen=True, slots=True)
class Button:
    node: str
    joint: str
    site: str
    depth: float  # travel (m); pressed when q <= -depth / 2


@dataclass(frozen=True, slots=True)
class RoomPlan:
    node: str
    y0: float
    y1: float


@dataclass(frozen=True, slots=True)
class ItemPlan:
    """A free (movable) node: its body, its extents and the hold frame for grasping."""

    node: str
    body: str
    half: Vec3
    shape: str
    hollow: bool  # a vessel (box/bag/tray): grasp its wall, not its centre


@dataclass(slots=True)
class ScenePlan:
    rooms: list[RoomPlan]
    bodies: list[Body]
    node_body: dict[str, str]
    regions: dict[str, Region]  # interior (INSIDE) or support (ON) of vessels, shelves, drawers
    tops: dict[str, Region]  # top surfaces of furniture carcasses (ON)
    articulations: dict[str, list[Articulation]]
    buttons: dict[str, Button]
    items: dict[str, ItemPlan]
    stations: dict[str, tuple[float, float, float]]
    blocking: dict[str, tuple[str, Vec3]]  # blocker -> (target, blocking position: x, y, floor z, world)
    spares: list[str]
    robot_start: tuple[float, float, float]
    initial_open: dict[str, bool]

    def support_region(self, node: str, relation: str) -> Region | None:
        """The region a child `relation` (ON / INSIDE) `node` rests in."""
        if relation == "ON" and node in self.tops:
            return self.tops[node]
        return self.regions.get(node)

    def room_at(self, x: float, y: float) -> str | None:
        if not -0.5 <= x <= ROOM_DEPTH + 0.5:
            return None
        for room in self.rooms:
            if room.y0 <= y < room.y1:
                return room.node
        return None

    def room_span(self, room: str) -> RoomPlan:
        for r in self.rooms:
            if r.node == room:
                return r
        raise KeyError(room)
