"""The indoor baseline episodes of the benchmark, as the MuJoCo backend's bench and tests use them.

Episodes come from a compiled benchmark directory (`robograph compile --benchmark --out DIR`
writes DIR/episodes/<scene>__<condition>.json); scenes missing there are compiled in-process
with the compiler's Python API and written to the same layout, so a second run reuses them (a scene
the compiler rejects leaves <scene>__baseline.failed with the reason, and is not retried).
Only the kitchen domain (indoor) is physical here: FoodPack-I*, Fridge-I*, Buffet-I*.

Held-out scenes (`load_heldout`) are compiled from seeds the benchmark does not use: the compiler
derives every attempt's seed from (base seed, scene id, attempt); the benchmark uses
assets/benchmark.yaml's seed with its own scene ids, held-out scene k uses seed S + k (S must not
be the benchmark seed) with the compiler's default id `<Prefix>-Is<seed>`, families in turn, the
family's own target ranges (L_o, N_g), and is cached in DIR/heldout/ like the benchmark episodes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from robograph.actions import Action
from robograph.errors import RoboGraphError
from robograph.fileio import write_text_atomic
from robograph.instance import TaskInstance, load_instance

DOMAIN = "indoor"


@dataclass
class IndoorEpisodes:
    instances: list[TaskInstance] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # scene id -> why it could not be compiled


def indoor_scene_ids() -> list[str]:
    """Indoor scene ids of assets/benchmark.yaml, interleaved across families (so the first N
    of them cover every family)."""
    from robograph.compiler.assets import load_assets

    by_family: dict[str, list[str]] = {}
    for s in load_assets().scenes:
        if s.domain == DOMAIN:
            by_family.setdefault(s.family, []).append(s.id)
    out: list[str] = []
    columns = [by_family[f] for f in sorted(by_family)]
    for k in range(max((len(c) for c in columns), default=0)):
        out += [c[k] for c in columns if k < len(c)]
    return out


def episode_path(directory: str | Path, scene_id: str, condition: str = "baseline") -> Path:
    return Path(directory) / "episodes" / f"{scene_id}__{condition}.json"


def load_indoor(directory: str | Path, scene_ids: list[str] | None = None, *,
                compile_missing: bool = True) -> IndoorEpisodes:
    """Baseline instances of the indoor scenes (all, or `scene_ids`), read from `directory`,
    compiling and writing the missing ones when `compile_missing`."""
    ids = scene_ids if scene_ids is not None else indoor_scene_ids()
    out = IndoorEpisodes()
    for sid in ids:
        _load_or_compile(out, sid, episode_path(directory, sid), lambda sid=sid: compile_baseline(sid),
                         compile_missing)
    return out


def _load_or_compile(out: IndoorEpisodes, sid: str, path: Path, compile_one: Callable[[], TaskInstance],
                     compile_missing: bool) -> None:
    """Read a cached baseline, or record why there is none (a `.failed` marker keeps a scene the
    compiler rejected from being retried every run), or compile it and cache it."""
    if path.is_file():
        out.instances.append(load_instance(path))
        return
    marker = path.with_suffix(".failed")
    if marker.is_file():
        out.failed[sid] = marker.read_text(encoding="utf-8").strip()
        return
    if not compile_missing:
        out.failed[sid] = f"not compiled ({path} missing)"
        return
    try:
        inst = compile_one()
    except RoboGraphError as exc:
        out.failed[sid] = str(exc)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(str(exc) + "\n", encoding="utf-8")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(inst.to_json(), sort_keys=True))  # a killed compile leaves no half file
    out.instances.append(inst)


def load_heldout(directory: str | Path, count: int, seed: int, *, compile_missing: bool = True,
                 domain: str = DOMAIN) -> IndoorEpisodes:
    """`count` baselines of `domain` (indoor by default; the SAPIEN bench asks for tabletop)
    compiled from seeds seed, seed+1, ... (families in turn); a seed the compiler rejects is
    recorded in `failed` and the next one is tried (at most 3 x count)."""
    from robograph.compiler.assets import load_assets
    from robograph.compiler.compile import compile_scene

    assets = load_assets()
    if seed == assets.benchmark_seed:
        raise RoboGraphError(f"--seed {seed} is the benchmark's own seed; pick any other for held-out scenes")
    families = sorted({s.family for s in assets.scenes if s.domain == domain})
    out = IndoorEpisodes()
    for k in range(3 * count):
        if len(out.instances) >= count:
            break
        family, scene_seed = families[k % len(families)], seed + k
        sid = f"{assets.family(family).scene_prefix}-{domain[0].upper()}s{scene_seed}"
        path = Path(directory) / "heldout" / f"{sid}__baseline.json"
        _load_or_compile(out, sid, path, lambda f=family, ss=scene_seed, sid=sid: compile_scene(
            assets, f, domain, ss, scene_id=sid).baseline, compile_missing)
    return out


def compile_baseline(scene_id: str) -> TaskInstance:
    """Compile one benchmark scene in-process, exactly as `robograph compile --benchmark` does
    (`compile_entry`: the scene's own seed derived from the benchmark seed and its id). This
    once called the compiler with the undivided benchmark seed, so a bench or test directory
    compiled here held other scenes than the benchmark's files of the same ids."""
    from robograph.compiler.assets import load_assets
    from robograph.compiler.benchmark import compile_entry

    assets = load_assets()
    entry = next((s for s in assets.scenes if s.id == scene_id), None)
    if entry is None:
        raise RoboGraphError(f"no benchmark scene {scene_id!r} in assets/benchmark.yaml")
    return TaskInstance.from_json(json.loads(compile_entry(assets, entry).files["baseline"]))


def oracle_actions(inst: TaskInstance) -> list[Action]:
    """The instance's oracle plan (`metadata.oracle_plan`, else solved), ending in `stop`."""
    plan = inst.metadata.get("oracle_plan")
    if plan:
        actions = [Action.parse(a) if isinstance(a, str) else Action(a["name"], tuple(a["node_ids"])) for a in plan]
    else:
        from robograph.oracle import solve

        actions = list(solve(inst.graph, inst.goal, inst.actions).actions)
    if not actions or actions[-1].name != "stop":
        actions.append(Action("stop"))  # success is decided by stop
    return actions
