"""The compact oracle model must be exactly the runtime's action semantics.

Along seeded random walks over several scenes, at every state: the view statuses equal
`compute_view`, the set of applicable grounded actions equals the set that `actions.check()`
accepts, and every successor equals the encoding of `apply_all(graph, effects(graph, action))`.
"""

from __future__ import annotations

import itertools
import random

import pytest
from oracle_cases import CASES

from robograph.actions import CATALOG, Action, check, effects
from robograph.graph import ROBOT_ID
from robograph.oracle.model import REACH, SEEN, Problem
from robograph.rewrite import apply_all
from robograph.view import compute_view

WALK_CASES = ["demo", "desk_tidy", "figure3", "house_move", "hands_juggle", "nested", "capacity_full"]


def reference_successors(graph, available):
    view = compute_view(graph)
    ids = sorted(n for n in graph.nodes if n != ROBOT_ID)
    out = {}
    for name in available:
        if name in ("observe", "stop"):
            continue
        arity = len(CATALOG[name].parameters)
        for args in itertools.product(ids, repeat=arity):
            action = Action(name, args)
            if check(graph, view, action, available) is None:
                out[action] = apply_all(graph, effects(graph, action))
    return out


@pytest.mark.parametrize("name", WALK_CASES)
def test_model_matches_check_and_effects_on_random_walks(name):
    inst = CASES[name][0]()
    problem = Problem.compile(inst.graph, inst.goal, inst.actions, prune=False)
    rng = random.Random(7)
    for _walk in range(3):
        graph = inst.graph
        for _step in range(12):
            state = problem.encode(graph)
            view = compute_view(graph)
            status = problem.view(state)
            seen = {problem.ids[i] for i, st in enumerate(status) if st >= SEEN}
            reach = {problem.ids[i] for i, st in enumerate(status) if st == REACH}
            assert seen == set(view.visible)
            assert reach == set(view.reachable)
            ref = reference_successors(graph, inst.actions)
            mine = dict(problem.successors(state))
            assert set(mine) == set(ref), f"{name}: applicable sets differ at {state}"
            for action, nxt in mine.items():
                assert nxt == problem.encode(ref[action]), f"{name}: {action} successor differs"
            if not ref:
                break
            action = rng.choice(sorted(ref, key=str))
            graph = ref[action]


def test_hands_are_canonical():
    """Holding a in the left and b in the right hand is the same search state as the mirror."""
    inst = CASES["hands_juggle"][0]()
    problem = Problem.compile(inst.graph, inst.goal, inst.actions)
    swapped = inst.graph.derive(attrs={**inst.graph.attrs, ROBOT_ID: {"left": "pear", "right": "apple"}})
    assert problem.encode(swapped) == problem.encode(inst.graph)
