"""Episode benches shared by the physical backends (scripts/bench_mujoco.py, bench_sapien.py):
run an instance's oracle plan through a backend and sum the figures, so both benches report
the same keys measured the same way.

Figures: physical episode success rate, per-step agreement between the reconciled graph and the
symbolic expectation (over the steps the world executed: once an oracle step misses, later steps
of the open-loop plan may be refused by their symbolic preconditions; those are counted apart,
and `graph_agreement_all_steps` counts them as disagreements), wall time per task-level action
split into physics and rendering (three 320x240 views rendered after every action), the assists
the backend reported (Execution.info["assists"], total and per kind) and retries, peak memory.
"""

from __future__ import annotations

import resource
import statistics
import time
from typing import Any

from robograph.actions import effects
from robograph.backend import Backend, InfoTotals
from robograph.instance import TaskInstance
from robograph.rewrite import apply_all, diff
from robograph.runtime import Episode
from robograph_backends.mujoco_kitchen.episodes import oracle_actions

CAMERAS = ("head", "left", "right")
PHYSICAL_FAILURES = ("execution_failed", "simulation_unstable", "deadline_exceeded", "cancelled")


def run_episode(inst: TaskInstance, backend: Backend, render: bool, *, close: bool = True,
                seed: int = 0) -> dict[str, Any]:
    """Run the oracle plan of `inst` on `backend` from the start `seed` gives (closed afterwards
    unless `close` is False: a SAPIEN backend kept open keeps its renderer warm for the next
    reset): per-step outcome, agreement with the symbolic expectation, wall/physics/render
    seconds and Execution.info."""
    episode = Episode(inst, backend)
    t0 = time.perf_counter()
    episode.reset(seed)
    build_s = time.perf_counter() - t0
    steps: list[dict[str, Any]] = []
    for action in oracle_actions(inst):
        if episode.done:
            break
        before = episode.graph
        t, c = time.perf_counter(), time.process_time()
        record = episode.step(action)
        render_s = 0.0
        if render and action.name != "stop":
            r0 = time.perf_counter()
            backend.render(CAMERAS)
            render_s = time.perf_counter() - r0
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        expected = None
        if record.failure is None or record.failure.type.value in PHYSICAL_FAILURES:
            try:
                expected = apply_all(before, effects(before, action))
            except AssertionError:
                expected = None
        executed = expected is not None  # a failed symbolic precondition never reaches the world
        agree = executed and episode.graph == expected
        info = dict(record.info or {})
        message = record.failure.message if record.failure is not None else ""
        if not agree and expected is not None:
            message += " diff: " + "; ".join(str(r) for r in diff(expected, episode.graph))[:300]
        steps.append({"action": str(action), "ok": record.ok, "agree": bool(agree or action.name == "stop"),
                      "executed": executed or action.name == "stop", "message": message,
                      "wall_s": wall, "cpu_s": cpu, "physics_s": float(info.get("physics_s", 0.0)), "render_s": render_s,
                      "info": info, "failure": record.failure_type})
    if close:
        backend.close()
    return {"instance": inst.id, "seed": seed, "success": episode.success, "build_s": build_s, "steps": steps}


def print_episode(res: dict[str, Any], verbose: bool, extra: str = "") -> None:
    """One line per episode, then its steps: every step with `verbose`, else the ones that failed
    or disagree with the symbolic expectation (what a reader of a bench log looks for)."""
    done = sum(s["ok"] for s in res["steps"])
    print(f"{res['instance']:16s} success={res['success']!s:5s} steps ok {done}/{len(res['steps'])} "
          f"build {res['build_s']:.2f}s{extra}", flush=True)
    for s in res["steps"]:
        if verbose or not s["ok"] or not s["agree"]:
            print(f"    {s['action']:34s} ok={s['ok']} agree={s['agree']} {s['wall_s']:.2f}s (cpu {s['cpu_s']:.2f}s) "
                  f"{s['failure'] or ''} {s['message'] if not s['ok'] or not s['agree'] else ''}")


def figures(results: list[dict[str, Any]], mode: str, heldout: bool, failed: dict[str, str]) -> dict[str, Any]:
    """The bench's JSON figures over `run_episode` results (the same keys for every backend)."""
    steps = [s for r in results for s in r["steps"] if not s["action"].startswith("stop")]
    executed = [s for s in steps if s["executed"]]
    totals = InfoTotals()
    for s in steps:
        totals.add(s["info"])

    def mean(key: str) -> float:
        return statistics.fmean(s[key] for s in steps) if steps else 0.0

    return {
        "mode": mode,
        "heldout": heldout,
        "episodes": len(results),
        "instances": [r["instance"] for r in results],
        "not_compiled": sorted(failed),
        "success_rate": sum(r["success"] for r in results) / max(len(results), 1),
        # agreement over the steps the world executed; a step refused by its symbolic
        # precondition after an earlier physical miss has no physical outcome to compare
        "graph_agreement": sum(s["agree"] for s in executed) / max(len(executed), 1),
        "graph_agreement_all_steps": sum(s["agree"] for s in steps) / max(len(steps), 1),
        "steps": len(steps),
        "steps_not_executed": len(steps) - len(executed),
        "step_success_rate": sum(s["ok"] for s in steps) / max(len(steps), 1),
        "seconds_per_action": mean("wall_s"),
        "physics_seconds_per_action": mean("physics_s"),
        "render_seconds_per_action": mean("render_s"),
        "max_seconds_per_action": max((s["wall_s"] for s in steps), default=0.0),
        # CPU seconds of this process (time.process_time) over the same span as the wall
        # seconds: they grow far less than those with other jobs on a shared machine
        "cpu_seconds_per_action": mean("cpu_s"),
        "max_cpu_seconds_per_action": max((s["cpu_s"] for s in steps), default=0.0),
        "physics_steps_per_action": statistics.fmean(float(s["info"].get("steps", 0.0)) for s in steps) if steps else 0.0,
        # over the steps the world executed only (a refused step costs next to nothing)
        "seconds_per_executed_action": statistics.fmean(s["wall_s"] for s in executed) if executed else 0.0,
        "assists": {"count": totals.assist_count, "per_kind": dict(sorted(totals.assists.items())),
                    "steps_with_assists": sum(bool(s["info"].get("assists")) for s in steps)},
        "retries": totals.retries,
        "build_seconds": statistics.fmean(r["build_s"] for r in results) if results else 0.0,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }
