"""Execute oracle plans of indoor episodes through the MuJoCo kitchen backend.

Figures: those of `robograph_backends.bench` (success, graph agreement over executed steps,
seconds per action split into physics and rendering, assists, retries, peak memory). Every figure
is labelled with its execution `mode`. Plans come from the instance's `metadata.oracle_plan` (a
final `stop` is added), else from `robograph.oracle.solve`.

Instances: the indoor baseline episodes of the benchmark (FoodPack-I*, Fridge-I*, Buffet-I*),
read from --bench DIR (`robograph compile --benchmark --out DIR`; scenes missing there are compiled
in-process and written there); --heldout N --seed S: N indoor scenes compiled from seeds the
benchmark does not use (S, S+1, ...; cached in DIR/heldout/); --samples the hand-made samples;
--instances FILE... any instance files.

Usage: python scripts/bench_mujoco.py [--episodes N | --heldout N --seed S | --instances FILE...]
       [--mode physics|assisted] [--backend-opt KEY=VALUE ...] [--bench DIR] [--json]
"""

from __future__ import annotations

import argparse
import json

from robograph.errors import RoboGraphError
from robograph.instance import TaskInstance, load_instance
from robograph.registry import make_backend, parse_backend_opts
from robograph_backends.bench import figures, print_episode, run_episode
from robograph_backends.mujoco_kitchen.episodes import (
    indoor_scene_ids,
    load_heldout,
    load_indoor,
)
from robograph_backends.mujoco_kitchen.samples import indoor_samples


def select(args: argparse.Namespace) -> tuple[list[TaskInstance], dict[str, str]]:
    if args.instances:
        return [load_instance(p) for p in args.instances], {}
    if args.samples:
        return indoor_samples(), {}
    if args.heldout:
        loaded = load_heldout(args.bench, args.heldout, args.seed)
    else:
        loaded = load_indoor(args.bench, args.scenes or indoor_scene_ids())
    return loaded.instances, loaded.failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=0, help="episodes to run (default: every selected scene)")
    ap.add_argument("--mode", choices=("physics", "assisted"), default=None,
                    help="shortcut for --backend-opt mode=... (default physics)")
    ap.add_argument("--backend-opt", action="append", default=[], metavar="KEY=VALUE",
                    help="MuJoCo backend option, e.g. mode=assisted (repeatable; YAML scalars)")
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--heldout", type=int, default=0, metavar="N",
                    help="N indoor scenes compiled from seeds the benchmark does not use (see --seed)")
    ap.add_argument("--seed", type=int, default=1, metavar="S", help="first held-out scene seed (default 1)")
    ap.add_argument("--samples", action="store_true", help="use the hand-made indoor samples instead")
    ap.add_argument("--instances", nargs="*", help="instance files instead of the benchmark")
    ap.add_argument("--no-render", action="store_true", help="skip the three camera renders per action")
    ap.add_argument("--scenes", nargs="*", help="only these benchmark scene ids (e.g. Fridge-I3)")
    ap.add_argument("--verbose", action="store_true", help="print every step with its skill message")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        options = parse_backend_opts(args.backend_opt)
        if args.mode is not None:
            if options.get("mode", args.mode) != args.mode:
                raise RoboGraphError(f"--mode {args.mode} contradicts --backend-opt mode={options['mode']}")
            options["mode"] = args.mode
        options.setdefault("mode", "physics")
        make_backend("mujoco", **options).close()  # bad options fail before any scene is compiled
        pool, failed = select(args)
    except RoboGraphError as exc:
        ap.exit(2, f"error: {exc}\n")
    for sid, why in failed.items():
        print(f"{sid:16s} not compiled: {why}")
    pool = pool[: args.episodes or None]
    results = []
    for inst in pool:
        res = run_episode(inst, make_backend("mujoco", **options), not args.no_render)
        results.append(res)
        print_episode(res, args.verbose)
    figs = figures(results, options["mode"], bool(args.heldout), failed)
    if args.heldout:
        figs["heldout_seed"] = args.seed
    print(f"[{figs['mode']}{', held-out' if figs['heldout'] else ''}] success rate {figs['success_rate']:.0%}  "
          f"graph agreement {figs['graph_agreement']:.1%} of {figs['steps'] - figs['steps_not_executed']} "
          f"executed steps ({figs['graph_agreement_all_steps']:.1%} counting {figs['steps_not_executed']} "
          f"refused after a miss)  step success {figs['step_success_rate']:.1%}")
    print(f"per action: {figs['seconds_per_action']:.2f} s wall (physics {figs['physics_seconds_per_action']:.2f} s, "
          f"render {figs['render_seconds_per_action']:.3f} s), max {figs['max_seconds_per_action']:.2f} s; "
          f"CPU {figs['cpu_seconds_per_action']:.2f} s, max {figs['max_cpu_seconds_per_action']:.2f} s; "
          f"{figs['physics_steps_per_action']:.0f} physics steps; "
          f"assists {figs['assists']['count']} {figs['assists']['per_kind']}; retries {figs['retries']}; "
          f"peak RSS {figs['peak_rss_mb']:.0f} MB")
    if args.json:
        print(json.dumps(figs, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
