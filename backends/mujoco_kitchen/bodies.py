"""Body builders: the parts a kitchen is made of (carcass panels, drawers, double doors, lids,
buttons, vessels, bins, shelf levels, solid items, spares) as plain `Body`/`Geom` data.

Each builder gets every size it needs and decides nothing about where a node goes: the layout
solver sizes and places, these draw. Frames: x toward the back wall, y along it, z up; a body's
origin is where its caller puts it. Pure Python (no simulator).
"""

from __future__ import annotations

from dataclasses import dataclass

from robograph_backends.mujoco_kitchen.plan import RGBA, Body, Geom, Joint, Vec3
from robograph_backends.mujoco_kitchen.tuning import (
    BUTTON_DAMPING,
    BUTTON_DEPTH,
    BUTTON_FRICTIONLOSS,
    DOOR_DAMPING,
    DOOR_MASS,
    DOOR_OPEN,
    DOOR_OVERTRAVEL,
    DRAWER_DAMPING,
    DRAWER_MASS,
    DRAWER_TRAVEL_MAX,
    FLOOR_FRICTION,
    ITEM_DENSITY,
    ITEM_FRICTION,
    ITEM_MASS_RANGE,
    LEVEL_LIP,
    LID_DAMPING,
    LID_MASS,
    LID_OPEN,
    LID_RANGE,
    LID_TAB_HALF,
    PANEL,
    PLINTH_HEIGHT,
    SPARE_HALF,
    SPARE_MASS,
    TALL,
    TALL_COM_DROP,
    TOP_THICKNESS,
    TRAY_RIM,
    VESSEL_MASS,
    WALL,
)

STEEL: RGBA = (0.70, 0.72, 0.75, 1.0)
TOP: RGBA = (0.35, 0.35, 0.38, 1.0)
SPARE_RGBA: RGBA = (0.5, 0.5, 0.5, 1)
BUTTON_RGBA: RGBA = (0.85, 0.1, 0.1, 1)


@dataclass(frozen=True, slots=True)
class Hinge:
    """What a builder made for one articulation: its joint, the travel to `open`, the handle
    site the hand grasps and the moving body."""

    joint: str
    kind: str
    open: float
    handle_site: str
    body: str


def body_name(node: str) -> str:
    return f"n_{node}"


def shade(rgba: RGBA) -> RGBA:
    """A darker tone of `rgba` for fronts, doors and lids (they read apart from the carcass)."""
    return (rgba[0] * 0.85, rgba[1] * 0.85, rgba[2] * 0.85, rgba[3])


def _box(name: str, pos: Vec3, half: Vec3, rgba: RGBA, friction: float | None = None) -> Geom:
    return Geom(name, "box", pos, half, rgba, friction=friction)


def open_box(name: str, hx: float, hy: float, bottom: float, rim: float, rgba: RGBA) -> list[Geom]:
    """Floor (8 mm plate) and four walls (WALL thick, up to `rim` above `bottom`) of an open box
    (vessel, bin) standing at local height `bottom`, within the half extents hx, hy. The walls
    stand on the plate, not beside it down to `bottom`: only the plate touches what the box
    stands on (4 contacts instead of 20 for a tray on a counter, the same footprint), which
    is a fifth of the contacts MuJoCo solves at every step in a kitchen with two trays
    (issue 9 SPEED)."""
    plate = 0.008
    wall = (rim - plate) / 2
    rz = bottom + plate + wall
    return [
        _box(f"{name}_base", (0, 0, bottom + plate / 2), (hx, hy, plate / 2), rgba, FLOOR_FRICTION),
        _box(f"{name}_wf", (-hx + WALL / 2, 0, rz), (WALL / 2, hy, wall), rgba),
        _box(f"{name}_wb", (hx - WALL / 2, 0, rz), (WALL / 2, hy, wall), rgba),
        _box(f"{name}_wl", (0, hy - WALL / 2, rz), (hx - WALL, WALL / 2, wall), rgba),
        _box(f"{name}_wr", (0, -hy + WALL / 2, rz), (hx - WALL, WALL / 2, wall), rgba),
    ]


def vessel_rim(height: float, container: bool) -> float:
    """Wall height of a movable vessel: a container's walls are its full height, a carrier
    (tray) has a low TRAY_RIM."""
    return height if container else min(height, TRAY_RIM)


def lid(parent: Body, hx: float, hy: float, z: float, rgba: RGBA, kind: str) -> Hinge:
    """A lid hinged at the back edge of an open box whose walls end at height `z`, appended to
    `parent`'s children."""
    n = parent.name
    body = Body(f"{n}_lid", (hx, 0, z), joint=Joint(f"{n}_lid_hinge", "hinge", (0, 1, 0),
                                                    range=(0.0, LID_RANGE), damping=LID_DAMPING))
    body.geoms.append(_box(f"{n}_lid_g", (-hx, 0, 0.005), (hx, hy, 0.005), shade(rgba)))
    # a tab at the front edge: something for the fingers to pinch (the lid is flush with the
    # walls otherwise); physics mode lifts the lid by it
    tab = (-2 * hx - LID_TAB_HALF[0], 0.0, 0.005)
    body.geoms.append(_box(f"{n}_lid_tab", tab, LID_TAB_HALF, STEEL))
    body.sites.append((f"{n}_handle", tab))
    body.mass = LID_MASS
    parent.children.append(body)
    return Hinge(f"{n}_lid_hinge", kind, LID_OPEN, f"{n}_handle", body.name)


