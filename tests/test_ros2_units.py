"""Pure parts of the ROS 2 bridge, in the main environment (no rclpy): the request ledger's
at-most-once bookkeeping across restarts, image and pose codecs, and the clear error a user
gets when ROS 2 is not installed where the ros2 backend is built."""

from __future__ import annotations

import importlib.util
import json
from types import SimpleNamespace

import numpy as np
import pytest

from robograph.rotations import mat_from_quat
from robograph_ros_bridge.errors import Ros2NotInstalled, RosBridgeError
from robograph_ros_bridge.images import (
    fill_camera_info,
    fill_image,
    fill_pose,
    image_array,
    pinhole_k,
    pose_matrix,
)
from robograph_ros_bridge.ledger import Ledger


def _header() -> SimpleNamespace:
    return SimpleNamespace(frame_id="", stamp=None)


def test_ledger_answers_finished_and_interrupted_requests_after_a_restart(tmp_path):
    path = tmp_path / "ledger.jsonl"
    led = Ledger.open(path)
    led.reset({"nodes": [], "edges": []})
    led.start("a")
    led.finish("a", {"status": "succeeded"}, {"nodes": [{"id": "x"}], "edges": []})
    led.start("b")  # the process dies here, mid-skill
    with path.open("a") as fh:
        fh.write('{"event": "finis')  # and its last line is cut short
    again = Ledger.open(path)
    assert again.lookup("a") == {"state": "finished", "result": {"status": "succeeded"}}
    assert again.lookup("b") == {"state": "started"}
    assert again.lookup("c") is None
    assert again.world == {"nodes": [{"id": "x"}], "edges": []}
    assert again.executions == {"a": 1, "b": 1}


def test_image_round_trip_and_padding():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, size=(6, 5, 3), dtype=np.uint8)
    msg = fill_image(SimpleNamespace(header=_header()), img, frame_id="cam", stamp=1)
    assert (msg.encoding, msg.step, msg.width, msg.height) == ("rgb8", 15, 5, 6)
    assert np.array_equal(image_array(msg), img)
    padded = SimpleNamespace(encoding="bgr8", width=5, height=6, step=16,
                             data=np.pad(img[:, :, ::-1].reshape(6, 15), ((0, 0), (0, 1))).tobytes())
    assert np.array_equal(image_array(padded), img)
    with pytest.raises(RosBridgeError, match="valid: rgb8"):
        image_array(SimpleNamespace(encoding="32FC1", width=1, height=1, step=4, data=b"\0" * 4))
    with pytest.raises(RosBridgeError, match="uint8"):
        fill_image(SimpleNamespace(header=_header()), img.astype(float), frame_id="cam", stamp=1)


def test_camera_info_is_a_pinhole_of_the_field_of_view():
    fx, fy, cx, cy = pinhole_k(320, 240, 90.0)
    assert fx == pytest.approx(120.0) and (cx, cy) == (159.5, 119.5)
    info = fill_camera_info(SimpleNamespace(header=_header()), width=320, height=240, fx=fx, fy=fy, cx=cx,
                            cy=cy, frame_id="cam", stamp=0)
    assert info.k == [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0] and info.p[3] == 0.0


def test_pose_round_trip():
    T = np.eye(4)
    T[:3, :3] = mat_from_quat(np.array([0.7, 0.1, -0.3, 0.64]) / np.linalg.norm([0.7, 0.1, -0.3, 0.64]))
    T[:3, 3] = (1.0, -2.0, 0.5)
    msg = SimpleNamespace(header=_header(), pose=SimpleNamespace(position=SimpleNamespace(),
                                                                 orientation=SimpleNamespace()))
    assert np.allclose(pose_matrix(fill_pose(msg, T, stamp=0)), T)


@pytest.mark.skipif(importlib.util.find_spec("rclpy") is not None, reason="rclpy is installed here")
def test_ros2_backend_without_ros_names_the_setup_script():
    from robograph_ros_bridge.backend import Ros2Backend

    with pytest.raises(Ros2NotInstalled, match="setup_ros2.sh"):
        Ros2Backend()


def test_ledger_lines_are_json(tmp_path):
    led = Ledger.open(tmp_path / "l.jsonl")
    led.start("r1")
    assert json.loads((tmp_path / "l.jsonl").read_text()) == {"event": "started", "request_id": "r1"}


def _rigid(quat_wxyz, xyz) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = mat_from_quat(np.asarray(quat_wxyz, dtype=float) / np.linalg.norm(quat_wxyz))
    T[:3, 3] = xyz
    return T


def test_transform_buffer_chains_frames_and_names_the_known_ones():
    from robograph_ros_bridge.tf import Transform, TransformBuffer, TransformNotFound

    T_w_base = _rigid((0.9, 0, 0, 0.43), (2.0, 1.0, 0.0))
    T_base_torso = _rigid((1, 0, 0, 0), (0.0, 0.0, 0.3))
    T_torso_cam = _rigid((0.5, -0.5, 0.5, -0.5), (0.1, 0.0, 1.2))
    buf = TransformBuffer()
    buf.update([Transform("world", "r/base_link", T_w_base), Transform("r/base_link", "r/torso", T_base_torso),
                Transform("r/torso", "r/head_optical", T_torso_cam, static=True)])
    T_w_cam = buf.lookup("world", "r/head_optical")
    assert np.allclose(T_w_cam, T_w_base @ T_base_torso @ T_torso_cam)
    assert np.allclose(buf.lookup("r/head_optical", "world"), np.linalg.inv(T_w_cam))
    assert np.allclose(buf.lookup("r/torso", "r/head_optical"), T_torso_cam)
    # a moving frame updated: the chain follows, the static mount stays
    moved = _rigid((1, 0, 0, 0), (5.0, 0.0, 0.0))
    buf.set(Transform("world", "r/base_link", moved))
    assert np.allclose(buf.lookup("world", "r/head_optical"), moved @ T_base_torso @ T_torso_cam)
    assert buf.get("r/head_optical").static and not buf.get("r/base_link").static
    with pytest.raises(TransformNotFound, match=r"known frames: r/base_link, r/head_optical, r/torso, world"):
        buf.lookup("world", "other/cam")
    assert not buf.can_transform("world", "other/cam")
    buf.set(Transform("r/head_optical", "world", np.eye(4)))  # world's parent now in the tree: a cycle
    with pytest.raises(RosBridgeError, match="cycle"):
        buf.lookup("world", "r/torso")


