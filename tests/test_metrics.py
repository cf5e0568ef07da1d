"""Every metric formula against rollouts computed by hand (docs/metrics.md).

The rollouts are real: scripted replies go through the parser and the runtime on the symbolic
backend. C_distance is given explicitly (`c_dist` below, the Appendix A count written out for
this one-object scene) so the expected numbers can be derived on paper independent of the
oracle's implementation.
"""

from __future__ import annotations

import json

import pytest
from builders import Scene

from robograph.events import EventSpec
from robograph.facts import Fact, Goal, holds
from robograph.graph import SceneGraph
from robograph.harness.rollout import ScriptedReplies, run_rollout
from robograph.metrics import aggregate as agg
from robograph.metrics.rollout import ngp, rollout_metrics, ssal
from robograph_backends.symbolic import SymbolicBackend


def c_dist(g: SceneGraph, goal: Goal, actions) -> int:
    """Unsatisfied goal facts + grab still needed for the pen + open still needed for it."""
    unsat = len(goal.unsatisfied(g))
    loose = g.hand_of("pen") is None and not holds(g, Fact("INSIDE", ("pen", "case")))
    shut = holds(g, Fact("INSIDE", ("pen", "drawer"))) and not g.is_open("drawer")
    return unsat + int(loose) + int(shut)


def scene() -> Scene:
    return (
        Scene()
        .surface("desk").surface("side_table", capacity=3)
        .box("drawer").on("drawer", "desk")
        .item("pen").inside("pen", "drawer")
        .box("case", capacity=2, is_open=True).on("case", "desk")
    )


def reply(name: str, *ids: str, failed: tuple[str, ...] | None = None) -> str:
    rec = {"required": failed is not None, "failed_action": failed[0] if failed else None,
           "failed_node_ids": list(failed[1:]) if failed else []}
    return json.dumps({"reason": "", "recovery": rec, "action": {"name": name, "node_ids": list(ids)}})


def play(instance, replies, oracle_length=3):
    out = run_rollout(instance, ScriptedReplies(replies), SymbolicBackend())
    return out, rollout_metrics(out.trace, c_dist, oracle_length=oracle_length)


def test_hand_computed_rollout_with_injected_failure():
    inst = scene().instance(["INSIDE(pen, case)"], [EventSpec("i1", "I1", 0, {"actions": ["putin"]})])
    replies = [
        reply("grab", "pen"),                       # 1 not_visible (pen is in the closed drawer)
        reply("open", "drawer", failed=("grab", "pen")),  # 2 ok, reveals pen; claims recovery (wrong)
        reply("open", "drawer"),                    # 3 already_open: repeated, C 2 -> 2: redundant
        reply("grab", "pen"),                       # 4 ok: repeated but C 2 -> 1: not redundant
        reply("putin", "pen", "case"),              # 5 I1 suppresses it (executable)
        reply("putin", "pen", "case", failed=("putin", "pen", "case")),  # 6 retry, recovery right
        reply("stop"),                              # 7 correct stop
    ]
    out, m = play(inst, replies)
    assert [s.record.status for s in out.trace.states] == ["failure", "success", "failure", "success",
                                                          "failure", "success", "success"]
    assert m["termination"] == "correct" and m["SR"] == 100.0 and m["steps"] == 7
    assert m["non_stop_steps"] == 6
    assert m["SSAL"] == pytest.approx(3 / 6)
    assert m["NGP"] == 100.0
    assert m["AER"] == pytest.approx(100 * 4 / 6)  # steps 2, 4, 5 (injected), 6
    assert m["RAR"] == pytest.approx(100 * 1 / 6)  # step 3
    assert m["ADR"] == pytest.approx(100 * ((3 - 2) / 3 + 0) / 2)  # steps 2 and 3 are view-expanding
    assert m["SEG"] == 100.0  # pen hidden at start, revealed by step 2
    assert m["IRR"] == 100.0 and m["events"] == [
        {"id": "i1", "kind": "I1", "fired": 5, "restored": 6, "latency": 1}
    ]
    assert m["counts"]["rd"] == [1, 1, 0]  # TP step 6, FP step 2
    assert m["F1_RD"] == pytest.approx(100 * 2 / 3)
    assert m["Acc_RG"] == 100.0


