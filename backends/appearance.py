"""What an object looks like in the cameras: category shapes from primitives and a label with the
product's name, one generator for every physical backend (MuJoCo kitchen, SAPIEN tabletop).

Why: a plain coloured box per product tells a model nothing (a jam jar and a salad-dressing
bottle were the same red box). From a node's catalog category, display name, colour and the
extents its backend gave its collision body, `describe` returns a backend-neutral `Visual`: a
few primitive `Part`s (box, cylinder, sphere, capsule) that stay inside those extents (bottles
with a neck and a cap, jars with a lid, cartons with a gable, fruit with a stem, pens with a
cap...) and, for products, a `Label`: a Pillow-drawn RGB image of the name and the thin part it
is printed on. The parts are for the eye only: a backend keeps its collision shapes as they are
(physics, reconcile and the skills never see these parts).

Frames: the object's body frame, origin at the centre of its bounding box, z up, the robot on
the -x side (the front). Sizes are half extents in metres; rgba components in [0, 1]. Label
plates carry their picture on their local +z face, the text along local +x, its top toward
local +y (how a 2-D texture lies on a box in MuJoCo and SAPIEN); `Part.quat` turns that face to
the front (-x) or up (+z). Pure Python + numpy + Pillow: no simulator import. Deterministic:
the same inputs give the same parts and the same label pixels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from robograph.errors import RoboGraphError

Vec3 = tuple[float, float, float]
RGBA = tuple[float, float, float, float]
Quat = tuple[float, float, float, float]  # (w, x, y, z)

SHAPES = ("box", "cylinder", "sphere", "capsule")
IDENTITY: Quat = (1.0, 0.0, 0.0, 0.0)
# a label plate facing the front (-x): local x -> world -y (the text reads left to right as the
# robot, looking along +x, sees it), local y -> +z (text upright), local z -> -x
FACE_FRONT: Quat = (0.5, 0.5, -0.5, -0.5)
# a label plate lying on top: local x -> -y, local y -> +x (the text's top away from the robot)
FACE_UP: Quat = (math.sqrt(0.5), 0.0, 0.0, -math.sqrt(0.5))
# a cylinder/capsule whose axis (local z) lies along x or y
ALONG_X: Quat = (math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0)
ALONG_Y: Quat = (math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0)

PLATE = 0.0008  # m, half thickness of a label plate
LABEL_PX = 128  # label image width (px); the height follows the plate's aspect
MIN_LABEL_HALF = 0.008  # m: a face smaller than this (half width or height) carries no label
CAP: RGBA = (0.92, 0.92, 0.90, 1.0)
METAL: RGBA = (0.72, 0.72, 0.70, 1.0)
DARK: RGBA = (0.12, 0.12, 0.12, 1.0)
PAPER: RGBA = (0.96, 0.95, 0.90, 1.0)
STEM: RGBA = (0.35, 0.22, 0.10, 1.0)
LEAF: RGBA = (0.20, 0.55, 0.20, 1.0)


class AppearanceError(RoboGraphError):
    """An object cannot be described: unknown collision shape or non-positive extents."""


@dataclass(frozen=True, slots=True)
class Part:
    """One visual primitive. `half`: box (hx, hy, hz); cylinder (r, r, half length); sphere
    (r, r, r); capsule (r, r, half length of its straight part); all along the part's own axes,
    which `quat` (w, x, y, z) turns into the object's frame. `label`: this part carries the label."""

    name: str
    shape: str
    pos: Vec3
    half: Vec3
    rgba: RGBA
    quat: Quat = IDENTITY
    label: bool = False


@dataclass(frozen=True, slots=True)
class Label:
    """The product's name as a picture (`image`: H x W x 3 uint8) and the part it is printed on
    (a thin plate; the picture covers its local +z face)."""

    text: str
    image: np.ndarray
    part: str


