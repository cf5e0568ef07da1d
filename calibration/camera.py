"""One camera model shared by every backend: pinhole intrinsics, OpenCV distortion, `T_world_cam`.

`T_world_cam` (4x4, A2B naming as in pytransform3d: it maps points from the camera frame into the
world frame) is always stored in the **OpenCV** convention: x right, y down, z forward (optical
axis). Simulators and ROS name other camera frames; the conversions here are the only place that
knows them (see docs/calibration.md for the figure):

- ``opencv`` / ``ros_optical``: x right, y down, z forward (REP 103 ``*_optical_frame``)
- ``mujoco`` / ``opengl``:      x right, y up, looks along -z      (R_cv = R_mj @ diag(1, -1, -1))
- ``sapien`` / ``ros``:         x forward, y left, z up (REP 103 body frame of a ``camera_link``)

Distortion is OpenCV's ``plumb_bob`` model (k1, k2, p1, p2, k3), the one ROS ``CameraInfo`` names.
Pure numpy; units are metres and pixels. Pixel coordinates have their origin at the top-left
*corner* of the image (pixel (row r, col c) covers [c, c+1) x [r, r+1)), which is how MuJoCo and
SAPIEN render (principal point at width/2, height/2). OpenCV and ROS put the *centre* of the first
pixel at 0: their K has cx, cy smaller by 0.5. `from_opencv`, `K_opencv` and `camera_info` convert,
so a calibrated K and a simulator's K compare exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from robograph_calibration.errors import CalibrationError, ConventionError

# Columns: the OpenCV camera axes expressed in the other convention's camera frame.
# MuJoCo/OpenGL: cv x = mj x, cv y = -mj y, cv z = -mj z.
CV_IN_MUJOCO = np.diag([1.0, -1.0, -1.0])
# SAPIEN/ROS body (x fwd, y left, z up): cv x (right) = -y, cv y (down) = -z, cv z (fwd) = x.
CV_IN_SAPIEN = np.array([[0.0, 0.0, 1.0],
                         [-1.0, 0.0, 0.0],
                         [0.0, -1.0, 0.0]])
_AXES: dict[str, np.ndarray] = {
    "opencv": np.eye(3),
    "ros_optical": np.eye(3),
    "mujoco": CV_IN_MUJOCO,
    "opengl": CV_IN_MUJOCO,
    "sapien": CV_IN_SAPIEN,
    "ros": CV_IN_SAPIEN,
}
CONVENTIONS = tuple(_AXES)
DISTORTION_MODEL = "plumb_bob"
NO_DISTORTION = (0.0, 0.0, 0.0, 0.0, 0.0)


def _axes(convention: str) -> np.ndarray:
    try:
        return _AXES[convention]
    except KeyError:
        raise ConventionError(f"unknown camera convention {convention!r}; valid: {', '.join(CONVENTIONS)}") from None


def convert_pose(T_world_cam: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Re-express a camera pose given in convention `src` in convention `dst` (same optical
    centre, same viewing direction, different axis labels)."""
    T = np.array(T_world_cam, dtype=float)
    R_cv = T[:3, :3] @ _axes(src)
    out = T.copy()
    out[:3, :3] = R_cv @ _axes(dst).T
    return out


def distort(xy: np.ndarray, dist: tuple[float, ...]) -> np.ndarray:
    """(N, 2) normalised image coordinates (x/z, y/z) -> distorted ones (OpenCV plumb_bob)."""
    k1, k2, p1, p2, k3 = dist
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([xd, yd], axis=1)


def undistort(xy_d: np.ndarray, dist: tuple[float, ...], iterations: int = 30) -> np.ndarray:
    """Inverse of `distort` by fixed-point iteration (as cv2.undistortPoints does); exact to
    ~1e-10 for the moderate distortion of real lenses."""
    if not any(dist):
        return xy_d.copy()
    k1, k2, p1, p2, k3 = dist
    xy = xy_d.copy()
    for _ in range(iterations):
        x, y = xy[:, 0], xy[:, 1]
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        xy = np.stack([(xy_d[:, 0] - dx) / radial, (xy_d[:, 1] - dy) / radial], axis=1)
    return xy


