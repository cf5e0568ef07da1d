"""Locating and loading the compiler's data: `assets/objects.yaml` (object catalog),
`assets/families/*.yaml` (task families) and `assets/benchmark.yaml` (the 84 scenes).

Assets live at the repository root, next to the `robograph` package, so they can be edited
without touching code; a wheel ships a copy (see `robograph.resources`); `--assets DIR` (or
`load_assets(root)`) points elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from robograph.compiler.errors import AssetError
from robograph.compiler.family import FamilySpec, parse_family
from robograph.graph import AFFORDANCES, NODE_KINDS
from robograph.resources import assets_dir

GEOMETRIES = frozenset({"box", "cylinder", "sphere", "capsule"})
ARTICULATIONS = frozenset({"none", "drawer", "hinged_door", "lid", "book_cover"})


@dataclass(frozen=True)
class ObjectType:
    """One catalog category. `size` is the bounding box [x, y, z] in metres; `rgba` in [0, 1]."""

    category: str
    kind: str
    size: tuple[float, float, float]
    rgba: tuple[float, float, float, float]
    geometry: str
    articulation: str
    affordances: frozenset[str]
    capacity: int | None = None
    variants: tuple[tuple[str, tuple[float, ...]], ...] = ()
    parts: tuple[str, ...] = ()

    def has(self, affordance: str) -> bool:
        return affordance in self.affordances

    @property
    def display_name(self) -> str:
        return self.category.replace("_", " ")


@dataclass(frozen=True)
class SceneEntry:
    """One benchmark scene: id and Table 8 targets."""

    id: str
    family: str
    domain: str
    oracle_length: int
    subgoals: int
    variant: str | None = None
    i6_mode: str = "inherit"


@dataclass(frozen=True)
class Assets:
    root: Path
    objects: Mapping[str, ObjectType]
    families: Mapping[str, FamilySpec]
    benchmark_seed: int = 0
    scenes: tuple[SceneEntry, ...] = field(default=())

    def object(self, category: str) -> ObjectType:
        try:
            return self.objects[category]
        except KeyError:
            raise AssetError(f"unknown object category {category!r} (not in {self.root / 'objects.yaml'})") from None

    def family(self, name: str) -> FamilySpec:
        try:
            return self.families[name]
        except KeyError:
            raise AssetError(f"unknown family {name!r}; valid: {', '.join(sorted(self.families))}") from None


def default_assets_dir() -> Path:
    """The installed copy of `assets/`, or the repository's own in a checkout."""
    return assets_dir()


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AssetError(f"cannot read {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise AssetError(f"invalid YAML in {path}: {exc}") from None


def _object_type(category: str, data: Mapping[str, Any], source: Path) -> ObjectType:
    where = f"{source}: {category}"
    affs = frozenset(str(a) for a in data.get("affordances", ()))
    bad = affs - AFFORDANCES
    if bad:
        raise AssetError(f"{where}: unknown affordance(s) {sorted(bad)}; valid: {sorted(AFFORDANCES)}")
    kind = str(data.get("kind", "object"))
    if kind not in NODE_KINDS:
        raise AssetError(f"{where}: unknown kind {kind!r}; valid: {sorted(NODE_KINDS)}")
    geometry = str(data.get("geometry", "box"))
    articulation = str(data.get("articulation", "none"))
    if geometry not in GEOMETRIES or articulation not in ARTICULATIONS:
        raise AssetError(f"{where}: geometry must be one of {sorted(GEOMETRIES)}, articulation one of {sorted(ARTICULATIONS)}")
    size = tuple(float(v) for v in data.get("size", ()))
    rgba = tuple(float(v) for v in data.get("rgba", ()))
    if len(size) != 3 or any(v <= 0 for v in size) or len(rgba) != 4 or any(not 0 <= v <= 1 for v in rgba):
        raise AssetError(f"{where}: size must be 3 positive metres and rgba 4 values in [0, 1]")
    variants = tuple((str(v["name"]), tuple(float(c) for c in v["rgba"])) for v in data.get("variants", ()))
    cap = data.get("capacity")
    return ObjectType(
        category=category,
        kind=kind,
        size=(size[0], size[1], size[2]),
        rgba=(rgba[0], rgba[1], rgba[2], rgba[3]),
        geometry=geometry,
        articulation=articulation,
        affordances=affs,
        capacity=None if cap is None else int(cap),
        variants=variants,
        parts=tuple(str(p) for p in data.get("parts", ())),
    )


def load_objects(path: Path) -> dict[str, ObjectType]:
    data = _read_yaml(path)
    if not isinstance(data, Mapping):
        raise AssetError(f"{path}: expected sections rooms/furniture/objects")
    out: dict[str, ObjectType] = {}
    for section in data.values():
        for category, entry in (section or {}).items():
            if category in out:
                raise AssetError(f"{path}: category {category!r} defined twice")
            out[str(category)] = _object_type(str(category), entry, path)
    for obj in out.values():
        for part in obj.parts:
            if part not in out:
                raise AssetError(f"{path}: {obj.category} names unknown part {part!r}")
    return out


def load_assets(root: str | Path | None = None) -> Assets:
    """Load the catalog, every family and the benchmark list, cross-checking category names."""
    base = Path(root) if root is not None else default_assets_dir()
    if not (base / "objects.yaml").is_file():
        raise AssetError(f"no objects.yaml under {base}; pass --assets DIR pointing at the repository's assets/")
    objects = load_objects(base / "objects.yaml")
    families: dict[str, FamilySpec] = {}
    for path in sorted((base / "families").glob("*.yaml")):
        spec = parse_family(_read_yaml(path), path)
        spec.check_categories(objects.keys(), path)
        families[spec.family] = spec
    bench = base / "benchmark.yaml"
    seed, scenes = 0, ()
    if bench.is_file():
        data = _read_yaml(bench) or {}
        seed = int(data.get("seed", 0))
        scenes = tuple(
            SceneEntry(
                id=str(s["id"]),
                family=str(s["family"]),
                domain=str(s["domain"]),
                oracle_length=int(s["oracle_length"]),
                subgoals=int(s["subgoals"]),
                variant=None if s.get("variant") is None else str(s["variant"]),
                i6_mode=str(s.get("i6_mode", "inherit")),
            )
            for s in data.get("scenes", ())
        )
        for s in scenes:
            if s.family not in families:
                raise AssetError(f"{bench}: scene {s.id} names unknown family {s.family!r}")
            families[s.family].layout(s.domain, s.variant)
    return Assets(base, objects, families, seed, scenes)
