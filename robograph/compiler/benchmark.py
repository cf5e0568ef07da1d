"""The default benchmark: the 84 scenes of `assets/benchmark.yaml` x 7 conditions = 588 episode
files, plus `stats.json`.

Each scene compiles independently from `derive_seed(benchmark_seed, scene_id)`, so scenes can be
compiled in parallel (`jobs`) and cached: a scene's compiled files are stored under
`DIR/.cache/<scene_id>.json` with the hash of everything that determines them (core, compiler and
oracle sources, the object catalog, the scene's family spec and entry); an unchanged scene is
reused instead of recompiled. Episode files are replaced atomically (an interrupted recompile
never leaves a truncated one), stale ones from an earlier benchmark are removed, and `digest.json`
is written last with the digest of the code and assets that made the directory: a reader reuses
the directory only when that digest matches its own (`is_current`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robograph.compiler.assets import Assets, SceneEntry, load_assets
from robograph.compiler.compile import compile_scene, derive_seed
from robograph.compiler.stats import METRICS, summarize
from robograph.events import CONDITIONS
from robograph.fileio import write_text_atomic
from robograph.pool import worker_pool

DIGEST_FILE = "digest.json"


@dataclass(frozen=True)
class SceneResult:
    """What the benchmark keeps from one compiled scene (plain data, cheap to cache and pickle)."""

    scene_id: str
    family: str
    domain: str
    files: dict[str, str]  # condition -> canonical JSON text
    stats: dict[str, int]
    oracle_seconds: float
    attempts: int
    compile_seconds: float = 0.0
    cached: bool = False


def _code_digest() -> str:
    """Hash of the sources that can change compiled bytes: core, compiler and oracle modules."""
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parents[1]
    paths = sorted(pkg.glob("*.py")) + sorted((pkg / "compiler").glob("*.py")) + sorted((pkg / "oracle").glob("*.py"))
    for p in paths:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _scene_digest(code: str, assets: Assets, entry: SceneEntry) -> str:
    """Everything one scene's files depend on: code, catalog, its family spec, its entry, the seed."""
    h = hashlib.sha256(code.encode())
    h.update((assets.root / "objects.yaml").read_bytes())
    h.update(json.dumps(assets.family(entry.family).domains, sort_keys=True, default=str).encode())
    h.update(repr((entry, assets.benchmark_seed)).encode())
    return h.hexdigest()


def _entries(assets: Assets, scenes: Sequence[str] | None) -> list[SceneEntry]:
    return [e for e in assets.scenes if scenes is None or e.id in scenes]


def benchmark_digest(assets: Assets, scenes: Sequence[str] | None = None) -> str:
    """Digest of everything a compiled benchmark directory depends on (per-scene digests of the
    code and assets, and which scenes it holds)."""
    code = _code_digest()
    entries = _entries(assets, scenes)
    return _combined(entries, {e.id: _scene_digest(code, assets, e) for e in entries})


def _combined(entries: Sequence[SceneEntry], digests: Mapping[str, str]) -> str:
    return hashlib.sha256("".join(f"{e.id}={digests[e.id]}\n" for e in entries).encode()).hexdigest()


