"""Camera model with distortion against OpenCV's own functions, CameraInfo / ROS YAML / rig file
round trips, and the ROS (REP 103) conventions."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from robograph_calibration.camera import CameraModel, convert_pose, distort, undistort
from robograph_calibration.errors import CalibrationError, CalibrationFileError, ConventionError
from robograph_calibration.rig import Mount, Rig, RigCamera
from robograph_calibration.ros_yaml import from_ros_dict, read_ros_yaml, write_ros_yaml
from robograph_calibration.transforms import R_to_quat_xyzw, make_T, quat_xyzw_to_R, rotvec_to_R

DIST = (-0.28, 0.09, 0.0012, -0.0008, -0.012)  # a typical wide-angle webcam


def _camera(dist: tuple[float, ...] = DIST) -> CameraModel:
    T = make_T(rotvec_to_R([0.3, -0.2, 0.1]), [0.5, -0.3, 1.2])
    return CameraModel(640, 480, 520.0, 515.0, 322.3, 238.9, T, dist)


def test_projection_matches_opencv_projectPoints() -> None:
    cv2 = pytest.importorskip("cv2")
    cam = _camera()
    rng = np.random.default_rng(0)
    pc = np.column_stack([rng.uniform(-0.4, 0.4, 50), rng.uniform(-0.3, 0.3, 50), rng.uniform(0.5, 3, 50)])
    world = pc @ cam.T_world_cam[:3, :3].T + cam.T_world_cam[:3, 3]
    ours, depth = cam.project(world)
    theirs, _ = cv2.projectPoints(pc, np.zeros(3), np.zeros(3), cam.K_opencv, np.array(cam.dist))
    # OpenCV puts pixel centres at integers, this model at +0.5
    assert np.allclose(ours - 0.5, theirs.reshape(-1, 2), atol=1e-9)
    assert np.allclose(depth, pc[:, 2])


def test_undistort_matches_opencv_and_inverts_distort() -> None:
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(1)
    xy = rng.uniform(-0.5, 0.5, (200, 2))
    xy_d = distort(xy, DIST)
    assert not np.allclose(xy_d, xy, atol=1e-3)  # the lens really distorts
    assert np.allclose(undistort(xy_d, DIST), xy, atol=1e-9)
    cam = _camera()
    px = xy_d * [cam.fx, cam.fy] + [cam.cx, cam.cy]
    ref = cv2.undistortPointsIter(px.reshape(-1, 1, 2) - 0.5, cam.K_opencv, np.array(DIST), None, None,
                                  (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12))
    assert np.allclose(cam.rays(px)[:, :2], ref.reshape(-1, 2), atol=1e-7)


@given(st.floats(-0.35, 0.35), st.floats(-0.3, 0.3), st.floats(0.3, 5.0))
@settings(max_examples=60, deadline=None)
def test_project_deproject_round_trip_with_distortion(x: float, y: float, z: float) -> None:
    cam = _camera()
    world = cam.T_world_cam[:3, :3] @ np.array([x * z, y * z, z]) + cam.T_world_cam[:3, 3]
    px, depth = cam.project(world[None])
    assert np.allclose(cam.deproject(px, depth), world[None], atol=1e-7)


def test_camera_info_round_trip_and_opencv_pixel_convention() -> None:
    cam = _camera()
    info = cam.camera_info("wrist_optical_frame")
    assert info["distortion_model"] == "plumb_bob"
    assert info["k"][2] == pytest.approx(cam.cx - 0.5)
    assert info["p"][3] == 0.0 and info["r"] == [1, 0, 0, 0, 1, 0, 0, 0, 1]
    back = CameraModel.from_camera_info(info, cam.T_world_cam)
    assert np.allclose(back.K, cam.K) and back.dist == cam.dist
    assert np.allclose(back.project(np.array([[0.1, 0.2, 3.0]]))[0], cam.project(np.array([[0.1, 0.2, 3.0]]))[0])


ROS_YAML = """image_width: 640
image_height: 480
camera_name: narrow_stereo
camera_matrix:
  rows: 3
  cols: 3
  data: [430.21554, 0.0, 306.6913, 0.0, 430.53233, 227.22809, 0.0, 0.0, 1.0]
distortion_model: plumb_bob
distortion_coefficients:
  rows: 1
  cols: 5
  data: [-0.337586, 0.111955, -0.000466, -0.000456, 0.0]
rectification_matrix:
  rows: 3
  cols: 3
  data: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
projection_matrix:
  rows: 3
  cols: 4
  data: [430.21554, 0.0, 306.6913, 0.0, 0.0, 430.53233, 227.22809, 0.0, 0.0, 0.0, 1.0, 0.0]
