"""Ordered action distance (Appendix A) on the paper's pencil-case examples and the demo."""

from __future__ import annotations

from oracle_cases import CASES, pencil_case

from robograph.actions import effects
from robograph.oracle import action_distance, solve
from robograph.rewrite import apply_all


def distance(inst):
    return action_distance(inst.graph, inst.goal, inst.actions)


def test_paper_pencil_case_examples():
    assert distance(pencil_case()) == 4  # move_aside, grab, putin, close
    assert distance(pencil_case(other_room=True)) == 5  # + walk
    assert distance(pencil_case(case_open=False)) == 5  # + open before putin, close again after


def test_distance_is_zero_at_the_goal_and_shrinks_along_the_oracle_plan():
    inst = CASES["demo"][0]()
    plan = solve(inst.graph, inst.goal, inst.actions)
    graph = inst.graph
    values = [distance(inst)]
    for action in plan.actions:
        graph = apply_all(graph, effects(graph, action))
        values.append(action_distance(graph, inst.goal, inst.actions))
    assert values[-1] == 0
    assert values[0] >= plan.length - 2  # the demo's distance is close to its L_o (18)
    assert all(b <= a + 1 for a, b in zip(values, values[1:], strict=False))


def test_ordered_route_serves_transports_one_at_a_time_in_goal_order():
    inst = CASES["house_move"][0]()
    # goal order: mug (kitchen -> bedroom, 2 rooms away: 2 walks), milk (back to the kitchen 2, to the
    # bedroom 2), pillow (already in the bedroom, to the kitchen counter 2): 8 walks, where an optimal
    # plan carrying mug and milk together needs only 4
    from robograph.oracle.distance import distance_terms
    from robograph.oracle.model import Problem

    problem = Problem.compile(inst.graph, inst.goal, inst.actions)
    _goal, _pre, walks = distance_terms(problem, problem.encode(inst.graph))
    assert walks == 8
