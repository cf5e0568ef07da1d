"""Exact oracle: optimal lengths, pruning safety, admissibility, replay in the runtime, rollouts."""

from __future__ import annotations

import pytest
from builders import Scene, event_scene
from oracle_cases import CASES

from robograph.actions import Action, effects
from robograph.events import EventSpec
from robograph.oracle import OracleError, heuristic, oracle_rollout, solve
from robograph.rewrite import apply_all
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend

STOP = Action("stop")


@pytest.fixture(scope="module")
def plans():
    out = {}
    for name, (factory, _known) in CASES.items():
        inst = factory()
        out[name] = (inst, solve(inst.graph, inst.goal, inst.actions))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_known_optimal_lengths_and_pruning_is_exact(name, plans):
    inst, plan = plans[name]
    known = CASES[name][1]
    if known is not None:
        assert plan.length == known
    assert plan.length == len(plan.actions)
    unpruned = solve(inst.graph, inst.goal, inst.actions, prune=False)
    assert unpruned.length == plan.length


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_plan_replays_to_success_in_the_runtime(name, plans):
    inst, plan = plans[name]
    ep = Episode(inst, SymbolicBackend())
    ep.reset(0)
    for action in plan.actions:
        assert ep.step(action).ok, f"{action} failed in the runtime"
    assert ep.step(STOP).success


@pytest.mark.parametrize("name", ["demo", "house_move", "house_many", "nested", "figure3", "hands_juggle",
                                  "drawer_swap", "drawer_misplaced", "box_reopen", "box_reopen_open_end",
                                  "held_into_closed", "basket_run"])
def test_heuristic_is_admissible_along_optimal_plans(name, plans):
    inst, plan = plans[name]
    graph = inst.graph
    for i, action in enumerate([*plan.actions, None]):
        remaining = plan.length - i
        assert heuristic(graph, inst.goal, inst.actions) <= remaining
        if i % 3 == 0:  # the suffix of a shortest plan is shortest: re-solving agrees
            assert solve(graph, inst.goal, inst.actions).length == remaining
        if action is not None:
            graph = apply_all(graph, effects(graph, action))


def test_a_drawer_that_hides_the_source_forces_a_set_down(plans):
    inst, plan = plans["drawer_swap"]
    names = [a.name for a in plan.actions]
    assert names.count("grab") == 2 and names.count("puton") + names.count("putin") == 2
    assert plan.initial_h == plan.length  # the bound sees the set-down coming


def test_a_drawer_that_hides_the_target_forces_a_set_down(plans):
    inst, plan = plans["drawer_misplaced"]
    names = [a.name for a in plan.actions]
    assert names.count("grab") == 2 and names.count("puton") + names.count("putin") == 2
    assert plan.initial_h == plan.length
    # holding the concealer with the first drawer open still needs the set-down: the bound says so
    graph = inst.graph
    for i, action in enumerate(plan.actions):
        graph = apply_all(graph, effects(graph, action))
        if action.name == "grab":
            assert heuristic(graph, inst.goal, inst.actions) == plan.length - i - 1
            break


@pytest.mark.parametrize("name", ["box_reopen", "box_reopen_open_end", "held_into_closed"])
def test_forced_reopens_and_set_downs_are_foreseen(name, plans):
    inst, plan = plans[name]
    names = [a.name for a in plan.actions]
    assert names[:3] == (["puton", "open", "grab"] if name == "held_into_closed" else ["close", "move_aside", "open"])
    assert plan.initial_h == plan.length  # the bound sees the reopen / set-down coming


def test_search_is_deterministic_and_cheap_on_the_demo(plans):
    inst, plan = plans["demo"]
    again = solve(inst.graph, inst.goal, inst.actions)
    assert again.actions == plan.actions and again.expansions == plan.expansions
    assert plan.expansions < 500  # a tight bound: tens of expansions for an 18-step plan
    assert plan.initial_h <= plan.length


def test_unrelated_objects_do_not_grow_the_search():
    def scene(clutter: int):
        s = (Scene().surface("desk").box("drawer").on("drawer", "desk").item("pen").inside("pen", "drawer")
             .box("case", grabbable=True).on("case", "desk"))
        for k in range(clutter):
            s.item(f"junk_{k}").on(f"junk_{k}", "desk")
        return s.instance(["INSIDE(pen, case)", "CLOSED(case)", "CLOSED(drawer)"])

    small, big = scene(0), scene(12)
    a = solve(small.graph, small.goal, small.actions)
    b = solve(big.graph, big.goal, big.actions)
    assert a.length == b.length == 6
    assert b.expansions == a.expansions


def test_unreachable_goal_and_budget_raise_oracle_error():
    inst = (Scene().surface("desk").item("pen").on("pen", "desk").box("safe").on("safe", "desk")
            .instance(["INSIDE(pen, safe)"], actions=["grab", "putin", "stop"]))
    with pytest.raises(OracleError, match="unreachable"):
        solve(inst.graph, inst.goal, inst.actions)
    demo = CASES["demo"][0]()
    with pytest.raises(OracleError, match="expansions"):
        solve(demo.graph, demo.goal, demo.actions, max_expansions=3)


def test_oracle_rollout_on_the_demo_is_the_optimal_plan_plus_stop(plans):
    inst, plan = plans["demo"]
    ep = oracle_rollout(inst)
    assert ep.success and ep.terminated
    assert [r.action for r in ep.trace.steps] == [*plan.actions, STOP]


def test_oracle_rollout_recovers_from_interventions():
    scene = event_scene().item("eraser").on("eraser", "desk")
    goal = ["INSIDE(pen, case)", "INSIDE(eraser, case)", "CLOSED(drawer)"]
    events = [
        EventSpec("fail", "I1", params={"actions": ["grab"]}),
        EventSpec("rollback", "I3", min_step=2, params={"staging": ["side_table"]}),
    ]
    inst = scene.instance(goal, events)
    ep = oracle_rollout(inst, seed=3)
    assert ep.success
    kinds = sorted(e.kind for e in ep.fired)
    assert kinds == ["I1", "I3"]
    baseline = solve(inst.graph, inst.goal, inst.actions).length
    assert len(ep.trace.steps) > baseline + 1  # the failed grab and the rollback cost extra steps