def button(parent: Body, top: float) -> tuple[str, str]:
    """A push button on top of `parent` (its top face at local z `top`), on a slide joint with
    dry friction and gravity compensation so it stays pushed (a latch). Returns (joint, site)."""
    n = parent.name
    b = Body(f"{n}_button", (0, 0, top + 0.006),
             joint=Joint(f"{n}_press", "slide", (0, 0, 1), range=(-BUTTON_DEPTH, 0.0), damping=BUTTON_DAMPING,
                         frictionloss=BUTTON_FRICTIONLOSS))
    b.geoms.append(Geom(f"{n}_button_g", "cylinder", (0, 0, 0), (0.02, 0.02, 0.008), BUTTON_RGBA))
    b.sites.append((f"{n}_button_site", (0, 0, 0.008)))
    b.mass = 0.02
    b.gravcomp = 1.0  # frictionloss is a soft constraint: under gravity the latch creeps
    parent.children.append(b)
    return f"{n}_press", f"{n}_button_site"


def solid_item(body: Body, shape: str, half: Vec3, rgba: RGBA) -> None:
    """The single geom, mass and centre of mass of a solid movable item."""
    body.geoms.append(Geom(f"{body.name}_g", shape, (0, 0, 0), half, rgba, friction=ITEM_FRICTION))
    lo, hi = ITEM_MASS_RANGE
    body.mass = max(lo, min(hi, ITEM_DENSITY * 8 * half[0] * half[1] * half[2]))
    if half[2] > TALL * min(half[0], half[1]):
        # a tall, thin item (cereal box, bottle) toppled when a neighbour was grasped or
        # it was set down with a small tilt; weighting its bottom keeps it standing
        body.com_z = TALL_COM_DROP * half[2]


def vessel(body: Body, size: Vec3, rgba: RGBA, container: bool) -> float:
    """Floor and walls of a movable vessel of full extents `size` centred on the body; returns
    the wall height."""
    sx, sy, sz = size
    hx, hy, hz = sx / 2, sy / 2, sz / 2
    rim = vessel_rim(sz, container)
    body.geoms.extend(open_box(body.name, hx, hy, -hz, rim, rgba))
    body.mass = VESSEL_MASS
    return rim


def spare(k: int, pos: Vec3) -> Body:
    """A spare free box parked outside the rooms, resized when an added node takes it."""
    name = f"spare_{k}"
    b = Body(name, pos, joint=Joint(f"{name}_free", "free"))
    b.geoms.append(_box(f"{name}_g", (0, 0, 0), (SPARE_HALF, SPARE_HALF, SPARE_HALF), SPARE_RGBA, ITEM_FRICTION))
    b.mass = SPARE_MASS
    b.gravcomp = 1.0  # parked weightless above the floor, out of contact (realize restores its weight)
    return b


def drawer(parent: Body, name: str, z: float, h: float, width: float, depth: float,
           rgba: RGBA) -> tuple[Body, Hinge, Vec3]:
    """A drawer `h` tall whose bottom is at carcass height `z`, in a carcass `width` x `depth`,
    sliding out along -x. Returns (body, hinge, half extents (x, y, z) of its box)."""
    hw = width / 2 - PANEL - 0.005
    hd = depth / 2 - 0.03
    travel = min(DRAWER_TRAVEL_MAX, 2 * hd - 0.1)
    dz = h / 2 - 0.005
    sub = Body(name, (-0.01, 0.0, z + h / 2), joint=Joint(f"{name}_slide", "slide", (-1, 0, 0),
                                                           range=(0.0, travel), damping=DRAWER_DAMPING))
    sub.geoms += [
        _box(f"{name}_bottom", (0, 0, -dz + 0.005), (hd, hw, 0.005), rgba, FLOOR_FRICTION),
        _box(f"{name}_back", (hd - 0.005, 0, 0), (0.005, hw, dz), rgba),
        _box(f"{name}_sl", (0, hw - 0.005, 0), (hd, 0.005, dz), rgba),
        _box(f"{name}_sr", (0, -hw + 0.005, 0), (hd, 0.005, dz), rgba),
        _box(f"{name}_front", (-hd - 0.01, 0, 0), (0.01, hw + 0.004, dz + 0.004), shade(rgba)),
        _box(f"{name}_bar", (-hd - 0.06, 0, 0.0), (0.01, 0.07, 0.01), STEEL),
        _box(f"{name}_post_l", (-hd - 0.035, 0.06, 0.0), (0.025, 0.008, 0.008), STEEL),
        _box(f"{name}_post_r", (-hd - 0.035, -0.06, 0.0), (0.025, 0.008, 0.008), STEEL),
    ]
    sub.sites.append((f"{name}_handle", (-hd - 0.06, 0, 0)))
    sub.mass = DRAWER_MASS
    parent.children.append(sub)
    return sub, Hinge(f"{name}_slide", "drawer", travel, f"{name}_handle", name), (hd, hw, dz)