@dataclass(frozen=True, slots=True)
class Visual:
    """What a backend draws for one object: `family` names the shape rule used (for reports)."""

    category: str
    name: str
    family: str
    parts: tuple[Part, ...]
    label: Label | None

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) corners (3,) of the parts' axis-aligned bounding box in the object frame."""
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        for p in self.parts:
            ext = np.abs(rotation(p.quat)) @ np.asarray(_extent(p))
            lo = np.minimum(lo, np.asarray(p.pos) - ext)
            hi = np.maximum(hi, np.asarray(p.pos) + ext)
        return lo, hi


def rotation(q: Quat) -> np.ndarray:
    """Rotation matrix (3, 3) of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _extent(p: Part) -> Vec3:
    """Half extents of a part's own bounding box along its own axes."""
    if p.shape == "capsule":
        return (p.half[0], p.half[1], p.half[2] + p.half[0])
    return p.half


# shape families -------------------------------------------------------------------------------------
# category -> family; categories not listed fall back on their name's words, then on the shape
FAMILIES: Mapping[str, str] = MappingProxyType({
    **dict.fromkeys(("ketchup", "mustard", "soy_sauce", "hot_sauce", "bbq_sauce", "salad_dressing", "juice_bottle",
                     "water_bottle", "primer_bottle", "setting_spray", "foundation_bottle", "perfume_bottle",
                     "nail_polish"), "bottle"),
    **dict.fromkeys(("jam_jar", "honey_jar", "pickle_jar", "mayonnaise", "cotton_pads"), "jar"),
    **dict.fromkeys(("yogurt_cup", "dessert_cup", "fruit_cup", "sauce_cup", "cup", "muffin", "candle_holder",
                     "flower_vase", "wine_glass", "stacking_rings", "pen_holder"), "cup"),
    **dict.fromkeys(("salt_shaker", "pepper_shaker"), "shaker"),
    **dict.fromkeys(("milk_carton",), "carton"),
    **dict.fromkeys(("juice_box",), "drink_box"),
    **dict.fromkeys(("cereal_box", "cracker_box", "cookie_pack", "granola_bar", "puzzle_box", "egg_carton", "butter",
                     "cheese_block", "carrot_sticks", "ice_pack", "tissue_box", "sticky_notes", "eyeshadow_palette",
                     "menu_card", "sandwich", "sushi_plate"), "package"),
    **dict.fromkeys(("book", "notebook", "note_card", "napkin"), "book"),
    **dict.fromkeys(("calculator", "laptop", "usb_drive", "stapler", "eraser", "ruler", "scissors", "monitor_stand",
                     "hand_mirror"), "gadget"),
    **dict.fromkeys(("apple", "orange"), "fruit"),
    **dict.fromkeys(("bread_roll", "croissant", "banana", "spring_roll", "crumpled_paper", "makeup_sponge",
                     "toy_ball", "rubber_duck", "powder_puff"), "round"),
    **dict.fromkeys(("dinner_plate", "side_plate", "cheese_plate", "soup_bowl", "salad_bowl", "blush_compact"), "plate"),
    **dict.fromkeys(("pen", "pencil", "highlighter", "highlighter_cap", "highlighter_body", "fountain_pen", "pen_cap",
                     "pen_barrel", "lipstick", "lipstick_cap", "lipstick_body", "eyeliner", "eyeliner_cap",
                     "eyeliner_pencil", "concealer", "mascara", "lip_balm", "makeup_brush", "glue_stick", "fork",
                     "knife", "spoon"), "stick"),
    **dict.fromkeys(("paper_towel_roll",), "roll"),
    **dict.fromkeys(("teddy_bear", "plush_bunny", "doll", "toy_dinosaur"), "figure"),
    **dict.fromkeys(("desk_lamp", "table_lamp"), "lamp"),
    **dict.fromkeys(("toy_car", "toy_train"), "vehicle"),
})
# families whose objects carry a printed label with the product's name
LABELLED = frozenset({"bottle", "jar", "carton", "drink_box", "package", "book", "cup", "shaker", "generic", "roll"})
_WORDS = (("bottle", "bottle"), ("jar", "jar"), ("carton", "carton"), ("box", "package"), ("pack", "package"),
          ("cup", "cup"), ("plate", "plate"), ("bowl", "plate"), ("pen", "stick"), ("book", "book"))


