"""`robograph benchmark`: the main job in one command. Compile RoboGraphBench (reused when the
episodes are already there), run an agent on the symbolic backend, print the report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from robograph.errors import RoboGraphError
from robograph.harness.report import load_records, write_report
from robograph.harness.runner import add_run_arguments, run, spec_from_args


def ensure_benchmark(out: Path) -> Path:
    """Episodes directory of a compiled benchmark under `out`, compiling it if needed."""
    episodes = out / "episodes"
    if episodes.is_dir() and any(episodes.glob("*.json")):
        return episodes
    from robograph.cli import main

    code = main(["compile", "--benchmark", "--out", str(out)])
    if code != 0 or not episodes.is_dir():
        raise RoboGraphError(f"compiling the benchmark into {out} failed (exit code {code})")
    return episodes


def _cmd_benchmark(args: argparse.Namespace) -> int:
    out = Path(args.out)
    episodes = ensure_benchmark(Path(args.bench) if args.bench else out / "bench")
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
