"""RGB-D to per-object point clouds in the world frame: depth images deprojected through each
camera's model (pose from the rig), fused across cameras, split by a segmentation (a simulator's
masks here, a detector's on a real robot), cleaned with Open3D, summarised as extents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from robograph_calibration.camera import CameraModel
from robograph_calibration.deps import open3d_module
from robograph_calibration.errors import CalibrationError

VOXEL_M = 0.005  # fused clouds are thinned to one point per 5 mm voxel
MIN_POINTS = 15  # an object with fewer points than this (after cleaning) is not observed


@dataclass(frozen=True, slots=True, eq=False)
class RGBDView:
    """One camera's frame: depth (H, W) metres along the optical axis (0 or inf where nothing),
    labels (H, W) int (index into the label names; -1 for none), and the camera with its pose."""

    camera: CameraModel
    depth: np.ndarray
    labels: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class ObjectCloud:
    """An object's fused points (N, 3) and their axis-aligned extents in the world (z up)."""

    points: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        return (self.lo + self.hi) / 2

    @property
    def half(self) -> np.ndarray:
        return (self.hi - self.lo) / 2


def o3d_cloud(camera: CameraModel, depth: np.ndarray, max_depth: float = 10.0) -> Any:
    """The whole view as an Open3D point cloud in the world frame (Open3D's own deprojection;
    distortion-free cameras only: Open3D's pinhole model has none)."""
    o3d = open3d_module()
    if any(camera.dist):
        raise CalibrationError("Open3D deprojects undistorted depth only; undistort the image first")
    K = camera.K_opencv
    intr = o3d.camera.PinholeCameraIntrinsic(camera.width, camera.height, K[0, 0], K[1, 1], K[0, 2], K[1, 2])
    img = o3d.geometry.Image(np.ascontiguousarray(np.nan_to_num(depth, posinf=0.0).astype(np.float32)))
    return o3d.geometry.PointCloud.create_from_depth_image(img, intr, np.linalg.inv(camera.T_world_cam),
                                                           depth_scale=1.0, depth_trunc=max_depth)


def view_points(view: RGBDView, max_depth: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3) world points and (N,) labels of every labelled pixel with a valid depth."""
    d = np.asarray(view.depth, dtype=float)
    if d.shape != view.labels.shape or d.shape != (view.camera.height, view.camera.width):
        raise CalibrationError(f"depth {d.shape}, labels {view.labels.shape} and camera "
                               f"{view.camera.height}x{view.camera.width} must agree")
    ok = (view.labels >= 0) & np.isfinite(d) & (d > 0) & (d < max_depth)
    rows, cols = np.nonzero(ok)
    pix = np.column_stack([cols + 0.5, rows + 0.5])
    return view.camera.deproject(pix, d[rows, cols]), view.labels[rows, cols]


def fuse(views: Sequence[RGBDView], names: Sequence[str], *, voxel: float = VOXEL_M,
         min_points: int = MIN_POINTS) -> dict[str, ObjectCloud]:
    """Per-object clouds fused over all views, thinned (voxel grid) and cleaned of stray points
    (statistical outlier removal: mask edges and mixed pixels), keyed by name."""
    o3d = open3d_module()
    buckets: dict[int, list[np.ndarray]] = {}
    for view in views:
        pts, lab = view_points(view)
        for k in np.unique(lab):
            buckets.setdefault(int(k), []).append(pts[lab == k])
    out: dict[str, ObjectCloud] = {}
    for k, chunks in sorted(buckets.items()):
        if k >= len(names):
            raise CalibrationError(f"label {k} has no name; {len(names)} names given")
        pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(np.concatenate(chunks)))
        pc = pc.voxel_down_sample(voxel)
        if len(pc.points) >= 2 * min_points:
            pc, _ = pc.remove_statistical_outlier(nb_neighbors=min_points, std_ratio=2.5)
        pts = np.asarray(pc.points)
        if len(pts) < min_points:
            continue
        out[names[k]] = ObjectCloud(pts, np.percentile(pts, 1, axis=0), np.percentile(pts, 99, axis=0))
    return out


def summary(clouds: Mapping[str, ObjectCloud]) -> dict[str, dict[str, Any]]:
    return {n: {"points": len(c.points), "centre": np.round(c.centre, 4).tolist(),
                "half": np.round(c.half, 4).tolist()} for n, c in sorted(clouds.items())}
