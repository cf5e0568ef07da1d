"""The core imports and runs with every simulator blocked (layers depend one way)."""

from __future__ import annotations

import subprocess
import sys

BLOCKED = ("mujoco", "robosuite", "mink", "sapien", "mplib", "pybullet", "rclpy", "open3d", "torch")

SCRIPT = f"""
import sys
for name in {BLOCKED!r}:
    sys.modules[name] = None  # any import of it now raises ImportError
import robograph
import robograph.cli, robograph.play, robograph.harness.payload, robograph.harness.parse
from robograph_backends.symbolic import SymbolicBackend
import gymnasium as gym
env = gym.make("RoboGraph-v0")
env.reset(seed=0)
env.step('{{"action": {{"name": "observe"}}}}')
loaded = sorted(n for n in {BLOCKED!r} if sys.modules.get(n) is not None)
print("loaded:", loaded)
"""


def test_import_robograph_with_simulators_blocked():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "loaded: []"


SKILLS_SCRIPT = f"""
import sys
for name in {BLOCKED!r}:
    sys.modules[name] = None
import robograph_skills.interface, robograph_skills.primitives, robograph_skills.articulation, robograph_skills.dispatch
loaded = sorted(n for n in {BLOCKED!r} if sys.modules.get(n) is not None)
print("loaded:", loaded)
"""


def test_skills_import_with_simulators_blocked():
    """The skills are portable: no simulator, no IK solver (mink lives in the MuJoCo backend)."""
    result = subprocess.run([sys.executable, "-c", SKILLS_SCRIPT], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "loaded: []"
