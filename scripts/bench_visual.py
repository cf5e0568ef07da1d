"""Visual closed-loop figures (issue 14): the built-in visual agent and the explorer on the same
MuJoCo episodes, camera coverage and self-occlusion, the harness's cost per visual step.

Two runs per episode through the harness's own rollout loop, one backend kept alive per run
(`WorkerBackends`, as a runner worker does):
- symbolic: `explorer`, `--observation symbolic` (no rendering);
- visual: `visual_explorer`, `--observation both` with three 320x240 views (head, left, right)
  rendered every step with depth and node-labelled segmentation, and the backend's reading of
  relations from that depth (`--backend-opt relations=true`). Help the simulator gives (named
  beside the figures): object identities come from its segmentation, camera poses and the
  static structure (furniture regions, articulation kinematics) from its model: "segmentation
  perception + depth relations". `--memory off` / `--relations view` run the agent's first
  version (per-frame sight; the symbolic view's relations among perceived nodes) for comparison.

Per step of the visual run: camera coverage = the fraction of the nodes visible in the symbolic
view (those a camera could show: objects and furniture, not rooms or the robot) that at least one
camera shows with >= 30 pixels; self-occlusion = the share of head-camera pixels showing the robot;
depth relation agreement = of the movable nodes with both a depth-read location and a location
edge in the symbolic view, the share where the two agree (per step, pooled).
`visual_overhead_ms_per_step` is the harness's own cost per visual step beyond physics, rendering
and the agent (payload, encoding the three views, parsing). `spearman` is Spearman's rho per
metric between the symbolic and visual runs across episodes (`robograph.harness.compare`).

--heldout N --seed S runs N indoor scenes compiled from seeds the benchmark does not use (S, S+1,
...; cached in DIR/heldout/) instead of benchmark scenes.

Usage: python scripts/bench_visual.py [--episodes N] [--scenes ID... | --heldout N --seed S]
       [--mode physics|assisted] [--memory on|off] [--relations depth|view] [--bench DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robograph.agents import make_agent
from robograph.agents.base import Agent, Reply, Request
from robograph.agents.sight import camera_coverage, frames_by_camera, self_occlusion
from robograph.errors import RoboGraphError
from robograph.harness.compare import spearman
from robograph.harness.jobs import WorkerBackends
from robograph.harness.observe import ObservationSpec
from robograph.harness.rollout import RolloutOptions, run_rollout
from robograph.instance import TaskInstance
from robograph.metrics.rollout import rollout_metrics
from robograph_backends.mujoco_kitchen.episodes import indoor_scene_ids, load_heldout, load_indoor

METRICS = ("SR", "SSAL", "NGP", "AER", "RAR", "ADR", "SEG")
LOCATIONS = ("INSIDE", "ON", "IN_ROOM")
HEAD = "head"
PERCEPTION = {"depth": "segmentation perception + depth relations",
              "view": "segmentation perception + the symbolic view's relations among perceived nodes"}


@dataclass
class CameraLog:
    """Coverage and self-occlusion of every step an agent was asked to act on."""

    coverage: list[float] = field(default_factory=list)
    self_occlusion: list[float] = field(default_factory=list)
    relations_agreed: int = 0
    relations_compared: int = 0


class Measured:
    """Wraps an agent; reads each request's frames before handing it on (the measurement is not
    timed as the agent's)."""

    def __init__(self, agent: Agent, log: CameraLog) -> None:
        self.agent, self.log = agent, log
        self.name, self.privileged = agent.name, agent.privileged

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def act(self, request: Request) -> Reply:
        frames = frames_by_camera(request.frames)
        visible = [n["id"] for n in request.payload["current_observation"]["visible_nodes"]]
        cov = camera_coverage(visible, frames)
        if cov is not None:
            self.log.coverage.append(cov)
        self.log.self_occlusion += [self_occlusion(f) for f in frames if f.camera == HEAD]
        percept = frames[0].percept if frames else None
        if percept is not None:
            symbolic = {e["from"]: (e["relation"], e["to"]) for e in request.payload["current_observation"]["visible_edges"]
                        if e["relation"] in LOCATIONS}
            both = [n for n in percept.locations if n in symbolic]
            self.log.relations_compared += len(both)
            self.log.relations_agreed += sum(percept.locations[n] == symbolic[n] for n in both)
        return self.agent.act(request)


@dataclass
class Arm:
    """One side of the comparison: an agent, how it observes, its backend options and what it
    measured so far (one live backend for all its episodes, as a runner worker keeps)."""

    agent: Agent
    options: RolloutOptions
    backend_opts: dict[str, Any]
    backends: WorkerBackends = field(default_factory=WorkerBackends)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("wall_s", "overhead_s", "render_s", "agent_s", "steps"), 0.0))

    def run(self, inst: TaskInstance) -> dict[str, Any]:
        t0 = time.perf_counter()
        out = run_rollout(inst, self.agent, self.backends.get("mujoco", self.backend_opts), seed=0,
                          options=self.options)
        self.sums["wall_s"] += time.perf_counter() - t0
        t = out.timing
        for key, value in (("overhead_s", t.overhead_s), ("render_s", t.render_s), ("agent_s", t.agent_s),
                           ("steps", t.steps)):
            self.sums[key] += value
        self.episodes.append({"instance": inst.id, **rollout_metrics(out.trace)})
        return self.episodes[-1]


