"""The episode runtime: step order, I1 suppression, stop/Succ (Eq. 5), budget, parse failures,
backend reconciliation and the JSONL trace."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from builders import DEMO_SOLUTION, act, event_scene, run

from robograph.backend import OK, Execution
from robograph.errors import EpisodeError
from robograph.events import EventSpec
from robograph.failures import ActionFailure, FailureType
from robograph.graph import ON, Edge
from robograph.instance import DEFAULT_STEP_BUDGET
from robograph.rewrite import MoveNode, apply, diff
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend


class RecordingBackend(SymbolicBackend):
    """The symbolic backend plus a log of what the runtime asked it to do."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def realize(self, graph, rewrites):
        self.calls.append(f"realize {len(rewrites)}")
        super().realize(graph, rewrites)

    def execute(self, graph, action, expected, *, deadline=None, cancel=None):
        self.calls.append(f"execute {action}")
        return super().execute(graph, action, expected)


class SlippyGripper(SymbolicBackend):
    """A world where every grasp slips: the object ends up back on the desk. Stands in for a
    physical backend whose reconciled state differs from the symbolic expectation."""

    name = "slippy"

    def execute(self, graph, action, expected, *, deadline=None, cancel=None) -> Execution:
        return OK

    def reconcile(self, expected):
        for nid in expected.held():
            expected = apply(expected, MoveNode(nid, ON, "desk"))
        self.graph = expected
        return expected


# lifecycle -------------------------------------------------------------------------------------------
def test_step_before_reset_and_after_the_end_are_typed_errors(demo):
    ep = Episode(demo, SymbolicBackend())
    with pytest.raises(EpisodeError, match="reset"):
        ep.step(act("observe"))
    ep.reset(0)
    run(ep, "stop")
    with pytest.raises(EpisodeError, match="is over"):
        ep.step(act("observe"))
    with pytest.raises(EpisodeError):
        ep.fail_step(ActionFailure(FailureType.PARSE_ERROR, "x"))


def test_reset_starts_over(demo, episode_of):
    ep = episode_of(demo)
    run(ep, "open pencil_case", "stop")
    ep.reset(0)
    assert ep.t == 0 and not ep.done and ep.graph == demo.graph and ep.trace.steps == []


def test_default_budget_is_100(demo):
    assert demo.step_budget == DEFAULT_STEP_BUDGET == 100


# order of a step ---------------------------------------------------------------------------------------
def test_events_due_at_step_one_fire_at_reset(episode_of):
    spec = EventSpec("hide", "I5", 0, {"pairs": [["book", "lamp"]]})
    ep = episode_of(event_scene().instance(["PRESSED(lamp)"], [spec]))
    assert "lamp" not in ep.view.visible  # the first view already reflects it
    assert [e.event_id for e in ep.trace.initial_events] == ["hide"]
    rec = run(ep, "press lamp")[0]
    assert rec.failure_type == FailureType.NOT_VISIBLE
    assert [e.event_id for e in rec.events] == ["hide"]  # carried by the step it preceded


def test_i1_suppressed_action_never_reaches_the_backend(episode_of):
    backend = RecordingBackend()
    ep = Episode(event_scene().instance(["PRESSED(lamp)"], [EventSpec("f", "I1")]), backend)
    ep.reset(0)
    records = run(ep, "press lamp", "grab lamp", "press lamp")
    assert [r.failure_type for r in records] == ["execution_failed", "not_grabbable", None]
    assert backend.calls == ["execute press(lamp)"]


def test_realize_is_called_for_exogenous_events(episode_of):
    backend = RecordingBackend()
    spec = EventSpec("r", "I3", 0, {"staging": ["side_table"]})
    ep = Episode(event_scene().instance(["INSIDE(book, case)"], [spec]), backend)
    ep.reset(0)
    run(ep, "grab book", "putin book case")
    assert backend.calls[-1] == "realize 1"


# stop and Succ(tau) ------------------------------------------------------------------------------------
def test_stop_in_a_goal_state_succeeds(demo, episode_of):
    ep = episode_of(demo)
    records = run(ep, *DEMO_SOLUTION)
    last = records[-1]
    assert last.done and last.success and ep.terminated and not ep.truncated
    assert last.satisfied == last.goal_size == 9
    assert all(r.ok for r in records)


def test_stop_outside_a_goal_state_fails_the_rollout(demo, episode_of):
    ep = episode_of(demo)
    rec = run(ep, "open pencil_case", "stop")[-1]
    assert rec.done and rec.ok and not rec.success and ep.terminated


