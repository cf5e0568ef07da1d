"""Benchmark scenes compiled in-process, once per test process: the baseline graph of a scene id
(the SAPIEN tests build worlds from them; compiling is the slow part, so it is cached)."""

from __future__ import annotations

import json
from functools import lru_cache

from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import compile_entry
from robograph.graph import SceneGraph
from robograph.instance import TaskInstance


@lru_cache(maxsize=16)
def baseline_instance(scene_id: str) -> TaskInstance:
    assets = load_assets()
    entry = next(e for e in assets.scenes if e.id == scene_id)
    return TaskInstance.from_json(json.loads(compile_entry(assets, entry).files["baseline"]))


def baseline_graph(scene_id: str) -> SceneGraph:
    return baseline_instance(scene_id).graph


@lru_cache(maxsize=1)
def tabletop_baselines() -> dict[str, SceneGraph]:
    """Scene id -> baseline graph of all 57 tabletop scenes, as `robograph compile --benchmark`
    writes them (compiled once per test process: ~40 s on two loaded cores)."""
    assets = load_assets()
    return {e.id: TaskInstance.from_json(json.loads(compile_entry(assets, e).files["baseline"])).graph
            for e in assets.scenes if e.domain == "tabletop"}
