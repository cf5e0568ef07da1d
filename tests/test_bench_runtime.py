"""scripts/bench_runtime.py runs and ends with one JSON object of its figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_runtime.py"


def test_bench_runtime_json_last_line():
    result = subprocess.run([sys.executable, str(SCRIPT), "--steps", "400", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["nodes"] == 20 and figures["steps"] == 400
    assert figures["steps_per_second"] > 0 and figures["valid_steps_per_second"] > 0
    assert figures["view_us"] > 0 and figures["observation_us"] > 0
    assert lines[0].startswith("instance bench-desk-20")
