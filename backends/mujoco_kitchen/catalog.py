"""Physical appearance of a scene-graph node: size, colour, primitive and articulation.

Read from `assets/objects.yaml` (one entry per category; a missing catalog is an error); for
categories it does not list, from heuristics on the category name and the node's affordances, so
any graph builds. Pure Python: no simulator import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from robograph.graph import (
    CONTAINER,
    FURNITURE,
    GRABBABLE,
    OPENABLE,
    PRESSABLE,
    SURFACE,
    Node,
)
from robograph.resources import AssetsNotFound, catalog_path
from robograph_backends.appearance import AppearanceError
from robograph_backends.mujoco_kitchen.tuning import MAX_GRASP_WIDTH

ARTICULATIONS = ("none", "drawer", "hinged_door", "lid", "book_cover")
GEOMETRIES = ("box", "cylinder", "sphere", "capsule")


@dataclass(frozen=True, slots=True)
class Appearance:
    """size = full extents [x, y, z] in metres; rgba in [0, 1]."""

    size: tuple[float, float, float]
    rgba: tuple[float, float, float, float]
    geometry: str = "box"
    articulation: str = "none"


def _read_only(value: Any) -> Any:
    """Deep read-only copy (mappings -> MappingProxyType, lists -> tuples): the cached catalog is
    shared by every caller, so none of them may change it for the others."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _read_only(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_read_only(v) for v in value)
    return value


@lru_cache(maxsize=4)
def load_catalog(path: str | None = None) -> Mapping[str, Mapping[str, Any]]:
    """Flatten the yaml's sections (rooms/furniture/objects) into category -> entry (read-only).
    Default: the shipped catalog (robograph.resources); a missing file raises AssetsNotFound."""
    p = catalog_path() if path is None else Path(path)
    if not p.is_file():
        raise AssetsNotFound(f"no object catalog at {p}")
    data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    out: dict[str, Mapping[str, Any]] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and all(isinstance(v, Mapping) for v in value.values()):
            out.update({str(k): v for k, v in value.items()})
        elif isinstance(value, Mapping):
            out[str(key)] = value
    return _read_only(out)


_HEURISTIC_FURNITURE: tuple[tuple[str, tuple[float, float, float], str], ...] = (
    ("fridge", (0.70, 0.70, 1.80), "hinged_door"),
    ("refrigerator", (0.70, 0.70, 1.80), "hinged_door"),
    ("drawer", (0.50, 0.45, 0.18), "drawer"),
    ("cabinet", (0.70, 0.50, 0.90), "hinged_door"),
    ("cupboard", (0.70, 0.50, 0.90), "hinged_door"),
    ("shelf", (0.80, 0.35, 1.00), "none"),
    ("counter", (1.60, 0.60, 0.90), "none"),
    ("table", (1.20, 0.70, 0.75), "none"),
)


def _heuristic(node: Node) -> Appearance:
    cat = node.category.lower()
    if node.kind == FURNITURE:
        for word, size, art in _HEURISTIC_FURNITURE:
            if word in cat:
                return Appearance(size, (0.62, 0.48, 0.34, 1.0), "box", art if node.has(OPENABLE) else "none")
        if node.has(OPENABLE):
            return Appearance((0.60, 0.45, 0.90), (0.62, 0.48, 0.34, 1.0), "box", "hinged_door")
        return Appearance((1.20, 0.60, 0.85), (0.62, 0.48, 0.34, 1.0), "box", "none")
    if node.has(CONTAINER) or node.has(SURFACE):
        art = "lid" if node.has(OPENABLE) else "none"
        height = 0.03 if node.has(SURFACE) and not node.has(CONTAINER) else 0.12
        return Appearance((0.30, 0.22, height), (0.35, 0.55, 0.75, 1.0), "box", art)
    if node.has(PRESSABLE):
        return Appearance((0.14, 0.10, 0.08), (0.8, 0.7, 0.2, 1.0), "box", "none")
    # deterministic colour from the category name
    h = sum(ord(c) * (i + 1) for i, c in enumerate(cat)) % 997 / 997.0
    rgba = (0.3 + 0.6 * h, 0.3 + 0.6 * ((h * 7) % 1.0), 0.3 + 0.6 * ((h * 13) % 1.0), 1.0)
    return Appearance((0.06, 0.06, 0.10), rgba, "box", "none")