def family_of(category: str, shape: str) -> str:
    """The shape rule for a category: listed, else by a word of its name, else 'generic'."""
    if category in FAMILIES:
        return FAMILIES[category]
    for word, fam in _WORDS:
        if word in category:
            return fam
    return "round" if shape == "sphere" else "generic"


def describe(category: str, name: str, shape: str, half: Vec3, rgba: RGBA, *, hollow: bool = False) -> Visual:
    """The visual of one object whose collision body has primitive `shape` (box | cylinder |
    sphere | capsule) with half extents `half` (box: hx, hy, hz; cylinder: r, r, hz; sphere:
    r, r, r) and colour `rgba`. `hollow`: a vessel (lunch box, tray) whose walls the backend
    already draws: it only gets a label on its front wall. Every part lies inside the box of
    `half` (labels at most a plate's thickness outside it)."""
    if shape not in SHAPES:
        raise AppearanceError(f"unknown collision shape {shape!r} for {category!r}; valid: {', '.join(SHAPES)}")
    hx, hy, hz = (float(v) for v in half)
    if min(hx, hy, hz) <= 0.0 or not all(math.isfinite(v) for v in (hx, hy, hz)):
        raise AppearanceError(f"half extents of {category!r} must be positive and finite, got {half!r}")
    rgba = (float(rgba[0]), float(rgba[1]), float(rgba[2]), float(rgba[3]))
    if hollow:
        parts = _front_label((hx, hy, hz), (-hx, 0.0, 0.0), rgba, margin=0.3)
        return _finish(category, name, "vessel", parts, rgba)
    fam = family_of(category, shape)
    maker = _MAKERS.get(fam, _generic)
    parts = maker((hx, hy, hz), rgba, shape)
    if parts is None:  # the proportions do not suit the family: the collision shape, labelled
        fam, parts = "generic", _generic((hx, hy, hz), rgba, shape)
    if fam not in LABELLED:
        parts = [p for p in parts if not p.label]
    return _finish(category, name, fam, parts, rgba)


def _finish(category: str, name: str, family: str, parts: list[Part], rgba: RGBA) -> Visual:
    labelled = [p for p in parts if p.label]
    label = None
    if labelled:
        plate = labelled[0]
        label = Label(name, label_image(name, plate.half[0] / plate.half[1], rgba), plate.name)
    return Visual(category, name, family, tuple(parts), label)


# part makers: each returns the parts of one family inside the half extents, or None when the
# proportions do not suit it (the generic shape is used instead) -------------------------------------
Maker = Callable[[Vec3, RGBA, str], "list[Part] | None"]


def _lighter(rgba: RGBA, k: float = 0.55) -> RGBA:
    return (rgba[0] + (1 - rgba[0]) * k, rgba[1] + (1 - rgba[1]) * k, rgba[2] + (1 - rgba[2]) * k, 1.0)


def _darker(rgba: RGBA, k: float = 0.6) -> RGBA:
    return (rgba[0] * k, rgba[1] * k, rgba[2] * k, rgba[3])


def _front_label(half: Vec3, centre: Vec3, rgba: RGBA, margin: float = 0.15, height: float = 0.6) -> list[Part]:
    """A label plate on the front (-x) face at `centre` (its x is the face), `margin` of the
    face's width left free each side, `height` of `half`'s z covered."""
    _, hy, hz = half
    w, h = hy * (1 - margin), hz * height
    if w < MIN_LABEL_HALF or h < MIN_LABEL_HALF:
        return []
    pos = (centre[0] - PLATE, centre[1], centre[2])
    return [Part("label", "box", pos, (w, h, PLATE), PAPER, FACE_FRONT, label=True)]