def double_doors(parent: Body, name: str, z0: float, top: float, width: float, depth: float,
                 rgba: RGBA) -> list[Hinge]:
    """Double doors (half width each) over a compartment from `z0` to `top`, hinged at the
    carcass's outer front edges: a half-width leaf never sweeps through the robot's stance."""
    hd = depth / 2
    half_h = (top - z0) / 2
    zc = (z0 + top) / 2
    w = width / 2
    out = []
    for side, sign in (("l", 1.0), ("r", -1.0)):
        door = Body(f"{name}_door_{side}", (-hd - 0.012, sign * width / 2, zc),
                    joint=Joint(f"{name}_hinge_{side}", "hinge", (0, 0, sign * -1.0),
                                range=(0.0, DOOR_OPEN + DOOR_OVERTRAVEL), damping=DOOR_DAMPING))
        door.geoms.append(_box(f"{name}_door_{side}_g", (0, -sign * w / 2, 0),
                               (0.01, w / 2 - 0.003, half_h), shade(rgba)))
        door.geoms.append(_box(f"{name}_door_{side}_h", (-0.03, -sign * (w - 0.05), 0),
                               (0.01, 0.01, min(0.1, half_h - 0.02)), STEEL))
        door.sites.append((f"{name}_door_{side}_handle", (-0.04, -sign * (w - 0.05), 0)))
        door.mass = DOOR_MASS
        parent.children.append(door)
        out.append(Hinge(f"{name}_hinge_{side}", "hinged_door", DOOR_OPEN, f"{name}_door_{side}_handle", door.name))
    return out


def level(parent: Body, name: str, z: float, hd: float, hw: float, rgba: RGBA, lip: bool) -> Body:
    """A shelf plate (with a front lip for a bin level) at carcass height `z`, its own static
    body so the region it carries has a frame of its own."""
    sub = Body(name, (0.0, 0.0, z))
    sub.geoms.append(_box(f"{name}_plate", (0, 0, PANEL / 2), (hd, hw, PANEL / 2), rgba))
    if lip:
        sub.geoms.append(_box(f"{name}_lip", (-hd + 0.005, 0, PANEL + LEVEL_LIP / 2), (0.005, hw, LEVEL_LIP / 2), rgba))
    parent.children.append(sub)
    return sub


def plinth(name: str, hd: float, hw: float, rgba: RGBA) -> Geom:
    """The kick plate a carcass stands on (PLINTH_HEIGHT tall, set back from the front)."""
    return _box(f"{name}_plinth", (0, 0, PLINTH_HEIGHT / 2), (hd - 0.03, hw - 0.02, PLINTH_HEIGHT / 2), shade(rgba))


def slab(geom: str, hd: float, hw: float, z0: float, z1: float, rgba: RGBA) -> Geom:
    """A solid block filling the carcass between heights z0 and z1."""
    return _box(geom, (0, 0, (z0 + z1) / 2), (hd, hw, (z1 - z0) / 2), rgba)


def panel(geom: str, hd: float, hw: float, z: float, rgba: RGBA) -> Geom:
    """A horizontal PANEL-thick plate over the whole carcass footprint, its underside at `z`."""
    return _box(geom, (0, 0, z + PANEL / 2), (hd, hw, PANEL / 2), rgba)


def side_and_back_panels(names: tuple[str, str, str], hd: float, hw: float, z0: float, z1: float,
                         rgba: RGBA) -> list[Geom]:
    """Left, right and back panels of a carcass section from z0 to z1 (named by `names`)."""
    zmid, half_h = (z0 + z1) / 2, (z1 - z0) / 2
    left, right, back = names
    return [
        _box(left, (0, hw - PANEL / 2, zmid), (hd, PANEL / 2, half_h), rgba),
        _box(right, (0, -hw + PANEL / 2, zmid), (hd, PANEL / 2, half_h), rgba),
        _box(back, (hd - PANEL / 2, 0, zmid), (PANEL / 2, hw, half_h), rgba),
    ]


def counter_top(name: str, hd: float, hw: float, z: float) -> Geom:
    """The top slab (TOP_THICKNESS) whose underside is at carcass height `z`, overhanging 1 cm."""
    return _box(f"{name}_top", (-0.01, 0, z + TOP_THICKNESS / 2), (hd + 0.01, hw + 0.01, TOP_THICKNESS / 2), TOP)