def test_rollback_recovery_latency_counts_the_restoring_step():
    inst = scene().instance(["INSIDE(pen, case)"], [EventSpec("i3", "I3", 0, {"staging": ["side_table"]})])
    replies = [reply("open", "drawer"), reply("grab", "pen"), reply("putin", "pen", "case"),
               reply("grab", "pen"), reply("putin", "pen", "case"), reply("stop")]
    out, m = play(inst, replies)
    (ev,) = m["events"]
    assert ev["kind"] == "I3" and ev["fired"] == 4 and ev["restored"] == 5
    assert ev["latency"] == 2  # actions 4 and 5 after the rollback before step 4
    assert m["IRR"] == 100.0 and m["latency"] == 2.0 and m["SR"] == 100.0
    # steps 4 and 5 repeat earlier actions but reduce C (state changed): not redundant
    assert m["RAR"] == 0.0


def test_unrecovered_intervention_and_premature_stop():
    inst = scene().instance(["INSIDE(pen, case)"], [EventSpec("i3", "I3", 0, {"staging": ["side_table"]})])
    replies = [reply("open", "drawer"), reply("grab", "pen"), reply("putin", "pen", "case"), reply("stop")]
    _, m = play(inst, replies)
    assert m["termination"] == "premature" and m["SR"] == 0.0 and m["SSAL"] == 0.0
    assert m["IRR"] == 0.0 and m["latency"] is None
    assert m["NGP"] == 0.0


def test_parse_errors_count_against_the_agent_and_budget_ends_it():
    inst = scene().instance(["INSIDE(pen, case)"], step_budget=4)
    replies = ["I would open the drawer", reply("open", "drawer"), "", "{not json"]
    out, m = play(inst, replies)
    assert [s.record.failure_type for s in out.trace.states] == ["parse_error", None, "parse_error", "parse_error"]
    assert m["termination"] == "budget" and m["parse_errors"] == 3
    assert m["AER"] == 25.0  # 1 of 4 non-stop steps was executable
    assert m["RAR"] == 0.0 and m["counts"]["rar"] == [0, 1]  # parse errors are not actions
    assert m["NGP"] == 0.0


def test_seg_counts_intervention_hidden_objects():
    inst = (
        scene().item("book").on("book", "desk")
        .instance(["INSIDE(pen, case)"], [EventSpec("i5", "I5", 3, {"pairs": [["book", "pen"]]})])
    )
    replies = [reply("open", "drawer"), reply("observe"), reply("move_aside", "book"),
               reply("grab", "pen"), reply("putin", "pen", "case"), reply("stop")]
    out, m = play(inst, replies)
    assert [e.kind for s in out.trace.states for e in s.record.events] == ["I5"]
    # items: pen hidden at start (revealed step 1), pen hidden again by I5 (revealed step 3)
    assert m["counts"]["seg"] == [2, 2] and m["SEG"] == 100.0
    (ev,) = m["events"]
    assert ev["restored"] == 3 and ev["latency"] == 1


def test_ssal_and_ngp_edge_cases(demo):
    assert ssal(True, 10, 5) == 1.0  # shorter than the reference: capped at 1
    assert ssal(True, 10, 20) == 0.5 and ssal(False, 10, 10) == 0.0
    g = demo.graph
    goal = Goal.of(["CLOSED(drawer_1)", "PRESSED(desk_lamp)"])
    assert ngp(g, g, goal) == 0.0  # one of one open fact still open
    assert ngp(g, g, Goal.of(["CLOSED(drawer_1)"])) == 100.0  # nothing to do and nothing broken


