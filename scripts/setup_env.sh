#!/usr/bin/env bash
# Create .venv (once) and install robograph with the extras named in ROBOGRAPH_EXTRAS
# (default: dev). Idempotent: re-running only installs what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${ROBOGRAPH_EXTRAS:-dev}"
# Headless rendering for the MuJoCo backend (EGL, OSMesa fallback): Debian packages, installed
# only when missing and only when running as root (CI); otherwise the tests report what is missing.
gl_pkgs="libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1 libosmesa6"
if [[ ",$extras," == *",mujoco,"* ]] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null \
   && ! dpkg -s $gl_pkgs >/dev/null 2>&1; then
  apt-get update && apt-get install -y $gl_pkgs
fi
# open3d (calibration extra) loads libusb at import time.
if [[ ",$extras," == *",calibration,"* ]] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null \
   && ! dpkg -s libusb-1.0-0 >/dev/null 2>&1; then
  apt-get update && apt-get install -y libusb-1.0-0
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=".venv/.installed-$(echo "$extras" | tr ',' '-')-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[${extras}]"
  touch "$stamp"
fi
