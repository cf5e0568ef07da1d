"""The physical benches' figures (robograph_backends.bench.figures): CPU seconds and physics steps
per action are averaged over the same actions as the wall seconds (stop excluded)."""

from __future__ import annotations

import pytest

from robograph_backends.bench import figures


def _step(action: str, wall: float, cpu: float, steps: int) -> dict:
    return {"action": action, "ok": True, "agree": True, "executed": True, "message": "", "wall_s": wall,
            "cpu_s": cpu, "physics_s": 0.0, "render_s": 0.0, "info": {"steps": steps}, "failure": None}


def test_cpu_seconds_and_physics_steps_per_action() -> None:
    results = [{"instance": "a", "success": True, "build_s": 1.0,
                "steps": [_step("open(fridge)", 9.0, 3.0, 12000), _step("grab(milk)", 3.0, 1.0, 4000),
                          _step("stop()", 0.0, 0.0, 0)]},
               {"instance": "b", "success": False, "build_s": 1.0, "steps": [_step("walk(kitchen)", 2.0, 0.5, 2000)]}]
    figs = figures(results, "physics", False, {})
    assert figs["cpu_seconds_per_action"] == pytest.approx(4.5 / 3)
    assert figs["max_cpu_seconds_per_action"] == pytest.approx(3.0)
    assert figs["physics_steps_per_action"] == pytest.approx(6000.0)
    assert figs["seconds_per_action"] == pytest.approx(14.0 / 3)
    assert figs["max_seconds_per_action"] == pytest.approx(9.0)
