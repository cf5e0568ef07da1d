"""The benches' in-process compile gives the benchmark's own scenes: a bench directory filled by
`load_indoor` holds the same instances as `robograph compile --benchmark` writes for those ids
(the scene seed derived from the benchmark seed and the id), so figures measured on either are
figures of the same episodes."""

from __future__ import annotations

import json

import pytest

from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import compile_entry
from robograph.instance import TaskInstance
from robograph_backends.mujoco_kitchen.episodes import compile_baseline, load_indoor


@pytest.mark.parametrize("scene_id", ["Buffet-T2", "Fridge-I1"])
def test_in_process_compile_is_the_benchmark_scene(scene_id, tmp_path):
    assets = load_assets()
    entry = next(e for e in assets.scenes if e.id == scene_id)
    published = TaskInstance.from_json(json.loads(compile_entry(assets, entry).files["baseline"]))
    assert compile_baseline(scene_id).graph == published.graph
    cached = load_indoor(tmp_path, [scene_id]).instances[0]
    assert cached.graph == published.graph
    assert cached.dumps() == published.dumps()  # goal, oracle plan, interventions too
