"""Execute oracle plans of indoor episodes through the MuJoCo kitchen backend.

Figures: physical episode success rate, per-step agreement between the reconciled graph and the
symbolic expectation (over the steps the world executed: once an oracle step misses, later steps
of the open-loop plan may be refused by their symbolic preconditions; those are counted apart,
and `graph_agreement_all_steps` counts them as disagreements), wall time per task-level action split into physics and rendering (three
320x240 views rendered after every action), peak memory. Plans come from the instance's
`metadata.oracle_plan` (a final `stop` is added), else from `robograph.oracle.solve`.
Instances: the indoor baseline episodes of the benchmark (FoodPack-I*, Fridge-I*, Buffet-I*),
read from --bench DIR (`robograph compile --benchmark --out DIR`); scenes missing there are
compiled in-process and written there. --samples uses the hand-made samples, --instances files.

Usage: python scripts/bench_mujoco.py [--episodes N] [--grasp physics|assisted] [--bench DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from collections import Counter
from typing import Any

from backends.mujoco_kitchen import MujocoKitchenBackend
from backends.mujoco_kitchen.episodes import indoor_scene_ids, load_indoor, oracle_actions
from backends.mujoco_kitchen.samples import indoor_samples
from robograph.actions import effects
from robograph.instance import TaskInstance, load_instance
from robograph.rewrite import apply_all, diff
from robograph.runtime import Episode


def run_episode(inst: TaskInstance, grasp: str, render: bool) -> dict[str, Any]:
    backend = MujocoKitchenBackend(grasp=grasp)
    episode = Episode(inst, backend)
    t0 = time.perf_counter()
    episode.reset(0)
    build_s = time.perf_counter() - t0
    steps: list[dict[str, Any]] = []
    for action in oracle_actions(inst):
        if episode.done:
            break
        before = episode.graph
        t = time.perf_counter()
        record = episode.step(action)
        render_s = 0.0
        if render and action.name != "stop":
            r0 = time.perf_counter()
            backend.render(["head", "left", "right"])
            render_s = time.perf_counter() - r0
        wall = time.perf_counter() - t
        expected = None
        if record.failure is None or record.failure.type.value in ("execution_failed", "simulation_unstable"):
            try:
                expected = apply_all(before, effects(before, action))
            except AssertionError:
                expected = None
        executed = expected is not None  # a failed symbolic precondition never reaches the world
        agree = executed and episode.graph == expected
        info = backend.last_info if action.name != "stop" else {}
        message = record.failure.message if record.failure is not None else ""
        if not agree and expected is not None:
            message += " diff: " + "; ".join(str(r) for r in diff(expected, episode.graph))[:300]
        steps.append({"action": str(action), "ok": record.ok, "agree": bool(agree or action.name == "stop"),
                      "executed": executed or action.name == "stop",
                      "message": message,
                      "wall_s": wall, "physics_s": float(info.get("physics_s", 0.0)), "render_s": render_s,
                      "assists": list(info.get("assists", [])), "retries": int(info.get("retries", 0)),
                      "failure": record.failure_type})
    backend.close()
    return {"instance": inst.id, "success": episode.success, "build_s": build_s, "steps": steps}


def _assist_kind(assist: str) -> str:
    """"servo fridge" -> "servo", "weld grasp milk" -> "weld grasp" (the help, not its object)."""
    words = assist.split(" ")
    return " ".join(words[:2]) if words[0] == "weld" else words[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=0, help="episodes to run (default: every indoor scene)")
    ap.add_argument("--grasp", choices=("physics", "assisted"), default="physics")
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--samples", action="store_true", help="use the hand-made indoor samples instead")
    ap.add_argument("--instances", nargs="*", help="instance files instead of the benchmark")
    ap.add_argument("--no-render", action="store_true", help="skip the three camera renders per action")
    ap.add_argument("--scenes", nargs="*", help="only these benchmark scene ids (e.g. Fridge-I3)")
    ap.add_argument("--verbose", action="store_true", help="print every step with its skill message")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    failed: dict[str, str] = {}
    if args.instances:
        pool = [load_instance(p) for p in args.instances]
    elif args.samples:
        pool = indoor_samples()
    else:
        loaded = load_indoor(args.bench, args.scenes or indoor_scene_ids())
        pool, failed = loaded.instances[: args.episodes or None], loaded.failed
        for sid, why in failed.items():
            print(f"{sid:16s} not compiled: {why}")
    results = []
    for k in range(args.episodes or len(pool)):
        if not pool:
            break
        inst = pool[k % len(pool)]
        res = run_episode(inst, args.grasp, not args.no_render)
        results.append(res)
        done = sum(s["ok"] for s in res["steps"])
        print(f"{res['instance']:16s} success={res['success']!s:5s} steps ok {done}/{len(res['steps'])} "
              f"build {res['build_s']:.2f}s")
        for s in res["steps"]:
            if args.verbose or not s["ok"] or not s["agree"]:
                print(f"    {s['action']:34s} ok={s['ok']} agree={s['agree']} {s['wall_s']:.2f}s "
                      f"{s['failure'] or ''} {s['message'] if not s['ok'] or not s['agree'] else ''}")
    steps = [s for r in results for s in r["steps"] if not s["action"].startswith("stop")]
    executed = [s for s in steps if s["executed"]]
    figures = {
        "grasp": args.grasp,
        "episodes": len(results),
        "not_compiled": sorted(failed),
        "success_rate": sum(r["success"] for r in results) / max(len(results), 1),
        # agreement over the steps the world executed; a step refused by its symbolic
        # precondition after an earlier physical miss has no physical outcome to compare
        "graph_agreement": sum(s["agree"] for s in executed) / max(len(executed), 1),
        "graph_agreement_all_steps": sum(s["agree"] for s in steps) / max(len(steps), 1),
        "steps_not_executed": len(steps) - len(executed),
        "step_success_rate": sum(s["ok"] for s in steps) / max(len(steps), 1),
        "seconds_per_action": statistics.fmean(s["wall_s"] for s in steps) if steps else 0.0,
        "physics_seconds_per_action": statistics.fmean(s["physics_s"] for s in steps) if steps else 0.0,
        "render_seconds_per_action": statistics.fmean(s["render_s"] for s in steps) if steps else 0.0,
        "max_seconds_per_action": max((s["wall_s"] for s in steps), default=0.0),
        "build_seconds": statistics.fmean(r["build_s"] for r in results) if results else 0.0,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "mode": args.grasp,
        "assists": sum(len(s["assists"]) for s in steps),
        "assists_by_kind": dict(sorted(Counter(_assist_kind(a) for s in steps for a in s["assists"]).items())),
        "retries": sum(s["retries"] for s in steps),
    }
    print(f"success rate {figures['success_rate']:.0%}  graph agreement {figures['graph_agreement']:.1%} "
          f"of {len(executed)} executed steps ({figures['graph_agreement_all_steps']:.1%} counting "
          f"{figures['steps_not_executed']} refused after a miss)  step success {figures['step_success_rate']:.1%}")
    print(f"per action: {figures['seconds_per_action']:.2f} s wall (physics {figures['physics_seconds_per_action']:.2f} s, "
          f"render {figures['render_seconds_per_action']:.3f} s), max {figures['max_seconds_per_action']:.2f} s; "
          f"peak RSS {figures['peak_rss_mb']:.0f} MB; assists {figures['assists']} {figures['assists_by_kind']}, "
          f"retries {figures['retries']}")
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