def test_transform_stamped_round_trip():
    from robograph_ros_bridge.tf import Transform, fill_transform_stamped, from_transform_stamped

    T = _rigid((0.2, 0.5, -0.7, 0.1), (0.3, -1.5, 2.0))
    msg = SimpleNamespace(header=_header(), child_frame_id="",
                          transform=SimpleNamespace(translation=SimpleNamespace(), rotation=SimpleNamespace()))
    fill_transform_stamped(msg, Transform("world", "r/cam", T), stamp=SimpleNamespace(sec=3, nanosec=500_000_000))
    assert (msg.header.frame_id, msg.child_frame_id) == ("world", "r/cam")
    back = from_transform_stamped(msg, static=True)
    assert np.allclose(back.matrix, T) and back.stamp_s == 3.5 and back.static
    with pytest.raises(RosBridgeError, match="4x4"):
        fill_transform_stamped(msg, Transform("world", "r/cam", np.eye(3)), stamp=None)


def test_compressed_images_png_exact_jpeg_close_and_smaller():
    pytest.importorskip("PIL")
    from robograph_ros_bridge.images import compressed_array, fill_compressed_image

    yy, xx = np.mgrid[0:120, 0:160]
    img = np.stack([xx * 255 // 159, yy * 255 // 119, (xx + yy) % 256], axis=-1).astype(np.uint8)
    png = fill_compressed_image(SimpleNamespace(header=_header()), img, fmt="png", frame_id="c", stamp=0)
    assert png.format == "rgb8; png compressed rgb8" and bytes(png.data[:8]) == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(compressed_array(png), img)
    jpg = fill_compressed_image(SimpleNamespace(header=_header()), img, fmt="jpeg", frame_id="c", stamp=0, quality=90)
    assert "jpeg" in jpg.format and bytes(jpg.data[:2]) == b"\xff\xd8"
    decoded = compressed_array(jpg)
    assert decoded.shape == img.shape and decoded.dtype == np.uint8
    assert np.abs(decoded.astype(int) - img).mean() < 3.0
    assert len(jpg.data) < img.nbytes / 5
    with pytest.raises(RosBridgeError, match="valid: jpeg, png"):
        fill_compressed_image(SimpleNamespace(header=_header()), img, fmt="webp", frame_id="c", stamp=0)
    with pytest.raises(RosBridgeError, match="does not decode"):
        compressed_array(SimpleNamespace(format="png", data=b"not a png"))
    with pytest.raises(RosBridgeError, match="not supported"):
        compressed_array(SimpleNamespace(format="rgb8; theora", data=b""))


def test_robot_sim_image_format_option():
    from robograph_ros_bridge.robot_sim import parse_args

    assert parse_args(["--image-format", "jpeg"]).image_formats == {"head": "jpeg", "left": "jpeg", "right": "jpeg"}
    assert parse_args(["--image-format", "head=png,left=jpeg"]).image_formats == {"head": "png", "left": "jpeg"}
    assert parse_args([]).image_formats == {}
    for bad in ("webp", "wrist=png"):
        with pytest.raises(SystemExit):
            parse_args(["--image-format", bad])


def test_transform_lookup_at_an_image_stamp_waits_for_that_moment():
    from robograph_ros_bridge.tf import Transform, TransformBuffer, TransformNotFound

    buf = TransformBuffer(history=3)
    mount = _rigid((1, 0, 0, 0), (0.0, 0.0, 1.0))
    buf.set(Transform("r/torso", "r/cam", mount, static=True))
    for k in range(4):  # the torso lifts 10 cm per step
        buf.set(Transform("world", "r/torso", _rigid((1, 0, 0, 0), (0.0, 0.0, 0.1 * k)), stamp_s=10.0 + k))
    assert buf.lookup("world", "r/cam", at=12.0)[2, 3] == pytest.approx(1.2)
    assert buf.lookup("world", "r/cam", at=12.5)[2, 3] == pytest.approx(1.2)  # latest at or before
    assert buf.lookup("world", "r/cam")[2, 3] == pytest.approx(1.3)  # newest
    with pytest.raises(TransformNotFound, match="at or after"):  # the image is newer than any /tf yet
        buf.lookup("world", "r/cam", at=14.0)
    with pytest.raises(TransformNotFound, match="no longer kept"):  # history 3: t=10 was dropped
        buf.lookup("world", "r/cam", at=10.0)
    buf.set(Transform("world", "r/torso", np.eye(4), stamp_s=11.5))  # arrives late, kept in stamp order
    assert buf.lookup("world", "r/cam", at=11.7)[2, 3] == pytest.approx(1.0)
    assert buf.knows("r/cam") and not buf.knows("world")
