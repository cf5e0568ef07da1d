"""Failure attribution (docs/attribution.md) on constructed traces: one per rule, and the ties.

The traces are real: scripted replies go through the parser and the runtime on the symbolic
backend, in a scene small enough to follow by hand: a pen in a closed drawer on a desk, an open
case to put it in, a side table for rollbacks, and (for the two-fact cases) a cap in a closed box
that is never opened.
"""

from __future__ import annotations

import json

from builders import Scene

from robograph.events import EventSpec
from robograph.harness.rollout import ScriptedReplies, run_rollout
from robograph.metrics.attribution import Attribution, attribute, shares
from robograph.metrics.recovery_by_action import f1_acc, pooled, recovery_by_action
from robograph.metrics.rollout import rollout_metrics
from robograph_backends.symbolic import SymbolicBackend

PEN = "INSIDE(pen, case)"
CAP = "INSIDE(cap, case)"


def scene() -> Scene:
    return (
        Scene()
        .surface("desk").surface("side_table", capacity=3)
        .box("drawer").on("drawer", "desk")
        .item("pen").inside("pen", "drawer")
        .box("case", capacity=3, is_open=True).on("case", "desk")
        .box("box").on("box", "desk")
        .item("cap").inside("cap", "box")
    )


def reply(name: str, *ids: str, failed: tuple[str, ...] | None = None) -> str:
    rec = {"required": failed is not None, "failed_action": failed[0] if failed else None,
           "failed_node_ids": list(failed[1:]) if failed else []}
    return json.dumps({"reason": "", "recovery": rec, "action": {"name": name, "node_ids": list(ids)}})


def blame(goal, replies, events=(), **kw) -> tuple[Attribution | None, object]:
    inst = scene().instance(goal, list(events), **kw)
    out = run_rollout(inst, ScriptedReplies(replies), SymbolicBackend())
    return attribute(out.trace), out


PUT_PEN = [reply("open", "drawer"), reply("grab", "pen"), reply("putin", "pen", "case")]
ROLLBACK = EventSpec("i3", "I3", 0, {"staging": ["side_table"]})


def test_success_is_not_attributed():
    a, out = blame([PEN], [*PUT_PEN, reply("stop")])
    assert out.trace.success and a is None


def test_exploration_stop_while_a_needed_node_was_never_seen():
    a, _ = blame([PEN], [reply("stop")])
    assert (a.cause, a.rule, a.step, a.fact) == ("exploration", "never_seen", 1, PEN)


def test_updating_unrecovered_rollback():
    a, out = blame([PEN], [*PUT_PEN, reply("stop")], [ROLLBACK])
    assert [e.kind for s in out.trace.states for e in s.record.events] == ["I3"]
    assert (a.cause, a.rule, a.step) == ("updating", "unrecovered_intervention", 4)


def test_updating_unrepaired_injected_failure():
    a, out = blame([PEN], [*PUT_PEN, reply("stop")], [EventSpec("i1", "I1", 0, {"actions": ["putin"]})])
    assert out.trace.states[2].record.failure_type == "execution_failed"
    assert (a.cause, a.rule, a.step) == ("updating", "unrecovered_intervention", 3)


def test_maintenance_undid_its_own_goal_fact():
    replies = [*PUT_PEN, reply("grab", "pen"), reply("puton", "pen", "desk"), reply("stop")]
    a, _ = blame([PEN], replies)
    assert (a.cause, a.rule, a.step) == ("maintenance", "undid_goal", 4)


def test_maintenance_acted_on_a_stale_fact():
    # the pen was seen in the open drawer; after closing it the agent grabs it anyway
    replies = [reply("open", "drawer"), reply("close", "drawer"), reply("grab", "pen"), reply("stop")]
    a, out = blame([PEN], replies)
    assert out.trace.states[2].record.failure_type == "not_visible"
    assert (a.cause, a.rule, a.step) == ("maintenance", "stale_action", 3)


def test_maintenance_forgot_after_seeing_everything():
    a, _ = blame([PEN], [reply("open", "drawer"), reply("stop")])
    assert (a.cause, a.rule, a.step) == ("maintenance", "forgot", 2)
    # repeated work moves the step to the first repetition
    a, _ = blame([PEN], [reply("open", "drawer"), reply("observe"), reply("observe"), reply("stop")])
    assert (a.cause, a.rule, a.step) == ("maintenance", "forgot", 3)


def test_maintenance_missed_completion_when_the_budget_runs_out():
    a, out = blame([PEN], [*PUT_PEN, reply("observe")], step_budget=4)
    assert not out.trace.success
    assert (a.cause, a.rule, a.step, a.fact) == ("maintenance", "missed_completion", 3, None)


def test_tie_on_the_step_goes_to_updating_before_exploration():
    # the rollback fires before the stop (step 4); the cap was never seen (blamed on step 4 too)
    a, _ = blame([PEN, CAP], [*PUT_PEN, reply("stop")], [ROLLBACK])
    assert (a.cause, a.step, a.fact) == ("updating", 4, PEN)
    assert a.implicated == ("exploration", "updating")


def test_tie_on_the_step_goes_to_exploration_before_maintenance():
    a, _ = blame([PEN, CAP], [reply("open", "drawer"), reply("stop")])
    assert (a.cause, a.step, a.fact) == ("exploration", 2, CAP)
    assert a.implicated == ("maintenance", "exploration")


def test_the_earliest_cause_wins_over_the_tie_order():
    replies = [*PUT_PEN, reply("grab", "pen"), reply("puton", "pen", "desk"), reply("stop")]
    a, _ = blame([PEN, CAP], replies)
    assert (a.cause, a.rule, a.step) == ("maintenance", "undid_goal", 4)  # before the stop at 6
    assert set(a.implicated) == {"maintenance", "exploration"}


def test_records_carry_the_attribution_and_shares_pool_them():
    _, bad = blame([PEN], [reply("stop")])
    _, good = blame([PEN], [*PUT_PEN, reply("stop")])
    records = [{"agent": "a", "domain": "tabletop", "metrics": rollout_metrics(t.trace, oracle_length=3)}
               for t in (bad, good, bad)]
    assert records[0]["metrics"]["attribution"]["cause"] == "exploration"
    assert records[1]["metrics"]["attribution"] is None
    s = shares(records)
    assert s["failures"] == 2 and s["exploration"] == 100.0 and s["maintenance"] == 0.0


def test_recovery_counts_by_action_type():
    replies = [
        reply("open", "drawer"),
        reply("grab", "pen"),
        reply("putin", "pen", "case"),                                  # 3 injected failure
        reply("putin", "pen", "case", failed=("putin", "pen", "case")),  # 4 detected and grounded
        reply("close", "drawer", failed=("grab", "pen")),                # 5 false alarm after putin
        reply("stop"),
    ]
    _, out = blame([PEN], replies, [EventSpec("i1", "I1", 0, {"actions": ["putin"]})])
    counts = recovery_by_action(out.trace.states)
    assert counts == {"putin": [1, 1, 0, 1, 1]}  # tp, fp, fn, grounded, positives
    rec = [{"agent": "x", "domain": "tabletop", "metrics": {"recovery_by_action": counts}}] * 2
    (key, c), = pooled(rec).items()
    assert key == ("x", "tabletop", "putin") and c == [2, 2, 0, 2, 2]
    assert f1_acc(c) == (100 * 4 / 6, 100.0)
