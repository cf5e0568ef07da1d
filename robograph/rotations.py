"""Rotations in plain numpy: the one place for yaw, rotation-matrix and quaternion arithmetic.

Pure (no simulator), so skills, calibration and every backend can share it (the layer rule puts
`robograph` below all of them). Conventions are MuJoCo's, which the SAPIEN and ROS 2 sides convert
from at their edges: quaternions are (w, x, y, z) and unit length; a rotation matrix `R` maps
body coordinates to world coordinates (its columns are the body's axes in the world); angles are
in radians, yaw about world +z, counter-clockwise seen from above.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

ArrayLike = Sequence[float] | np.ndarray


def rot_x(angle: float) -> np.ndarray:
    """(3, 3) rotation by `angle` about x."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(angle: float) -> np.ndarray:
    """(3, 3) rotation by `angle` about y."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(angle: float) -> np.ndarray:
    """(3, 3) rotation by `angle` about z (a yaw)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def yaw_of(R: ArrayLike) -> float:
    """Heading (rad) of a frame's x axis projected on the floor: atan2(R[1,0], R[0,0]).
    Accepts a (3, 3) matrix or MuJoCo's flat (9,) xmat."""
    m = np.asarray(R, dtype=float).reshape(3, 3)
    return math.atan2(m[1, 0], m[0, 0])


def heading_of(axis: ArrayLike) -> float:
    """Heading (rad) of a world direction projected on the floor."""
    return math.atan2(float(axis[1]), float(axis[0]))


def rotate_planar(vec: ArrayLike, yaw: float) -> np.ndarray:
    """(x, y) rotated by `yaw`: a point given in a yawed base's frame, in world axes."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * vec[0] - s * vec[1], s * vec[0] + c * vec[1]])


def wrap_angle(angle: float) -> float:
    """`angle` in [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def wrap_half_turn(angle: float) -> float:
    """`angle` modulo pi, in [-pi/2, pi/2): the yaw of something symmetric under a half turn
    (a parallel gripper's fingers, a box's footprint)."""
    return (angle + math.pi / 2) % math.pi - math.pi / 2


def quat_from_yaw(yaw: float) -> np.ndarray:
    """(w, x, y, z) of a rotation by `yaw` about z."""
    return np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def quat_mul(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Hamilton product a * b (first b, then a), as mju_mulQuat."""
    aw, ax, ay, az = (float(v) for v in a)
    bw, bx, by, bz = (float(v) for v in b)
    return np.array([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw])


def quat_conj(q: ArrayLike) -> np.ndarray:
    """Inverse of a unit quaternion, as mju_negQuat."""
    return np.array([float(q[0]), -float(q[1]), -float(q[2]), -float(q[3])])


def mat_from_quat(q: ArrayLike) -> np.ndarray:
    """(3, 3) rotation matrix of a unit quaternion, as mju_quat2Mat."""
    w, x, y, z = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quat_from_mat(R: ArrayLike) -> np.ndarray:
    """Unit quaternion (w >= 0) of a rotation matrix (Shepperd's method: stable for every
    rotation, including half turns where w is near 0)."""
    m = np.asarray(R, dtype=float).reshape(3, 3)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2 * math.sqrt(1 + trace)
        q = [s / 4, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2 * math.sqrt(1 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [(m[2, 1] - m[1, 2]) / s, s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2 * math.sqrt(1 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s]
    else:
        s = 2 * math.sqrt(1 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4]
    out = np.array(q)
    out /= np.linalg.norm(out)
    return -out if out[0] < 0 else out


def relative_pose(p1: ArrayLike, q1: ArrayLike, p2: ArrayLike, q2: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Pose of frame 2 in frame 1 (position, quaternion), both given in the world: what a weld
    stores to hold two bodies where they are."""
    rel = mat_from_quat(q1).T @ (np.asarray(p2, dtype=float) - np.asarray(p1, dtype=float))
    return rel, quat_mul(quat_conj(q1), q2)
