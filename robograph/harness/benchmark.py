"""`robograph benchmark`: the main job in one command. Compile RoboGraphBench (reused only when
the compiled directory was made by this code from these assets), run an agent on the symbolic
backend, print the report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from robograph.errors import RoboGraphError
from robograph.harness.report import check_coverage, load_records, write_report
from robograph.harness.runner import add_run_arguments, check_agent_and_backend, run, spec_from_args


def ensure_benchmark(
    out: Path, jobs: int = 1, progress: bool = True, assets_root: str | Path | None = None,
    scenes: Sequence[str] | None = None,
) -> Path:
    """Episodes directory of a compiled benchmark under `out`, compiling it if needed.

    The directory is reused only when its `digest.json` (written last by a complete compile)
    matches the digest of the current code and assets; otherwise it is recompiled, which also
    resumes an interrupted compile scene by scene from the compiler's cache."""
    from robograph.compiler.assets import load_assets
    from robograph.compiler.benchmark import compile_benchmark, is_current

    assets = load_assets(assets_root)
    episodes = out / "episodes"
    if is_current(out, assets, scenes):
        return episodes
    if episodes.is_dir():
        print(f"{out} was compiled by other code or assets, or not to the end: recompiling "
              "(unchanged scenes come from its cache)", file=sys.stderr)
    total = len(assets.scenes) if scenes is None else len(scenes)
    with tqdm(total=total, desc="compile", unit="scene", disable=not progress) as bar:
        stats = compile_benchmark(out, assets=assets, scenes=scenes, jobs=jobs, progress=lambda _res: bar.update())
    if not episodes.is_dir():
        raise RoboGraphError(f"compiling the benchmark into {out} wrote no episodes")
    print(f"compiled {stats['episodes']} episodes ({stats['scenes']} scenes) into {episodes}")
    return episodes


def _cmd_benchmark(args: argparse.Namespace) -> int:
    out = Path(args.out)
    bench = Path(args.bench) if args.bench else out / "bench"
    run_dir = out / args.agent
    spec = spec_from_args(args, str(bench / "episodes"), str(run_dir))
    check_agent_and_backend(spec)  # a bad flag fails now, not after a compile
    ensure_benchmark(bench, jobs=max(1, args.workers), progress=not args.no_progress)
    summary = run(spec)
    done = f"{summary.completed} rollouts in {summary.seconds:.1f} s; results in {run_dir}"
    cov = check_coverage([run_dir], allow_partial=True)
    if not cov[0].complete:
        print(f"no report: {cov[0].describe()}. Rerun the same command to finish the run, or "
              f"`robograph report {run_dir} --allow-partial`", file=sys.stderr)
        print(done)
        return 1
    text, _ = write_report(load_records([run_dir]), run_dir / "report", cov)
    print(text)
    print(done)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("benchmark", help="compile RoboGraphBench (if needed), run an agent, print the report")
    p.add_argument("--out", default="runs/default", help="output directory (default: runs/default)")
    p.add_argument("--bench", default=None, help="compiled benchmark directory (default: OUT/bench)")
    add_run_arguments(p)
    p.set_defaults(handler=_cmd_benchmark)
