"""`robograph run`: run an agent over a directory of instances, in parallel, resumably.

Rollouts run in worker processes (`robograph.pool`, which ties the workers' lives to this
process) or on a Ray cluster (`--executor ray`); the parent process is the only writer of the run
directory. Before anything is written the configuration is checked once (instances exist, the
agent and backend build), so a bad flag is one error, not one crash record per rollout. A rerun
of the same command resumes: complete rollouts are skipped, torn tails trimmed, infrastructure
errors retried; a rerun with other instances or seeds is refused (the run file records a digest
of both). Ctrl-C stops the run at once and keeps every rollout already written. See `store.py`
for the file layout and its guarantees.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from robograph.agents import make_agent
from robograph.errors import DependencyNotInstalled, RoboGraphError
from robograph.fileio import write_text_atomic
from robograph.harness.jobs import Job, JobResult, WorkerBackends, public_options, run_job
from robograph.harness.observe import IMAGE_FORMATS, OBSERVATION_MODES, ObservationSpec, require_cameras
from robograph.harness.payload import PROTOCOLS
from robograph.harness.rollout import RolloutOptions
from robograph.harness.store import (
    CONFIG,
    ERRORS,
    LOG,
    TIMING,
    append_atomic,
    dumps,
    recover_log,
    write_results,
)
from robograph.pool import worker_pool
from robograph.registry import make_backend, parse_backend_opts

EXECUTORS = ("local", "ray")


class RunConfigError(RoboGraphError):
    """A resumed run was started with a different agent, backend, instance set or seeds."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; everything written before it is kept. Carries the summary so far."""

    def __init__(self, summary: RunSummary, out: str) -> None:
        self.summary = summary
        super().__init__(
            f"interrupted: {summary.completed} rollout(s) written in this session, "
            f"{summary.completed + summary.skipped} of {summary.total} done in {out}; "
            "rerun the same command to resume"
        )


@dataclass(frozen=True)
class RunSpec:
    instances: str
    agent: str
    out: str
    backend: str = "symbolic"
    workers: int = 2
    executor: str = "local"
    limit: int | None = None
    seeds: int = 1
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    durable: bool = True
    progress: bool = True
    options: RolloutOptions = field(default_factory=RolloutOptions)
    media: str | None = None
    rerun: bool = False


@dataclass
class RunSummary:
    total: int
    skipped: int
    completed: int
    errors: int
    steps: int
    seconds: float
    overhead_s: float

    @property
    def rollouts_per_s(self) -> float:
        return self.completed / self.seconds if self.seconds else 0.0

    @property
    def overhead_ms_per_step(self) -> float:
        return 1000.0 * self.overhead_s / self.steps if self.steps else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "skipped": self.skipped,
            "completed": self.completed,
            "errors": self.errors,
            "steps": self.steps,
            "seconds": round(self.seconds, 3),
            "rollouts_per_s": round(self.rollouts_per_s, 2),
            "overhead_ms_per_step": round(self.overhead_ms_per_step, 4),
        }


