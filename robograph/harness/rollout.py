"""One closed-loop rollout: observe -> payload -> agent -> parse -> runtime step, until stop or budget.

This is the only place where agents meet the runtime. A reply that does not parse becomes a
`parse_error` step (`Episode.fail_step`) that counts against the agent; the latent episode is
handed only to privileged agents. What the agent observes (symbolic graph, camera images or both)
is `observe.Observer`'s job; the assisted protocol (`assisted.py`) adds `valid_actions` and the
internal `recover` transition. The loop also captures the latent states metrics need, a per-step
timing breakdown (payload, render, encode, agent, parse, physics) and, on request, the head-camera
frame after every step for rollout media.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from robograph.agents.base import Agent, Reply, Request
from robograph.backend import Backend
from robograph.errors import RoboGraphError
from robograph.failures import ActionFailure, FailureType
from robograph.harness.assisted import RECOVER, AssistedProtocol
from robograph.harness.observe import (
    Observation,
    ObservationSpec,
    Observer,
    encode_image,
    frame_image,
    render_frames,
)
from robograph.harness.parse import ParseFailure, ParseResult, parse_response, scene_names
from robograph.harness.payload import PROTOCOLS, SYSTEM_PROMPT, build_payload
from robograph.instance import TaskInstance
from robograph.metrics.trace import RolloutTrace, StepState
from robograph.runtime import Episode

MEDIA_CAMERA = "head"


@dataclass(frozen=True)
class RolloutOptions:
    """How a rollout observes and decides. `media` keeps the `media_camera` frame of every state
    (PNG bytes) for contact sheets and videos; it needs a backend that renders."""

    observation: ObservationSpec = field(default_factory=ObservationSpec)
    protocol: str = "standard"
    media: bool = False
    media_camera: str = MEDIA_CAMERA

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise RoboGraphError(f"unknown protocol {self.protocol!r}; valid: {', '.join(PROTOCOLS)}")


@dataclass
class StepTiming:
    """Seconds of one step by phase; `physics` is the runtime step (backend execution and read-back)."""

    payload: float = 0.0
    render: float = 0.0
    encode: float = 0.0
    agent: float = 0.0
    parse: float = 0.0
    physics: float = 0.0

    def to_json(self) -> dict[str, float]:
        return {f"{k}_ms": round(1000.0 * v, 3) for k, v in vars(self).items()}


@dataclass
class Timing:
    """Seconds spent in the harness itself versus the agent, rendering and the runtime, per step;
    the totals are sums over the steps."""

    per_step: list[StepTiming] = field(default_factory=list)

    def _total(self, phase: str) -> float:
        return sum(getattr(step, phase) for step in self.per_step)

    @property
    def steps(self) -> int:
        return len(self.per_step)

    @property
    def payload_s(self) -> float:
        return self._total("payload")

    @property
    def parse_s(self) -> float:
        return self._total("parse")

    @property
    def agent_s(self) -> float:
        return self._total("agent")

    @property
    def runtime_s(self) -> float:
        return self._total("physics")

    @property
    def render_s(self) -> float:
        return self._total("render")

    @property
    def encode_s(self) -> float:
        return self._total("encode")

    @property
    def overhead_s(self) -> float:
        """The harness's own cost: payload, image encoding and parsing (not physics, rendering
        or the agent)."""
        return self.payload_s + self.parse_s + self.encode_s

    def add(self, step: StepTiming) -> None:
        self.per_step.append(step)


@dataclass(frozen=True)
class MediaFrame:
    """One state's camera frame: state 0 is the initial one, state k the one after step k."""

    state: int
    png: bytes
    action: str = ""
    status: str = "initial"


