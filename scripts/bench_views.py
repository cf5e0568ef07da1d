"""Camera coverage and self-occlusion along oracle plans (issue 14 item 7): the same physical
trajectory seen with the plain objects and fixed camera mounts ("before") and with dressed
objects and aimed cameras ("after").

Why beside scripts/bench_visual.py: there the visual agent's own trajectory changes with what it
sees, so a before/after difference mixes the views with the agent's behaviour. Here each
episode's oracle plan runs once per arm in physics mode; dressing is visual-only (physics is
bit-identical, tests/test_mujoco_appearance.py) and aiming changes no physics, so both arms walk
the same trajectory and only the views differ. Per state (the initial one and after every
action): coverage = the fraction of the nodes visible in the symbolic view (those a camera could
show) that at least one of head/left/right shows with >= 30 pixels; self-occlusion = the share of
head-camera pixels showing the robot (robograph/agents/sight.py). Identities come from the
simulator's segmentation.

Usage: python scripts/bench_views.py [--bench DIR] [--scenes ID...] [--episodes N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from robograph.agents.sight import camera_coverage, self_occlusion
from robograph.errors import RoboGraphError
from robograph.instance import TaskInstance
from robograph.registry import make_backend
from robograph.runtime import Episode
from robograph.view import compute_view
from robograph_backends.mujoco_kitchen.episodes import indoor_scene_ids, load_indoor, oracle_actions

ARMS = {"before": {"dress": False, "gaze": False}, "after": {"dress": True, "gaze": True}}


def measure(inst: TaskInstance, opts: dict[str, Any]) -> tuple[list[float], list[float], bool]:
    """(coverage per state, head self-occlusion per state, success) of one oracle run."""
    backend = make_backend("mujoco", mode="physics", segmentation=True, **opts)
    episode = Episode(inst, backend)
    cov: list[float] = []
    occ: list[float] = []
    try:
        episode.reset(0)
        actions = list(oracle_actions(inst))
        for k in range(len(actions) + 1):
            frames = backend.render(["head", "left", "right"])
            c = camera_coverage(compute_view(episode.graph).visible, frames)
            if c is not None:
                cov.append(c)
            occ.append(self_occlusion(frames[0]))
            if k == len(actions) or episode.done or actions[k].name == "stop":
                break
            episode.step(actions[k])
        return cov, occ, bool(episode.success)
    finally:
        backend.close()


def figures(pool: list[TaskInstance]) -> dict[str, Any]:
    out: dict[str, Any] = {"episodes": len(pool), "instances": [i.id for i in pool], "per_episode": []}
    pooled = {arm: {"coverage": [], "self_occlusion": []} for arm in ARMS}
    for inst in pool:
        row: dict[str, Any] = {"instance": inst.id}
        for arm, opts in ARMS.items():
            cov, occ, ok = measure(inst, opts)
            pooled[arm]["coverage"] += cov
            pooled[arm]["self_occlusion"] += occ
            row[arm] = {"coverage": statistics.fmean(cov), "self_occlusion": statistics.fmean(occ),
                        "states": len(occ), "success": ok}
        out["per_episode"].append(row)
        print(f"{inst.id:24s} " + "  ".join(f"{arm}: coverage {row[arm]['coverage']:.3f} self-occlusion "
                                            f"{row[arm]['self_occlusion']:.3f}" for arm in ARMS), flush=True)
    for arm, vals in pooled.items():
        out[arm] = {"camera_coverage": statistics.fmean(vals["coverage"]),
                    "camera_coverage_min": min(vals["coverage"]),
                    "self_occlusion": statistics.fmean(vals["self_occlusion"]),
                    "self_occlusion_max": max(vals["self_occlusion"]),
                    "states": len(vals["self_occlusion"]), "options": ARMS[arm]}
    out["identities"] = "segmentation perception (the simulator's segmentation)"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--scenes", nargs="*", help="only these benchmark scene ids (e.g. Fridge-I3)")
    ap.add_argument("--episodes", type=int, default=0, help="episodes to run (default: every selected scene)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        loaded = load_indoor(args.bench, args.scenes or indoor_scene_ids())
    except RoboGraphError as exc:
        ap.exit(2, f"error: {exc}\n")
    for sid, why in loaded.failed.items():
        print(f"{sid:16s} not compiled: {why}")
    figs = figures(loaded.instances[: args.episodes or None])
    for arm in ARMS:
        print(f"[{arm}] coverage {figs[arm]['camera_coverage']:.3f} (min {figs[arm]['camera_coverage_min']:.3f}), "
              f"self-occlusion {figs[arm]['self_occlusion']:.3f} (max {figs[arm]['self_occlusion_max']:.3f}) "
              f"over {figs[arm]['states']} states")
    if args.json:
        print(json.dumps(figs, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