def find_instances(path: str | Path) -> list[Path]:
    """Instance files under a directory (or `episodes/` inside it), sorted; or one file."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise RoboGraphError(f"--instances {path}: no such file or directory")
    if (p / "episodes").is_dir():
        p = p / "episodes"
    files = sorted(f for f in p.iterdir() if f.suffix.lower() in (".json", ".yaml", ".yml"))
    if not files:
        raise RoboGraphError(f"--instances {path}: no instance files (*.json, *.yaml) in it")
    return files


def plan_jobs(spec: RunSpec) -> list[Job]:
    return [
        Job(str(f), seed, spec.agent, spec.backend, dict(spec.agent_options), dict(spec.backend_options),
            spec.options, spec.media, spec.rerun)
        for f in _instance_files(spec)
        for seed in range(spec.seeds)
    ]


def _instance_files(spec: RunSpec) -> list[Path]:
    files = find_instances(spec.instances)
    return files[: spec.limit] if spec.limit is not None else files


def instance_digest(files: Sequence[Path], seeds: int) -> str:
    """What a run's results depend on besides agent and backend: every instance file's name and
    bytes, and the seeds. A resume with another digest would mix two experiments in one file."""
    h = hashlib.sha256(f"seeds={seeds}\n".encode())
    for f in files:
        h.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def check_agent_and_backend(spec: RunSpec) -> None:
    """Build the agent and the backend once, here, so a bad configuration is one clear error
    before anything is dispatched (workers build their own copies per rollout)."""
    if spec.workers < 1 or spec.seeds < 1 or (spec.limit is not None and spec.limit < 1):
        raise RoboGraphError("--workers, --seeds and --limit must be at least 1")
    if spec.executor not in EXECUTOR_FUNCS:
        raise RoboGraphError(f"unknown --executor {spec.executor!r}; valid: {', '.join(EXECUTOR_FUNCS)}")
    if spec.executor == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise DependencyNotInstalled("ray", "ray") from None
    make_agent(spec.agent, **dict(spec.agent_options))
    backend = make_backend(spec.backend, **dict(spec.backend_options))  # unknown options name the valid ones
    try:
        require_cameras(spec.options.observation, backend)
        if spec.media is not None:
            require_cameras(ObservationSpec(mode="visual"), backend)
    finally:
        backend.close()
    if spec.rerun:
        try:
            import rerun  # noqa: F401
        except ImportError:
            raise DependencyNotInstalled("rerun-sdk", "rerun") from None


# run-file keys added after runs already existed, with the value those older runs had
RECORD_DEFAULTS: Mapping[str, Any] = {"backend_options": {}, "observation": "symbolic", "protocol": "standard"}


def _run_record(spec: RunSpec, jobs: Sequence[Job]) -> dict[str, Any]:
    files = list(dict.fromkeys(Path(j.instance_path) for j in jobs))
    obs = spec.options.observation
    return {
        "agent": spec.agent,
        "backend": spec.backend,
        "agent_options": public_options(spec.agent_options),
        "backend_options": dict(spec.backend_options),
        "seeds": spec.seeds,
        "instances_digest": instance_digest(files, spec.seeds),
        "observation": obs.mode,
        "protocol": spec.options.protocol,
        **({"images": {"format": obs.image_format, "size": obs.image_size}} if obs.visual else {}),
    }


def _check_config(run: Path, spec: RunSpec, jobs: Sequence[Job]) -> None:
    """Refuse to resume a run made with another configuration; record it for a new one."""
    mine = _run_record(spec, jobs)
    path = run / CONFIG
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        differ = [k for k in mine if old.get(k, RECORD_DEFAULTS.get(k)) != mine[k]]
        if differ:
            theirs = ", ".join(f"{k}={old.get(k)!r}" for k in differ)
            asked = ", ".join(f"{k}={mine[k]!r}" for k in differ)
            raise RunConfigError(
                f"{run} holds a run made with {theirs}; this command asks for {asked} "
                "(instances_digest covers the instance files and their contents). Use another --out."
            )
        return
    record = {**mine, "instances": spec.instances, "rollouts": [j.key for j in jobs]}
    write_text_atomic(path, json.dumps(record, indent=1, sort_keys=True) + "\n", spec.durable)


def _local(jobs: Sequence[Job], workers: int) -> Generator[JobResult, None, None]:
    if workers <= 1:
        with WorkerBackends() as backends:  # one backend for the whole run, closed when it ends
            for job in jobs:
                yield run_job(job, backends)
        return
    with worker_pool(workers) as pool:  # Ctrl-C or a closed generator stops the workers at once
        todo = iter(jobs)
        running: set[Future[JobResult]] = set()
        # keep a bounded window in flight so a kill loses little and memory stays flat
        for job in todo:
            running.add(pool.submit(run_job, job))
            if len(running) >= workers * 4:
                break
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()
                nxt = next(todo, None)
                if nxt is not None:
                    running.add(pool.submit(run_job, nxt))


def _ray(jobs: Sequence[Job], workers: int) -> Generator[JobResult, None, None]:
    try:
        import ray
    except ImportError:
        raise DependencyNotInstalled("ray", "ray") from None
    if not ray.is_initialized():
        ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
    remote = ray.remote(run_job)
    pending = [remote.remote(job) for job in jobs]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            yield ray.get(ref)


EXECUTOR_FUNCS: Mapping[str, Callable[[Sequence[Job], int], Generator[JobResult, None, None]]] = {
    "local": _local,
    "ray": _ray,
}


def run(spec: RunSpec) -> RunSummary:
    jobs = plan_jobs(spec)
    check_agent_and_backend(spec)
    run_dir = Path(spec.out)  # nothing is written before the inputs are known to be good
    run_dir.mkdir(parents=True, exist_ok=True)
    _check_config(run_dir, spec, jobs)
    done = recover_log(run_dir / LOG)
    todo = [j for j in jobs if j.key not in done]
    start = time.perf_counter()
    summary = RunSummary(len(jobs), len(jobs) - len(todo), 0, 0, 0, 0.0, 0.0)
    bar = tqdm(total=len(jobs), initial=summary.skipped, unit="rollout", disable=not spec.progress,
               desc=spec.agent, file=sys.stderr)
    results = EXECUTOR_FUNCS[spec.executor](todo, spec.workers)
    try:
        for result in results:
            if result.error is not None:
                summary.errors += 1
                append_atomic(run_dir / ERRORS, [dumps(result.error)], spec.durable)
            else:
                append_atomic(run_dir / LOG, result.lines, spec.durable)
                summary.completed += 1
                summary.steps += result.steps
                summary.overhead_s += result.overhead_s
            bar.update(1)
    except KeyboardInterrupt:
        results.close()
        # the interrupt may land between a write and its count: the log is the truth
        summary.completed = len(recover_log(run_dir / LOG) - done)
        summary.seconds = time.perf_counter() - start
        _write_timing(run_dir, summary, spec.durable, interrupted=True)
        raise RunInterrupted(summary, spec.out) from None
    finally:
        bar.close()
    summary.seconds = time.perf_counter() - start
    if {j.key for j in jobs} <= recover_log(run_dir / LOG):
        write_results(run_dir)
    _write_timing(run_dir, summary, spec.durable)
    return summary


def _write_timing(run_dir: Path, summary: RunSummary, durable: bool, interrupted: bool = False) -> None:
    record = {**summary.to_json(), **({"interrupted": True} if interrupted else {})}
    write_text_atomic(run_dir / TIMING, json.dumps(record, indent=1) + "\n", durable)


# CLI -------------------------------------------------------------------------------------------
def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """`key=value` pairs; values are JSON when they parse (true, 3, 0.5), else strings."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise RoboGraphError(f"--agent-opt {pair!r} is not KEY=VALUE (e.g. --agent-opt memory=false)")
        key, value = pair.split("=", 1)
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    from robograph.agents import AGENTS
    from robograph.registry import backend_names

    p.add_argument("--agent", default="explorer", choices=sorted(AGENTS))
    p.add_argument("--backend", default="symbolic", choices=backend_names() or ["symbolic"])
    p.add_argument("--workers", type=positive_int, default=2)
    p.add_argument("--executor", default="local", choices=EXECUTORS)
    p.add_argument("--limit", type=positive_int, default=None, help="run only the first N instances")
    p.add_argument("--seeds", type=positive_int, default=1, help="rollouts per instance (seeds 0..N-1)")
    p.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="agent option, e.g. memory=false or model=gpt-4o (repeatable)")
    p.add_argument("--backend-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="backend option, e.g. mode=assisted (repeatable; values are YAML scalars)")
    p.add_argument("--observation", default="symbolic", choices=OBSERVATION_MODES,
                   help="what the agent sees: the scene graph, the camera images, or both")
    p.add_argument("--image-format", default="png", choices=IMAGE_FORMATS, help="encoding of sent images")
    p.add_argument("--image-size", type=positive_int, default=None, metavar="PX",
                   help="cap the longer side of each sent image (default: as rendered)")
    p.add_argument("--protocol", default="standard", choices=PROTOCOLS,
                   help="assisted: the payload carries valid_actions and recover (paper, Table 9)")
    p.add_argument("--media", default=None, metavar="DIR",
                   help="write a contact sheet and an MP4 of the head camera per rollout under DIR")
    p.add_argument("--rerun", action="store_true", help="with --media: also a Rerun .rrd per rollout")
    p.add_argument("--no-progress", action="store_true")


def spec_from_args(args: argparse.Namespace, instances: str, out: str) -> RunSpec:
    return RunSpec(
        instances=instances,
        agent=args.agent,
        out=out,
        backend=args.backend,
        workers=args.workers,
        executor=args.executor,
        limit=args.limit,
        seeds=args.seeds,
        agent_options=parse_options(args.agent_opt),
        backend_options=parse_backend_opts(getattr(args, "backend_opt", [])),
        progress=not args.no_progress,
        options=RolloutOptions(
            ObservationSpec(args.observation, args.image_format, args.image_size), args.protocol,
            media=args.media is not None,
        ),
        media=args.media,
        rerun=args.rerun,
    )


def _cmd_run(args: argparse.Namespace) -> int:
    summary = run(spec_from_args(args, args.instances, args.out))
    print(
        f"{summary.completed} rollout(s) run, {summary.skipped} already done, {summary.errors} "
        f"infrastructure error(s) in {summary.seconds:.1f} s ({summary.rollouts_per_s:.1f} rollouts/s)"
    )
    if summary.errors:
        print(f"errors are in {Path(args.out) / ERRORS}; rerun the same command to retry them", file=sys.stderr)
    return 1 if summary.errors else 0


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run an agent over instances; resumable, parallel")
    p.add_argument("--instances", required=True, metavar="DIR")
    p.add_argument("--out", required=True, metavar="RUN")
    add_run_arguments(p)
    p.set_defaults(handler=_cmd_run)
