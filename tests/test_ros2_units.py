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
