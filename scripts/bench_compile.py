"""Benchmark the compiler: compile RoboGraphBench (84 scenes x 7 conditions) from scratch and
report the wall time and the oracle time per scene (median, max).

    python scripts/bench_compile.py [--jobs N] [--scenes A,B] [--out DIR] [--json]

Without --out the benchmark is compiled into a temporary directory with the cache disabled, so the
figure is a cold compile. With --json the last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from _timing import cpu_seconds

from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import compile_benchmark


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--scenes", default=None, help="comma-separated subset of scene ids")
    parser.add_argument("--out", default=None, help="output directory (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    assets = load_assets()
    scenes = args.scenes.split(",") if args.scenes else None
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or tmp
        t0 = time.perf_counter()
        cpu0 = cpu_seconds()
        stats = compile_benchmark(out, assets=assets, scenes=scenes, jobs=args.jobs, use_cache=False)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds() - cpu0
    oracle = list(stats["runtime"]["oracle_seconds"].values())
    per_scene = list(stats["runtime"]["scene_seconds"].values())
    figures = {
        "scenes": stats["scenes"],
        "episodes": stats["episodes"],
        "jobs": args.jobs,
        "compile_seconds": round(wall, 2),
        # CPU time of this process and its workers: on a shared machine the wall time depends on
        # the load; on 2 idle cores it is about cpu_seconds / 2 when the scenes balance
        "cpu_seconds": round(cpu, 2),
        "oracle_seconds_total": round(sum(oracle), 2),
        "oracle_seconds_median": round(statistics.median(oracle), 3) if oracle else 0.0,
        "oracle_seconds_max": round(max(oracle), 3) if oracle else 0.0,
        "scene_seconds_median": round(statistics.median(per_scene), 3) if per_scene else 0.0,
        "scene_seconds_max": round(max(per_scene), 3) if per_scene else 0.0,
        "per_scene_means": {m: v["mean"] for m, v in stats["per_scene"].items()},
    }
    print(f"compiled {figures['episodes']} episodes ({figures['scenes']} scenes) in {figures['compile_seconds']:.1f} s "
          f"with {args.jobs} process(es), {figures['cpu_seconds']:.1f} CPU s")
    print(f"oracle time per scene: median {figures['oracle_seconds_median']:.2f} s, max {figures['oracle_seconds_max']:.2f} s, "
          f"total {figures['oracle_seconds_total']:.1f} s (CPU seconds summed over processes)")
    print(f"compile time per scene: median {figures['scene_seconds_median']:.2f} s, max {figures['scene_seconds_max']:.2f} s")
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