def _entry_appearance(entry: Mapping[str, Any], node: Node) -> Appearance:
    size = tuple(float(v) for v in entry.get("size", (0.06, 0.06, 0.1)))
    rgba = tuple(float(v) for v in entry.get("rgba", (0.7, 0.7, 0.7, 1.0)))
    geometry = str(entry.get("geometry", "box"))
    articulation = str(entry.get("articulation", "none"))
    if geometry not in GEOMETRIES:
        geometry = "box"
    if articulation not in ARTICULATIONS:
        articulation = "none"
    if not node.has(OPENABLE):
        articulation = "none"
    return Appearance((size[0], size[1], size[2]), (rgba[0], rgba[1], rgba[2], rgba[3]), geometry, articulation)


def _prop_numbers(node: Node, key: str, count: int) -> tuple[float, ...]:
    """`count` numbers from node.props[key]; anything else is the instance author's typo, named."""
    value = (node.props or {})[key]
    try:
        numbers = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        numbers = ()
    if len(numbers) != count:
        raise AppearanceError(f"node {node.id}: props {key} must be {count} numbers, got {value!r}")
    return numbers


def appearance(node: Node, catalog: Mapping[str, Mapping[str, Any]] | None = None) -> Appearance:
    """The node's physical appearance; node.props may override `size`/`rgba` per node."""
    cat = load_catalog() if catalog is None else catalog
    entry = cat.get(node.category)
    app = _entry_appearance(entry, node) if entry is not None else _heuristic(node)
    props = node.props or {}
    if "size" in props:  # a hand-written instance may size one node unlike its category
        z = _prop_numbers(node, "size", 3)
        if min(z) <= 0.0:
            raise AppearanceError(f"node {node.id}: props size must be positive metres, got {props['size']!r}")
        app = Appearance((z[0], z[1], z[2]), app.rgba, app.geometry, app.articulation)
    if "rgba" in props:
        r = _prop_numbers(node, "rgba", 4)
        if not all(0.0 <= v <= 1.0 for v in r):
            raise AppearanceError(f"node {node.id}: props rgba must lie in [0, 1], got {props['rgba']!r}")
        app = Appearance(app.size, (r[0], r[1], r[2], r[3]), app.geometry, app.articulation)
    if node.has(OPENABLE) and app.articulation == "none":
        app = Appearance(app.size, app.rgba, app.geometry,
                         "drawer" if "drawer" in node.category else
                         ("hinged_door" if node.kind == FURNITURE else "lid"))
    return _graspable(node, app)


def _graspable(node: Node, app: Appearance) -> Appearance:
    """Shrink solid graspable objects that the gripper could not close around, and keep thin
    objects thick enough to be picked from a surface (2 cm)."""
    if not node.has(GRABBABLE) or node.has(CONTAINER) or node.has(SURFACE):
        return app
    x, y, z = app.size
    if app.geometry in ("cylinder", "sphere"):
        d = min(max(x, y), MAX_GRASP_WIDTH)
        x = y = d
        if app.geometry == "sphere":
            z = d
    elif min(x, y) > MAX_GRASP_WIDTH:
        if x <= y:
            x = MAX_GRASP_WIDTH
        else:
            y = MAX_GRASP_WIDTH
    z = max(z, 0.02)
    x, y = max(x, 0.02), max(y, 0.02)
    geometry = "box" if app.geometry == "capsule" else app.geometry
    return Appearance((x, y, z), app.rgba, geometry, app.articulation)