# aggregation -------------------------------------------------------------------------------------
def rec(agent, domain, scene_id, condition, sr, **metrics):
    base = {"SR": sr, "SSAL": metrics.pop("SSAL", sr / 100), "NGP": sr, "AER": 90.0, "RAR": 10.0, "SEG": 50.0,
            "ADR": 5.0, "IRR": metrics.pop("IRR", None), "latency": metrics.pop("latency", None),
            "F1_RD": None, "Acc_RG": None, "steps": 10, "non_stop_steps": 9, "oracle_length": 5,
            "goal_size": 3, "termination": "correct" if sr else "premature",
            "counts": {"rd": [1, 0, 1], "rg": [1, 2]}}
    base.update(metrics)
    return {"agent": agent, "domain": domain, "scene": scene_id, "condition": condition, "seed": 0,
            "family": "f", "metrics": base}


def test_aggregation_follows_the_paper():
    rows = [
        rec("a", "tabletop", "s1", "baseline", 100.0, SSAL=0.5),
        rec("a", "tabletop", "s1", "I1", 0.0, IRR=0.0, SSAL=0.9, attribution={"cause": "updating", "step": 3}),
        rec("a", "tabletop", "s2", "baseline", 0.0, SSAL=0.0, attribution={"cause": "exploration", "step": 9}),
        rec("a", "tabletop", "s2", "I1", 100.0, IRR=100.0, latency=4.0, SSAL=0.9),
    ]
    s = agg.summarize(rows)
    assert s["SR"] == 50.0
    assert s["SSAL"] == 0.25  # baseline rollouts only
    assert s["IRR"] == 50.0 and s["triggered"] == 2 and s["latency"] == 4.0
    assert s["F1_RD"] == pytest.approx(100 * 8 / 12) and s["Acc_RG"] == 50.0  # pooled counts
    assert s["termination"] == {"correct": 50.0, "premature": 50.0, "budget": 0.0}
    t2 = agg.intervention_table(rows)
    assert t2[("a", "I1", "tabletop")]["delta_SR"] == 0.0  # (0-100 + 100-0) / 2
    js = agg.json_summary(rows)
    assert set(js["a"]["tabletop"]) == {"SR", "SSAL", "NGP", "AER", "RAR", "SEG", "ADR", "IRR", "F1_RD", "Acc_RG",
                                        "premature", "attributed_maintenance", "attributed_exploration",
                                        "attributed_updating"}
    assert js["a"]["tabletop"]["premature"] == 50.0
    # shares of the two attributed failures
    assert js["a"]["tabletop"]["attributed_updating"] == 50.0 and js["a"]["tabletop"]["attributed_exploration"] == 50.0
    assert js["a"]["tabletop"]["attributed_maintenance"] == 0.0


def test_spearman_against_hand_values():
    assert agg.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert agg.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ranks x = 1,2,3 ; y = 1.5,1.5,3 -> pearson of ranks = 0.8660...
    assert agg.spearman([1, 2, 3], [5, 5, 9]) == pytest.approx(0.8660254)
    assert agg.spearman([1, 1, 1], [1, 2, 3]) is None and agg.spearman([1, 2], [1, 2]) is None


def test_between_and_within_scene_correlations():
    rows = []
    for i, sc in enumerate(["s1", "s2", "s3", "s4"]):
        for j, agent in enumerate(["a", "b", "c"]):
            sr = 100.0 if j <= i % 3 else 0.0
            rows.append(rec(agent, "tabletop", sc, "baseline", sr, AER=50.0 + 10 * j + i, RAR=40.0 - 10 * j,
                            oracle_length=10 + i))
    between = agg.between_scene(rows)["tabletop"]
    assert set(between) == set(agg.CORRELATES)
    within = agg.within_scene(rows)["tabletop"]
    # per scene: SR falls with j while AER rises (rho -0.866) and RAR falls (+0.866); s3 is constant
    assert within["AER"] == pytest.approx(-0.8660254) and within["RAR"] == pytest.approx(0.8660254)
