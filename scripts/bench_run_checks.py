"""What the run's safety checks cost before the first rollout: listing the instances, building
the agent and backend once (fail fast), the instance-set digest recorded in run.json, and the
code-and-assets digest that decides whether a compiled benchmark is reused.

Usage: python scripts/bench_run_checks.py [--bench runs/bench] [--agent explorer] [--repeat 5] [--json]
The benchmark is compiled into --bench first if it is not current. Figures are medians in seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import is_current
from robograph.harness.benchmark import ensure_benchmark
from robograph.harness.runner import RunSpec, check_agent_and_backend, instance_digest, plan_jobs


def _median_s(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 4)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="runs/bench")
    ap.add_argument("--agent", default="explorer")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    bench = Path(args.bench)
    episodes = ensure_benchmark(bench)
    spec = RunSpec(str(episodes), args.agent, str(bench / "unused"), progress=False)
    jobs = plan_jobs(spec)
    files = sorted({Path(j.instance_path) for j in jobs})
    assets = load_assets()
    figures = {
        "instances": len(files),
        "plan_s": _median_s(lambda: plan_jobs(spec), args.repeat),
        "agent_backend_check_s": _median_s(lambda: check_agent_and_backend(spec), args.repeat),
        "instances_digest_s": _median_s(lambda: instance_digest(files, spec.seeds), args.repeat),
        "load_assets_s": _median_s(load_assets, args.repeat),
        "benchmark_digest_s": _median_s(lambda: is_current(bench, assets), args.repeat),
    }
    for key, value in figures.items():
        print(f"{key:24s} {value}")
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