@dataclass(frozen=True, slots=True, eq=False)
class CameraModel:
    """Pinhole camera with OpenCV distortion. fx, fy, cx, cy in pixels (OpenCV's K); `dist` =
    (k1, k2, p1, p2, k3); T_world_cam 4x4 in the OpenCV convention."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    T_world_cam: np.ndarray = field(default_factory=lambda: np.eye(4))
    dist: tuple[float, ...] = NO_DISTORTION

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise CalibrationError(f"image size must be positive, got {self.width}x{self.height}")
        if not (self.fx > 0 and self.fy > 0):
            raise CalibrationError(f"focal lengths must be positive, got fx={self.fx}, fy={self.fy}")
        T = np.asarray(self.T_world_cam, dtype=float)
        if T.shape != (4, 4):
            raise CalibrationError(f"T_world_cam must be 4x4, got shape {T.shape}")
        object.__setattr__(self, "T_world_cam", T)
        d = tuple(float(v) for v in self.dist)
        if len(d) == 4:
            d = d + (0.0,)
        if len(d) != 5:
            raise CalibrationError(f"distortion must be (k1, k2, p1, p2[, k3]) ({DISTORTION_MODEL}), got {len(d)} values")
        object.__setattr__(self, "dist", d)

    @classmethod
    def from_fovy(cls, width: int, height: int, fovy_deg: float, T_world_cam: np.ndarray) -> CameraModel:
        """MuJoCo/SAPIEN style: vertical field of view, square pixels, centred principal point."""
        f = 0.5 * height / math.tan(math.radians(fovy_deg) / 2)
        return cls(width, height, f, f, width / 2, height / 2, np.asarray(T_world_cam, dtype=float))

    @classmethod
    def from_opencv(cls, width: int, height: int, K: np.ndarray, dist: Any = NO_DISTORTION,
                    T_world_cam: np.ndarray | None = None) -> CameraModel:
        """From OpenCV's / ROS's K (pixel centres at integers) and distortion coefficients."""
        K = np.asarray(K, dtype=float)
        return cls(width, height, float(K[0, 0]), float(K[1, 1]), float(K[0, 2]) + 0.5, float(K[1, 2]) + 0.5,
                   np.eye(4) if T_world_cam is None else np.asarray(T_world_cam, dtype=float),
                   tuple(np.asarray(dist, dtype=float).ravel()))

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
    def K_opencv(self) -> np.ndarray:
        """K in OpenCV's / ROS's pixel convention (pixel centres at integers)."""
        K = self.K
        K[0, 2] -= 0.5
        K[1, 2] -= 0.5
        return K

    @property
    def fovy_deg(self) -> float:
        return math.degrees(2 * math.atan(0.5 * self.height / self.fy))

    def with_pose(self, T_world_cam: np.ndarray, convention: str = "opencv") -> CameraModel:
        return replace(self, T_world_cam=convert_pose(T_world_cam, convention, "opencv"))

    def pose(self, convention: str = "opencv") -> np.ndarray:
        """T_world_cam in the requested convention."""
        return convert_pose(self.T_world_cam, "opencv", convention)

    def world_to_camera(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 3) points in the OpenCV camera frame."""
        T = self.T_world_cam
        return (np.asarray(points, dtype=float) - T[:3, 3]) @ T[:3, :3]

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) world points -> ((N, 2) pixel coordinates (u right, v down), (N,) depth along
        the optical axis in metres). Distortion applied. Points behind the camera get depth <= 0."""
        pc = self.world_to_camera(np.atleast_2d(points))
        z = pc[:, 2]
        safe = np.where(np.abs(z) < 1e-12, 1e-12, z)
        xy = distort(pc[:, :2] / safe[:, None], self.dist)
        u = self.fx * xy[:, 0] + self.cx
        v = self.fy * xy[:, 1] + self.cy
        return np.stack([u, v], axis=1), z

    def rays(self, pixels: np.ndarray) -> np.ndarray:
        """(N, 2) pixels -> (N, 3) undistorted ray directions in the OpenCV camera frame, z = 1."""
        px = np.atleast_2d(np.asarray(pixels, dtype=float))
        xy_d = np.stack([(px[:, 0] - self.cx) / self.fx, (px[:, 1] - self.cy) / self.fy], axis=1)
        xy = undistort(xy_d, self.dist)
        return np.concatenate([xy, np.ones((len(xy), 1))], axis=1)

    def deproject(self, pixels: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """(N, 2) pixels (u, v) and (N,) depths along the optical axis -> (N, 3) world points."""
        d = np.asarray(depth, dtype=float).reshape(-1)
        pc = self.rays(pixels) * d[:, None]
        T = self.T_world_cam
        return pc @ T[:3, :3].T + T[:3, 3]

    def camera_info(self, frame_id: str = "camera_optical_frame") -> dict[str, Any]:
        """The fields of a ROS 2 `sensor_msgs/msg/CameraInfo` (lower-case names, row-major lists).
        No rectification: R = I and P = [K | 0], as for a monocular camera."""
        P = np.zeros((3, 4))
        P[:, :3] = self.K_opencv
        return {"header": {"frame_id": frame_id}, "height": self.height, "width": self.width,
                "distortion_model": DISTORTION_MODEL, "d": list(self.dist), "k": self.K_opencv.ravel().tolist(),
                "r": np.eye(3).ravel().tolist(), "p": P.ravel().tolist(), "binning_x": 0, "binning_y": 0,
                "roi": {"x_offset": 0, "y_offset": 0, "height": 0, "width": 0, "do_rectify": False}}

    @classmethod
    def from_camera_info(cls, info: dict[str, Any], T_world_cam: np.ndarray | None = None) -> CameraModel:
        """Inverse of `camera_info` (accepts ROS 1 upper-case D/K as well)."""
        model = info.get("distortion_model", DISTORTION_MODEL)
        if model not in (DISTORTION_MODEL, ""):
            raise CalibrationError(f"distortion model {model!r} is not supported; valid: {DISTORTION_MODEL}")
        k = info.get("k", info.get("K"))
        d = info.get("d", info.get("D")) or NO_DISTORTION
        if k is None or len(k) != 9:
            raise CalibrationError("CameraInfo needs a 9-element K (row-major 3x3)")
        return cls.from_opencv(int(info["width"]), int(info["height"]), np.reshape(k, (3, 3)), d, T_world_cam)

    def to_json(self) -> dict[str, object]:
        return {"width": self.width, "height": self.height, "fx": self.fx, "fy": self.fy, "cx": self.cx,
                "cy": self.cy, "dist": list(self.dist), "distortion_model": DISTORTION_MODEL,
                "T_world_cam": np.round(self.T_world_cam, 9).tolist(), "convention": "opencv"}
