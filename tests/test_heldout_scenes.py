"""Held-out indoor scenes for scripts/bench_mujoco.py: compiled from seeds the benchmark does not
use, with ids and scene seeds disjoint from the benchmark's, cached and re-read identically."""

from __future__ import annotations

import pytest

from robograph.compiler.assets import load_assets
from robograph.errors import RoboGraphError
from robograph_backends.mujoco_kitchen.episodes import indoor_scene_ids, load_heldout


def test_heldout_scenes_are_new_indoor_scenes_and_cached(tmp_path):
    first = load_heldout(tmp_path, 3, seed=5)
    ids = [i.id for i in first.instances]
    assert ids == ["Buffet-Is5__baseline", "FoodPack-Is6__baseline", "Fridge-Is7__baseline"]
    assert not first.failed
    assert {i.domain for i in first.instances} == {"indoor"}
    bench_ids = set(indoor_scene_ids())
    assert not {i.metadata["scene_id"] for i in first.instances} & bench_ids
    again = load_heldout(tmp_path, 3, seed=5, compile_missing=False)
    assert [i.graph for i in again.instances] == [i.graph for i in first.instances]


def test_the_benchmark_seed_is_refused(tmp_path):
    with pytest.raises(RoboGraphError, match="benchmark's own seed"):
        load_heldout(tmp_path, 1, seed=load_assets().benchmark_seed)
