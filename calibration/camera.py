"""One pinhole camera model shared by every backend: intrinsics + `T_world_cam`.

`T_world_cam` (4x4, A2B naming as in pytransform3d: it maps points from the camera frame into the
world frame) is always stored in the **OpenCV** convention: x right, y down, z forward (optical
axis). Simulators use other camera frames; the conversions here are the only place that knows:

- MuJoCo: x right, y up, looks along -z        (R_cv = R_mj @ diag(1, -1, -1))
- SAPIEN: x forward, y left, z up               (R_cv = R_sp @ M_SAPIEN_FROM_CV)

Pure numpy; units are metres and pixels, image origin at the top-left pixel corner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Columns: the OpenCV camera axes expressed in the other convention's camera frame.
# MuJoCo: cv x = mj x, cv y = -mj y, cv z = -mj z.
CV_IN_MUJOCO = np.diag([1.0, -1.0, -1.0])
# SAPIEN (x fwd, y left, z up): cv x (right) = -sp y, cv y (down) = -sp z, cv z (fwd) = sp x.
CV_IN_SAPIEN = np.array([[0.0, 0.0, 1.0],
                         [-1.0, 0.0, 0.0],
                         [0.0, -1.0, 0.0]])
CONVENTIONS = ("opencv", "mujoco", "sapien")


def _axes(convention: str) -> np.ndarray:
    if convention == "opencv":
        return np.eye(3)
    if convention == "mujoco":
        return CV_IN_MUJOCO
    if convention == "sapien":
        return CV_IN_SAPIEN
    raise ValueError(f"unknown camera convention {convention!r}; valid: {', '.join(CONVENTIONS)}")


def convert_pose(T_world_cam: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Re-express a camera pose given in convention `src` in convention `dst` (same optical
    centre, same viewing direction, different axis labels)."""
    T = np.array(T_world_cam, dtype=float)
    R_cv = T[:3, :3] @ _axes(src)
    out = T.copy()
    out[:3, :3] = R_cv @ _axes(dst).T
    return out


@dataclass(frozen=True, slots=True)
class CameraModel:
    """Pinhole camera. fx, fy, cx, cy in pixels; T_world_cam 4x4 in the OpenCV convention."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    T_world_cam: np.ndarray

    @classmethod
    def from_fovy(cls, width: int, height: int, fovy_deg: float, T_world_cam: np.ndarray) -> CameraModel:
        """MuJoCo/SAPIEN style: vertical field of view, square pixels, centred principal point."""
        f = 0.5 * height / math.tan(math.radians(fovy_deg) / 2)
        return cls(width, height, f, f, width / 2, height / 2, np.asarray(T_world_cam, dtype=float))

    @classmethod
    def from_convention(cls, width: int, height: int, fovy_deg: float, position: np.ndarray,
                        rotation: np.ndarray, convention: str) -> CameraModel:
        """Build from a simulator's camera position and rotation matrix (camera axes as columns)."""
        T = np.eye(4)
        T[:3, :3] = np.asarray(rotation, dtype=float).reshape(3, 3)
        T[:3, 3] = position
        return cls.from_fovy(width, height, fovy_deg, convert_pose(T, convention, "opencv"))

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def fovy_deg(self) -> float:
        return math.degrees(2 * math.atan(0.5 * self.height / self.fy))

    def pose(self, convention: str = "opencv") -> np.ndarray:
        """T_world_cam in the requested convention."""
        return convert_pose(self.T_world_cam, "opencv", convention)

    def world_to_camera(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 3) points in the OpenCV camera frame."""
        T = self.T_world_cam
        return (np.asarray(points, dtype=float) - T[:3, 3]) @ T[:3, :3]

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) world points -> ((N, 2) pixel coordinates (u right, v down), (N,) depth along
        the optical axis in metres). Points behind the camera get depth <= 0."""
        pc = self.world_to_camera(np.atleast_2d(points))
        z = pc[:, 2]
        safe = np.where(np.abs(z) < 1e-12, 1e-12, z)
        u = self.fx * pc[:, 0] / safe + self.cx
        v = self.fy * pc[:, 1] / safe + self.cy
        return np.stack([u, v], axis=1), z

    def deproject(self, pixels: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """(N, 2) pixels (u, v) and (N,) depths along the optical axis -> (N, 3) world points."""
        px = np.atleast_2d(np.asarray(pixels, dtype=float))
        d = np.asarray(depth, dtype=float).reshape(-1)
        x = (px[:, 0] - self.cx) / self.fx * d
        y = (px[:, 1] - self.cy) / self.fy * d
        pc = np.stack([x, y, d], axis=1)
        T = self.T_world_cam
        return pc @ T[:3, :3].T + T[:3, 3]

    def to_json(self) -> dict[str, object]:
        return {"width": self.width, "height": self.height, "fx": self.fx, "fy": self.fy, "cx": self.cx,
                "cy": self.cy, "T_world_cam": np.round(self.T_world_cam, 9).tolist(), "convention": "opencv"}
