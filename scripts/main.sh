#!/usr/bin/env bash
# The main job on the embedded default: symbolic backend, built-in agent, no API key.
set -euo pipefail
cd "$(dirname "$0")/.."
ROBOGRAPH_EXTRAS="${ROBOGRAPH_EXTRAS:-viz}" bash scripts/setup_env.sh
exec .venv/bin/robograph benchmark --agent explorer --workers 2 "$@"
