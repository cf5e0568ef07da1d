"""The six interventions of Table 4: trigger, firing bound, rewrite, invalidated facts, min_step."""

from __future__ import annotations

import pytest
from builders import event_scene, run

from robograph.events import EventEngine, EventSpec
from robograph.facts import Goal, parse_fact
from robograph.failures import FailureType
from robograph.graph import INSIDE, OCCLUDES, ON, Edge

BOOK_IN_CASE = "INSIDE(book, case)"
PUT_BOOK_IN_CASE = ("grab book", "putin book case")


@pytest.fixture
def episode(episode_of):
    """episode(kind, task_goal=[...], min_step=0, **params) -> a reset Episode with that one event."""

    def make(kind, task_goal=(BOOK_IN_CASE,), min_step=0, **params):
        spec = EventSpec(kind.lower(), kind, min_step, params)
        return episode_of(event_scene().instance(list(task_goal), [spec]))

    return make


def fired(records, kind):
    return [ev for rec in records for ev in rec.events if ev.kind == kind]


# I1 action failure ----------------------------------------------------------------------------------
def test_i1_suppresses_the_first_success_of_each_action_name(episode):
    ep = episode("I1")
    before = ep.graph
    (rec,) = run(ep, "open drawer")
    assert rec.failure_type == FailureType.EXECUTION_FAILED
    assert ep.graph is before and rec.rewrites == []
    (ev,) = rec.events  # recorded in the step it suppressed
    assert ev.kind == "I1" and ev.step == 1
    assert [str(f) for f in ev.invalidated] == ["OPEN(drawer)"]
    retry, other, again = run(ep, "open drawer", "press lamp", "press lamp")
    assert retry.ok and ep.graph.is_open("drawer")
    assert other.failure_type == FailureType.EXECUTION_FAILED  # a new action name fails once too
    assert again.ok


def test_i1_never_touches_failing_or_non_injectable_actions(episode):
    ep = episode("I1")
    records = run(ep, "grab lamp", "observe", "grab book")
    assert records[0].failure_type == FailureType.NOT_GRABBABLE  # precondition failure, no I1
    assert records[1].ok  # observe is not failure-injectable
    assert records[2].failure_type == FailureType.EXECUTION_FAILED
    assert len(fired(records, "I1")) == 1


def test_i1_action_list_and_min_step(episode):
    ep = episode("I1", min_step=3, actions=["open", "close"])
    records = run(ep, "open drawer", "press lamp", "close drawer", "close drawer")
    assert [r.status for r in records] == ["success", "success", "failure", "success"]
    assert fired(records, "I1")[0].step == 3


# I2 state regression ----------------------------------------------------------------------------------
def test_i2_resets_the_first_reversible_state_after_the_guard(episode):
    ep = episode("I2", min_step=2)
    first, second = run(ep, "open drawer", "close drawer")  # step 1 is before the guard
    assert first.events == [] and second.events == []
    assert ep.graph.is_open("drawer")  # already regressed before the step-3 view was built
    assert "pen" in ep.view.visible
    (third,) = run(ep, "observe")
    (ev,) = third.events  # recorded with the step it preceded
    assert ev.kind == "I2" and ev.step == 3
    assert [str(f) for f in ev.invalidated] == ["CLOSED(drawer)"]
    assert ev.rewrites[0].to_json() == {"op": "set_attr", "node": "drawer", "key": "open", "value": True}
    # at most once per rollout
    later = run(ep, "close drawer", "open drawer", "close drawer", "observe")
    assert fired(later, "I2") == [] and not ep.graph.is_open("drawer")


def test_i2_attribute_filter_and_moved_aside(episode):
    ep = episode("I2", attributes=["moved_aside"])
    run(ep, "open drawer")
    assert ep.pending_events == []  # open is not in the filter
    run(ep, "move_aside book")
    (ev,) = ep.pending_events
    assert not ep.graph.attr("book", "moved_aside")
    assert "cup" not in ep.view.visible  # the blocker is back in front of the cup
    assert [str(f) for f in ev.invalidated] == ["MOVED_ASIDE(book)"]


