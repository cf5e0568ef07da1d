"""Execute oracle plans of tabletop episodes through the SAPIEN tabletop backend.

The figures and JSON keys are bench_mujoco.py's (`robograph_backends.bench`): `mode`,
`heldout`, `success_rate`, `graph_agreement` (over executed steps), `seconds_per_action`
(wall, including three 320x240 renders after every action), `max_seconds_per_action`,
`assists` (count, per kind), `retries`, `build_seconds`, `peak_rss_mb`; plus `first_build_s`
(the first scene of a process pays ~20 s for SAPIEN's first pictures; one backend is kept for
all episodes so later builds do not). Every figure is labelled with its execution `mode`.

Instances: the tabletop baseline episodes of assets/benchmark.yaml (Desk, Cosmetics, Toy,
Dining, Fridge-T, Buffet-T: 57 scenes) from --bench DIR (DIR/episodes/<id>__baseline.json,
compiled in-process and written there when missing); --heldout N --seed S: N tabletop scenes
compiled from seeds the benchmark does not use (cached in DIR/heldout/); --instances FILE...

--identity runs no actions: G0 -> world -> G0 per scene with build, reconcile and render seconds.

Usage: python scripts/bench_sapien.py [--episodes N | --scenes ID... | --heldout N --seed S |
       --instances FILE...] [--mode physics|assisted] [--starts K] [--identity] [--bench DIR] [--no-render] [--json]

--starts K runs every episode from K start seeds (`jitter.py`: seed 0 is the layout as laid, the
others nudge each loose object by up to 2 mm) and adds `success_by_start` and `start_dependent`
(the episodes whose outcome changes with the start) to the figures.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from robograph.backend import Backend
from robograph.errors import RoboGraphError
from robograph.instance import TaskInstance, load_instance
from robograph_backends.bench import figures, print_episode, run_episode
from robograph_backends.mujoco_kitchen.episodes import load_heldout, load_indoor

DOMAIN = "tabletop"


def tabletop_ids() -> list[str]:
    from robograph.compiler.assets import load_assets

    return [s.id for s in load_assets().scenes if s.domain == DOMAIN]


def select(args: argparse.Namespace) -> tuple[list[TaskInstance], dict[str, str]]:
    if args.instances:
        return [load_instance(f) for f in args.instances], {}
    if args.heldout:
        loaded = load_heldout(args.bench, args.heldout, args.seed, domain=DOMAIN)
    else:
        ids = args.scenes or tabletop_ids()[: args.episodes or None]
        loaded = load_indoor(args.bench, ids)  # any benchmark ids: read or compiled and cached
    return loaded.instances, loaded.failed


def identity(backend: Backend, pool: list[TaskInstance], render: bool, starts: int = 1) -> dict[str, object]:
    """G0 -> world -> G0 per scene and start seed (reset with its settle steps, then reconcile),
    build and render seconds: the graph contract without actions."""
    rows = []
    for inst, start in ((i, k) for i in pool for k in range(max(1, starts))):
        t0 = time.perf_counter()
        backend.reset(inst.graph, seed=start)
        t1 = time.perf_counter()
        same = backend.reconcile(inst.graph) is inst.graph
        t2 = time.perf_counter()
        if render:
            backend.render()
        t3 = time.perf_counter()
        rows.append({"reset_s": t1 - t0, "reconcile_s": t2 - t1, "render_s": t3 - t2, "identity": same})
        print(f"{inst.id + (f'@{start}' if starts > 1 else ''):16s} identity={same!s:5s} reset {t1 - t0:.2f}s reconcile {t2 - t1:.3f}s "
              f"render {t3 - t2:.2f}s", flush=True)
    warm = rows[1:] or rows
    return {
        "scenes": len(rows), "identity_rate": sum(r["identity"] for r in rows) / max(len(rows), 1),
        "first_build_s": rows[0]["reset_s"] if rows else None,
        "build_seconds": sum(r["reset_s"] for r in warm) / max(len(warm), 1),
        "render_s_mean": sum(r["render_s"] for r in warm) / max(len(warm), 1) if render else None,
        "reconcile_s_mean": sum(r["reconcile_s"] for r in rows) / max(len(rows), 1),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


def add_selection(ap: argparse.ArgumentParser) -> None:
    """The options `select` reads: which tabletop instances (also scripts/hand_room.py's)."""
    ap.add_argument("--episodes", type=int, default=0, help="episodes to run (default: every selected scene)")
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--heldout", type=int, default=0, metavar="N",
                    help="N tabletop scenes compiled from seeds the benchmark does not use (see --seed)")
    ap.add_argument("--seed", type=int, default=1, metavar="S", help="first held-out scene seed (default 1)")
    ap.add_argument("--instances", nargs="*", help="instance files instead of the benchmark")
    ap.add_argument("--scenes", nargs="*", help="only these benchmark scene ids (e.g. Desk-1)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_selection(ap)
    ap.add_argument("--mode", choices=("physics", "assisted"), default="physics", help="execution mode")
    ap.add_argument("--starts", type=int, default=1, metavar="K",
                    help="run each episode from K start seeds 0..K-1 (seed 0: the layout as laid; others nudge "
                         "every loose object by up to 2 mm) and report success per seed")
    ap.add_argument("--no-render", action="store_true", help="skip the three camera renders per action")
    ap.add_argument("--verbose", action="store_true", help="print every step with its skill message")
    ap.add_argument("--identity", action="store_true",
                    help="no actions: G0 -> world -> G0 per scene, with build and render seconds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend

    try:
        pool, failed = select(args)
    except RoboGraphError as exc:
        ap.exit(2, f"error: {exc}\n")
    for sid, why in failed.items():
        print(f"{sid:16s} not compiled: {why}")
    pool = pool[: args.episodes or None]
    backend = SapienTabletopBackend(mode=args.mode)
    if args.identity:
        figs_id = {"backend": "sapien", "mode": args.mode, **identity(backend, pool, not args.no_render, args.starts)}
        backend.close()
        print(f"identity {figs_id['identity_rate']:.0%} of {figs_id['scenes']} scenes")
        if args.json:
            print(json.dumps(figs_id, sort_keys=True))
        return 0
    results = []
    crashed: dict[str, str] = {}  # an episode the backend raised out of: a failure, with its error
    for inst in pool:
        for start in range(max(1, args.starts)):
            t0 = time.perf_counter()
            key = inst.id if args.starts <= 1 else f"{inst.id}@{start}"
            try:
                res = run_episode(inst, backend, not args.no_render, close=False, seed=start)
            except RoboGraphError as exc:  # e.g. a reconcile that reads two bodies in one hand
                crashed[key] = f"{type(exc).__name__}: {exc}"
                print(f"{key:16s} success=False CRASHED {crashed[key]}", flush=True)
                continue
            res["episode_s"] = time.perf_counter() - t0
            results.append(res)
            print_episode(res, args.verbose, f" episode {res['episode_s']:.1f}s" + (f" start {start}" if args.starts > 1 else ""))
    backend.close()
    figs = figures(results, args.mode, bool(args.heldout), failed)
    # crashed episodes count as failed episodes (their steps are not in the step figures)
    ran = figs["episodes"]
    figs["episodes"] = ran + len(crashed)
    figs["success_rate"] = figs["success_rate"] * ran / max(figs["episodes"], 1)
    figs["crashed"] = crashed
    # the first scene of a process pays SAPIEN's first pictures: reported apart from the mean build
    later = [r["build_s"] for r in results[1:]]
    figs["build_seconds"] = sum(later) / len(later) if later else figs["build_seconds"]
    figs["first_build_s"] = results[0]["build_s"] if results else None
    figs["backend"] = "sapien"
    if args.heldout:
        figs["heldout_seed"] = args.seed
    if args.starts > 1:  # success per start seed, and the episodes whose outcome depends on it
        figs["starts"] = args.starts
        figs["success_by_start"] = [sum(r["success"] for r in results if r["seed"] == k) / max(len(pool), 1)
                                    for k in range(args.starts)]
        outcome: dict[str, set[bool]] = {}
        for r in results:
            outcome.setdefault(r["instance"], set()).add(bool(r["success"]))
        figs["start_dependent"] = sorted(i for i, seen in outcome.items() if len(seen) > 1)
        print(f"success by start seed {', '.join(f'{x:.0%}' for x in figs['success_by_start'])}; "
              f"outcome depends on the start in {len(figs['start_dependent'])} of {len(pool)}: "
              f"{', '.join(figs['start_dependent'])}")
    print(f"[{figs['mode']}{', held-out' if figs['heldout'] else ''}] success rate {figs['success_rate']:.0%} "
          f"of {figs['episodes']}  graph agreement {figs['graph_agreement']:.1%} of "
          f"{figs['steps'] - figs['steps_not_executed']} executed steps  step success {figs['step_success_rate']:.1%}")
    print(f"per action: {figs['seconds_per_action']:.2f} s wall (render {figs['render_seconds_per_action']:.3f} s), "
          f"max {figs['max_seconds_per_action']:.2f} s; assists {figs['assists']['count']} "
          f"{figs['assists']['per_kind']}; build {figs['build_seconds']:.2f} s after the first "
          f"({figs['first_build_s'] or 0:.1f} s); peak RSS {figs['peak_rss_mb']:.0f} MB")
    if args.json:
        print(json.dumps(figs, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