"""


def test_reads_a_ros_calibration_yaml_and_writes_it_back(tmp_path) -> None:
    name, cam = from_ros_dict(yaml.safe_load(ROS_YAML))
    assert name == "narrow_stereo"
    assert cam.fx == pytest.approx(430.21554) and cam.cx == pytest.approx(306.6913 + 0.5)
    assert cam.dist[0] == pytest.approx(-0.337586)
    path = tmp_path / "cam.yaml"
    write_ros_yaml(path, cam, name)
    _assert_same_doc(yaml.safe_load(path.read_text()), yaml.safe_load(ROS_YAML))
    name2, cam2 = read_ros_yaml(path)
    assert name2 == name and np.allclose(cam2.K, cam.K) and cam2.dist == cam.dist


def _assert_same_doc(a: dict, b: dict) -> None:
    for key, value in b.items():
        if isinstance(value, dict):
            assert value["rows"] == a[key]["rows"] and value["cols"] == a[key]["cols"]
            assert np.allclose(value["data"], a[key]["data"]), key
        else:
            assert a[key] == value, key


@pytest.mark.parametrize("doc, needle", [
    ({"image_width": 640, "image_height": 480}, "camera_matrix"),
    ({"image_width": 640, "image_height": 480, "camera_matrix": {"data": [1, 2]}}, "9 numbers"),
    ({**yaml.safe_load(ROS_YAML), "distortion_model": "equidistant"}, "plumb_bob"),
    ([1, 2], "mapping"),
])
def test_bad_ros_yaml_gives_a_clear_error(doc: object, needle: str) -> None:
    with pytest.raises(CalibrationFileError, match=needle):
        from_ros_dict(doc)


def test_rig_file_round_trip_and_each_entry_is_a_ros_yaml(tmp_path) -> None:
    cam = _camera()
    T = make_T(rotvec_to_R([0.1, 0.2, -0.3]), [0.01, 0.06, 0.04])
    rig = Rig({"wrist": RigCamera("wrist", cam, "wrist_optical_frame", Mount("eye-in-hand", "right_hand", T),
                                  {"reprojection_rms_px": 0.1, "views": 30})})
    path = tmp_path / "rig.yaml"
    rig.write(path)
    back = Rig.read(path)
    wrist = back.camera("wrist")
    assert np.allclose(wrist.mount.T_parent_cam, T) and wrist.mount.parent == "right_hand"
    assert np.allclose(wrist.camera.K, cam.K) and wrist.quality["views"] == 30
    entry = yaml.safe_load(path.read_text())["cameras"]["wrist"]
    assert from_ros_dict(entry)[0] == "wrist"
    # the tf2 form (translation + quaternion) alone gives the same mount
    del entry["mount"]["T_parent_cam"]
    assert np.allclose(Mount.from_dict(entry["mount"], "x").T_parent_cam, T, atol=1e-8)
    with pytest.raises(CalibrationFileError, match="cameras: wrist"):
        back.camera("head")
    # placing the camera: a point seen by the placed camera is where the gripper pose says
    T_world_gripper = make_T(rotvec_to_R([0.0, 0.5, 0.2]), [0.4, 0.1, 1.0])
    placed = back.placed("wrist", T_world_gripper)
    p_cam = np.array([0.02, -0.01, 0.5])
    world = T_world_gripper @ T @ np.append(p_cam, 1.0)
    assert np.allclose(placed.world_to_camera(world[None, :3])[0], p_cam)
    bare = Rig({"head": RigCamera("head", cam, "head_optical_frame")})
    with pytest.raises(CalibrationFileError, match="no mount"):
        bare.placed("head", np.eye(4))


def test_rig_file_errors_name_the_problem(tmp_path) -> None:
    path = tmp_path / "rig.yaml"
    path.write_text("rig_version: 7\ncameras: {}\n")
    with pytest.raises(CalibrationFileError, match="rig_version 7"):
        Rig.read(path)
    with pytest.raises(CalibrationFileError, match="eye-in-hand"):
        Mount("on-the-table", "base", np.eye(4))


def test_ros_body_and_optical_frames() -> None:
    """REP 103: a camera_link looking along world +x has x forward, z up; its optical frame is
    OpenCV's (z forward, x right, y down)."""
    T_link = np.eye(4)  # camera_link aligned with the world: looks along +x
    opt = convert_pose(T_link, "ros", "ros_optical")
    assert np.allclose(opt[:3, 2], [1, 0, 0]) and np.allclose(opt[:3, 0], [0, -1, 0])
    assert np.allclose(opt[:3, 1], [0, 0, -1])
    assert np.allclose(convert_pose(opt, "opencv", "opengl"), convert_pose(opt, "opencv", "mujoco"))
    with pytest.raises(ConventionError, match="valid: opencv"):
        convert_pose(T_link, "unity", "opencv")


def test_quaternion_round_trip() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        R = rotvec_to_R(rng.normal(size=3) * 2)
        q = R_to_quat_xyzw(R)
        assert q[3] >= 0 and math.isclose(np.linalg.norm(q), 1.0)
        assert np.allclose(quat_xyzw_to_R(q), R, atol=1e-9)


def test_invalid_camera_is_rejected() -> None:
    with pytest.raises(CalibrationError, match="focal"):
        CameraModel(640, 480, 0.0, 500.0, 320, 240)
    with pytest.raises(CalibrationError, match="plumb_bob"):
        CameraModel(640, 480, 500.0, 500.0, 320, 240, np.eye(4), (0.1, 0.2, 0.3))


def test_calibration_imports_no_heavy_dependency() -> None:
    """`robograph calibrate --help` and the pure modules work with OpenCV, Open3D and MuJoCo
    blocked; the first call that needs one names the extra to install."""
    import subprocess
    import sys

    script = """
import sys
for name in ("cv2", "open3d", "mujoco", "PIL"):
    sys.modules[name] = None
import robograph_calibration.camera, robograph_calibration.rig, robograph_calibration.ros_yaml, robograph_calibration.marks, robograph_calibration.relations
import robograph_calibration.intrinsics, robograph_calibration.handeye, robograph_calibration.board, robograph_calibration.cloud, robograph_calibration.sim_board
from robograph.cli import main
from robograph.errors import DependencyNotInstalled
try:
    main(["calibrate", "intrinsics", "--help"])
except SystemExit as exc:
    assert exc.code == 0
try:
    robograph_calibration.board.BoardSpec().cv_board()
except DependencyNotInstalled as exc:
    print("named:", "robograph[calibration]" in str(exc))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "named: True" in out.stdout and "--distortion" in out.stdout
