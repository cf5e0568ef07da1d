"""`robograph compile` and `robograph stats` subcommands (registered via robograph.cli's
COMMAND_MODULES)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from robograph.compiler.errors import CompileError


def _assets(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from robograph.compiler.assets import load_assets

    return load_assets(args.assets)


def _cmd_compile(args: argparse.Namespace) -> int:
    from robograph.compiler.benchmark import compile_benchmark
    from robograph.compiler.compile import compile_scene
    from robograph.compiler.stats import format_table

    assets = _assets(args)
    if args.benchmark:
        def progress(res):  # type: ignore[no-untyped-def]
            if args.verbose:
                how = "cached" if res.cached else f"{res.oracle_seconds:.1f}s"
                print(f"  {res.scene_id:<14} L_o={res.stats['oracle_length']:>2} N_g={res.stats['subgoals']:>2} ({how})",
                      file=sys.stderr)

        scenes = args.scenes.split(",") if args.scenes else None
        stats = compile_benchmark(args.out, assets=assets, scenes=scenes, jobs=args.jobs,
                                  use_cache=not args.no_cache, progress=progress)
        rt = stats["runtime"]
        print(f"wrote {stats['episodes']} episodes ({stats['scenes']} scenes) to {Path(args.out) / 'episodes'} "
              f"in {rt['compile_seconds']:.1f}s ({rt['cached_scenes']} scenes from cache)")
        print(format_table(stats["per_scene"], stats["families"]))
        return 0
    if not (args.family and args.domain):
        raise CompileError("compile needs --benchmark, or --family F --domain D [--seed S] --out FILE")
    scene = compile_scene(assets, args.family, args.domain, args.seed, variant=args.variant,
                          i6_mode=args.i6_mode)
    inst = scene.instances[args.condition]
    text = inst.dumps()
    if args.out in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}: {scene.scene_id} {args.condition}, {json.dumps(scene.stats, sort_keys=True)}")
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from robograph.compiler.stats import format_table

    path = Path(args.dir) / "stats.json"
    try:
        stats = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CompileError(f"cannot read {path}: {exc.strerror or exc}; run `robograph compile --benchmark --out DIR` first") from None
    print(f"{stats['scenes']} scenes, {stats['episodes']} episodes, domains {stats.get('domains', {})}")
    print(format_table(stats["per_scene"], stats["families"]))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from robograph.events import CONDITIONS

    p = sub.add_parser("compile", help="compile task instances from the task-family specs (or the whole benchmark)")
    p.add_argument("--benchmark", action="store_true", help="compile the 84-scene x 7-condition benchmark into --out DIR")
    p.add_argument("--out", help="output directory (--benchmark) or file (single scene; '-' = stdout)")
    p.add_argument("--family", help="task family, e.g. desk, cosmetics, fridge")
    p.add_argument("--domain", choices=("tabletop", "indoor"))
    p.add_argument("--variant", default=None, help="layout variant (e.g. B for Toy-B)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--condition", default="baseline", choices=CONDITIONS, help="which condition to write (single scene)")
    p.add_argument("--i6-mode", dest="i6_mode", default="inherit", choices=("inherit", "capacity"))
    p.add_argument("--assets", default=None, help="assets directory (default: the repository's assets/)")
    p.add_argument("--scenes", default=None, help="comma-separated subset of benchmark scene ids")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="compile scenes in this many processes (default: all cores; output is identical)")
    p.add_argument("--no-cache", action="store_true", help="recompile every scene instead of reusing DIR/.cache")
    p.add_argument("-v", "--verbose", action="store_true", help="print one line per scene")
    p.set_defaults(handler=_cmd_compile)

    p = sub.add_parser("stats", help="print a compiled benchmark's statistics next to the paper's")
    p.add_argument("dir", metavar="DIR")
    p.set_defaults(handler=_cmd_stats)
