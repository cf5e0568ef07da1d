"""Lazy access to the simulator: importing the backend package never imports MuJoCo; the first
use does, and a missing install raises `DependencyNotInstalled` naming the `mujoco` extra."""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType

from robograph.errors import DependencyNotInstalled


def mujoco_module() -> ModuleType:
    """The `mujoco` module, with headless EGL rendering chosen unless the user picked a backend."""
    os.environ.setdefault("MUJOCO_GL", "egl")
    try:
        return import_module("mujoco")
    except ImportError as exc:
        raise DependencyNotInstalled("mujoco", "mujoco") from exc

