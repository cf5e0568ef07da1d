"""`robograph run`: run an agent over a directory of instances, in parallel, resumably.

Rollouts run in worker processes (`concurrent.futures.ProcessPoolExecutor`) or on a Ray cluster
(`--executor ray`); the parent process is the only writer of the run directory. A rerun of the
same command resumes: complete rollouts are skipped, torn tails trimmed, infrastructure errors
retried. See `store.py` for the file layout and its guarantees.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from robograph.errors import DependencyNotInstalled, RoboGraphError
from robograph.harness.jobs import Job, JobResult, public_options, run_job
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
from robograph.registry import backend_factory, check_options, parse_backend_opts

EXECUTORS = ("local", "ray")


class RunConfigError(RoboGraphError):
    """A resumed run was started with a different agent, backend or instance set."""


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
    if (p / "episodes").is_dir():
        p = p / "episodes"
    files = sorted(f for f in p.iterdir() if f.suffix.lower() in (".json", ".yaml", ".yml"))
    if not files:
        raise RoboGraphError(f"no instance files (*.json, *.yaml) in {path}")
    return files


def plan_jobs(spec: RunSpec) -> list[Job]:
    files = find_instances(spec.instances)
    if spec.limit is not None:
        files = files[: spec.limit]
    return [
        Job(str(f), seed, spec.agent, spec.backend, dict(spec.agent_options), dict(spec.backend_options))
        for f in files
        for seed in range(spec.seeds)
    ]


def _check_config(run: Path, spec: RunSpec) -> None:
    mine = {"agent": spec.agent, "backend": spec.backend, "agent_options": public_options(spec.agent_options),
            "backend_options": dict(spec.backend_options)}
    path = run / CONFIG
    if path.exists():
        old = {"backend_options": {}, **json.loads(path.read_text(encoding="utf-8"))}  # runs from before the option
        theirs = {k: old.get(k) for k in mine}
        if theirs != mine:
            raise RunConfigError(
                f"{run} holds a run of {theirs}; this command asks for {mine}. Use another --out."
            )
    else:
        path.write_text(json.dumps({**mine, "instances": spec.instances}, indent=1, sort_keys=True) + "\n")


def _local(jobs: Sequence[Job], workers: int) -> Iterator[JobResult]:
    if workers <= 1:
        for job in jobs:
            yield run_job(job)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
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


def _ray(jobs: Sequence[Job], workers: int) -> Iterator[JobResult]:
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


EXECUTOR_FUNCS: Mapping[str, Callable[[Sequence[Job], int], Iterable[JobResult]]] = {
    "local": _local,
    "ray": _ray,
}


def run(spec: RunSpec) -> RunSummary:
    # an unknown backend or option fails here, once, not as one infrastructure error per rollout
    check_options(spec.backend, backend_factory(spec.backend), spec.backend_options)
    run_dir = Path(spec.out)
    run_dir.mkdir(parents=True, exist_ok=True)
    _check_config(run_dir, spec)
    done = recover_log(run_dir / LOG)
    jobs = plan_jobs(spec)
    todo = [j for j in jobs if j.key not in done]
    start = time.perf_counter()
    completed = errors = steps = 0
    overhead = 0.0
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), unit="rollout", disable=not spec.progress,
               desc=spec.agent, file=sys.stderr)
    try:
        for result in EXECUTOR_FUNCS[spec.executor](todo, spec.workers):
            if result.error is not None:
                errors += 1
                append_atomic(run_dir / ERRORS, [dumps(result.error)], spec.durable)
            else:
                append_atomic(run_dir / LOG, result.lines, spec.durable)
                completed += 1
                steps += result.steps
                overhead += result.overhead_s
            bar.update(1)
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    summary = RunSummary(len(jobs), len(jobs) - len(todo), completed, errors, steps, seconds, overhead)
    if len(recover_log(run_dir / LOG)) == len(jobs):
        write_results(run_dir)
    (run_dir / TIMING).write_text(json.dumps(summary.to_json(), indent=1) + "\n", encoding="utf-8")
    return summary


# CLI -------------------------------------------------------------------------------------------
def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """`key=value` pairs; values are JSON when they parse (true, 3, 0.5), else strings."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise RoboGraphError(f"agent option {pair!r} is not key=value")
        key, value = pair.split("=", 1)
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    from robograph.agents import AGENTS

    p.add_argument("--agent", default="explorer", choices=sorted(AGENTS))
    p.add_argument("--backend", default="symbolic")
    p.add_argument("--backend-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="backend option, e.g. mode=assisted (repeatable; values are YAML scalars)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--executor", default="local", choices=EXECUTORS)
    p.add_argument("--limit", type=int, default=None, help="run only the first N instances")
    p.add_argument("--seeds", type=int, default=1, help="rollouts per instance (seeds 0..N-1)")
    p.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="agent option, e.g. memory=false or model=gpt-4o (repeatable)")
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
