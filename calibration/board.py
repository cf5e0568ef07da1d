"""Calibration boards: ChArUco (OpenCV `aruco`) and plain chessboards, their printable texture and
their detection in an image as (object point, image point) pairs.

Board frame (OpenCV's): origin at the outer corner of the top-left square, x along the columns,
y down the rows, z into the board, so a camera facing the printed side sees z pointing away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from robograph_calibration.deps import cv2_module
from robograph_calibration.errors import CalibrationError

BOARD_KINDS = ("charuco", "chessboard")


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """Squares across (x) and down (y), square and marker side in metres, ArUco dictionary name."""

    kind: str = "charuco"
    squares_x: int = 8
    squares_y: int = 6
    square_m: float = 0.035
    marker_m: float = 0.026
    dictionary: str = "DICT_4X4_50"

    def __post_init__(self) -> None:
        if self.kind not in BOARD_KINDS:
            raise CalibrationError(f"unknown board kind {self.kind!r}; valid: {', '.join(BOARD_KINDS)}")
        if self.squares_x < 3 or self.squares_y < 3:
            raise CalibrationError(f"a board needs at least 3x3 squares, got {self.squares_x}x{self.squares_y}")
        if not 0 < self.marker_m < self.square_m:
            raise CalibrationError(f"marker side must be in (0, square side={self.square_m}), got {self.marker_m}")

    @property
    def inner_corners(self) -> tuple[int, int]:
        return self.squares_x - 1, self.squares_y - 1

    @property
    def size_m(self) -> tuple[float, float]:
        return self.squares_x * self.square_m, self.squares_y * self.square_m

    def corner_points(self) -> np.ndarray:
        """(N, 3) inner corners in the board frame, row-major (id = row * (squares_x - 1) + col),
        the order of ChArUco ids and of `findChessboardCornersSB`."""
        nx, ny = self.inner_corners
        gx, gy = np.meshgrid(np.arange(1, nx + 1), np.arange(1, ny + 1))
        pts = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)], axis=1)
        return pts * self.square_m

    def cv_board(self) -> Any:
        cv2 = cv2_module()
        names = [n for n in dir(cv2.aruco) if n.startswith("DICT_")]
        if self.dictionary not in names:
            raise CalibrationError(f"unknown ArUco dictionary {self.dictionary!r}; valid: {', '.join(sorted(names))}")
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_m, self.marker_m, d)

    def texture(self, px_per_square: int = 120, margin_squares: float = 0.5) -> np.ndarray:
        """(H, W) uint8 printable image with a white margin of `margin_squares` squares."""
        m = int(round(margin_squares * px_per_square))
        w, h = self.squares_x * px_per_square + 2 * m, self.squares_y * px_per_square + 2 * m
        if self.kind == "charuco":
            return np.asarray(self.cv_board().generateImage((w, h), marginSize=m))
        img = np.full((h, w), 255, dtype=np.uint8)
        for r in range(self.squares_y):
            for c in range(self.squares_x):
                if (r + c) % 2 == 0:
                    img[m + r * px_per_square:m + (r + 1) * px_per_square,
                        m + c * px_per_square:m + (c + 1) * px_per_square] = 0
        return img


@dataclass(frozen=True, slots=True, eq=False)
class Detection:
    """Board corners found in one image: ids into `corner_points`, (N, 3) object points in the
    board frame, (N, 2) image points in OpenCV pixels (pixel centres at integers)."""

    ids: np.ndarray
    object_points: np.ndarray
    image_points: np.ndarray


def _gray(image: np.ndarray) -> np.ndarray:
    img = np.asarray(image)
    if img.ndim == 2:
        return img.astype(np.uint8)
    if img.ndim == 3 and img.shape[2] in (3, 4):
        return cv2_module().cvtColor(img[..., :3].astype(np.uint8), cv2_module().COLOR_RGB2GRAY)
    raise CalibrationError(f"an image must be (H, W) or (H, W, 3|4), got shape {img.shape}")


def detect(board: BoardSpec, image: np.ndarray) -> Detection | None:
    """The board's corners in an image, or None when it is not found (sub-pixel refined)."""
    cv2 = cv2_module()
    gray = _gray(image)
    pts = board.corner_points()
    if board.kind == "charuco":
        corners, ids, _, _ = cv2.aruco.CharucoDetector(board.cv_board()).detectBoard(gray)
        if ids is None or len(ids) == 0:
            return None
        ids = ids.ravel().astype(np.int64)
        # OpenCV <= 4.12's detectBoard returns corners shifted by +0.5 px (opencv/opencv#25539, fixed
        # upstream by dropping a shift around cornerSubPix): refine again in absolute coordinates,
        # which converges to the saddle point whatever the start, so any OpenCV version agrees.
        refined = cv2.cornerSubPix(gray, corners.reshape(-1, 1, 2).astype(np.float32), (5, 5), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4))
        return Detection(ids, pts[ids], refined.reshape(-1, 2).astype(float))
    found, corners = cv2.findChessboardCornersSB(gray, board.inner_corners, cv2.CALIB_CB_ACCURACY)
    if not found:
        return None
    ids = np.arange(len(pts))
    return Detection(ids, pts, corners.reshape(-1, 2).astype(float))
