"""The explorer as a reference agent on compiled RoboGraphBench episodes.

One scene per task family and domain (the first of Table 8's list for each), in all seven conditions,
compiled in-process exactly as `robograph compile --benchmark` does. The explorer sees only the
payload. Its strategy (memory, systematic search of containers, occluders and rooms, re-checking
after failures and interventions) must solve every one of these episodes except the named known
gaps: an added occlusion (I5) in the pantry, where searching for the hidden object the agent
reopens a cabinet it had closed for the goal (docs/agents.md, Known gaps).
"""

from __future__ import annotations

import json

import pytest

from robograph.agents import make_agent
from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import compile_entry
from robograph.events import CONDITIONS
from robograph.harness.rollout import run_rollout
from robograph.instance import TaskInstance
from robograph_backends.symbolic import SymbolicBackend

SCENES = ("Buffet-T1", "Cosmetics-1", "Desk-1", "Dining-3", "Fridge-T1", "Toy-A1",
          "Buffet-I1", "FoodPack-I1", "Fridge-I1")
KNOWN_GAPS = frozenset({"FoodPack-I1__I5"})


@pytest.fixture(scope="module")
def episodes() -> dict[str, TaskInstance]:
    assets = load_assets()
    entries = {e.id: e for e in assets.scenes}
    out = {}
    for sid in SCENES:
        res = compile_entry(assets, entries[sid])
        for cond in CONDITIONS:
            out[f"{sid}__{cond}"] = TaskInstance.from_json(json.loads(res.files[cond]))
    return out


@pytest.mark.slow
def test_explorer_solves_one_scene_per_family_and_domain_in_every_condition(episodes):
    assert {e.domain for e in episodes.values()} == {"tabletop", "indoor"}
    failed = []
    for name, inst in episodes.items():
        out = run_rollout(inst, make_agent("explorer"), SymbolicBackend(), seed=0)
        if not out.trace.success:
            failed.append(name)
    assert set(failed) <= KNOWN_GAPS, failed
    assert len(failed) <= len(KNOWN_GAPS)


@pytest.mark.slow
def test_each_deficit_fails_where_the_full_explorer_succeeds(episodes):
    baseline = [inst for name, inst in episodes.items() if name.endswith("__baseline")]
    for opts in ({"memory": False}, {"exploration": False}):
        wins = sum(run_rollout(i, make_agent("explorer", **opts), SymbolicBackend()).trace.success for i in baseline)
        assert wins <= len(baseline) // 3, (opts, wins)
    regressed = [inst for name, inst in episodes.items() if name.endswith(("__I1", "__I3"))]
    wins = sum(run_rollout(i, make_agent("explorer", recheck=False), SymbolicBackend()).trace.success for i in regressed)
    assert wins < len(regressed) // 2
