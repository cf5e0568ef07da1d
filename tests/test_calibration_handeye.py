"""Hand-eye calibration on exact synthetic poses (fast): both setups recover the mount, noise
degrades it gracefully, and degenerate or too few poses give a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from robograph_calibration.errors import CalibrationError, TooFewViews
from robograph_calibration.transforms import invert, make_T, pose_error, rotvec_to_R

pytest.importorskip("cv2")
from robograph_calibration.handeye import calibrate_hand_eye  # noqa: E402

X_TRUE = make_T(rotvec_to_R([0.1, -0.2, 0.05]), [0.012, 0.062, 0.045])
BOARD_IN_BASE = make_T(rotvec_to_R([3.1, 0.0, 0.2]), [0.6, 0.1, 0.0])


def _poses(n: int, seed: int, rot_scale: float = 0.5) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [make_T(rotvec_to_R(rng.normal(size=3) * rot_scale), rng.uniform([-0.2, -0.2, 0.3], [0.2, 0.2, 0.6]))
            for _ in range(n)]


def _noisy(T: np.ndarray, rng: np.random.Generator, mm: float, deg: float) -> np.ndarray:
    return T @ make_T(rotvec_to_R(rng.normal(size=3) * np.radians(deg)), rng.normal(size=3) * mm / 1000)


@pytest.mark.parametrize("method", ["park", "tsai", "robot-world"])
@pytest.mark.parametrize("mode", ["eye-in-hand", "eye-to-hand"])
def test_recovers_the_mount(mode: str, method: str) -> None:
    grip = _poses(12, 0)
    if mode == "eye-in-hand":  # board fixed in the base frame: T_cam_board = inv(X) inv(G) B
        cam = [invert(X_TRUE) @ invert(G) @ BOARD_IN_BASE for G in grip]
    else:  # camera fixed (X = T_base_cam), board on the gripper at a fixed offset
        offset = make_T(rotvec_to_R([0.0, 0.3, 0.0]), [0.0, 0.0, 0.1])
        cam = [invert(X_TRUE) @ G @ offset for G in grip]
    res = calibrate_hand_eye(grip, cam, mode=mode, method=method)
    dt, dr = pose_error(res.T, X_TRUE)
    assert dt < 1e-6 and dr < 1e-5
    assert res.residual_mm < 1e-3 and res.views == 12


def test_noise_degrades_gracefully_and_shows_in_the_residual() -> None:
    rng = np.random.default_rng(5)
    grip = _poses(20, 1)
    cam = [_noisy(invert(X_TRUE) @ invert(G) @ BOARD_IN_BASE, rng, 0.3, 0.05) for G in grip]
    res = calibrate_hand_eye(grip, cam, mode="eye-in-hand")
    dt, dr = pose_error(res.T, X_TRUE)
    assert dt < 2e-3 and dr < 0.2
    assert res.residual_mm > 0.05  # the noise is visible in the self-check


def test_too_few_or_degenerate_poses_are_refused() -> None:
    grip = _poses(4, 2)
    cam = [invert(X_TRUE) @ invert(G) @ BOARD_IN_BASE for G in grip]
    with pytest.raises(TooFewViews, match="4 usable view"):
        calibrate_hand_eye(grip, cam)
    # pure translations plus rotations about one axis only: X is not observable
    rz = [make_T(rotvec_to_R([0, 0, a]), [0.1 * a, 0, 0.4]) for a in np.linspace(0, 1.0, 8)]
    cam = [invert(X_TRUE) @ invert(G) @ BOARD_IN_BASE for G in rz]
    with pytest.raises(TooFewViews, match="two axes"):
        calibrate_hand_eye(rz, cam)
    with pytest.raises(CalibrationError, match="one robot pose per image"):
        calibrate_hand_eye(_poses(6, 3), cam)
    with pytest.raises(CalibrationError, match="valid: eye-in-hand, eye-to-hand"):
        calibrate_hand_eye(rz, cam, mode="eye-on-table")
