#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run it.
# Pass pytest arguments through, e.g. `bash scripts/test.sh -m "not slow"` to skip simulator tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROBOGRAPH_EXTRAS="${ROBOGRAPH_EXTRAS:-dev,mujoco,calibration,ray,media}" bash scripts/setup_env.sh
.venv/bin/ruff check robograph backends skills calibration ros_bridge scripts tests
exec .venv/bin/python -m pytest -q "$@"
