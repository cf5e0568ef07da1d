"""Hand-eye calibration (OpenCV `calibrateHandEye`): the camera's mount from pairs of (robot pose,
board pose seen by the camera).

- eye-in-hand: the camera rides on the gripper, the board is fixed in the world.
  Solves X = T_gripper_cam from T_base_gripper_i @ X @ T_cam_board_i = const.
- eye-to-hand: the camera is fixed, the board rides on the gripper.
  Solves X = T_base_cam from inv(T_base_gripper_i) @ X @ T_cam_board_i = const
  (the same equation with the robot poses inverted).

Methods: OpenCV's `calibrateHandEye` solvers (tsai, park, horaud, andreff, daniilidis) and
`robot-world` (`calibrateRobotWorldHandEye`, Shah's method, which solves the mount and the fixed
frame together).

The residual is how much the "constant" board pose still moves across views after the solve: a
calibration-free check of the result (a few mm / tenths of a degree on good data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from robograph_calibration.deps import cv2_module
from robograph_calibration.errors import CalibrationError, TooFewViews
from robograph_calibration.transforms import invert, make_T, rotation_angle_deg

HANDEYE_MODES = ("eye-in-hand", "eye-to-hand")
HANDEYE_METHODS = ("tsai", "park", "horaud", "andreff", "daniilidis", "robot-world")
MIN_POSES = 5
MIN_ROTATION_SPREAD_DEG = 10.0  # robot rotations about fewer than two distinct axes leave X unobservable


@dataclass(frozen=True, slots=True, eq=False)
class HandEyeResult:
    mode: str
    T: np.ndarray  # T_gripper_cam (eye-in-hand) or T_base_cam (eye-to-hand), OpenCV camera frame
    residual_mm: float  # RMS spread of the fixed frame's translation across views
    residual_deg: float  # RMS spread of its rotation
    views: int


def _rotation_spread(Rs: Sequence[np.ndarray]) -> float:
    return max(rotation_angle_deg(a.T @ b) for a in Rs for b in Rs)


def _axes_rank(Ts: Sequence[np.ndarray]) -> int:
    """Number of independent rotation axes among the relative motions (needs 2)."""
    axes = []
    for a, b in zip(Ts[:-1], Ts[1:], strict=True):
        R = a[:3, :3].T @ b[:3, :3]
        w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
        if np.linalg.norm(w) > 1e-3:
            axes.append(w / np.linalg.norm(w))
    return int(np.linalg.matrix_rank(np.array(axes), tol=0.05)) if axes else 0


def calibrate_hand_eye(T_base_gripper: Sequence[np.ndarray], T_cam_board: Sequence[np.ndarray], *,
                       mode: str = "eye-in-hand", method: str = "park") -> HandEyeResult:
    cv2 = cv2_module()
    if mode not in HANDEYE_MODES:
        raise CalibrationError(f"unknown hand-eye mode {mode!r}; valid: {', '.join(HANDEYE_MODES)}")
    if method not in HANDEYE_METHODS:
        raise CalibrationError(f"unknown hand-eye method {method!r}; valid: {', '.join(HANDEYE_METHODS)}")
    if len(T_base_gripper) != len(T_cam_board):
        raise CalibrationError(f"{len(T_base_gripper)} robot poses but {len(T_cam_board)} board poses; "
                               "give one robot pose per image")
    if len(T_base_gripper) < MIN_POSES:
        raise TooFewViews("hand-eye calibration", len(T_base_gripper), MIN_POSES)
    robot = [np.asarray(T, dtype=float) for T in T_base_gripper]
    if mode == "eye-to-hand":
        robot = [invert(T) for T in robot]
    spread = _rotation_spread([T[:3, :3] for T in robot])
    if spread < MIN_ROTATION_SPREAD_DEG or _axes_rank(robot) < 2:
        raise TooFewViews("hand-eye calibration", len(robot), MIN_POSES,
                          f"robot rotations span {spread:.1f} deg about fewer than two axes; rotate the "
                          f"{'gripper' if mode == 'eye-in-hand' else 'board'} about at least two axes by "
                          f">= {MIN_ROTATION_SPREAD_DEG:.0f} deg")
    cam = [np.asarray(T, dtype=float) for T in T_cam_board]
    if method == "robot-world":
        # AX = ZB form: world2cam = T_cam_board, base2gripper = inv(robot); returns gripper2cam = inv(X)
        inv_robot = [invert(T) for T in robot]
        _, _, R, t = cv2.calibrateRobotWorldHandEye([T[:3, :3] for T in cam], [T[:3, 3] for T in cam],
                                                    [T[:3, :3] for T in inv_robot], [T[:3, 3] for T in inv_robot])
        X = invert(make_T(R, t))
    else:
        R, t = cv2.calibrateHandEye([T[:3, :3] for T in robot], [T[:3, 3] for T in robot],
                                    [T[:3, :3] for T in cam], [T[:3, 3] for T in cam],
                                    method=getattr(cv2, f"CALIB_HAND_EYE_{method.upper()}"))
        X = make_T(R, t)
    fixed = [g @ X @ c for g, c in zip(robot, cam, strict=True)]
    mean_t = np.mean([F[:3, 3] for F in fixed], axis=0)
    res_mm = 1000 * float(np.sqrt(np.mean([np.sum((F[:3, 3] - mean_t) ** 2) for F in fixed])))
    res_deg = float(np.sqrt(np.mean([rotation_angle_deg(fixed[0][:3, :3].T @ F[:3, :3]) ** 2 for F in fixed])))
    return HandEyeResult(mode, X, res_mm, res_deg, len(robot))
