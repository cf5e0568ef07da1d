"""Node boxes in pixels and set-of-marks overlays (fast, synthetic camera); relation inference
from clouds with stand-in regions; depth deprojection agrees with Open3D's."""

from __future__ import annotations

import numpy as np
import pytest

from robograph_calibration.camera import CameraModel
from robograph_calibration.cloud import ObjectCloud, RGBDView, fuse, o3d_cloud, view_points
from robograph_calibration.errors import CalibrationError
from robograph_calibration.marks import Box, marks_for, project_box, set_of_marks
from robograph_calibration.relations import (
    IN_ROOM,
    INSIDE,
    ON,
    Relations,
    compare,
    infer_relations,
    openings,
    table_markdown,
)
from robograph_calibration.transforms import make_T

# a camera 2 m above the origin looking straight down (OpenCV: z forward = world -z)
T_DOWN = make_T(np.diag([1.0, -1.0, -1.0]), [0.0, 0.0, 2.0])
CAM = CameraModel.from_fovy(320, 240, 60.0, T_DOWN)


def _box(x: float, y: float, z: float, h: float = 0.05) -> Box:
    return Box(np.array([x, y, z]), np.eye(3), np.array([h, h, h]))


def test_box_projection_bounds_its_corners_and_rejects_boxes_behind() -> None:
    proj = project_box(CAM, _box(0.1, 0.0, 0.0))
    assert proj is not None
    u0, v0, u1, v1 = proj.bbox
    px, _ = CAM.project(_box(0.1, 0.0, 0.0).corners())
    assert np.allclose([u0, v0, u1, v1], [px[:, 0].min(), px[:, 1].min(), px[:, 0].max(), px[:, 1].max()])
    assert proj.centre[0] > 160  # world +x is image right for this camera
    assert proj.depth == pytest.approx(2.0)
    assert project_box(CAM, _box(0.0, 0.0, 3.0)) is None  # above the camera: behind it
    assert project_box(CAM, _box(5.0, 0.0, 0.0)) is None  # far outside the view


def test_marks_are_numbered_in_id_order_and_hidden_nodes_dropped() -> None:
    boxes = {"mug": _box(-0.2, 0.1, 0.0), "apple": _box(0.2, -0.1, 0.0), "plate": _box(0.0, 0.0, 0.0)}
    names = {"mug": "blue mug", "apple": "red apple", "plate": "plate"}
    marks = marks_for(CAM, boxes, names)
    assert [(m.number, m.node, m.label) for m in marks] == [(1, "apple", "red apple"), (2, "mug", "blue mug"),
                                                            (3, "plate", "plate")]
    # with a segmentation where the plate is hidden, only visible nodes get marks
    seg = np.full((240, 320), -1)
    for k, node in enumerate(["apple", "mug"]):
        p = project_box(CAM, boxes[node])
        u0, v0, u1, v1 = (int(v) for v in p.bbox)
        seg[v0:v1, u0:u1] = k
    marks = marks_for(CAM, boxes, names, segmentation=seg, seg_ids=["apple", "mug", "plate"])
    assert [m.node for m in marks] == ["apple", "mug"]
    with pytest.raises(CalibrationError, match="together"):
        marks_for(CAM, boxes, names, segmentation=seg)


def test_overlay_draws_numbered_tags_only_near_the_marks() -> None:
    pytest.importorskip("PIL")
    image = np.full((240, 320, 3), 128, dtype=np.uint8)
    out, marks = set_of_marks(image, CAM, {"mug": _box(-0.3, 0.2, 0.0)}, {"mug": "blue mug"})
    assert out.shape == image.shape and len(marks) == 1
    changed = np.any(out != image, axis=2)
    rows, cols = np.nonzero(changed)
    u0, v0, u1, v1 = marks[0].bbox
    assert changed.sum() > 50  # a tag with text was drawn
    assert cols.min() >= u0 - 40 and cols.max() <= u1 + 40 and rows.min() >= v0 - 10 and rows.max() <= v1 + 10
    assert np.array_equal(image, np.full((240, 320, 3), 128, dtype=np.uint8))  # input untouched


def _flat_view(depth_m: float, label_box: tuple[int, int, int, int]) -> RGBDView:
    depth = np.full((240, 320), depth_m)
    labels = np.full((240, 320), -1)
    r0, r1, c0, c1 = label_box
    labels[r0:r1, c0:c1] = 0
    return RGBDView(CAM, depth, labels)


