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
# SAPIEN renders through Vulkan. Debian 12's lavapipe (Mesa 22) finds no rendering device; Mesa 25
# from bookworm-backports works. Installed only for the sapien extra, as root, when missing. It also
# upgrades the EGL/OSMesa libraries MuJoCo renders with (tests/test_mujoco_world.py covers both).
vk_pkgs="mesa-vulkan-drivers libvulkan1"
vk_mesa_ok() {
  dpkg -s $vk_pkgs >/dev/null 2>&1 || return 1
  local ver
  ver="$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null)"
  dpkg --compare-versions "$ver" ge 25
}
if [[ ",$extras," == *",sapien,"* ]] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null \
   && ! vk_mesa_ok; then
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  if [ "$codename" = "bookworm" ] && ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      > /etc/apt/sources.list.d/bookworm-backports.sources
  fi
  apt-get update
  if [ "$codename" = "bookworm" ]; then
    apt-get install -y -t bookworm-backports $vk_pkgs
  else
    apt-get install -y $vk_pkgs
  fi
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
