"""Benchmark the PDDL export against Fast Downward's optimal search on a fixed, seeded sample of
baseline episodes: export size, the translator's time, solved within the limit, plan length vs L_o.

    python scripts/bench_pddl.py --bench DIR [--limit 120] [--seed 0] [--count 8] [--json]

DIR is a compiled benchmark (`robograph compile --benchmark --out DIR`). The sample is drawn from
its baseline episodes sorted by grounded size: the two largest always, the rest seeded from the
others, so large scenes are always in. Each run gets `--limit` wall seconds for translation and
search together (the driver's process group is killed on timeout); a solved plan must have the
oracle's length and replay to success in the runtime. With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from robograph.actions import Action
from robograph.instance import load_instance
from robograph.oracle import solve
from robograph.oracle.pddl import DEPTHS, ExportError, export_instance, run_fast_downward
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend


def sample(bench: Path, count: int, seed: int) -> list[Path]:
    """The two largest baselines (by node count, then name) plus `count - 2` seeded others."""
    paths = sorted((bench / "episodes").glob("*__baseline.json"))
    if len(paths) < count:
        raise SystemExit(f"{bench}/episodes has {len(paths)} baseline episodes, fewer than --count {count}")
    sized = sorted(paths, key=lambda p: (-len(load_instance(p).graph.nodes), p.name))
    rest = sorted(sized[2:], key=lambda p: p.name)
    return sized[:2] + sorted(random.Random(seed).sample(rest, count - 2), key=lambda p: p.name)


def replays(instance, plan: list[Action]) -> bool:
    ep = Episode(instance, SymbolicBackend())
    ep.reset(0)
    return all(ep.step(a).ok for a in plan) and ep.step(Action("stop")).success


def measure(path: Path, limit: float, nice: int, depth: int | None = None) -> dict:
    inst = load_instance(path)
    row: dict = {"episode": path.stem, "nodes": len(inst.graph.nodes)}
    t0 = time.perf_counter()
    oracle = solve(inst.graph, inst.goal, inst.actions)
    row["oracle_length"] = oracle.length
    row["oracle_seconds"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    try:
        exported = export_instance(inst, depth=depth)
    except ExportError as exc:
        row.update(status="not_exported", error=str(exc))
        return row
    row["export_seconds"] = round(time.perf_counter() - t0, 2)
    row["grounded_actions"] = len(exported.operators)
    row["depth"] = exported.depth
    with tempfile.TemporaryDirectory() as tmp:
        domain, problem = exported.write(tmp)
        run = run_fast_downward(domain, problem, Path(tmp), limit, nice=nice)
    row["status"] = run.status
    row["planner_seconds"] = round(run.seconds, 2)
    row["translate_seconds"] = run.translate_seconds
    row["translate_cpu_seconds"] = run.translate_cpu_seconds
    if run.plan is not None:
        plan = exported.decode_plan(run.plan)
        row["plan_length"] = len(plan)
        row["optimal"] = len(plan) == oracle.length
        row["replays"] = replays(inst, plan)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, type=Path, help="compiled benchmark directory")
    parser.add_argument("--limit", type=float, default=120.0, help="wall seconds per planner run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--nice", type=int, default=10, help="niceness of the planner process")
    parser.add_argument("--depth", type=int, choices=DEPTHS, default=None,
                        help="movable receivers a grounded chain crosses before it takes the focus token "
                             "(default: automatic, see robograph.oracle.pddl.AUTO_LIMIT)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for path in sample(args.bench, args.count, args.seed):
        row = measure(path, args.limit, args.nice, args.depth)
        rows.append(row)
        print(f"{row['episode']:<28} nodes {row['nodes']:>3} L_o {row['oracle_length']:>3} "
              f"actions {row.get('grounded_actions', '-'):>7} translate {row.get('translate_seconds')} s "
              f"({row.get('translate_cpu_seconds')} CPU s) "
              f"{row['status']} {row.get('plan_length', '-')} in {row.get('planner_seconds', '-')} s", flush=True)
    solved = [r for r in rows if r["status"] == "solved"]
    translate = [r["translate_seconds"] for r in rows if r.get("translate_seconds") is not None]
    translate_cpu = [r["translate_cpu_seconds"] for r in rows if r.get("translate_cpu_seconds") is not None]
    figures = {
        "episodes": len(rows),
        "limit_seconds": args.limit,
        "seed": args.seed,
        "depth": args.depth,
        "solved": len(solved),
        "solved_optimal": sum(1 for r in solved if r["optimal"] and r["replays"]),
        "translate_seconds_max": max(translate) if translate else None,
        "translate_cpu_seconds_max": max(translate_cpu) if translate_cpu else None,
        "grounded_actions_max": max((r.get("grounded_actions", 0) for r in rows), default=0),
        "per_episode": rows,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"solved {figures['solved']}/{len(rows)}, optimal and replaying {figures['solved_optimal']}, "
              f"translation at most {figures['translate_seconds_max']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
