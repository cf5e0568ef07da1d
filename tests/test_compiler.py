"""Compiler and benchmark tests: asset integrity, Table 3/8 structure, verified scenes, determinism.

Compiling all 84 scenes takes minutes, so the fast tests compile a few cheap scenes end to end
and check one scene per family/domain for the N_g / L_o targets; the full-benchmark statistics
test is marked slow."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import compile_benchmark
from robograph.compiler.compile import compile_scene, derive_seed
from robograph.compiler.stats import PAPER, occluded_nodes
from robograph.events import CONDITIONS, INTERVENTIONS
from robograph.instance import load_instance, validate_data
from robograph.oracle.rollout import oracle_rollout

TABLE8_IDS = (
    [f"Cosmetics-{i}" for i in (1, 4, 9, 10, 11, 12, 13, 14, 15, 16)]
    + [f"Desk-{i}" for i in (1, 2, 4, 7, 8, 11, 12, 13, 14, 15)]
    + [f"Dining-{i}" for i in range(3, 13)]
    + [f"Fridge-T{i}" for i in range(1, 11)]
    + [f"Buffet-T{i}" for i in range(1, 8)]
    + [f"Toy-A{i}" for i in range(1, 6)] + [f"Toy-B{i}" for i in range(1, 6)]
    + [f"FoodPack-I{i}" for i in range(1, 11)]
    + [f"Fridge-I{i}" for i in range(1, 11)]
    + [f"Buffet-I{i}" for i in range(1, 8)]
)
TABLE3 = {
    "buffet/tabletop": 7, "buffet/indoor": 7, "cosmetics/tabletop": 10, "desk/tabletop": 10,
    "dining/tabletop": 10, "food_packing/indoor": 10, "fridge/tabletop": 10, "fridge/indoor": 10,
    "toy/tabletop": 10,
}
# Table 8: N_g per family/domain and the L_o range
TABLE8_RANGES = {
    "cosmetics/tabletop": (20, 28, 30), "desk/tabletop": (21, 20, 25), "toy/tabletop": (16, 25, 31),
    "dining/tabletop": (9, 18, 19), "fridge/tabletop": (14, 18, 21), "buffet/tabletop": (10, 10, 15),
    "food_packing/indoor": (12, 21, 24), "fridge/indoor": (14, 21, 24), "buffet/indoor": (10, 12, 18),
}
FAST_SCENES = ("Dining-6", "Fridge-T4")


@pytest.fixture(scope="module")
def assets():
    return load_assets()


@pytest.fixture(scope="module")
def small_bench(tmp_path_factory, assets):
    out = tmp_path_factory.mktemp("bench")
    stats = compile_benchmark(out, assets=assets, scenes=FAST_SCENES, jobs=1, use_cache=False)
    return out, stats


def test_benchmark_list_matches_tables_3_and_8(assets):
    ids = [s.id for s in assets.scenes]
    assert ids == TABLE8_IDS or sorted(ids) == sorted(TABLE8_IDS)
    assert len(ids) == len(set(ids)) == 84
    counts = Counter(f"{s.family}/{s.domain}" for s in assets.scenes)
    assert counts == TABLE3
    assert Counter(s.domain for s in assets.scenes) == {"tabletop": 57, "indoor": 27}
    for s in assets.scenes:
        ng, lo, hi = TABLE8_RANGES[f"{s.family}/{s.domain}"]
        assert s.subgoals == ng and lo <= s.oracle_length <= hi, s
    assert sum(s.subgoals for s in assets.scenes) == 1200  # Appendix A: 1200 goal predicates
    assert Counter(s.i6_mode for s in assets.scenes) == {"inherit": 74, "capacity": 10}


def test_catalog_has_the_objects_realistic_scenes_need(assets):
    objs = assets.objects
    for cat in ("pen", "eraser", "pencil_case", "book", "bookshelf_slot", "trash_bin", "drawer_tier",
                "lipstick", "concealer", "primer_bottle", "storage_bag", "serving_tray", "ketchup",
                "fridge_shelf", "fridge", "lunch_box", "toy_bin", "dinner_plate", "fork"):
        assert cat in objs, cat
    lip = objs["lipstick"]
    assert "ASSEMBLY" in lip.affordances and len(lip.parts) == 2
    assert all("PART" in objs[p].affordances for p in lip.parts)
    assert objs["book"].articulation == "book_cover" and "OPENABLE" in objs["book"].affordances
    for o in objs.values():  # physically plausible sizes for the physical builders
        assert all(0.002 <= v <= 5.0 for v in o.size), o.category


def test_every_family_spec_is_complete(assets):
    assert set(assets.families) == {"buffet", "cosmetics", "desk", "dining", "food_packing", "fridge", "toy"}
    for fam in assets.families.values():
        assert fam.success and fam.randomized and fam.task
        for domain in fam.domains:
            lay = fam.layout(domain)
            assert lay.destinations and lay.sources and lay.staging
            if domain == "indoor":
                assert lay.start_room and lay.adjacent


def test_small_benchmark_files_counts_and_metadata(small_bench):
    out, stats = small_bench
    files = sorted((out / "episodes").glob("*.json"))
    assert len(files) == len(FAST_SCENES) * 7
    assert {f.name for f in files} == {f"{s}__{c}.json" for s in FAST_SCENES for c in CONDITIONS}
    assert stats["scenes"] == len(FAST_SCENES) and stats["episodes"] == 7 * len(FAST_SCENES)
    for m in PAPER:
        assert {"mean", "std"} <= set(stats["per_scene"][m])
    on_disk = json.loads((out / "stats.json").read_text())
    assert on_disk["families"]["dining/tabletop"]["subgoals"] == [9, 9]
    for f in files:
        data = json.loads(f.read_text())
        assert validate_data(data) == []
        meta = data["metadata"]
        for key in ("scene_id", "family", "domain", "condition", "seed", "oracle_length", "oracle_plan",
                    "action_distance", "tsh"):
            assert key in meta, (f.name, key)
        assert len(meta["oracle_plan"]) == meta["oracle_length"]
        assert set(meta["tsh"]) == {"maintain", "explore", "update"}
        cond = meta["condition"]
        assert len(data["events"]) == (0 if cond == "baseline" else 1)
        if cond != "baseline":
            assert data["events"][0]["kind"] == cond


def test_each_intervention_fires_on_an_independent_oracle_rollout(small_bench):
    out, _ = small_bench
    scene = FAST_SCENES[0]
    for cond in INTERVENTIONS:
        inst = load_instance(out / "episodes" / f"{scene}__{cond}.json")
        episode = oracle_rollout(inst)
        assert episode.success
        assert cond in {f.kind for f in episode.fired}, cond
    base = load_instance(out / "episodes" / f"{scene}__baseline.json")
    episode = oracle_rollout(base)
    assert episode.success and not episode.fired
    assert sum(1 for r in episode.trace.steps if r.action.name != "stop") == base.metadata["oracle_length"]


def test_benchmark_is_byte_identical_when_recompiled(small_bench, tmp_path, assets):
    out, _ = small_bench
    again = tmp_path / "again"
    compile_benchmark(again, assets=assets, scenes=FAST_SCENES[:1], jobs=1, use_cache=False)
    for f in sorted((again / "episodes").glob("*.json")):
        assert f.read_bytes() == (out / "episodes" / f.name).read_bytes(), f.name


def test_cache_reuses_a_compiled_scene(small_bench, assets):
    out, _ = small_bench
    before = {f.name: f.read_bytes() for f in (out / "episodes").glob("*.json")}
    stats = compile_benchmark(out, assets=assets, scenes=FAST_SCENES, jobs=1, use_cache=True)
    assert stats["runtime"]["cached_scenes"] == len(FAST_SCENES)
    assert {f.name: f.read_bytes() for f in (out / "episodes").glob("*.json")} == before


@pytest.mark.parametrize("scene_id", ["Buffet-T2", "Fridge-I2", "Desk-15", "Buffet-I2"])
def test_scene_hits_table8_targets(assets, scene_id):
    entry = next(s for s in assets.scenes if s.id == scene_id)
    scene = compile_scene(assets, entry.family, entry.domain, derive_seed(assets.benchmark_seed, entry.id),
                          scene_id=entry.id, variant=entry.variant, subgoals=entry.subgoals,
                          oracle_length=entry.oracle_length, i6_mode=entry.i6_mode)
    assert scene.stats["subgoals"] == entry.subgoals
    assert scene.stats["oracle_length"] == entry.oracle_length
    assert scene.stats["occluded_nodes"] == len(occluded_nodes(scene.baseline.graph))


def test_single_compile_is_deterministic(assets):
    a = compile_scene(assets, "buffet", "tabletop", 7)
    b = compile_scene(assets, "buffet", "tabletop", 7)
    assert a.baseline.dumps() == b.baseline.dumps()
    lo, hi = assets.family("buffet").layout("tabletop").oracle_length
    assert lo <= a.plan.length <= hi and len(a.baseline.goal) == 10


def test_cli_compile_single_and_stats(tmp_path, small_bench, capsys):
    from robograph.cli import main

    target = tmp_path / "one.json"
    assert main(["compile", "--family", "dining", "--domain", "tabletop", "--seed", "3", "--out", str(target)]) == 0
    assert validate_data(json.loads(target.read_text())) == []
    out, _ = small_bench
    capsys.readouterr()
    assert main(["stats", str(out)]) == 0
    text = capsys.readouterr().out
    assert "paper" in text and "oracle_length" in text and "21.7" in text


def test_unknown_family_is_a_clear_error(assets):
    from robograph.compiler.errors import AssetError

    with pytest.raises(AssetError, match="valid: buffet"):
        assets.family("kitchen_sink")


@pytest.mark.slow
def test_full_benchmark_statistics(tmp_path, assets):
    stats = compile_benchmark(tmp_path, assets=assets, jobs=2, use_cache=False)
    assert stats["scenes"] == 84 and stats["episodes"] == 588
    assert len(list(Path(tmp_path, "episodes").glob("*.json"))) == 588
    for m in ("nodes", "edges", "occluded_nodes", "subgoals", "oracle_length"):
        pm, _ = PAPER[m]
        assert abs(stats["per_scene"][m]["mean"] - pm) <= 0.1 * pm, m
    for key, (ng, lo, hi) in TABLE8_RANGES.items():
        fam = stats["families"][key]
        assert fam["subgoals"] == [ng, ng]
        assert lo <= fam["oracle_length"][0] and fam["oracle_length"][1] <= hi
