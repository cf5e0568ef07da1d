"""The episode runtime: reset(instance, seed) / step(action) in the paper's order.

Timeline of step t (Appendix B): events due at t fire, the view is projected and shown to the
agent, the agent picks a_t, preconditions are checked on the latent graph, the backend executes,
the outcome is reconciled into rewrites. `step()` runs the second half of step t and the first
half of step t+1 (its due events and view), so the observation it returns is exactly what the
agent sees at t+1, and the record of step t+1 carries the events fired before its action.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from robograph.actions import Action, check, effects
from robograph.backend import Backend, check_realizable, deadline_in
from robograph.errors import EpisodeError
from robograph.events import EventEngine, FiredEvent
from robograph.facts import Goal
from robograph.failures import ActionFailure, FailureType
from robograph.graph import SceneGraph
from robograph.instance import TaskInstance
from robograph.rewrite import Rewrite, apply_all, diff
from robograph.view import View, compute_view

SUCCESS = "success"
FAILURE = "failure"


@dataclass(slots=True)
class StepRecord:
    """One step of the trace. `events` fired at the start of this step (before the action) or,
    for I1, during it. `visible` is the view after the step. `info` is the backend's
    Execution.info for the action it executed (seconds, assists, retries; None when the backend
    was not asked, e.g. a failed precondition, or reported nothing)."""

    step: int
    action: Action
    status: str
    failure: ActionFailure | None
    events: list[FiredEvent]
    rewrites: list[Rewrite]
    visible: frozenset[str]
    satisfied: int
    goal_size: int
    done: bool = False
    success: bool = False
    raw: str | None = None
    info: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status == SUCCESS

    @property
    def failure_type(self) -> str | None:
        return self.failure.type.value if self.failure else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "step",
            "step": self.step,
            "action": self.action.to_json(),
            "status": self.status,
            "failure_type": self.failure_type,
            "message": self.failure.message if self.failure else None,
            "events": [e.to_json() for e in self.events],
            "rewrites": [r.to_json() for r in self.rewrites],
            "visible": sorted(self.visible),
            "goal_satisfied": self.satisfied,
            "goal_size": self.goal_size,
            "done": self.done,
            "success": self.success,
        }
        if self.raw is not None:
            data["raw"] = self.raw
        if self.info is not None:
            data["info"] = self.info
        return data


@dataclass
class Trace:
    instance_id: str
    seed: int
    backend: str
    initial_events: list[FiredEvent] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)

    def to_jsonl(self) -> str:
        lines = [
            json.dumps(
                {
                    "type": "episode",
                    "instance": self.instance_id,
                    "seed": self.seed,
                    "backend": self.backend,
                    "initial_events": [e.to_json() for e in self.initial_events],
                },
                sort_keys=True,
            )
        ]
        lines += [json.dumps(s.to_json(), sort_keys=True) for s in self.steps]
        return "\n".join(lines) + "\n"

    def __iter__(self) -> Iterator[StepRecord]:
        return iter(self.steps)


class Episode:
    """Closed-loop execution of one TaskInstance on one backend."""

    def __init__(self, instance: TaskInstance, backend: Backend, *, step_budget: int | None = None,
                 action_timeout: float | None = None) -> None:
        """`action_timeout`: seconds each executed action may take on the backend (its
        deadline); None: no deadline. A cancel token can be set on `self.cancel` (any object with
        `is_set()`, e.g. a threading.Event) to stop the action in progress."""
        self.instance = instance
        self.backend = backend
        self.step_budget = step_budget or instance.step_budget
        self.action_timeout = action_timeout
        self.cancel: Any = None
        self._started = False

    # lifecycle -----------------------------------------------------------------------------------
    def reset(self, seed: int = 0) -> View:
        inst = self.instance
        self.seed = seed
        self.graph: SceneGraph = inst.graph
        self.goal: Goal = inst.goal
        self.t = 0
        self.done = False
        self.terminated = False
        self.truncated = False
        self.success = False
        self.events = EventEngine(inst.events, inst.graph, inst.goal)
        self.fired: list[FiredEvent] = []
        self.backend.reset(self.graph, seed=seed)
        self.trace = Trace(inst.id, seed, self.backend.name)
        self._satisfied_cache: tuple[tuple[SceneGraph, Goal], int] | None = None
        self._pending = self._fire_due(1)
        self.trace.initial_events = list(self._pending)
        self.view = compute_view(self.graph)
        self._started = True
        return self.view

    def _fire_due(self, step: int) -> list[FiredEvent]:
        graph, goal, fired = self.events.fire_due(step, self.graph, self.goal)
        if fired:
            capabilities = getattr(self.backend, "capabilities", None)
            for ev in fired:
                if capabilities is not None:
                    check_realizable(capabilities, self.backend.name, ev.rewrites)
                self.backend.realize(graph, ev.rewrites)
            self.graph = self.backend.reconcile(graph)
            self.goal = goal
            self.fired.extend(fired)
        return fired

    # stepping ------------------------------------------------------------------------------------
    def step(self, action: Action, raw: str | None = None) -> StepRecord:
        if not self._started:
            raise EpisodeError("call reset() before step()")
        if self.done:
            raise EpisodeError(f"episode {self.instance.id} is over (step {self.t}); call reset()")
        self.t += 1
        events, self._pending = self._pending, []
        failure = check(self.graph, self.view, action, self.instance.actions)
        rewrites: list[Rewrite] = []
        info: dict[str, Any] | None = None
        if failure is None and action.name == "stop":
            self.done = self.terminated = True
            self.success = self.goal.satisfied(self.graph)
        elif failure is None:
            fired = self.events.intercept(self.t, self.graph, action)
            if fired is not None:
                events.append(fired)
                self.fired.append(fired)
                failure = ActionFailure(FailureType.EXECUTION_FAILED, fired.detail)
            else:
                failure, rewrites, info = self._execute(action)
        return self._finish(action, failure, events, rewrites, raw, info)

    def fail_step(self, failure: ActionFailure, raw: str | None = None) -> StepRecord:
        """Count a step whose action could not even be parsed (it counts against the agent)."""
        if not self._started or self.done:
            raise EpisodeError("fail_step() needs a running episode")
        self.t += 1
        events, self._pending = self._pending, []
        return self._finish(Action(""), failure, events, [], raw)

    def _execute(self, action: Action) -> tuple[ActionFailure | None, list[Rewrite], dict[str, Any] | None]:
        before = self.graph
        planned = effects(before, action)
        expected = apply_all(before, planned)
        deadline = deadline_in(self.action_timeout) if self.action_timeout is not None else None
        result = self.backend.execute(before, action, expected, deadline=deadline, cancel=self.cancel)
        observed = self.backend.reconcile(expected)
        rewrites = planned if observed is expected else diff(before, observed)
        self.graph = observed
        failure = result.failure
        if failure is None and observed is not expected and observed != expected:
            failure = ActionFailure(
                FailureType.EXECUTION_FAILED,
                f"{action} did not produce its expected outcome in {self.backend.name}",
            )
        if failure is None:
            self.events.observe_success(self.t, before, action)
        return failure, rewrites, json_info(result.info)

    def _finish(
        self,
        action: Action,
        failure: ActionFailure | None,
        events: list[FiredEvent],
        rewrites: list[Rewrite],
        raw: str | None,
        info: dict[str, Any] | None = None,
    ) -> StepRecord:
        if not self.done and self.t >= self.step_budget:
            self.done = self.truncated = True
        if not self.done:
            self._pending = self._fire_due(self.t + 1)
        self.view = compute_view(self.graph)
        goal = self.goal
        satisfied = self._satisfied_count()
        record = StepRecord(
            step=self.t,
            action=action,
            status=SUCCESS if failure is None else FAILURE,
            failure=failure,
            events=events,
            rewrites=rewrites,
            visible=self.view.visible,
            satisfied=satisfied,
            goal_size=len(goal),
            done=self.done,
            success=self.success,
            raw=raw,
            info=info,
        )
        self.trace.steps.append(record)
        return record

    def _satisfied_count(self) -> int:
        """Goal facts holding in the current graph; recounted only when the graph or the goal
        object changed (a failed action leaves both as they were)."""
        key = (self.graph, self.goal)
        cached = self._satisfied_cache
        if cached is None or cached[0][0] is not key[0] or cached[0][1] is not key[1]:
            goal = self.goal
            cached = self._satisfied_cache = (key, len(goal) - len(goal.unsatisfied(self.graph)))
        return cached[1]

    @property
    def pending_events(self) -> list[FiredEvent]:
        """Events fired at the start of the coming step (already applied to the graph)."""
        return list(self._pending)


def json_info(info: Any) -> dict[str, Any] | None:
    """Execution.info as plain JSON data (tuples -> lists, numpy scalars -> Python numbers), so
    records round-trip through the trace and results files unchanged."""
    if not info:
        return None
    return json.loads(json.dumps(dict(info), sort_keys=True, default=_plain))


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"Execution.info value {value!r} is not JSON data")
