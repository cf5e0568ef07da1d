"""`robograph compare` on small real runs: symbolic runs of two agents against the same agents'
runs under a perturbation (the explorer without re-checking, the random agent with another
seed), all on the symbolic backend over the demo desk in five conditions x two scenes. Visual
runs on MuJoCo would be the real use but take minutes per rollout here; the statistics do not
care which observation produced the metrics."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from robograph.cli import main
from robograph.events import EventSpec
from robograph.gym_env import demo_instance_path
from robograph.harness.compare import CompareError, compare, mmrv, write_comparison
from robograph.harness.runner import RunSpec, run
from robograph.harness.store import rollout_records
from robograph.instance import load_instance

EVENTS = {
    "baseline": [],
    "I1": [EventSpec("i1", "I1", 2, {})],
    "I2": [EventSpec("i2", "I2", 2, {})],
    "I3": [EventSpec("i3", "I3", 2, {"staging": ["desk"]})],
    "I5": [EventSpec("i5", "I5", 2, {"pairs": [["book", "eraser"]]})],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    inst_dir = root / "instances"
    inst_dir.mkdir()
    demo = load_instance(demo_instance_path())
    for scene in ("A", "B"):
        for cond, events in EVENTS.items():
            inst = demo.with_events(events, condition=cond, scene_id=f"Demo-{scene}")
            inst = type(inst)(**{**inst.__dict__, "id": f"demo{scene}__{cond}"})
            inst.save(inst_dir / f"demo{scene}__{cond}.json")
    configs = {
        "explorer": ("explorer", {}),
        "random": ("random", {"seed": 0}),
        "explorer_perturbed": ("explorer", {"recheck": False}),
        "random_perturbed": ("random", {"seed": 1}),
    }
    out = {}
    for name, (agent, opts) in configs.items():
        out[name] = root / name
        run(RunSpec(str(inst_dir), agent, str(out[name]), workers=1, agent_options=opts, progress=False, durable=False))
    return out


def _metric(run_dir: Path, metric: str) -> dict[str, float]:
    return {r["key"]: r["metrics"][metric] for r in rollout_records(run_dir)}


def test_compare_statistics_match_an_independent_computation(runs, tmp_path):
    sym, vis = [runs["explorer"], runs["random"]], [runs["explorer_perturbed"], runs["random_perturbed"]]
    result = compare(sym, vis)
    assert len(result.pairs) == 20 and {p.agent for p in result.pairs} == {"explorer", 'random(seed=0)'}
    for metric in ("SR", "NGP"):
        xs, ys = [], []
        for s, v in zip(sym, vis, strict=True):
            a, b = _metric(s, metric), _metric(v, metric)
            xs += [a[k] for k in sorted(a)]
            ys += [b[k] for k in sorted(a)]
        overall = next(c for c in result.correlations if c.metric == metric and c.scope == "all")
        expected = spearmanr(xs, ys).statistic
        assert overall.n == 20 and overall.rho == pytest.approx(expected)
        assert overall.low <= overall.rho <= overall.high
    scenes = {c.scope for c in result.correlations} - {"all"}
    assert scenes == {"Demo-A", "Demo-B"}
    sr = {(r[0], r[1]): r for r in result.sr_drop}
    for row in sr.values():
        assert row[5] == pytest.approx(row[3] - row[4], abs=0.11)
    paths = write_comparison(result, tmp_path / "cmp")
    assert {p.name for p in paths} >= {"compare.md", "compare.csv", "scatter_SR.png", "scatter_NGP.png"}
    rows = list(csv.DictReader((tmp_path / "cmp" / "compare.csv").open()))
    assert {r["scope"] for r in rows} == {"all", "Demo-A", "Demo-B"}


def test_a_run_compared_with_itself_agrees_perfectly(runs):
    result = compare([runs["explorer"], runs["random"]], [runs["explorer"], runs["random"]])
    for c in result.correlations:
        if c.scope == "all" and c.rho is not None:
            assert c.rho == pytest.approx(1.0)
    assert all(v == 0.0 for v in result.mmrv.values())
    assert all(r[5] == 0 for r in result.sr_drop)


def test_mmrv_counts_the_largest_violated_gap():
    real = {"a": 90.0, "b": 50.0, "c": 10.0}
    assert mmrv(real, {"a": 3.0, "b": 2.0, "c": 1.0}) == 0.0
    # b and c swap: each is violated by 40 points, a by nothing
    assert mmrv(real, {"a": 3.0, "b": 1.0, "c": 2.0}) == pytest.approx(80.0 / 3)


def test_unpaired_runs_are_refused(runs, tmp_path):
    with pytest.raises(CompareError, match="one visual run per symbolic run"):
        compare([runs["explorer"], runs["random"]], [runs["explorer"]])
    with pytest.raises(CompareError, match="no rollout records"):
        compare([runs["explorer"]], [tmp_path])


def test_compare_cli_prints_the_headline_json(runs, tmp_path, capsys):
    code = main(["compare", str(runs["explorer"]), str(runs["random"]), "--visual",
                 str(runs["explorer_perturbed"]), str(runs["random_perturbed"]), "--out", str(tmp_path / "c"), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(data) == {"rollouts", "agents", "spearman", "mmrv", "sr_drop"} and data["rollouts"] == 20
    assert main(["compare", str(runs["explorer"]), "--visual", str(tmp_path), "--out", str(tmp_path / "d")]) == 2
