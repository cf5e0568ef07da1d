"""`robograph` command line. Each subcommand lives in its own small function; errors of this
package are printed as one clear message (never a traceback) with a non-zero exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from robograph.errors import InstanceError, RoboGraphError

Handler = Callable[[argparse.Namespace], int]


def _cmd_validate(args: argparse.Namespace) -> int:
    from robograph.instance import load_instance

    bad = 0
    for path in args.files:
        try:
            inst = load_instance(path, schema=args.schema)
        except InstanceError as exc:
            bad += 1
            print(str(exc), file=sys.stderr)
            continue
        print(f"{path}: ok ({len(inst.graph.nodes)} nodes, {len(inst.graph.edges)} edges, "
              f"{len(inst.goal)} goal facts, {len(inst.events)} events)")
    return 1 if bad else 0


def _cmd_schema(args: argparse.Namespace) -> int:
    import json

    from robograph.schema import schema

    text = json.dumps(schema(args.name), indent=2, sort_keys=True) + "\n"
    if args.out in (None, "-"):
        sys.stdout.write(text)
    else:
        from pathlib import Path

        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote the {args.name} schema to {args.out}")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from robograph.gym_env import demo_instance_path
    from robograph.instance import load_instance
    from robograph.play import play
    from robograph.registry import make_backend
    from robograph.runtime import Episode

    inst = load_instance(args.file or demo_instance_path())
    episode = Episode(inst, make_backend(args.backend))
    ok = play(episode)
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    from robograph.registry import backend_names
    from robograph.schema import SCHEMA_NAMES

    parser = argparse.ArgumentParser(
        prog="robograph",
        description="Compile, play, run and score RoboGraph task instances.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("validate", help="check instance files; report every problem with its JSON path")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--schema", default="instance", choices=SCHEMA_NAMES,
                   help="instance (any task instance, default) or episode (a compiled benchmark episode)")
    p.set_defaults(handler=_cmd_validate)

    p = sub.add_parser("schema", help="print the JSON Schema of the instance or the compiled-episode format")
    p.add_argument("name", nargs="?", default="instance", choices=SCHEMA_NAMES)
    p.add_argument("--out", default=None, help="write to this file instead of stdout")
    p.set_defaults(handler=_cmd_schema)

    p = sub.add_parser("play", help="play an instance in the terminal (type actions like 'open drawer_1')")
    p.add_argument("file", nargs="?", metavar="FILE", help="instance file (default: the built-in demo)")
    p.add_argument("--backend", default="symbolic", choices=backend_names() or ["symbolic"])
    p.set_defaults(handler=_cmd_play)

    for dotted in COMMAND_MODULES:
        module, func = dotted.split(":")
        getattr(import_module(module), func)(sub)
    return parser


# Subcommands defined next to the code they drive: "module:function", the function receives the
# subparsers object and adds its parser(s) with a `handler` default.
COMMAND_MODULES: tuple[str, ...] = (
    "robograph.harness.runner:register",
    "robograph.harness.report:register",
    "robograph.harness.compare:register",
    "robograph.harness.benchmark:register",
    "robograph.oracle.pddl:register",
    "robograph.render_cmd:register",
    "robograph.check_cmd:register",
    "robograph.compiler.cli:register",
    "robograph_calibration.cli:register",
    "robograph_ros_bridge.validate:register",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except RoboGraphError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # a run says how much it kept and how to resume
        print(str(exc) or "interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
