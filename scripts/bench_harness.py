"""Harness throughput: the oracle and the explorer over all 588 benchmark episodes on the
symbolic backend with 2 worker processes. Prints rollouts/s per agent and the per-step harness
overhead (payload build + reply parse). Target: both agents over all 588 episodes in <= 20 s on
2 idle cores (issue 13); `cpu_seconds` (runner + workers) is the load-independent figure.

Usage: python scripts/bench_harness.py [--bench runs/bench] [--workers 2] [--limit N] [--json]
The benchmark is compiled into --bench first if it is not there. --demo runs the seven demo
conditions instead (no compiler needed).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _instances import demo_conditions
from _timing import cpu_seconds

from robograph.harness.benchmark import ensure_benchmark
from robograph.harness.runner import RunSpec, run
from robograph.harness.store import rollout_records

AGENTS = ("oracle", "explorer")
TARGET_S = 20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="runs/bench")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--demo", action="store_true", help="use the demo conditions, not the benchmark")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    figures: dict[str, object] = {"workers": args.workers}
    with tempfile.TemporaryDirectory() as tmp:
        episodes = demo_conditions(Path(tmp) / "demo") if args.demo else ensure_benchmark(Path(args.bench))
        total_s = steps = rollouts = 0
        overhead = 0.0
        cpu0 = cpu_seconds()
        for agent in AGENTS:
            out = Path(tmp) / agent
            t0 = time.perf_counter()
            s = run(RunSpec(str(episodes), agent, str(out), workers=args.workers, limit=args.limit, progress=False))
            dt = time.perf_counter() - t0
            recs = rollout_records(out)
            sr = 100.0 * sum(r["metrics"]["success"] for r in recs) / len(recs) if recs else 0.0
            figures[agent] = {"rollouts": s.completed, "errors": s.errors, "seconds": round(dt, 2),
                              "rollouts_per_s": round(s.completed / dt, 1), "steps": s.steps,
                              "overhead_ms_per_step": round(s.overhead_ms_per_step, 4), "SR": round(sr, 1)}
            total_s += dt
            steps += s.steps
            rollouts += s.completed
            overhead += s.overhead_s
            print(f"{agent:9s} {s.completed:4d} rollouts ({s.errors} errors) in {dt:6.2f} s = "
                  f"{s.completed / dt:6.1f} rollouts/s, {s.steps} steps, harness overhead "
                  f"{s.overhead_ms_per_step:.3f} ms/step, SR {sr:.1f}%")
        cpu = cpu_seconds() - cpu0
    # CPU of the runner and its workers (reaped pool processes): comparable across machine loads
    figures.update(seconds_total=round(total_s, 2), cpu_seconds=round(cpu, 2), rollouts=rollouts, steps=steps,
                   overhead_ms_per_step=round(1000 * overhead / steps, 4) if steps else 0.0,
                   target_s=TARGET_S, within_target=total_s <= TARGET_S)
    print(f"total {total_s:.2f} s ({cpu:.1f} CPU s) for {rollouts} rollouts (target <= {TARGET_S} s: "
          f"{'met' if total_s <= TARGET_S else 'missed'})")
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