def test_i2_ignores_irreversible_actions(episode):
    ep = episode("I2")
    run(ep, "press lamp", "grab book")
    assert ep.fired == []


# I3 completed-subgoal rollback -------------------------------------------------------------------------------
def test_i3_moves_a_satisfied_placement_to_a_staging_surface(episode):
    ep = episode("I3", staging=["side_table"])
    run(ep, *PUT_BOOK_IN_CASE)
    (ev,) = ep.pending_events
    assert ev.kind == "I3" and ev.step == 3
    assert ep.graph.location["book"] == Edge("book", ON, "side_table")
    assert [str(f) for f in ev.invalidated] == [BOOK_IN_CASE]
    run(ep, "grab book", "putin book case", "observe")
    assert len(ep.fired) == 1  # at most once
    assert ep.graph.location["book"] == Edge("book", INSIDE, "case")


def test_i3_ignores_facts_true_from_the_start_and_full_staging(episode):
    ep = episode("I3", task_goal=["ON(lamp, desk)", BOOK_IN_CASE], staging=["desk", "side_table"])
    run(ep, "observe")
    assert ep.fired == []  # ON(lamp, desk) held at reset: not progress
    full = episode("I3", staging=["case"])  # the goal's own target is never a staging place
    run(full, *PUT_BOOK_IN_CASE, "observe")
    assert full.fired == []


def test_i3_min_step_guard(episode):
    ep = episode("I3", min_step=5, staging=["side_table"])
    run(ep, *PUT_BOOK_IN_CASE, "observe")
    assert ep.fired == []
    run(ep, "observe")  # step 4 ends: the step-5 events fire
    assert [e.step for e in ep.fired] == [5]


# I4 wrong relocation ----------------------------------------------------------------------------------------
def test_i4_moves_into_a_visible_open_wrong_container(episode):
    ep = episode("I4", containers=["drawer", "bin"])  # the drawer is closed: not plausible
    run(ep, *PUT_BOOK_IN_CASE)
    (ev,) = ep.pending_events
    assert ep.graph.location["book"] == Edge("book", INSIDE, "bin")
    assert [str(f) for f in ev.invalidated] == [BOOK_IN_CASE]
    assert ev.detail == "book moved from case into bin"


def test_i4_needs_an_eligible_container(episode):
    ep = episode("I4", containers=["drawer"])
    run(ep, *PUT_BOOK_IN_CASE, "observe")
    assert ep.fired == []


def test_i4_only_for_inside_goals(episode):
    ep = episode("I4", task_goal=["ON(book, side_table)"], containers=["bin"])
    run(ep, "grab book", "puton book side_table", "observe")
    assert ep.fired == []


# I5 added occlusion -----------------------------------------------------------------------------------------
def test_i5_moves_the_target_behind_a_blocker(episode):
    ep = episode("I5", task_goal=["ON(book, side_table)"], min_step=2, pairs=[["case", "book"]])
    run(ep, "grab book")
    assert ep.fired == []  # due at step 2, but the target is held: not eligible yet
    run(ep, "puton book side_table")
    (ev,) = ep.pending_events
    assert ev.kind == "I5" and ev.step == 3
    assert ep.graph.location["book"] == Edge("book", ON, "desk")  # next to its blocker
    assert Edge("case", OCCLUDES, "book") in ep.graph.edges
    assert "book" not in ep.view.visible
    assert [str(f) for f in ev.invalidated] == ["ON(book, side_table)"]
    run(ep, "move_aside case", "grab book", "puton book side_table", "observe")
    assert len(ep.fired) == 1  # at most once per rollout


