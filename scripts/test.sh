#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run it.
# Pass pytest arguments through, e.g. `bash scripts/test.sh -m "not slow"` to skip simulator tests.
# Tests run in ROBOGRAPH_TEST_WORKERS processes (default 2, CI's cores; 1 runs them in this one), a
# whole file per process so a module's simulator fixture is built once; on 2 cores the suite took
# 8 min instead of 14.
set -euo pipefail
cd "$(dirname "$0")/.."
ROBOGRAPH_EXTRAS="${ROBOGRAPH_EXTRAS:-dev,mujoco,calibration,ray,media,rerun,sapien}" bash scripts/setup_env.sh
# ROS 2 bridge: its own venv (.venv-ros2); the bridge tests run there over real DDS and must not skip.
bash scripts/setup_ros2.sh
export ROBOGRAPH_ROS2_REQUIRED=1
.venv/bin/ruff check robograph backends skills calibration ros_bridge scripts tests
workers="${ROBOGRAPH_TEST_WORKERS:-2}"
if [ "$workers" -gt 1 ]; then
  exec .venv/bin/python -m pytest -q -n "$workers" --dist loadfile "$@"
fi
exec .venv/bin/python -m pytest -q "$@"
