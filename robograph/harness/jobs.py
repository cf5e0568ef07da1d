"""One unit of work (a rollout) and the function a worker process runs for it.

A `Job` is plain picklable data; `run_job` loads the instance, builds the agent and backend
in the worker, runs the rollout, computes its metrics there and returns finished JSONL lines.
Infrastructure failures (API down, backend crash, a bug) come back as an error record instead of
an exception, so one bad rollout never stops a run and is retried on resume.
"""

from __future__ import annotations

import atexit
import functools
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robograph.agents import AgentUnavailable, make_agent
from robograph.backend import Backend, InfoTotals
from robograph.errors import BackendError
from robograph.harness.rollout import RolloutOptions, run_rollout
from robograph.harness.store import MEASURED, dumps
from robograph.instance import TaskInstance, load_instance
from robograph.metrics.rollout import rollout_metrics


@dataclass(frozen=True)
class Job:
    instance_path: str
    seed: int
    agent: str
    backend: str = "symbolic"
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    options: RolloutOptions = field(default_factory=RolloutOptions)
    media_dir: str | None = None
    rerun: bool = False

    @property
    def key(self) -> str:
        return f"{_stem(self.instance_path)}#{self.seed}"


SECRET_WORDS = ("key", "token", "secret", "password")


def public_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Agent options safe to write to disk: credentials are replaced by a marker."""
    return {k: ("<redacted>" if any(w in k.lower() for w in SECRET_WORDS) else v) for k, v in options.items()}


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name


@dataclass
class JobResult:
    key: str
    lines: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None
    steps: int = 0
    seconds: float = 0.0
    overhead_s: float = 0.0


@functools.cache
def _backend_factory(name: str) -> Callable[..., Backend]:
    """Entry-point lookup costs ~15 ms (it scans installed distributions); do it once per worker
    process and backend name. Unknown names fail exactly like `make_backend`."""
    from robograph.registry import backend_factory

    return backend_factory(name)


def build_backend(name: str, options: Mapping[str, Any]) -> Backend:
    """A backend with its options, checked against the factory (unknown keys name the valid ones)."""
    from robograph.registry import check_options

    factory = _backend_factory(name)
    check_options(name, factory, options)
    return factory(**dict(options))


class WorkerBackends:
    """The one live backend a worker keeps across its rollouts, so a run of many rollouts does
    not pay the backend's construction (imports, option checks, a renderer's GL context where the
    backend keeps one across `reset`) per rollout. A rollout that raised leaves the backend in an
    unknown state: it is closed and the next rollout builds a fresh one."""

    def __init__(self) -> None:
        self.key: tuple[str, str] | None = None
        self.backend: Backend | None = None
        self.built = 0  # backends constructed so far (the benchmark reports reuse with it)

    def get(self, name: str, options: Mapping[str, Any]) -> Backend:
        key = (name, dumps(dict(options)))
        if self.backend is None or key != self.key:
            self.discard()
            self.backend = build_backend(name, options)
            self.key = key
            self.built += 1
        return self.backend

    def discard(self) -> None:
        if self.backend is not None:
            backend, self.backend, self.key = self.backend, None, None
            backend.close()

    def __enter__(self) -> WorkerBackends:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()


@functools.cache
def process_backends() -> WorkerBackends:
    """This worker process's backends (pool and Ray workers run many jobs each); closed at exit."""
    backends = WorkerBackends()
    atexit.register(backends.discard)
    return backends


def describe(inst: TaskInstance) -> dict[str, Any]:
    meta = inst.metadata
    return {
        "instance": inst.id,
        "domain": inst.domain,
        "family": str(meta.get("family", inst.task_type)),
        "scene": str(meta.get("scene_id", meta.get("scene", inst.id))),
        "condition": inst.condition,
    }


def run_job(job: Job, backends: WorkerBackends | None = None) -> JobResult:
    """`backends`: where the worker keeps its live backend (default: this process's)."""
    start = time.perf_counter()
    backends = backends if backends is not None else process_backends()
    try:
        inst = load_instance(job.instance_path)
        agent = make_agent(job.agent, **dict(job.agent_options))
        backend = backends.get(job.backend, job.backend_options)
        try:
            outcome = run_rollout(inst, agent, backend, seed=job.seed, options=job.options)
        except BaseException:
            backends.discard()
            raise
        metrics = rollout_metrics(outcome.trace)
        if job.media_dir is not None:
            from robograph.harness.media import write_rollout_media

            states = outcome.trace.states  # nodes in view per media state: initial, then after each step
            views = [sorted(states[0].visible_before)] + [sorted(s.record.visible) for s in states] if states else []
            write_rollout_media(outcome.frames, Path(job.media_dir) / job.key.replace("#", "_seed"), job.rerun, views)
    except AgentUnavailable as exc:
        return JobResult(job.key, error=_error(job, "agent_unavailable", exc))
    except BackendError as exc:
        return JobResult(job.key, error=_error(job, "backend_error", exc))
    except Exception as exc:  # noqa: BLE001 - a bug must not kill the whole run; it is recorded
        return JobResult(job.key, error=_error(job, "crash", exc, traceback.format_exc()))
    base = {"key": job.key, "seed": job.seed, "agent": job.agent, **describe(inst)}
    lines = []
    totals = InfoTotals()
    steps = zip(outcome.trace.states, outcome.replies, outcome.internal, outcome.timing.per_step, strict=True)
    for state, reply, internal, timing in steps:
        totals.add(state.record.info)
        rec = state.record.to_json()
        rec.update(base)
        if state.parsed is not None:
            rec["recovery"] = state.parsed.to_json()["recovery"]
        spent = [reply, *internal]  # an assisted `recover` costs a call but no step
        rec["tokens"] = [sum(r.prompt_tokens for r in spent), sum(r.completion_tokens for r in spent)]
        if internal:
            rec["internal"] = [{"action": "recover", "raw": r.text} for r in internal]
        rec[MEASURED] = {**timing.to_json(), "agent_latency_ms": round(1000.0 * sum(r.latency_s for r in spent), 3)}
        lines.append(dumps(rec))
    lines.append(
        dumps({**base, "type": "rollout", "backend": job.backend, "backend_options": dict(job.backend_options),
               "options": public_options(job.agent_options), "metrics": metrics,
               "observation": job.options.observation.mode, "protocol": job.options.protocol,
               "execution": {"assists": totals.assist_count, "assists_per_kind": totals.assists,
                             "retries": totals.retries}})
    )
    timing = outcome.timing
    return JobResult(
        job.key, lines, steps=timing.steps, seconds=time.perf_counter() - start, overhead_s=timing.overhead_s
    )


def _error(job: Job, kind: str, exc: BaseException, tb: str | None = None) -> dict[str, Any]:
    rec = {
        "type": "infra_error",
        "key": job.key,
        "kind": kind,
        "error": type(exc).__name__,
        "message": str(exc),
        "time": time.time(),
    }
    if tb:
        rec["traceback"] = tb
    return rec