@dataclass
class RolloutOutcome:
    trace: RolloutTrace
    episode: Episode
    replies: list[Reply] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)
    # per step: replies the agent gave before it (the assisted protocol's `recover`)
    internal: list[list[Reply]] = field(default_factory=list)
    frames: list[MediaFrame] = field(default_factory=list)


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
    options: RolloutOptions | None = None,
) -> RolloutOutcome:
    options = options or RolloutOptions()
    observer = Observer(options.observation, backend)
    if options.media:  # fail before the rollout, not after it, when there is nothing to film
        Observer(ObservationSpec(mode="visual", cameras=(options.media_camera,)), backend)
    episode = Episode(instance, backend)
    episode.reset(seed)
    agent.reset(seed)
    assisted = AssistedProtocol() if options.protocol == "assisted" else None
    names = scene_names(episode.graph) if options.observation.visual else None
    out = RolloutOutcome(RolloutTrace(instance, seed, ()), episode)
    states: list[StepState] = []
    clock = time.perf_counter
    while not episode.done:
        before, goal, view = episode.graph, episode.goal, episode.view
        timing = StepTiming()
        t0 = clock()
        obs = observer.observe(before, view)
        timing.render, timing.encode = obs.render_s, obs.encode_s
        timing.payload = clock() - t0 - obs.render_s - obs.encode_s
        if options.media:
            _keep_frame(out, observer, obs, options, timing)
        internal: list[Reply] = []
        while True:  # more than once only for the assisted protocol's internal `recover`
            reply, parsed = _decide(episode, agent, obs, assisted, names, options.protocol, timing)
            if assisted is None or not _is_recover(parsed):
                break
            if not assisted.offers_recover(episode):
                parsed = ParseFailure("recover is valid only right after a failed execution", reply.text)
                break
            assisted.recover(episode)
            internal.append(reply)
        t3 = clock()
        if isinstance(parsed, ParseFailure):
            record = episode.fail_step(ActionFailure(FailureType.PARSE_ERROR, parsed.reason), raw=reply.text)
            ok_parse = None
        else:
            record = episode.step(parsed.action, raw=reply.text)
            ok_parse = parsed
        timing.physics = clock() - t3
        if assisted is not None:
            assisted.stepped()
        out.timing.add(timing)
        out.replies.append(reply)
        out.internal.append(internal)
        states.append(StepState(before, goal, view.visible, record, ok_parse))
    if options.media:
        _keep_frame(out, observer, None, options, None)
    out.trace = RolloutTrace(instance, seed, tuple(states))
    return out


def _decide(
    episode: Episode,
    agent: Agent,
    obs: Observation,
    assisted: AssistedProtocol | None,
    names: dict[str, str] | None,
    protocol: str,
    timing: StepTiming,
) -> tuple[Reply, ParseResult]:
    clock = time.perf_counter
    t0 = clock()
    valid = assisted.valid_actions(episode, obs.symbolic) if assisted is not None else None
    payload = build_payload(episode, obs.current_observation, protocol=protocol, valid_actions=valid)
    t1 = clock()
    latent = episode if getattr(agent, "privileged", False) else None
    reply = agent.act(Request(SYSTEM_PROMPT, payload, obs.images, latent, obs.frames))
    t2 = clock()
    parsed = parse_response(reply.text, obs.symbolic, names)
    timing.payload += t1 - t0
    timing.agent += t2 - t1
    timing.parse += clock() - t2
    return reply, parsed


def _is_recover(parsed: ParseResult) -> bool:
    return not isinstance(parsed, ParseFailure) and parsed.action.name == RECOVER


def _keep_frame(
    out: RolloutOutcome, observer: Observer, obs: Observation | None, options: RolloutOptions,
    timing: StepTiming | None,
) -> None:
    """Keep the media camera's frame of the current state, reusing the observation's render."""
    frames = obs.frames if obs is not None else {}
    t0 = time.perf_counter()
    if options.media_camera not in frames:
        frames = render_frames(observer.backend, [options.media_camera])
    t1 = time.perf_counter()
    png = encode_image(frame_image(frames[options.media_camera]))
    t2 = time.perf_counter()
    if timing is not None:
        timing.render += t1 - t0
        timing.encode += t2 - t1
    state = len(out.frames)
    if state == 0:
        out.frames.append(MediaFrame(0, png))
        return
    record = out.episode.trace.steps[state - 1]
    out.frames.append(MediaFrame(state, png, str(record.action), record.status))


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
