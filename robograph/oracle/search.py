"""Exact shortest plans: A* over compact states with the admissible bound of `heuristic.py`.

Ties on f are broken by smaller h, then by the most recently generated state (a depth-first dive
along plateaus of equal f), and successors come in a fixed operator order, so the same input always
expands the same states and returns the same plan. Because the bound is admissible but not guaranteed consistent, a state is re-opened
when a cheaper path to it appears; the first goal state popped is then optimal.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from robograph.actions import ACTION_NAMES, Action
from robograph.facts import Goal
from robograph.graph import SceneGraph
from robograph.oracle.errors import OracleError
from robograph.oracle.heuristic import RoomDistances, estimate
from robograph.oracle.model import Problem, State, node_kind_ok

DEFAULT_MAX_EXPANSIONS = 200_000


@dataclass(frozen=True)
class Plan:
    """A shortest action sequence (stop excluded) and what it cost to find it."""

    actions: tuple[Action, ...]
    length: int
    expansions: int = 0
    generated: int = 0
    initial_h: int = 0
    seconds: float = field(default=0.0, compare=False)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.actions)

    def to_json(self) -> dict[str, object]:
        return {
            "actions": [str(a) for a in self.actions],
            "length": self.length,
            "expansions": self.expansions,
            "generated": self.generated,
            "initial_h": self.initial_h,
        }


def search(problem: Problem, start: State, *, max_expansions: int = DEFAULT_MAX_EXPANSIONS) -> Plan:
    t0 = time.perf_counter()
    rooms = RoomDistances(problem)
    h0 = estimate(problem, start, rooms)
    best_g: dict[State, int] = {start: 0}
    parent: dict[State, tuple[State, Action]] = {}
    counter = 0
    heap: list[tuple[int, int, int, State]] = [(h0, h0, counter, start)]
    expansions = generated = 0
    h_cache: dict[State, int] = {start: h0}
    while heap:
        f, h, _, s = heapq.heappop(heap)
        g = f - h
        if g > best_g.get(s, g):
            continue  # stale entry
        if problem.is_goal(s):
            actions: list[Action] = []
            while s in parent:
                s, a = parent[s]
                actions.append(a)
            actions.reverse()
            return Plan(tuple(actions), len(actions), expansions, generated, h0, time.perf_counter() - t0)
        expansions += 1
        if expansions > max_expansions:
            raise OracleError(
                f"oracle search exceeded {max_expansions} expansions (f = {f}, {generated} states "
                "generated); raise max_expansions or simplify the instance")
        g2 = g + 1
        for action, nxt in problem.successors(s):
            if g2 >= best_g.get(nxt, g2 + 1):
                continue
            best_g[nxt] = g2
            parent[nxt] = (s, action)
            h2 = h_cache.get(nxt)
            if h2 is None:
                h2 = estimate(problem, nxt, rooms)
                h_cache[nxt] = h2
            counter += 1
            generated += 1
            heapq.heappush(heap, (g2 + h2, h2, -counter, nxt))  # LIFO among ties: dive
    raise OracleError(
        f"goal {', '.join(str(f) for f in problem.goal)} is unreachable from this state "
        f"({expansions} states expanded)")


def solve(
    graph: SceneGraph,
    goal: Goal,
    actions: Sequence[str] = ACTION_NAMES,
    *,
    max_expansions: int = DEFAULT_MAX_EXPANSIONS,
    prune: bool = True,
) -> Plan:
    """Shortest action sequence from `graph` (full knowledge) to a state satisfying `goal`.

    `actions` is the instance's catalog (walk only where listed). `prune=False` switches relevance
    pruning off (slower, used to test that pruning never changes the optimal length).
    Raises OracleError when the goal is unreachable or the budget is exhausted."""
    node_kind_ok(graph)
    problem = Problem.compile(graph, goal, actions, prune=prune)
    return search(problem, problem.encode(graph), max_expansions=max_expansions)


def heuristic(graph: SceneGraph, goal: Goal, actions: Sequence[str] = ACTION_NAMES) -> int:
    """The admissible lower bound the search uses, evaluated on `graph` (for tests and reports)."""
    problem = Problem.compile(graph, goal, actions, prune=True)
    return estimate(problem, problem.encode(graph), RoomDistances(problem))
