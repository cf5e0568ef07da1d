"""The ROS camera calibration YAML (camera_calibration_parsers' format, what `camera_info_manager`
loads and the `cameracalibrator` writes): one camera's size, K, D, R and P, plus its name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import yaml

from robograph_calibration.camera import DISTORTION_MODEL, CameraModel
from robograph_calibration.errors import CalibrationFileError


def _matrix(rows: int, cols: int, values: np.ndarray) -> dict[str, Any]:
    return {"rows": rows, "cols": cols, "data": [float(v) for v in np.asarray(values).ravel()]}


def to_ros_dict(camera: CameraModel, name: str) -> dict[str, Any]:
    info = camera.camera_info()
    return {
        "image_width": camera.width,
        "image_height": camera.height,
        "camera_name": name,
        "camera_matrix": _matrix(3, 3, info["k"]),
        "distortion_model": DISTORTION_MODEL,
        "distortion_coefficients": _matrix(1, len(camera.dist), info["d"]),
        "rectification_matrix": _matrix(3, 3, info["r"]),
        "projection_matrix": _matrix(3, 4, info["p"]),
    }


def _field(doc: dict[str, Any], key: str, size: int | None, source: str) -> Any:
    if key not in doc:
        raise CalibrationFileError(f"{source}: missing key {key!r} (a ROS camera calibration YAML has "
                                   "image_width, image_height, camera_matrix, distortion_coefficients)")
    value = doc[key]
    if size is None:
        return value
    data = value.get("data") if isinstance(value, dict) else None
    if not isinstance(data, list) or len(data) != size:
        raise CalibrationFileError(f"{source}: {key}.data must be a list of {size} numbers")
    return data


def from_ros_dict(doc: Any, source: str = "camera calibration") -> tuple[str, CameraModel]:
    """(camera_name, model) from a parsed ROS calibration YAML; the pose is identity."""
    if not isinstance(doc, dict):
        raise CalibrationFileError(f"{source}: expected a mapping at the top level")
    model = doc.get("distortion_model", DISTORTION_MODEL)
    if model != DISTORTION_MODEL:
        raise CalibrationFileError(f"{source}: distortion_model {model!r} is not supported; valid: {DISTORTION_MODEL}")
    d = doc.get("distortion_coefficients", {}).get("data", [0.0] * 5)
    if len(d) not in (4, 5):
        raise CalibrationFileError(f"{source}: distortion_coefficients must have 4 or 5 values, got {len(d)}")
    info = {"width": _field(doc, "image_width", None, source), "height": _field(doc, "image_height", None, source),
            "k": _field(doc, "camera_matrix", 9, source), "d": d}
    try:
        cam = CameraModel.from_camera_info(info)
    except (TypeError, ValueError) as exc:
        raise CalibrationFileError(f"{source}: {exc}") from exc
    return str(doc.get("camera_name", "camera")), cam


def write_ros_yaml(path: str | Path, camera: CameraModel, name: str) -> None:
    Path(path).write_text(yaml.safe_dump(to_ros_dict(camera, name), sort_keys=False, default_flow_style=None))


def read_ros_yaml(path: str | Path) -> tuple[str, CameraModel]:
    p = Path(path)
    try:
        doc = yaml.safe_load(p.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise CalibrationFileError(f"{p}: cannot read ({exc})") from exc
    return from_ros_dict(doc, str(p))
