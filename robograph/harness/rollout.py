"""One closed-loop rollout: payload -> agent -> parse -> runtime step, until stop or budget.

This is the only place where agents meet the runtime. A reply that does not parse becomes a
`parse_error` step (`Episode.fail_step`) that counts against the agent; the latent episode is
handed only to privileged agents. The loop also captures the latent states metrics need and
measures the harness's own overhead (payload build + parse), which `scripts/bench_harness.py`
reports.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from robograph.agents.base import Agent, Reply, Request
from robograph.backend import Backend
from robograph.failures import ActionFailure, FailureType
from robograph.harness.parse import ParseFailure, parse_response
from robograph.harness.payload import SYSTEM_PROMPT, build_payload
from robograph.instance import TaskInstance
from robograph.metrics.trace import RolloutTrace, StepState
from robograph.runtime import Episode
from robograph.view import observation


@dataclass
class Timing:
    """Seconds spent in the harness itself versus the agent and the runtime."""

    payload_s: float = 0.0
    parse_s: float = 0.0
    agent_s: float = 0.0
    runtime_s: float = 0.0
    steps: int = 0

    @property
    def overhead_s(self) -> float:
        return self.payload_s + self.parse_s


@dataclass
class RolloutOutcome:
    trace: RolloutTrace
    episode: Episode
    replies: list[Reply] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)


class ScriptedReplies:
    """An agent that plays back recorded reply texts (then stops): replay and tests."""

    name = "scripted"
    privileged = False

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.i = 0

    def reset(self, seed: int) -> None:
        self.i = 0

    def act(self, request: Request) -> Reply:
        text = self.replies[self.i] if self.i < len(self.replies) else '{"action": {"name": "stop"}}'
        self.i += 1
        return Reply(text)


def run_rollout(
    instance: TaskInstance,
    agent: Agent,
    backend: Backend,
    seed: int = 0,
) -> RolloutOutcome:
    episode = Episode(instance, backend)
    episode.reset(seed)
    agent.reset(seed)
    timing = Timing()
    states: list[StepState] = []
    replies: list[Reply] = []
    clock = time.perf_counter
    while not episode.done:
        before, goal, view = episode.graph, episode.goal, episode.view
        t0 = clock()
        obs = observation(before, view)
        payload = build_payload(episode, obs)
        t1 = clock()
        reply = agent.act(
            Request(SYSTEM_PROMPT, payload, latent=episode if getattr(agent, "privileged", False) else None)
        )
        t2 = clock()
        parsed = parse_response(reply.text, obs)
        t3 = clock()
        if isinstance(parsed, ParseFailure):
            record = episode.fail_step(ActionFailure(FailureType.PARSE_ERROR, parsed.reason), raw=reply.text)
            ok_parse = None
        else:
            record = episode.step(parsed.action, raw=reply.text)
            ok_parse = parsed
        t4 = clock()
        timing.payload_s += t1 - t0
        timing.agent_s += t2 - t1
        timing.parse_s += t3 - t2
        timing.runtime_s += t4 - t3
        timing.steps += 1
        replies.append(reply)
        states.append(StepState(before, goal, view.visible, record, ok_parse))
    trace = RolloutTrace(instance, seed, tuple(states))
    return RolloutOutcome(trace, episode, replies, timing)


def replay(
    instance: TaskInstance,
    replies: Iterable[str],
    seed: int = 0,
    backend_name: str = "symbolic",
) -> RolloutTrace:
    """Re-run an instance with recorded raw replies (deterministic on the symbolic backend), so
    metrics can be recomputed from a results file."""
    from robograph.registry import make_backend

    backend = make_backend(backend_name)
    try:
        return run_rollout(instance, ScriptedReplies(list(replies)), backend, seed=seed).trace
    finally:
        backend.close()