def test_i5_skips_unresolvable_and_held_pairs(episode):
    ep = episode("I5", min_step=2, pairs=[["lamp", "case"], ["case", "book"], ["case", "pen"]])
    run(ep, "grab book", "observe")
    (ev,) = ep.fired
    # the lamp cannot be moved aside (unresolvable), the book is held: the pen is hidden instead,
    # moved out of the closed drawer next to the case
    assert ep.graph.location["pen"] == Edge("pen", ON, "desk")
    assert Edge("case", OCCLUDES, "pen") in ep.graph.edges
    assert [str(f) for f in ev.invalidated] == ["INSIDE(pen, drawer)"]
    run(ep, "move_aside case")
    assert "pen" in ep.view.visible  # resolvable by an available action


def test_i5_reactivates_a_moved_aside_blocker(episode):
    ep = episode("I5", min_step=3, pairs=[["book", "lamp"]])
    run(ep, "move_aside book", "observe")
    assert ep.graph.attr("book", "moved_aside") is False
    assert not {"lamp", "cup"} & ep.view.visible
    assert [str(f) for f in ep.fired[0].invalidated] == ["MOVED_ASIDE(book)"]


# I6 added object ------------------------------------------------------------------------------------------
ERASER = {"id": "eraser", "name": "eraser", "category": "eraser", "affordances": ["GRABBABLE", "MOVABLE"],
          "attrs": {"dusty": True}}


def test_i6_inherit_adds_an_object_and_extends_the_goal(episode):
    ep = episode("I6", source_fact=BOOK_IN_CASE, node=ERASER, staging="side_table",
                 goal=["INSIDE(eraser, case)"])
    assert len(ep.goal) == 1
    run(ep, *PUT_BOOK_IN_CASE)
    (ev,) = ep.pending_events
    assert ev.kind == "I6"
    assert ep.graph.location["eraser"] == Edge("eraser", ON, "side_table")
    assert ep.graph.attr("eraser", "dusty") is True
    assert [str(f) for f in ev.goal_added] == ["INSIDE(eraser, case)"]
    assert ep.goal.to_json() == [BOOK_IN_CASE, "INSIDE(eraser, case)"]
    assert "eraser" in ep.view.visible
    rec = run(ep, "stop")[0]
    assert rec.done and not rec.success  # the extended goal is not met yet


def test_i6_capacity_mode(episode):
    ep = episode("I6", mode="capacity", container="case", node=ERASER, staging="side_table",
                 goal=["INSIDE(eraser, bin)"])
    run(ep, *PUT_BOOK_IN_CASE)
    assert ep.fired == []
    run(ep, "move_aside book", "grab cup", "putin cup case")
    (ev,) = ep.fired
    assert "case reached capacity" in ev.detail
    assert parse_fact("INSIDE(eraser, bin)") in ep.goal.facts


def test_i6_source_true_from_the_start_never_fires(episode):
    ep = episode("I6", source_fact="ON(lamp, desk)", node=ERASER, staging="side_table",
                 goal=["INSIDE(eraser, bin)"])
    run(ep, "observe", "observe")
    assert ep.fired == []


# engine-level ------------------------------------------------------------------------------------------------
def test_fired_events_serialize_every_field(episode):
    ep = episode("I3", staging=["side_table"])
    run(ep, *PUT_BOOK_IN_CASE)
    assert ep.pending_events[0].to_json() == {
        "event_id": "i3",
        "kind": "I3",
        "step": 3,
        "rewrites": [{"op": "move_node", "node": "book", "relation": "ON", "to": "side_table"}],
        "invalidated": [BOOK_IN_CASE],
        "goal_added": [],
        "detail": "book moved from case onto side_table",
    }


def test_event_spec_json_round_trip():
    spec = EventSpec("e1", "I5", 4, {"pairs": [["a", "b"]]})
    assert EventSpec.from_json(spec.to_json()) == spec


def test_engine_fire_due_is_a_pure_function_of_its_inputs():
    g = event_scene().graph()
    goal = Goal.of([BOOK_IN_CASE])
    spec = EventSpec("x", "I5", 0, {"pairs": [["book", "lamp"]]})
    g1, _, f1 = EventEngine([spec], g, goal).fire_due(1, g, goal)
    g2, _, f2 = EventEngine([spec], g, goal).fire_due(1, g, goal)
    assert g1 == g2 and f1 == f2 and g1 != g
