"""Bench of the SAPIEN tabletop backend's foundations: build (reset), identity G0 -> world -> G0,
and three 320x240 renders, per tabletop baseline scene. No actions yet: `execute` is not built,
so there is no success rate, agreement per step or time per action to report (the keys are
present, null, so runs compare with bench_mujoco's once they exist).

Scenes: --instances FILE... any instance files; otherwise the tabletop scenes of
assets/benchmark.yaml from DIR/episodes/<id>__baseline.json (--bench DIR, default bench),
compiled in-process when missing. --episodes N keeps the first N.

Usage: python scripts/bench_sapien.py [--instances FILE... | --bench DIR] [--episodes N] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from robograph.errors import RoboGraphError
from robograph.instance import TaskInstance, load_instance
from robograph_backends.mujoco_kitchen.episodes import compile_baseline, episode_path

DOMAIN = "tabletop"


def tabletop_ids() -> list[str]:
    from robograph.compiler.assets import load_assets

    return [s.id for s in load_assets().scenes if s.domain == DOMAIN]


def select(args: argparse.Namespace) -> list[TaskInstance]:
    if args.instances:
        return [load_instance(f) for f in args.instances]
    out = []
    for sid in tabletop_ids()[: args.episodes or None]:
        path = episode_path(args.bench, sid)
        if path.is_file():
            out.append(load_instance(path))
        else:
            inst = compile_baseline(sid)
            path.parent.mkdir(parents=True, exist_ok=True)
            inst.save(path)
            out.append(inst)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--instances", nargs="*", help="instance files instead of the benchmark")
    ap.add_argument("--episodes", type=int, default=0, help="scenes to run (default: every selected one)")
    ap.add_argument("--mode", choices=("physics",), default="physics", help="execution mode (physics only so far)")
    ap.add_argument("--no-render", action="store_true", help="skip the three camera renders per scene")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend

    try:
        pool = select(args)[: args.episodes or None]
    except RoboGraphError as exc:
        ap.exit(2, f"error: {exc}\n")
    backend = SapienTabletopBackend()
    rows = []
    for inst in pool:
        g0 = inst.graph
        t0 = time.perf_counter()
        backend.reset(g0, seed=int(inst.metadata.get("seed", 0)))
        t1 = time.perf_counter()
        same = backend.reconcile(g0) is g0
        t2 = time.perf_counter()
        if not args.no_render:
            backend.render()
        t3 = time.perf_counter()
        rows.append({"instance": inst.id, "reset_s": t1 - t0, "reconcile_s": t2 - t1, "render_s": t3 - t2,
                     "identity": same})
        print(f"{inst.id:16s} identity={same!s:5s} reset {t1 - t0:.2f}s reconcile {t2 - t1:.3f}s "
              f"render {t3 - t2:.2f}s", flush=True)
    backend.close()
    warm = rows[1:] or rows
    figs = {
        "backend": "sapien", "mode": args.mode, "heldout": False, "assists": {"count": 0, "per_kind": {}},
        "scenes": len(rows), "identity_rate": sum(r["identity"] for r in rows) / max(len(rows), 1),
        "first_reset_s": rows[0]["reset_s"] if rows else None,
        "reset_s_mean": sum(r["reset_s"] for r in warm) / max(len(warm), 1),
        "reset_s_max": max((r["reset_s"] for r in warm), default=None),
        "render_s_mean": None if args.no_render else sum(r["render_s"] for r in warm) / max(len(warm), 1),
        "render_s_max": None if args.no_render else max((r["render_s"] for r in warm), default=None),
        "reconcile_s_mean": sum(r["reconcile_s"] for r in rows) / max(len(rows), 1),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        # not measurable until execute exists
        "success_rate": None, "graph_agreement": None, "seconds_per_action": None, "max_seconds_per_action": None,
    }
    print(f"[{args.mode}] identity {figs['identity_rate']:.0%} of {len(rows)} scenes; reset {figs['reset_s_mean']:.2f} s "
          f"mean after the first ({figs['first_reset_s'] or 0:.1f} s); peak RSS {figs['peak_rss_mb']:.0f} MB")
    if args.json:
        print(json.dumps(figs, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
