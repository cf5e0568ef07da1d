"""Lazy access to SAPIEN and the Panda description, and a Vulkan probe that cannot crash us.

Importing the backend package never imports SAPIEN. Whether Vulkan works is asked of a child
process first: a broken driver stack can abort the interpreter that initialises it, and a fork
after Vulkan is up hangs, so the probe runs before this process touches Vulkan at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from types import ModuleType

from robograph.errors import DependencyNotInstalled
from robograph_backends.sapien_tabletop.errors import VulkanUnavailable

PROBE = "import sapien\nsapien.render.RenderSystem()\nprint('vulkan-ok')\n"
PROBE_TIMEOUT_S = 60.0


def _mesa_cache() -> None:
    """Mesa writes its shader cache under $HOME by default; a temp dir keeps CI clean."""
    os.environ.setdefault("MESA_SHADER_CACHE_DIR", str(Path(tempfile.gettempdir()) / "robograph-mesa-cache"))


def sapien_module() -> ModuleType:
    try:
        return import_module("sapien")
    except ImportError as exc:
        raise DependencyNotInstalled("sapien", "sapien") from exc


def panda_urdf() -> Path:
    """pybullet_data's Franka Panda (ships in the pybullet wheel: nothing is downloaded)."""
    try:
        data = import_module("pybullet_data")
    except ImportError as exc:
        raise DependencyNotInstalled("pybullet", "sapien") from exc
    return Path(data.getDataPath()) / "franka_panda" / "panda.urdf"


def probe_vulkan(env: dict[str, str] | None = None) -> None:
    """Raise `VulkanUnavailable` unless a child interpreter can create SAPIEN's render system.
    `env` replaces the child's environment (tests point VK_ICD_FILENAMES at nothing)."""
    _mesa_cache()
    try:
        done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise VulkanUnavailable(f"the probe did not finish in {PROBE_TIMEOUT_S:.0f} s") from exc
    if "vulkan-ok" in done.stdout:
        return
    if "No module named 'sapien'" in done.stderr:
        raise DependencyNotInstalled("sapien", "sapien")
    lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
    detail = lines[-1] if lines else f"probe exited with status {done.returncode}"
    raise VulkanUnavailable(detail)


@lru_cache(maxsize=1)
def require_vulkan() -> None:
    """`probe_vulkan` once per process (cached only on success: a failure raises every time)."""
    probe_vulkan()
