"""The oracle upper bound: acts on the exact shortest plan from the full latent state at every
step, so it recovers from every intervention as soon as it fires. Privileged: it receives the
latent `Episode` (never the case for any other agent).

Replanning every step is equivalent to keeping the current plan while the latent state and goal
are exactly the ones the plan predicted (a suffix of a shortest plan is a shortest plan), so the
agent searches again only when the world deviates (an event fired). When an action failed
without changing anything (I1) the state is the one the plan was made for, so the plan stands;
at G0 the compiler's verified shortest plan (`metadata.oracle_plan`) is used when present.
"""

from __future__ import annotations

from robograph.actions import Action, effects
from robograph.agents.base import AgentError, Reply, Request, previous_failure, reply_text
from robograph.facts import Goal
from robograph.graph import SceneGraph
from robograph.instance import TaskInstance
from robograph.rewrite import apply_all


class OracleAgent:
    name = "oracle"
    privileged = True

    def __init__(self) -> None:
        self._plan: list[Action] = []
        self._expect: tuple[SceneGraph, Goal] | None = None
        self._before: tuple[SceneGraph, Goal, list[Action]] | None = None

    def reset(self, seed: int) -> None:
        self._plan = []
        self._expect = None
        self._before = None

    def _replan(self, graph: SceneGraph, goal: Goal, instance: TaskInstance) -> list[Action]:
        from robograph.oracle import solve

        if self._before is not None and self._before[:2] == (graph, goal):
            return list(self._before[2])  # nothing changed (e.g. an injected failure): same plan
        if self._before is None and (graph, goal) == (instance.graph, instance.goal):
            stored = instance.metadata.get("oracle_plan")
            if isinstance(stored, list) and stored:  # the compiler's verified plan for G0
                return [Action.parse(str(a)) for a in stored]
        return list(solve(graph, goal, instance.actions).actions)

    def act(self, request: Request) -> Reply:
        episode = request.latent
        if episode is None:
            raise AgentError("the oracle agent is privileged: the runner must pass the latent episode")
        graph, goal = episode.graph, episode.goal
        if self._expect is None or self._expect != (graph, goal):
            self._plan = self._replan(graph, goal, episode.instance)
        self._before = (graph, goal, list(self._plan))
        action = self._plan.pop(0) if self._plan else Action("stop")
        self._expect = (apply_all(graph, effects(graph, action)), goal) if action.name != "stop" else None
        prev = previous_failure(request.payload)
        failed = prev[0] if prev is not None and action.name != "stop" else None
        return Reply(reply_text(action, f"optimal plan: {len(self._plan) + 1} action(s) left", failed))