def _top_label(half: Vec3, z: float, margin: float = 0.15) -> list[Part]:
    hx, hy, _ = half
    w, h = hy * (1 - margin), hx * (1 - margin)  # text along -y, its height along x
    if w < MIN_LABEL_HALF or h < MIN_LABEL_HALF:
        return []
    return [Part("label", "box", (0.0, 0.0, z + PLATE), (w, h, PLATE), PAPER, FACE_UP, label=True)]


def _upright_radius(half: Vec3) -> float:
    return min(half[0], half[1])


def _bottle(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    r, hz = _upright_radius(half), half[2]
    if hz < 1.3 * r:
        return None
    body_h = 1.25 * hz  # full height of the body cylinder (of 2 hz)
    shoulder_h, neck_h = 0.2 * hz, 0.35 * hz
    cap_h = 2 * hz - body_h - shoulder_h - neck_h
    z0 = -hz
    box = shape == "box" and abs(half[0] - half[1]) > 0.2 * max(half[0], half[1])
    body = (Part("body", "box", (0.0, 0.0, z0 + body_h / 2), (half[0], half[1], body_h / 2), rgba) if box
            else Part("body", "cylinder", (0.0, 0.0, z0 + body_h / 2), (r, r, body_h / 2), rgba))
    z1 = z0 + body_h
    parts = [
        body,
        Part("shoulder", "cylinder", (0.0, 0.0, z1 + shoulder_h / 2), (0.7 * r, 0.7 * r, shoulder_h / 2), rgba),
        Part("neck", "cylinder", (0.0, 0.0, z1 + shoulder_h + neck_h / 2), (0.38 * r, 0.38 * r, neck_h / 2),
             _lighter(rgba, 0.2)),
        Part("cap", "cylinder", (0.0, 0.0, hz - cap_h / 2), (0.45 * r, 0.45 * r, cap_h / 2), _cap_colour(rgba)),
    ]
    front = -half[0] if box else -r
    return parts + _front_label((r, r if not box else half[1], body_h / 2), (front, 0.0, z0 + body_h / 2), rgba,
                                margin=0.3, height=0.55)


def _cap_colour(rgba: RGBA) -> RGBA:
    """A cap that reads apart from its bottle: white on dark bottles, dark on light ones."""
    return CAP if sum(rgba[:3]) < 1.6 else DARK


def _jar(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    r, hz = _upright_radius(half), half[2]
    lid_h = max(0.2 * hz, 0.006)
    body_h = 2 * hz - lid_h
    return [
        Part("body", "cylinder", (0.0, 0.0, -hz + body_h / 2), (0.94 * r, 0.94 * r, body_h / 2), rgba),
        Part("lid", "cylinder", (0.0, 0.0, hz - lid_h / 2), (r, r, lid_h / 2), METAL if sum(rgba[:3]) < 2.2 else DARK),
        *_front_label((0.94 * r, 0.94 * r, body_h / 2), (-0.94 * r, 0.0, -hz + body_h / 2), rgba, 0.3, 0.6),
    ]


def _cup(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    r, hz = _upright_radius(half), half[2]
    rim = max(0.08 * hz, 0.003)
    return [
        Part("base", "cylinder", (0.0, 0.0, -hz + 0.1 * hz), (0.75 * r, 0.75 * r, 0.1 * hz), _darker(rgba, 0.85)),
        Part("body", "cylinder", (0.0, 0.0, 0.1 * hz - rim / 2), (r, r, 0.9 * hz - rim / 2), rgba),
        Part("fill", "cylinder", (0.0, 0.0, hz - rim / 2), (0.85 * r, 0.85 * r, rim / 2), _lighter(rgba, 0.5)),
        *_front_label((r, r, 0.9 * hz), (-r, 0.0, 0.1 * hz), rgba, 0.35, 0.45),
    ]


def _shaker(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    r, hz = _upright_radius(half), half[2]
    if hz < r:
        return None
    dome = r * 0.9
    body_h = 2 * hz - dome
    return [
        Part("body", "cylinder", (0.0, 0.0, -hz + body_h / 2), (r, r, body_h / 2), rgba),
        Part("top", "sphere", (0.0, 0.0, hz - dome), (dome, dome, dome), METAL),
        *_front_label((r, r, body_h / 2), (-r, 0.0, -hz + body_h / 2), rgba, 0.35, 0.4),
    ]


def _carton(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    hx, hy, hz = half
    if hz < 1.2 * max(hx, hy):
        return None
    gable = 0.35 * min(hx, hy)
    body_h = 2 * hz - gable
    return [
        Part("body", "box", (0.0, 0.0, -hz + body_h / 2), (hx, hy, body_h / 2), rgba),
        Part("gable", "box", (0.0, 0.0, hz - gable / 2), (0.25 * hx, hy, gable / 2), _lighter(rgba, 0.3)),
        Part("spout", "cylinder", (-0.5 * hx, 0.4 * hy, hz - gable), (0.22 * hx, 0.22 * hx, min(gable, 0.4 * hx) / 2),
             (0.2, 0.4, 0.85, 1.0)),
        *_front_label((hx, hy, body_h / 2), (-hx, 0.0, -hz + body_h / 2), rgba, 0.12, 0.7),
    ]


def _drink_box(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    hx, hy, hz = half
    straw = 0.12 * hz
    body_h = 2 * hz - straw
    return [
        Part("body", "box", (0.0, 0.0, -hz + body_h / 2), (hx, hy, body_h / 2), rgba),
        Part("straw", "cylinder", (0.4 * hx, 0.4 * hy, hz - straw / 2), (0.004, 0.004, straw / 2), (0.95, 0.95, 0.95, 1.0)),
        *_front_label((hx, hy, body_h / 2), (-hx, 0.0, -hz + body_h / 2), rgba, 0.1, 0.75),
    ]


def _package(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """A printed box: the label on its front when it stands, on its top when it lies flat."""
    hx, hy, hz = half
    body = Part("body", "box", (0.0, 0.0, 0.0), (hx, hy, hz), rgba)
    if shape != "box":
        return None
    if hz >= 0.6 * hy:
        return [body, *_front_label(half, (-hx, 0.0, 0.0), rgba, 0.1, 0.75)]
    return [body, *_top_label(half, hz, 0.1)]


def _book(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """Covers in the book's colour, a paper block between them, the title on the top cover."""
    hx, hy, hz = half
    if shape != "box" or hz > min(hx, hy):
        return None
    cover = max(0.12 * hz, 0.0006)
    return [
        Part("back_cover", "box", (0.0, 0.0, -hz + cover), (hx, hy, cover), rgba),
        Part("pages", "box", (0.004, 0.0, 0.0), (hx - 0.004, 0.97 * hy, max(hz - 2 * cover, 0.0004)), PAPER),
        Part("cover", "box", (0.0, 0.0, hz - cover), (hx, hy, cover), rgba),
        Part("spine", "box", (hx - 0.002, 0.0, 0.0), (0.002, hy, hz), _darker(rgba, 0.75)),
        *_top_label((0.85 * hx, hy, hz), hz, 0.2),
    ]


def _gadget(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """A device: its body, a darker panel on top (screen, keys, blade)."""
    hx, hy, hz = half
    if shape != "box":
        return None
    t = min(0.15 * hz, 0.002)
    return [
        Part("body", "box", (0.0, 0.0, -t), (hx, hy, hz - t), rgba),
        Part("panel", "box", (0.0, 0.0, hz - t), (0.8 * hx, 0.75 * hy, t), _darker(rgba, 0.5)),
    ]


def _fruit(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    r = min(half)
    stem_h = min(0.18 * r, half[2] - 0.85 * r) if half[2] > 0.85 * r else 0.0
    body_r = min(r, half[2] - stem_h) if stem_h else r
    parts = [Part("body", "sphere", (0.0, 0.0, -half[2] + body_r), (body_r, body_r, body_r), rgba)]
    if stem_h > 0.002:
        z = -half[2] + 2 * body_r
        parts += [
            Part("stem", "cylinder", (0.0, 0.0, z - 0.1 * r + stem_h / 2), (0.06 * r, 0.06 * r, stem_h / 2 + 0.1 * r), STEM),
            Part("leaf", "box", (0.18 * r, 0.0, z - 0.05 * r), (0.18 * r, 0.08 * r, 0.02 * r), LEAF),
        ]
    return parts


def _round(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """Soft food and toys: a capsule along the longest horizontal axis when long, else a ball."""
    hx, hy, hz = half
    if max(hx, hy) > 1.5 * hz:
        r = min(hz, min(hx, hy))
        length = max(hx, hy) - r
        quat = ALONG_X if hx >= hy else ALONG_Y
        return [Part("body", "capsule", (0.0, 0.0, -hz + r), (r, r, length), rgba, quat)]
    r = min(half)
    return [Part("body", "sphere", (0.0, 0.0, -hz + r), (r, r, r), rgba)]


def _plate(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """Plates and bowls: a wide flat disc with a lighter well."""
    r, hz = _upright_radius(half), half[2]
    if hz > r:
        return None
    return [
        Part("foot", "cylinder", (0.0, 0.0, -hz + 0.2 * hz), (0.6 * r, 0.6 * r, 0.2 * hz), _darker(rgba, 0.85)),
        Part("rim", "cylinder", (0.0, 0.0, 0.2 * hz), (r, r, 0.8 * hz), rgba),
        Part("well", "cylinder", (0.0, 0.0, hz - 0.0008), (0.7 * r, 0.7 * r, 0.0008), _lighter(rgba, 0.35)),
    ]


def _stick(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """Pens, lipsticks, cutlery: a rod lying along the longest horizontal axis (standing when
    it is tallest), a cap of a contrasting tone on one end."""
    hx, hy, hz = half
    if hz >= max(hx, hy):
        r = min(hx, hy)
        cap = 0.3 * hz
        return [
            Part("body", "cylinder", (0.0, 0.0, -cap / 2), (r, r, hz - cap / 2), rgba),
            Part("cap", "cylinder", (0.0, 0.0, hz - cap / 2), (0.9 * r, 0.9 * r, cap / 2), _cap_colour(rgba)),
        ]
    along_x = hx >= hy
    length, width = (hx, hy) if along_x else (hy, hx)
    r = min(width, hz)
    cap = 0.3 * length
    quat = ALONG_X if along_x else ALONG_Y

    def at(s: float) -> Vec3:
        return (s, 0.0, -hz + r) if along_x else (0.0, s, -hz + r)

    return [
        Part("body", "cylinder", at(-cap / 2), (r, r, length - cap / 2), rgba, quat),
        Part("cap", "cylinder", at(length - cap / 2), (0.9 * r, 0.9 * r, cap / 2), _cap_colour(rgba), quat),
    ]


def _roll(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    r, hz = _upright_radius(half), half[2]
    return [
        Part("body", "cylinder", (0.0, 0.0, 0.0), (r, r, hz), rgba),
        Part("core", "cylinder", (0.0, 0.0, hz - 0.0008), (0.3 * r, 0.3 * r, 0.0009), (0.55, 0.40, 0.25, 1.0)),
        *_front_label((r, r, hz), (-r, 0.0, 0.0), rgba, 0.35, 0.3),
    ]


def _figure(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """Plush toys and dolls: a round body, a head on it, two ears."""
    hx, hy, hz = half
    r = min(hx, hy)
    if hz < 0.8 * r:
        return None
    head = min(0.6 * r, 0.4 * hz)
    body = min(r, hz - head)
    ear = 0.35 * head
    top = -hz + 2 * body
    return [
        Part("body", "sphere", (0.0, 0.0, -hz + body), (body, body, body), rgba),
        Part("head", "sphere", (0.0, 0.0, min(top + 0.8 * head, hz - head)), (head, head, head), _lighter(rgba, 0.15)),
        Part("ear_l", "sphere", (0.0, 0.6 * head, min(top + 1.6 * head, hz - ear)), (ear, ear, ear), _darker(rgba, 0.8)),
        Part("ear_r", "sphere", (0.0, -0.6 * head, min(top + 1.6 * head, hz - ear)), (ear, ear, ear), _darker(rgba, 0.8)),
    ]


def _lamp(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """A lamp: a flat foot, a thin pole, a shade on top."""
    r, hz = _upright_radius(half), half[2]
    if hz < r:
        return None
    foot, shade = 0.08 * hz, 0.3 * hz
    pole = 2 * hz - foot - shade
    return [
        Part("foot", "cylinder", (0.0, 0.0, -hz + foot / 2), (0.8 * r, 0.8 * r, foot / 2), rgba),
        Part("pole", "cylinder", (0.0, 0.0, -hz + foot + pole / 2), (0.08 * r, 0.08 * r, pole / 2), METAL),
        Part("shade", "cylinder", (0.0, 0.0, hz - shade / 2), (r, r, shade / 2), _lighter(rgba, 0.6)),
    ]


def _vehicle(half: Vec3, rgba: RGBA, shape: str) -> list[Part] | None:
    """Toy cars and trains: a body on four wheels, a cabin on top, along the longer side."""
    hx, hy, hz = half
    if shape != "box":
        return None
    along_x = hx >= hy
    length, width = (hx, hy) if along_x else (hy, hx)
    wheel = min(0.3 * hz, 0.3 * length)
    body_h = (2 * hz - wheel) * 0.55
    cabin_h = 2 * hz - wheel - body_h

    def at(s: float, t: float, z: float) -> Vec3:
        return (s, t, z) if along_x else (t, s, z)

    def size(a: float, b: float, c: float) -> Vec3:
        return (a, b, c) if along_x else (b, a, c)

    parts = [
        Part("body", "box", at(0.0, 0.0, -hz + wheel + body_h / 2), size(length, width, body_h / 2), rgba),
        Part("cabin", "box", at(-0.15 * length, 0.0, hz - cabin_h / 2), size(0.5 * length, 0.85 * width, cabin_h / 2),
             _lighter(rgba, 0.45)),
    ]
    quat = ALONG_Y if along_x else ALONG_X
    for k, (s, t) in enumerate(((0.65, 1), (0.65, -1), (-0.65, 1), (-0.65, -1))):
        parts.append(Part(f"wheel_{k}", "cylinder", at(s * length, t * (width - 0.15 * width), -hz + wheel),
                          (wheel, wheel, 0.15 * width), DARK, quat))
    return parts


def _generic(half: Vec3, rgba: RGBA, shape: str) -> list[Part]:
    """The collision primitive itself, with a label where a face is big enough."""
    hx, hy, hz = half
    if shape == "sphere":
        r = min(half)
        return [Part("body", "sphere", (0.0, 0.0, 0.0), (r, r, r), rgba)]
    if shape in ("cylinder", "capsule"):
        r = _upright_radius(half)
        body = Part("body", "cylinder", (0.0, 0.0, 0.0), (r, r, hz), rgba)
        return [body, *_front_label((r, r, hz), (-r, 0.0, 0.0), rgba, 0.35, 0.5)]
    body = Part("body", "box", (0.0, 0.0, 0.0), (hx, hy, hz), rgba)
    if hz >= 0.6 * hy:
        return [body, *_front_label(half, (-hx, 0.0, 0.0), rgba, 0.15, 0.6)]
    return [body, *_top_label(half, hz, 0.15)]


_MAKERS: Mapping[str, Maker] = MappingProxyType({
    "bottle": _bottle, "jar": _jar, "cup": _cup, "shaker": _shaker, "carton": _carton, "drink_box": _drink_box,
    "package": _package, "book": _book, "gadget": _gadget, "fruit": _fruit, "round": _round, "plate": _plate,
    "stick": _stick, "roll": _roll, "figure": _figure, "lamp": _lamp, "vehicle": _vehicle, "generic": _generic,
})


# label pictures ---------------------------------------------------------------------------------------
def label_image(text: str, aspect: float, rgba: RGBA) -> np.ndarray:
    """The label of a product: its name in dark letters on a light band, framed top and bottom
    by stripes of the product's colour. `aspect` = width / height of the plate. Returns
    (H, W, 3) uint8, W = LABEL_PX."""
    height = int(min(max(round(LABEL_PX / max(aspect, 1e-3)), 24), 2 * LABEL_PX))
    colour = tuple(int(round(255 * min(max(c, 0.0), 1.0))) for c in rgba[:3])
    return _label_cached(text, height, colour).copy()


@lru_cache(maxsize=512)
def _label_cached(text: str, height: int, colour: tuple[int, ...]) -> np.ndarray:
    from PIL import Image, ImageDraw

    width = LABEL_PX
    img = Image.new("RGB", (width, height), (246, 244, 236))
    draw = ImageDraw.Draw(img)
    stripe = max(2, height // 8)
    draw.rectangle([0, 0, width - 1, stripe - 1], fill=colour)
    draw.rectangle([0, height - stripe, width - 1, height - 1], fill=colour)
    lines, font = _fit(draw, text, width - 8, height - 2 * stripe - 4)
    boxes = [draw.textbbox((0, 0), line, font=font) for line in lines]
    total = sum(b[3] - b[1] for b in boxes) + 2 * (len(lines) - 1)
    y = (height - total) / 2
    for line, b in zip(lines, boxes, strict=True):
        w = b[2] - b[0]
        draw.text(((width - w) / 2 - b[0], y - b[1]), line, fill=(20, 20, 24), font=font)
        y += b[3] - b[1] + 2
    out = np.asarray(img, dtype=np.uint8)
    out.setflags(write=False)
    return out


def _fit(draw: object, text: str, width: int, height: int) -> tuple[list[str], object]:
    """The largest font size (and 1 or 2 lines) at which `text` fits `width` x `height` px
    (a binary search per line split: the text's extent grows with the size)."""
    words = text.upper().split() or [" "]
    candidates = [[" ".join(words)]]
    if len(words) > 1:
        cut = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(" ".join(words[k:]))))
        candidates.append([" ".join(words[:cut]), " ".join(words[cut:])])

    def fits(lines: list[str], size: int) -> bool:
        boxes = [draw.textbbox((0, 0), line, font=_font(size)) for line in lines]  # type: ignore[attr-defined]
        w = max(b[2] - b[0] for b in boxes)
        h = sum(b[3] - b[1] for b in boxes) + 2 * (len(lines) - 1)
        return w <= width and h <= height

    best: tuple[int, list[str]] = (5, candidates[0])
    for lines in candidates:
        lo, hi = 6, min(height, 40)
        while lo <= hi:
            mid = (lo + hi) // 2
            if fits(lines, mid):
                if mid > best[0]:
                    best = (mid, lines)
                lo = mid + 1
            else:
                hi = mid - 1
    return best[1], _font(max(best[0], 6))


@lru_cache(maxsize=64)
def _font(size: int) -> object:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)
