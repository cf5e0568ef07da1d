"""Visual closed loop on the MuJoCo kitchen: what a visual step costs, phase by phase.

Runs the random agent in `both` mode (it acts on the graph, so real physics runs, while three
camera views are rendered and encoded every step exactly as for a model) over the first N indoor
baseline episodes with a capped step budget, and reports per step: harness overhead beyond
physics and rendering (payload build + image encoding + reply parse), rendering, physics, bytes
sent per step. Camera coverage, self-occlusion and the built-in visual agent's figures belong to
issue 14 items 4 and 7 and are reported as null until those land.

Usage: python scripts/bench_visual.py [--bench DIR] [--episodes 3] [--steps 6] [--format png|jpeg]
       [--size PX] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from typing import Any

from robograph.agents import Reply, Request, make_agent
from robograph.harness.observe import ObservationSpec
from robograph.harness.rollout import RolloutOptions, run_rollout


class ImageBytes:
    """Wraps an agent and records how many image bytes each request carried."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.sizes = agent, []
        self.name, self.privileged = agent.name, agent.privileged

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def act(self, request: Request) -> Reply:
        self.sizes.append(sum(len(b) for b in request.images.values()))
        return self.agent.act(request)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default=None, help="directory with compiled indoor episodes (compiled if missing)")
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--steps", type=int, default=6, help="step budget per rollout")
    ap.add_argument("--format", default="png", choices=("png", "jpeg"))
    ap.add_argument("--size", type=int, default=None, help="longer side of sent images (px)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from backends.mujoco_kitchen import MujocoKitchenBackend
    from backends.mujoco_kitchen.episodes import indoor_scene_ids, load_indoor

    with tempfile.TemporaryDirectory() as tmp:
        ids = indoor_scene_ids()[: args.episodes]
        episodes = load_indoor(args.bench or tmp, ids).instances
    options = RolloutOptions(ObservationSpec("both", args.format, args.size))
    per_step, sent_bytes, wall = [], [], 0.0
    for inst in episodes:
        inst = replace(inst, step_budget=min(inst.step_budget, args.steps))
        backend = MujocoKitchenBackend()
        agent = ImageBytes(make_agent("random", seed=0))
        t0 = time.perf_counter()
        try:
            out = run_rollout(inst, agent, backend, seed=0, options=options)
        finally:
            backend.close()
        wall += time.perf_counter() - t0
        per_step += out.timing.per_step
        sent_bytes += agent.sizes
        if not args.json:
            print(f"{inst.id}: {out.timing.steps} steps", file=sys.stderr)

    def mean_ms(attr: str) -> float:
        return round(1000.0 * statistics.fmean(getattr(s, attr) for s in per_step), 2)

    overhead = [1000.0 * (s.payload + s.encode + s.parse) for s in per_step]
    figures = {
        "episodes": len(episodes),
        "steps": len(per_step),
        "observation": "both",
        "image_format": args.format,
        "image_size": args.size,
        "visual_overhead_ms_per_step": round(statistics.fmean(overhead), 2),
        "visual_overhead_ms_p95": round(sorted(overhead)[int(0.95 * (len(overhead) - 1))], 2),
        "payload_ms": mean_ms("payload"),
        "encode_ms": mean_ms("encode"),
        "parse_ms": mean_ms("parse"),
        "render_ms": mean_ms("render"),
        "physics_ms": mean_ms("physics"),
        "seconds_per_step": round(wall / len(per_step), 3),
        "image_kib_per_step": round(statistics.fmean(sent_bytes) / 1024, 1),
        "sr_visual": None,
        "sr_symbolic": None,
        "camera_coverage": None,
        "self_occlusion": None,
        "spearman": None,
    }
    if not args.json:
        for k, v in figures.items():
            print(f"{k:30s} {v}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