def test_satisfying_the_goal_without_stop_is_not_success(demo, episode_of):
    ep = episode_of(replace(demo, step_budget=len(DEMO_SOLUTION) - 1))
    records = run(ep, *DEMO_SOLUTION[:-1])
    assert ep.goal.satisfied(ep.graph)
    assert records[-1].done and ep.truncated and not ep.terminated and not ep.success


def test_stop_on_the_last_budgeted_step_counts(demo, episode_of):
    ep = episode_of(replace(demo, step_budget=len(DEMO_SOLUTION)))
    assert run(ep, *DEMO_SOLUTION)[-1].success


def test_stop_with_arguments_is_invalid_and_does_not_end(demo, episode_of):
    ep = episode_of(demo)
    rec = run(ep, "stop now")[0]
    assert rec.failure_type == FailureType.INVALID_ARGUMENTS and not ep.done


def test_budget_truncation_counts_failed_steps(demo, episode_of):
    ep = episode_of(demo, step_budget=3)
    records = run(ep, "fly", "grab desk", "observe")
    assert [r.done for r in records] == [False, False, True]
    assert ep.truncated and not ep.terminated and not records[-1].success


# parse failures -------------------------------------------------------------------------------------------
def test_fail_step_counts_against_the_agent(demo, episode_of):
    ep = episode_of(demo, step_budget=2)
    before = ep.graph
    rec = ep.fail_step(ActionFailure(FailureType.PARSE_ERROR, "no JSON object found"), raw="hello")
    assert rec.step == 1 and rec.failure_type == "parse_error" and rec.action.name == ""
    assert ep.graph is before
    assert rec.to_json()["raw"] == "hello"
    ep.fail_step(ActionFailure(FailureType.PARSE_ERROR, "again"))
    assert ep.done and ep.truncated


# backend reconciliation -----------------------------------------------------------------------------------
def test_reconciled_difference_becomes_rewrites_and_a_failure(demo):
    ep = Episode(demo, SlippyGripper())
    ep.reset(0)
    before = ep.graph
    rec = run(ep, "grab pencil_case")[0]
    assert rec.failure_type == FailureType.EXECUTION_FAILED
    assert ep.graph.location["pencil_case"] == Edge("pencil_case", ON, "desk")
    assert rec.rewrites == diff(before, ep.graph)


# trace ----------------------------------------------------------------------------------------------------
def traced_episode(seed: int) -> str:
    events = [
        EventSpec("fail", "I1", 0, {"actions": ["putin"]}),
        EventSpec("regress", "I2", 1),
        EventSpec("back", "I3", 0, {"staging": ["side_table"]}),
        EventSpec("hide", "I5", 6, {"pairs": [["book", "lamp"]]}),
    ]
    ep = Episode(event_scene().instance(["INSIDE(pen, case)", "PRESSED(lamp)"], events), SymbolicBackend())
    ep.reset(seed)
    run(ep, "open drawer", "open drawer", "grab pen", "putin pen case", "putin pen case", "observe",
        "grab pen", "putin pen case", "press lamp", "move_aside book", "stop")
    assert ep.done
    return ep.trace.to_jsonl()


def test_trace_is_byte_identical_for_the_same_seed():
    a, b = traced_episode(7), traced_episode(7)
    assert a == b
    lines = [json.loads(line) for line in a.splitlines()]
    assert lines[0]["type"] == "episode" and lines[0]["seed"] == 7
    assert [line["step"] for line in lines[1:]] == list(range(1, 12))
    kinds = [ev["kind"] for line in lines[1:] for ev in line["events"]]
    assert sorted(set(kinds)) == ["I1", "I2", "I3", "I5"]
    assert traced_episode(8).splitlines()[1:] == a.splitlines()[1:]  # symbolic: seed only in header


def test_step_record_json_fields(demo, episode_of):
    ep = episode_of(demo)
    rec = run(ep, "open pencil_case")[0].to_json()
    assert rec == {
        "type": "step",
        "step": 1,
        "action": {"name": "open", "node_ids": ["pencil_case"]},
        "status": "success",
        "failure_type": None,
        "message": None,
        "events": [],
        "rewrites": [{"op": "set_attr", "node": "pencil_case", "key": "open", "value": True}],
        "visible": sorted(ep.view.visible),
        "goal_satisfied": 2,
        "goal_size": 9,
        "done": False,
        "success": False,
    }