def stored_digest(out: str | Path) -> str | None:
    """The digest a complete compile wrote into `out` (None when absent or unreadable)."""
    try:
        data = json.loads((Path(out) / DIGEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("digest") if isinstance(data, dict) else None


def is_current(out: str | Path, assets: Assets, scenes: Sequence[str] | None = None) -> bool:
    """True when `out` holds a complete compile made by this code from these assets."""
    return (Path(out) / "episodes").is_dir() and stored_digest(out) == benchmark_digest(assets, scenes)


def compile_entry(assets: Assets, entry: SceneEntry) -> SceneResult:
    scene = compile_scene(
        assets,
        entry.family,
        entry.domain,
        derive_seed(assets.benchmark_seed, entry.id),
        scene_id=entry.id,
        variant=entry.variant,
        subgoals=entry.subgoals,
        oracle_length=entry.oracle_length,
        i6_mode=entry.i6_mode,
    )
    files = {cond: scene.instances[cond].dumps() for cond in CONDITIONS}
    return SceneResult(entry.id, entry.family, entry.domain, files, scene.stats, scene.oracle_seconds,
                       scene.attempts, scene.compile_seconds)


def _worker(args: tuple[str, str]) -> SceneResult:
    root, scene_id = args
    assets = load_assets(root)
    entry = next(e for e in assets.scenes if e.id == scene_id)
    return compile_entry(assets, entry)


def _load_cached(path: Path, digest: str) -> SceneResult | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if data.get("digest") != digest:
        return None
    r = data["result"]
    return SceneResult(r["scene_id"], r["family"], r["domain"], r["files"], r["stats"], r["oracle_seconds"],
                       r["attempts"], r.get("compile_seconds", 0.0), True)


def compile_benchmark(
    out: str | Path,
    *,
    assets: Assets | None = None,
    scenes: Sequence[str] | None = None,
    jobs: int = 1,
    use_cache: bool = True,
    progress: Callable[[SceneResult], None] | None = None,
) -> dict[str, Any]:
    """Write DIR/episodes/<scene>__<condition>.json and DIR/stats.json; return the stats."""
    assets = assets or load_assets()
    out = Path(out)
    entries = _entries(assets, scenes)
    code = _code_digest()
    digests = {e.id: _scene_digest(code, assets, e) for e in entries}
    cache_dir = out / ".cache"
    started = time.perf_counter()
    results: dict[str, SceneResult] = {}
    todo: list[SceneEntry] = []
    for e in entries:
        hit = _load_cached(cache_dir / f"{e.id}.json", digests[e.id]) if use_cache else None
        if hit is not None:
            results[e.id] = hit
            if progress:
                progress(hit)
        else:
            todo.append(e)
    cache_dir.mkdir(parents=True, exist_ok=True)
    (out / DIGEST_FILE).unlink(missing_ok=True)  # the directory is not current until we finish

    def done(res: SceneResult) -> None:
        results[res.scene_id] = res
        payload = {"digest": digests[res.scene_id], "result": res.__dict__}
        write_text_atomic(cache_dir / f"{res.scene_id}.json", json.dumps(payload, sort_keys=True), durable=False)
        if progress:
            progress(res)

    if jobs > 1 and len(todo) > 1:
        with worker_pool(jobs) as pool:
            for res in pool.map(_worker, [(str(assets.root), e.id) for e in todo]):
                done(res)
    else:
        for e in todo:
            done(compile_entry(assets, e))
    episodes = out / "episodes"
    episodes.mkdir(parents=True, exist_ok=True)
    ordered = [results[e.id] for e in entries]
    wanted = {f"{res.scene_id}__{cond}.json": text for res in ordered for cond, text in res.files.items()}
    for name, text in wanted.items():
        write_text_atomic(episodes / name, text, durable=False)
    for stale in episodes.glob("*__*.json"):  # episodes of scenes this benchmark no longer has
        if stale.name not in wanted and stale.stem.rsplit("__", 1)[-1] in CONDITIONS:
            stale.unlink()
    stats = benchmark_stats(ordered)
    write_text_atomic(out / "stats.json", json.dumps(stats, sort_keys=True, indent=1) + "\n")
    write_text_atomic(out / DIGEST_FILE, json.dumps({"digest": _combined(entries, digests), "scenes": len(entries)}) + "\n")
    stats_runtime = {
        "compile_seconds": round(time.perf_counter() - started, 3),
        "oracle_seconds": {r.scene_id: round(r.oracle_seconds, 3) for r in ordered if not r.cached},
        "scene_seconds": {r.scene_id: round(r.compile_seconds, 3) for r in ordered if not r.cached},
        "cached_scenes": sum(r.cached for r in ordered),
    }
    return {**stats, "runtime": stats_runtime}


def benchmark_stats(results: Sequence[SceneResult]) -> dict[str, Any]:
    """stats.json: counts, per-scene mean/std of each metric, per family/domain ranges, and the
    per-scene rows. Deterministic (no timings), so it is byte-identical across runs."""
    rows = [{"scene_id": r.scene_id, "family": r.family, "domain": r.domain, **r.stats} for r in results]
    families: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = f"{row['family']}/{row['domain']}"
        fam = families.setdefault(key, {"scenes": 0, "subgoals": [], "oracle_length": []})
        fam["scenes"] += 1
        fam["subgoals"].append(row["subgoals"])
        fam["oracle_length"].append(row["oracle_length"])
    for fam in families.values():
        fam["subgoals"] = [min(fam["subgoals"]), max(fam["subgoals"])]
        fam["oracle_length"] = [min(fam["oracle_length"]), max(fam["oracle_length"])]
    domains: dict[str, int] = {}
    for row in rows:
        domains[row["domain"]] = domains.get(row["domain"], 0) + 1
    return {
        "scenes": len(rows),
        "episodes": len(rows) * len(CONDITIONS),
        "domains": domains,
        "per_scene": {m: {k: v for k, v in s.items() if k in ("mean", "std", "min", "max")} for m, s in summarize(rows).items()},
        "totals": {m: sum(int(r[m]) for r in rows) for m in METRICS},
        "families": families,
        "scenes_table": rows,
    }
