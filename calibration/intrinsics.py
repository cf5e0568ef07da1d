"""Intrinsic calibration from images of a board (OpenCV `calibrateCamera`), with the per-view
board poses that hand-eye calibration needs next.

Views where the board is missing or shows too few corners are skipped (and named with the reason);
fewer usable views than `min_views` is an error, never a silently poor answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from robograph_calibration.board import BoardSpec, Detection, detect
from robograph_calibration.camera import CameraModel
from robograph_calibration.deps import cv2_module
from robograph_calibration.errors import CalibrationError, TooFewViews
from robograph_calibration.transforms import make_T, rotvec_to_R

MIN_VIEWS = 8  # OpenCV needs 3; fewer than ~8 varied views leaves the principal point poorly fixed
MIN_CORNERS = 8  # fewer corners than this in a view: the view is skipped
DISTORTION_MODELS = ("none", "radial", "full")


@dataclass(frozen=True, slots=True, eq=False)
class IntrinsicsResult:
    camera: CameraModel  # pose identity
    rms_px: float
    per_view_rms_px: tuple[float, ...]
    used: tuple[int, ...]  # indices into the input images
    skipped: dict[int, str]  # index -> why it was not used
    T_cam_board: tuple[np.ndarray, ...]  # one per used view (OpenCV camera frame)


def _flags(distortion: str) -> int:
    cv2 = cv2_module()
    if distortion == "full":
        return 0
    if distortion == "radial":  # k1, k2 only: k3 and tangential terms overfit distortion-free lenses
        return cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST
    if distortion == "none":
        return cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST
    raise CalibrationError(f"unknown distortion model {distortion!r}; valid: {', '.join(DISTORTION_MODELS)}")


def usable_detections(board: BoardSpec, images: Sequence[np.ndarray], min_corners: int = MIN_CORNERS
                      ) -> tuple[dict[int, Detection], dict[int, str]]:
    found: dict[int, Detection] = {}
    skipped: dict[int, str] = {}
    for i, img in enumerate(images):
        det = detect(board, img)
        if det is None:
            skipped[i] = "board not found"
        elif len(det.ids) < min_corners:
            skipped[i] = f"{len(det.ids)} corners < {min_corners}"
        elif np.linalg.matrix_rank(det.object_points[:, :2] - det.object_points[0, :2], tol=1e-9) < 2:
            skipped[i] = "corners collinear"
        else:
            found[i] = det
    return found, skipped


def calibrate_intrinsics(images: Sequence[np.ndarray], board: BoardSpec, *, distortion: str = "full",
                         min_views: int = MIN_VIEWS, min_corners: int = MIN_CORNERS) -> IntrinsicsResult:
    """Calibrate K and distortion from board images (all the same size, RGB or gray)."""
    cv2 = cv2_module()
    flags = _flags(distortion)
    if not images:
        raise TooFewViews("intrinsic calibration", 0, min_views, "no images given")
    shapes = {np.asarray(im).shape[:2] for im in images}
    if len(shapes) != 1:
        raise CalibrationError(f"all images must have the same size, got {sorted(shapes)}")
    (h, w), = shapes
    found, skipped = usable_detections(board, images, min_corners)
    if len(found) < min_views:
        why = "; ".join(f"image {i}: {r}" for i, r in sorted(skipped.items())[:10])
        raise TooFewViews("intrinsic calibration", len(found), min_views, why)
    used = tuple(sorted(found))
    obj = [found[i].object_points.astype(np.float32) for i in used]
    img = [found[i].image_points.astype(np.float32).reshape(-1, 1, 2) for i in used]
    rms, K, dist, rvecs, tvecs, _, _, per_view = cv2.calibrateCameraExtended(
        obj, img, (w, h), None, None, flags=flags,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12))
    poses = tuple(make_T(rotvec_to_R(r), t) for r, t in zip(rvecs, tvecs, strict=True))
    camera = CameraModel.from_opencv(w, h, K, np.asarray(dist).ravel()[:5])
    return IntrinsicsResult(camera, float(rms), tuple(float(v) for v in np.asarray(per_view).ravel()),
                            used, skipped, poses)


def board_poses(camera: CameraModel, board: BoardSpec, images: Sequence[np.ndarray],
                min_corners: int = MIN_CORNERS) -> tuple[dict[int, np.ndarray], dict[int, str]]:
    """T_cam_board per image for a calibrated camera (solvePnP), and why the others were skipped."""
    cv2 = cv2_module()
    found, skipped = usable_detections(board, images, min_corners)
    poses: dict[int, np.ndarray] = {}
    for i, det in sorted(found.items()):
        ok, rvec, tvec = cv2.solvePnP(det.object_points, det.image_points, camera.K_opencv,
                                      np.asarray(camera.dist), flags=cv2.SOLVEPNP_ITERATIVE)
        if not ok:
            skipped[i] = "pose not solvable"
            continue
        poses[i] = make_T(rotvec_to_R(rvec), tvec)
    return poses, skipped