def test_view_points_match_open3d_deprojection() -> None:
    pytest.importorskip("open3d")
    view = _flat_view(1.5, (0, 240, 0, 320))
    ours, _ = view_points(view)
    theirs = np.asarray(o3d_cloud(CAM, view.depth).points)
    # Open3D's pixel centres are integers: the same rays as ours at +0.5
    assert ours.shape == theirs.shape
    assert np.allclose(np.sort(ours, axis=0), np.sort(theirs, axis=0), atol=1e-6)
    assert np.allclose(ours[:, 2], 0.5)  # 1.5 m below a camera at 2 m


def test_fused_cloud_extents_and_unobserved_objects() -> None:
    pytest.importorskip("open3d")
    clouds = fuse([_flat_view(1.5, (100, 140, 140, 180))], ["lid", "ghost"])
    assert set(clouds) == {"lid"}  # no pixels, no cloud: "ghost" is unobserved
    c = clouds["lid"]
    assert abs(c.centre[0]) < 0.02 and abs(c.centre[1]) < 0.02 and c.centre[2] == pytest.approx(0.5)


class _Shelf:
    """Stand-in region: an axis-aligned floor at `z`, 0.4 m square, `height` free above it."""

    def __init__(self, node: str, z: float, inside: bool, height: float = 0.3) -> None:
        self.node, self.z, self.inside, self.height = node, z, inside, height
        self.volume = 0.16 * height

    def _over(self, c: np.ndarray) -> bool:
        return bool(abs(c[0]) <= 0.2 and abs(c[1]) <= 0.2)

    def contains(self, c: np.ndarray, hz: float) -> bool:
        return self._over(c) and c[2] - hz >= self.z - 0.02 and c[2] <= self.z + self.height

    def supports(self, c: np.ndarray, hz: float) -> bool:
        return self._over(c) and -0.02 <= c[2] - hz - self.z <= 0.03

    def floor_gap(self, c: np.ndarray, hz: float) -> float | None:
        return float(c[2] - hz - self.z) if self._over(c) else None


class _Lid:
    node = "drawer"

    def open_fraction(self, points: np.ndarray) -> float:
        assert len(points) == 2
        return 0.7


def _cloud(lo: list[float], hi: list[float]) -> ObjectCloud:
    return ObjectCloud(np.array([lo, hi]), np.array(lo), np.array(hi))


def test_relations_from_clouds_and_the_confusion_table() -> None:
    regions = [_Shelf("bin", 0.8, inside=True), _Shelf("table", 0.5, inside=False)]
    clouds = {
        "apple": _cloud([-0.05, -0.05, 0.82], [0.05, 0.05, 0.9]),  # in the bin
        "cup": _cloud([-0.05, -0.05, 0.5], [0.05, 0.05, 0.6]),  # bottom on the table
        "book": _cloud([-0.05, -0.05, 0.58], [0.05, 0.05, 0.62]),  # bottom hidden: highest floor below
        "ball": _cloud([1.0, 1.0, 0.0], [1.1, 1.1, 0.1]),  # on the floor of the room
    }
    rel = infer_relations(clouds, ["apple", "cup", "book", "ball", "pen"], regions, lambda c: "kitchen",
                          openings([_Lid()], {"drawer": _cloud([0, 0, 0], [1, 1, 1])}))
    assert rel.open == {"drawer": True} and rel.open_fraction == {"drawer": 0.7}
    assert rel.locations == {"apple": (INSIDE, "bin"), "cup": (ON, "table"), "book": (ON, "table"),
                             "ball": (IN_ROOM, "kitchen")}
    truth = {"apple": (INSIDE, "bin"), "cup": (ON, "table"), "book": (ON, "shelf"), "pen": (ON, "table"),
             "ball": (IN_ROOM, "kitchen")}
    ag = compare(truth, {"drawer": True}, Relations(rel.locations, {"drawer": False}))
    assert (ag.agreed, ag.observed, ag.unobserved) == (3, 5, 1)
    assert ag.table[("ON", "ON (other target)")] == 1 and ag.table[("open", "closed")] == 1
    assert ag.table[("ON", "unobserved")] == 1
    md = table_markdown(ag)
    assert md.splitlines()[0].startswith("| truth \\ perceived |") and md.splitlines()[0].endswith("unobserved |")