def per_step_ms(sums: dict[str, float], key: str) -> float:
    return 1000.0 * sums[key] / max(sums["steps"], 1)


def figures(pool: Sequence[TaskInstance], mode: str, memory: bool = True, relations: str = "depth") -> dict[str, Any]:
    log = CameraLog()
    symbolic = Arm(make_agent("explorer"), RolloutOptions(), {"mode": mode})
    visual = Arm(Measured(make_agent("visual_explorer", memory=memory, relations=relations), log),
                 RolloutOptions(ObservationSpec("both")), {"mode": mode, "relations": True})
    with symbolic.backends, visual.backends:
        for inst in pool:
            s, v = symbolic.run(inst), visual.run(inst)
            print(f"{inst.id:24s} SR symbolic {s['SR']:5.1f} ({s['steps']} steps)  visual {v['SR']:5.1f} "
                  f"({v['steps']} steps)", flush=True)
    sym, sym_t, vis, vis_t = symbolic.episodes, symbolic.sums, visual.episodes, visual.sums
    built = visual.backends.built
    rho = {}
    for m in METRICS:
        pairs = [(s[m], v[m]) for s, v in zip(sym, vis, strict=True) if s[m] is not None and v[m] is not None]
        rho[m] = spearman([a for a, _ in pairs], [b for _, b in pairs]) if len(pairs) >= 3 else None
    return {
        "mode": mode,
        "episodes": len(pool),
        "instances": [inst.id for inst in pool],
        "sr_symbolic": statistics.fmean(r["SR"] for r in sym) if sym else None,
        "sr_visual": statistics.fmean(r["SR"] for r in vis) if vis else None,
        "metrics_symbolic": {m: _mean(r[m] for r in sym) for m in METRICS},
        "metrics_visual": {m: _mean(r[m] for r in vis) for m in METRICS},
        "per_episode": [{"instance": s["instance"], "symbolic": {m: s[m] for m in METRICS},
                         "visual": {m: v[m] for m in METRICS}} for s, v in zip(sym, vis, strict=True)],
        "spearman": rho,
        "steps_symbolic": sym_t["steps"],
        "steps_visual": vis_t["steps"],
        "seconds_per_step": vis_t["wall_s"] / max(vis_t["steps"], 1),
        "seconds_per_step_symbolic": sym_t["wall_s"] / max(sym_t["steps"], 1),
        "visual_overhead_ms_per_step": per_step_ms(vis_t, "overhead_s"),
        "symbolic_overhead_ms_per_step": per_step_ms(sym_t, "overhead_s"),
        "render_ms_per_step": per_step_ms(vis_t, "render_s"),
        # the visual agent's time includes its perception step; the explorer's is the policy alone
        "agent_ms_per_step_visual": per_step_ms(vis_t, "agent_s"),
        "agent_ms_per_step_symbolic": per_step_ms(sym_t, "agent_s"),
        "camera_coverage": _mean(log.coverage),
        "camera_coverage_min": min(log.coverage, default=None),
        "self_occlusion": _mean(log.self_occlusion),
        "self_occlusion_max": max(log.self_occlusion, default=None),
        "backends_built_visual_run": built,
        "identities": "segmentation perception (the simulator's segmentation)",
        "perception": PERCEPTION[relations] + (" + object permanence" if memory else " (per-frame, no memory)"),
        "depth_relation_agreement": log.relations_agreed / log.relations_compared if log.relations_compared else None,
        "depth_relations_compared": log.relations_compared,
    }


def _mean(values: Any) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.fmean(vals) if vals else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=0, help="episodes to run (default: every selected scene)")
    ap.add_argument("--scenes", nargs="*", help="only these benchmark scene ids (e.g. Fridge-I3)")
    ap.add_argument("--heldout", type=int, default=0, metavar="N",
                    help="N indoor scenes compiled from seeds the benchmark does not use (see --seed)")
    ap.add_argument("--seed", type=int, default=1, metavar="S", help="first held-out scene seed (default 1)")
    ap.add_argument("--mode", choices=("physics", "assisted"), default="physics")
    ap.add_argument("--memory", choices=("on", "off"), default="on", help="object permanence across frames")
    ap.add_argument("--relations", choices=("depth", "view"), default="depth",
                    help="relations from the backend's depth reading or the symbolic view's among perceived nodes")
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.heldout and args.scenes:
        ap.error("--heldout and --scenes exclude each other")
    try:
        loaded = (load_heldout(args.bench, args.heldout, args.seed) if args.heldout
                  else load_indoor(args.bench, args.scenes or indoor_scene_ids()))
    except RoboGraphError as exc:
        ap.exit(2, f"error: {exc}\n")
    for sid, why in loaded.failed.items():
        print(f"{sid:16s} not compiled: {why}")
    pool = loaded.instances[: args.episodes or None]
    figs = figures(pool, args.mode, args.memory == "on", args.relations)
    figs["heldout"] = bool(args.heldout)
    if args.heldout:
        figs["heldout_seed"] = args.seed
    print(f"[{figs['mode']}] {figs['episodes']} episodes: SR symbolic {figs['sr_symbolic']} visual {figs['sr_visual']} "
          f"({figs['perception']}); coverage {figs['camera_coverage']}, self-occlusion {figs['self_occlusion']}; "
          f"{figs['seconds_per_step']:.2f} s/step, harness overhead {figs['visual_overhead_ms_per_step']:.1f} ms/step")
    if args.json:
        print(json.dumps(figs, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
