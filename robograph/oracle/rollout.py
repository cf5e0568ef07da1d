"""Closed-loop oracle rollout: act optimally from the full latent state, replanning on surprises.

Events I1-I6 change the world (or the goal) during an episode, so a plan made at step 0 can go
stale. After every step the rollout compares the latent graph with the state the plan predicted;
if an event fired, the action failed or the graph differs, it replans from the current latent graph
and goal. Otherwise it keeps the remaining plan, which is still optimal (every suffix of a shortest
plan is a shortest plan from the state it starts in), and which replanning would not shorten.
"""

from __future__ import annotations

from collections.abc import Sequence

from robograph.actions import Action, effects
from robograph.backend import Backend
from robograph.graph import SceneGraph
from robograph.instance import TaskInstance
from robograph.oracle.errors import OracleError
from robograph.oracle.search import DEFAULT_MAX_EXPANSIONS, solve
from robograph.rewrite import apply_all
from robograph.runtime import Episode

STOP = Action("stop")


def oracle_rollout(
    instance: TaskInstance,
    backend: Backend | None = None,
    seed: int = 0,
    *,
    max_expansions: int = DEFAULT_MAX_EXPANSIONS,
    plan: Sequence[Action] | None = None,
) -> Episode:
    """Run the oracle policy on `instance` and return the finished Episode (trace, fired, success).

    `plan`, when given, must be an optimal plan for the instance's G0 and goal (e.g. the baseline
    plan shared by all seven conditions of a scene); it saves the initial search.
    Raises OracleError if the goal becomes unreachable (e.g. an event made it impossible)."""
    if backend is None:
        from robograph.registry import make_backend

        backend = make_backend("symbolic")
    episode = Episode(instance, backend)
    episode.reset(seed)
    queue: list[Action] = list(plan) if plan is not None else []
    predicted: SceneGraph | None = episode.graph if plan is not None else None
    while not episode.done:
        graph = episode.graph
        if episode.goal.satisfied(graph):
            episode.step(STOP)
            break
        fresh = (predicted is not None and queue and not episode.pending_events
                 and graph == predicted)
        if not fresh:
            fresh_plan = solve(graph, episode.goal, instance.actions, max_expansions=max_expansions)
            queue = list(fresh_plan.actions)
            if not queue:
                raise OracleError("internal: empty plan for an unsatisfied goal")
        action = queue.pop(0)
        predicted = apply_all(graph, effects(graph, action))
        record = episode.step(action)
        if not record.ok and episode.graph == graph:
            # a suppressed action (I1) left the world as it was: retrying it is still optimal
            # (events due next step show up in pending_events and force a replan above)
            queue.insert(0, action)
            predicted = graph
        elif not record.ok:
            predicted = None
    return episode
