#!/usr/bin/env bash
# Create .venv (once) and install robograph with the extras named in ROBOGRAPH_EXTRAS
# (default: dev). Idempotent: re-running only installs what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${ROBOGRAPH_EXTRAS:-dev}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=".venv/.installed-$(echo "$extras" | tr ',' '-')-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[${extras}]"
  touch "$stamp"
fi
