"""The rig file: every camera of a robot with its intrinsics (ROS calibration fields, so each entry
is also a valid `camera_info_manager` YAML) and its mount (hand-eye result). Backends and the ROS 2
bridge read it to place cameras; `tf2` can publish a mount from its translation + quaternion.

```yaml
rig_version: 1
cameras:
  wrist:                       # one entry per camera
    image_width: 640           # ... ROS calibration fields (camera_matrix, distortion_coefficients, ...)
    frame_id: wrist_optical_frame
    mount:
      kind: eye-in-hand        # eye-in-hand: parent is the moving link; eye-to-hand: parent is the base
      parent: right_hand
      T_parent_cam: [[...], [...], [...], [...]]   # OpenCV optical frame (REP 103 *_optical_frame)
      translation: [x, y, z]   # the same transform for tf2 (metres)
      rotation_xyzw: [x, y, z, w]
    quality: {reprojection_rms_px: 0.12, views: 30}
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from robograph_calibration.camera import CameraModel
from robograph_calibration.errors import CalibrationFileError
from robograph_calibration.ros_yaml import from_ros_dict, to_ros_dict
from robograph_calibration.transforms import R_to_quat_xyzw, make_T, quat_xyzw_to_R

RIG_VERSION = 1
MOUNT_KINDS = ("eye-in-hand", "eye-to-hand", "fixed")


@dataclass(frozen=True, slots=True, eq=False)
class Mount:
    """Where a camera is fixed: `T_parent_cam` maps points from the camera's OpenCV optical frame
    into the parent frame (a robot link for eye-in-hand, the robot base for eye-to-hand)."""

    kind: str
    parent: str
    T_parent_cam: np.ndarray

    def __post_init__(self) -> None:
        if self.kind not in MOUNT_KINDS:
            raise CalibrationFileError(f"unknown mount kind {self.kind!r}; valid: {', '.join(MOUNT_KINDS)}")
        T = np.asarray(self.T_parent_cam, dtype=float)
        if T.shape != (4, 4) or not np.allclose(T[:3, :3] @ T[:3, :3].T, np.eye(3), atol=1e-6):
            raise CalibrationFileError("mount T_parent_cam must be a 4x4 rigid transform")
        object.__setattr__(self, "T_parent_cam", T)

    def to_dict(self) -> dict[str, Any]:
        T = self.T_parent_cam
        return {"kind": self.kind, "parent": self.parent, "T_parent_cam": np.round(T, 9).tolist(),
                "translation": np.round(T[:3, 3], 9).tolist(),
                "rotation_xyzw": np.round(R_to_quat_xyzw(T[:3, :3]), 9).tolist()}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], source: str) -> Mount:
        try:
            if "T_parent_cam" in doc:
                T = np.asarray(doc["T_parent_cam"], dtype=float)
            else:
                T = make_T(quat_xyzw_to_R(np.asarray(doc["rotation_xyzw"], dtype=float)), doc["translation"])
            return cls(str(doc["kind"]), str(doc["parent"]), T)
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationFileError(f"{source}: bad mount ({exc}); a mount has kind, parent and "
                                       "T_parent_cam (or translation + rotation_xyzw)") from exc


@dataclass(frozen=True, slots=True, eq=False)
class RigCamera:
    name: str
    camera: CameraModel
    frame_id: str
    mount: Mount | None = None
    quality: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False)
class Rig:
    cameras: Mapping[str, RigCamera]

    def camera(self, name: str) -> RigCamera:
        if name not in self.cameras:
            raise CalibrationFileError(f"no camera {name!r} in the rig; cameras: {', '.join(sorted(self.cameras)) or 'none'}")
        return self.cameras[name]

    def placed(self, name: str, T_world_parent: np.ndarray) -> CameraModel:
        """The camera's model posed in the world, given where its mount's parent frame is now
        (the gripper's pose for an eye-in-hand camera, the base's for eye-to-hand)."""
        rc = self.camera(name)
        if rc.mount is None:
            raise CalibrationFileError(f"camera {name!r} has no mount in the rig; run `robograph calibrate hand-eye`")
        return rc.camera.with_pose(np.asarray(T_world_parent, dtype=float) @ rc.mount.T_parent_cam)

    def with_camera(self, cam: RigCamera) -> Rig:
        return Rig({**self.cameras, cam.name: cam})

    def to_dict(self) -> dict[str, Any]:
        cams: dict[str, Any] = {}
        for name in sorted(self.cameras):
            rc = self.cameras[name]
            entry = to_ros_dict(rc.camera, name)
            entry["frame_id"] = rc.frame_id
            if rc.mount is not None:
                entry["mount"] = rc.mount.to_dict()
            if rc.quality:
                entry["quality"] = {k: (float(v) if isinstance(v, float | np.floating) else v)
                                    for k, v in rc.quality.items()}
            cams[name] = entry
        return {"rig_version": RIG_VERSION, "cameras": cams}

    @classmethod
    def from_dict(cls, doc: Any, source: str = "rig") -> Rig:
        if not isinstance(doc, dict) or not isinstance(doc.get("cameras"), dict):
            raise CalibrationFileError(f"{source}: a rig file has 'rig_version: {RIG_VERSION}' and a 'cameras' mapping")
        if doc.get("rig_version") != RIG_VERSION:
            raise CalibrationFileError(f"{source}: rig_version {doc.get('rig_version')!r} is not supported; valid: {RIG_VERSION}")
        cams = {}
        for name, entry in doc["cameras"].items():
            where = f"{source}: cameras.{name}"
            _, model = from_ros_dict(entry, where)
            mount = Mount.from_dict(entry["mount"], where) if entry.get("mount") else None
            cams[str(name)] = RigCamera(str(name), model, str(entry.get("frame_id", f"{name}_optical_frame")),
                                        mount, dict(entry.get("quality") or {}))
        return cls(cams)

    def write(self, path: str | Path) -> None:
        Path(path).write_text(yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None))

    @classmethod
    def read(cls, path: str | Path) -> Rig:
        p = Path(path)
        try:
            doc = yaml.safe_load(p.read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise CalibrationFileError(f"{p}: cannot read ({exc})") from exc
        return cls.from_dict(doc, str(p))
