"""Lazy access to the optional packages of the calibration layer: importing `calibration` never
imports OpenCV, Open3D or MuJoCo; the first call that needs one does, and a missing install raises
`DependencyNotInstalled` naming the extra that provides it."""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType

from robograph.errors import DependencyNotInstalled


def _optional(module: str, package: str, extra: str) -> ModuleType:
    try:
        return import_module(module)
    except ImportError as exc:
        raise DependencyNotInstalled(package, extra) from exc


def cv2_module() -> ModuleType:
    return _optional("cv2", "opencv-python", "calibration")


def open3d_module() -> ModuleType:
    return _optional("open3d", "open3d-cpu", "calibration")


def mujoco_module() -> ModuleType:
    """MuJoCo with headless EGL rendering unless the user chose another GL backend."""
    os.environ.setdefault("MUJOCO_GL", "egl")
    return _optional("mujoco", "mujoco", "mujoco")
