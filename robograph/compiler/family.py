"""Typed view of a task-family YAML (`assets/families/*.yaml`; schema in docs/benchmark.md).

A family names, per domain (tabletop / indoor), a fixed set of fixtures (furniture and containers
with their initial relations), goal templates (which categories go where), where movable items may
start, assemblies, pressables, occluder and distractor categories, staging surfaces and decoy
containers for the interventions, and recipe ranges the compiler samples from. A domain may define
layout variants (Toy-A / Toy-B) as shallow overrides.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robograph.compiler.errors import AssetError

RECIPE_KEYS = ("assemblies", "moving", "pressables", "occluders", "distractors", "preplaced")
DOMAINS = ("tabletop", "indoor")


@dataclass(frozen=True)
class Fixture:
    """A node every scene of the layout has. Exactly one of on/inside/room (or none: a root).
    In YAML `on` is spelled `support` (YAML 1.1 reads a bare `on` key as the boolean true)."""

    id: str
    category: str
    name: str | None = None
    on: str | None = None
    inside: str | None = None
    room: str | None = None
    closed_goal: bool = False
    open: bool = False
    goal: tuple[str, str] | None = None  # (relation, target): the fixture itself must be placed
    keep: bool = False  # its G0 placement is a goal fact that must stay true (or be restored)


@dataclass(frozen=True)
class Destination:
    target: str
    relation: str
    categories: tuple[str, ...]


@dataclass(frozen=True)
class Layout:
    """One domain (and variant) of a family: everything the recipe sampler needs."""

    family: str
    domain: str
    variant: str | None
    subgoals: int
    oracle_length: tuple[int, int]
    rooms: tuple[tuple[str, str], ...]
    adjacent: tuple[tuple[str, str], ...]
    start_room: str | None
    fixtures: tuple[Fixture, ...]
    occlusion_rules: tuple[tuple[str, str, tuple[tuple[str, Any], ...]], ...]
    destinations: tuple[Destination, ...]
    sources: tuple[str, ...]
    preplaced: tuple[str, ...]
    assemblies: tuple[tuple[str, tuple[str, ...]], ...]
    pressables: tuple[tuple[str, str], ...]
    occluders: tuple[str, ...]
    distractors: tuple[str, ...]
    staging: tuple[str, ...]
    decoys: tuple[str, ...]
    recipe: Mapping[str, tuple[int, int]]
    i6_categories: tuple[str, ...]
    capacity_container: str | None

    def fixture(self, fid: str) -> Fixture:
        for f in self.fixtures:
            if f.id == fid:
                return f
        raise AssetError(f"{self.family}/{self.domain}: unknown fixture {fid!r}")

    def destination(self, target: str) -> Destination:
        for d in self.destinations:
            if d.target == target:
                return d
        raise AssetError(f"{self.family}/{self.domain}: {target!r} is not a destination")

    @property
    def key(self) -> str:
        return f"{self.family}/{self.domain}"


@dataclass(frozen=True)
class FamilySpec:
    family: str
    name: str
    scene_prefix: str
    task: str
    success: str
    randomized: tuple[str, ...]
    domains: Mapping[str, Mapping[str, Any]]

    def layout(self, domain: str, variant: str | None = None) -> Layout:
        if domain not in self.domains:
            raise AssetError(f"family {self.family!r} has no {domain!r} domain; it has: {', '.join(self.domains)}")
        raw = dict(self.domains[domain])
        variants = raw.pop("variants", None) or {}
        if variant is not None and variant in variants:
            raw.update(variants[variant])
        elif variant is not None and variant != "A":
            raise AssetError(f"{self.family}/{domain} has no variant {variant!r}; valid: A, {', '.join(variants)}")
        return _layout(self.family, domain, variant, raw)

    def check_categories(self, known: Collection[str], source: Path) -> None:
        """Every category a layout can instantiate must exist in the catalog."""
        for domain, raw in self.domains.items():
            for variant in (None, *((raw.get("variants") or {}).keys())):
                lay = self.layout(domain, variant)
                cats = [f.category for f in lay.fixtures] + [c for _, c in lay.rooms]
                cats += [c for d in lay.destinations for c in d.categories]
                cats += [a for a, _ in lay.assemblies] + [p for p, _ in lay.pressables]
                cats += [*lay.occluders, *lay.distractors, *lay.i6_categories]
                missing = sorted({c for c in cats if c not in known})
                if missing:
                    raise AssetError(f"{source}: {domain}: categories not in objects.yaml: {missing}")
                ids = {f.id for f in lay.fixtures} | {r for r, _ in lay.rooms}
                refs = [*lay.sources, *lay.preplaced, *lay.staging, *lay.decoys]
                refs += [d.target for d in lay.destinations] + [t for _, ts in lay.assemblies for t in ts]
                refs += [on for _, on in lay.pressables]
                bad = sorted({r for r in refs if r not in ids})
                if bad:
                    raise AssetError(f"{source}: {domain}: references to unknown fixtures {bad}")


def _relation(v: Any, where: str) -> str:
    if v not in ("ON", "INSIDE"):
        raise AssetError(f"{where}: relation must be \"ON\" or INSIDE, got {v!r} (quote ON: YAML reads a bare ON as true)")
    return str(v)


def _pair(v: Any) -> tuple[int, int]:
    if isinstance(v, list | tuple):
        return int(v[0]), int(v[-1])
    return int(v), int(v)


def _layout(family: str, domain: str, variant: str | None, raw: Mapping[str, Any]) -> Layout:
    fixtures = []
    for f in raw.get("fixtures", ()):
        goal = f.get("goal")
        fixtures.append(
            Fixture(
                id=str(f["id"]),
                category=str(f["category"]),
                name=f.get("name"),
                on=f.get("support"),
                inside=f.get("inside"),
                room=f.get("room"),
                closed_goal=bool(f.get("closed_goal", False)),
                open=bool(f.get("open", False)),
                keep=bool(f.get("keep", False)),
                goal=(_relation(goal["relation"], f"{family}: {f['id']}"), str(goal["target"])) if goal else None,
            )
        )
    recipe = {k: _pair(raw.get("recipe", {}).get(k, 0)) for k in RECIPE_KEYS}
    i6 = raw.get("i6") or {}
    return Layout(
        family=family,
        domain=domain,
        variant=variant,
        subgoals=int(raw["subgoals"]),
        oracle_length=_pair(raw["oracle_length"]),
        rooms=tuple((str(r["id"]), str(r["category"])) for r in raw.get("rooms", ())),
        adjacent=tuple((str(a), str(b)) for a, b in raw.get("adjacent", ())),
        start_room=raw.get("start_room"),
        fixtures=tuple(fixtures),
        occlusion_rules=tuple(
            (str(r["blocker"]), str(r["target"]), tuple(sorted((r.get("when") or {}).items())))
            for r in raw.get("occlusion_rules", ())
        ),
        destinations=tuple(
            Destination(str(d["target"]), _relation(d["relation"], f"{family}: {d['target']}"), tuple(str(c) for c in d["categories"]))
            for d in raw.get("destinations", ())
        ),
        sources=tuple(str(s) for s in raw.get("sources", ())),
        preplaced=tuple(str(s) for s in raw.get("preplaced", ())),
        assemblies=tuple(
            (str(a["category"]), tuple(str(t) for t in a["destinations"])) for a in raw.get("assemblies", ())
        ),
        pressables=tuple((str(p["category"]), str(p["support"])) for p in raw.get("pressables", ())),
        occluders=tuple(str(c) for c in raw.get("occluders", ())),
        distractors=tuple(str(c) for c in raw.get("distractors", ())),
        staging=tuple(str(s) for s in raw.get("staging", ())),
        decoys=tuple(str(s) for s in raw.get("decoys", ())),
        recipe=recipe,
        i6_categories=tuple(str(c) for c in i6.get("categories", ())),
        capacity_container=i6.get("capacity_container"),
    )


def parse_family(data: Any, source: Path) -> FamilySpec:
    if not isinstance(data, Mapping):
        raise AssetError(f"{source}: expected a mapping with family, name, domains")
    for key in ("family", "name", "scene_prefix", "task", "success", "domains"):
        if key not in data:
            raise AssetError(f"{source}: missing field {key!r}")
    domains = dict(data["domains"])
    for d in domains:
        if d not in DOMAINS:
            raise AssetError(f"{source}: unknown domain {d!r}; valid: {', '.join(DOMAINS)}")
    spec = FamilySpec(
        family=str(data["family"]),
        name=str(data["name"]),
        scene_prefix=str(data["scene_prefix"]),
        task=str(data["task"]),
        success=str(data["success"]),
        randomized=tuple(str(r) for r in data.get("randomized", ())),
        domains=domains,
    )
    for d in domains:
        spec.layout(d)
    return spec
