"""`robograph benchmark`: the main job in one command. Compile RoboGraphBench (reused when the
episodes are already there), run an agent on the symbolic backend, print the report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tqdm import tqdm

from robograph.errors import RoboGraphError
from robograph.harness.report import load_records, write_report
from robograph.harness.runner import add_run_arguments, run, spec_from_args


def ensure_benchmark(out: Path, jobs: int = 1, progress: bool = True) -> Path:
    """Episodes directory of a compiled benchmark under `out`, compiling it if needed.

    stats.json is written last, so its presence means a complete compile; an interrupted one is
    resumed scene by scene from the compiler's cache."""
    episodes = out / "episodes"
    if (out / "stats.json").is_file() and episodes.is_dir():
        return episodes
    from robograph.compiler.assets import load_assets
    from robograph.compiler.benchmark import compile_benchmark

    assets = load_assets()
    with tqdm(total=len(assets.scenes), desc="compile", unit="scene", disable=not progress) as bar:
        stats = compile_benchmark(out, assets=assets, jobs=jobs, progress=lambda _res: bar.update())
    if not episodes.is_dir():
        raise RoboGraphError(f"compiling the benchmark into {out} wrote no episodes")
    print(f"compiled {stats['episodes']} episodes ({stats['scenes']} scenes) into {episodes}")
    return episodes


def _cmd_benchmark(args: argparse.Namespace) -> int:
    out = Path(args.out)
    bench = Path(args.bench) if args.bench else out / "bench"
    episodes = ensure_benchmark(bench, jobs=max(1, args.workers), progress=not args.no_progress)
    run_dir = out / args.agent
    summary = run(spec_from_args(args, str(episodes), str(run_dir)))
    text, _ = write_report(load_records([run_dir]), run_dir / "report")
    print(text)
    print(f"{summary.completed} rollouts in {summary.seconds:.1f} s; results in {run_dir}")
    return 1 if summary.errors else 0


def register(sub: Any) -> None:
    p = sub.add_parser("benchmark", help="compile RoboGraphBench (if needed), run an agent, print the report")
    p.add_argument("--out", default="runs/default", help="output directory (default: runs/default)")
    p.add_argument("--bench", default=None, help="compiled benchmark directory (default: OUT/bench)")
    add_run_arguments(p)
    p.set_defaults(handler=_cmd_benchmark)
