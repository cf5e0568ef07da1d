"""Rigid transforms as 4x4 numpy arrays, named `T_a_b` (maps points from frame b into frame a).
Pure numpy so the rig file and the error figures need no OpenCV; quaternion arithmetic is
`robograph.rotations` (MuJoCo's w-first order), re-ordered here for ROS's x, y, z, w."""

from __future__ import annotations

import math

import numpy as np

from robograph.rotations import mat_from_quat, quat_from_mat


def make_T(R: np.ndarray, t: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = np.asarray(R, dtype=float).reshape(3, 3)
    T[:3, 3] = np.asarray(t, dtype=float).ravel()
    return T


def invert(T: np.ndarray) -> np.ndarray:
    R, t = T[:3, :3], T[:3, 3]
    return make_T(R.T, -R.T @ t)


def rotvec_to_R(rvec: np.ndarray) -> np.ndarray:
    """Axis-angle (OpenCV's rvec, radians) -> rotation matrix (Rodrigues)."""
    r = np.asarray(rvec, dtype=float).ravel()
    theta = float(np.linalg.norm(r))
    if theta < 1e-15:
        return np.eye(3)
    k = r / theta
    Kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(theta) * Kx + (1 - math.cos(theta)) * Kx @ Kx


def rotation_angle_deg(R: np.ndarray) -> float:
    """Angle of a rotation matrix in degrees (0 for identity); use on R_a.T @ R_b as an error."""
    c = (float(np.trace(R)) - 1.0) / 2.0
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def pose_error(T_est: np.ndarray, T_true: np.ndarray) -> tuple[float, float]:
    """(translation error in metres, rotation error in degrees) between two poses."""
    dt = float(np.linalg.norm(T_est[:3, 3] - T_true[:3, 3]))
    return dt, rotation_angle_deg(T_est[:3, :3].T @ T_true[:3, :3])


def R_to_quat_xyzw(R: np.ndarray) -> np.ndarray:
    """Rotation matrix -> unit quaternion in ROS / tf2 order (x, y, z, w), w >= 0."""
    w, x, y, z = quat_from_mat(R)
    return np.array([x, y, z, w])


def quat_xyzw_to_R(q: np.ndarray) -> np.ndarray:
    """ROS / tf2 quaternion (x, y, z, w), normalised here -> rotation matrix."""
    x, y, z, w = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return mat_from_quat([w, x, y, z])
