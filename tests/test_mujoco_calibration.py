"""Camera model: convention conversions both ways, projection round trips, and (slow) agreement
with MuJoCo's own rendering (a body's centre projects onto its segmentation pixels, and the
rendered depth at that pixel deprojects back to the body's surface)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robograph_calibration.camera import CONVENTIONS, CameraModel, convert_pose


def _rot(yaw: float, pitch: float, roll: float) -> np.ndarray:
    cy, sy, cp, sp, cr, sr = (math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch),
                              math.cos(roll), math.sin(roll))
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    return rz @ ry @ rx


angles = st.floats(-math.pi, math.pi, allow_nan=False)


@given(angles, angles, angles, st.sampled_from(CONVENTIONS), st.sampled_from(CONVENTIONS))
@settings(max_examples=60, deadline=None)
def test_conversions_round_trip(yaw: float, pitch: float, roll: float, a: str, b: str) -> None:
    T = np.eye(4)
    T[:3, :3] = _rot(yaw, pitch, roll)
    T[:3, 3] = [0.3, -1.2, 2.0]
    back = convert_pose(convert_pose(T, a, b), b, a)
    assert np.allclose(back, T, atol=1e-12)
    assert np.allclose(convert_pose(T, a, b)[:3, 3], T[:3, 3])


def test_viewing_direction_agrees_across_conventions() -> None:
    """A camera looking along world +x: OpenCV z, MuJoCo -z and SAPIEN x all point along +x."""
    R_cv = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])  # x right=-y, y down=-z, z fwd=+x
    T = np.eye(4)
    T[:3, :3] = R_cv
    mj = convert_pose(T, "opencv", "mujoco")
    sp = convert_pose(T, "opencv", "sapien")
    assert np.allclose(-mj[:3, 2], [1, 0, 0])
    assert np.allclose(mj[:3, 1], [0, 0, 1])  # MuJoCo y is image-up
    assert np.allclose(sp[:3, 0], [1, 0, 0])
    assert np.allclose(sp[:3, 2], [0, 0, 1])  # SAPIEN z is up


@given(st.floats(-0.5, 0.5), st.floats(-0.4, 0.4), st.floats(0.3, 5.0))
@settings(max_examples=60, deadline=None)
def test_project_deproject_round_trip(x: float, y: float, z: float) -> None:
    T = np.eye(4)
    T[:3, :3] = _rot(0.4, -0.2, 0.1)
    T[:3, 3] = [1.0, 2.0, 1.5]
    cam = CameraModel.from_fovy(320, 240, 60.0, T)
    world = T[:3, :3] @ np.array([x, y, z]) + T[:3, 3]
    px, depth = cam.project(world[None])
    assert depth[0] == pytest.approx(z)
    assert np.allclose(cam.deproject(px, depth), world[None], atol=1e-9)


def test_intrinsics_from_fovy() -> None:
    cam = CameraModel.from_fovy(320, 240, 90.0, np.eye(4))
    assert cam.fy == pytest.approx(120.0)
    assert (cam.cx, cam.cy) == (160.0, 120.0)
    assert cam.fovy_deg == pytest.approx(90.0)


@pytest.mark.slow
def test_model_matches_mujoco_rendering() -> None:
    from robograph.errors import DependencyNotInstalled
    from robograph_backends.mujoco_kitchen.deps import mujoco_module

    try:
        mujoco_module()  # selects headless EGL before MuJoCo loads
    except DependencyNotInstalled:
        pytest.skip("mujoco extra not installed")
    from robograph_backends.mujoco_kitchen.render import Cameras
    from robograph_backends.mujoco_kitchen.samples import buffet_tray
    from robograph_backends.mujoco_kitchen.world import World

    world = World.build(buffet_tray().graph)
    x, y, _ = world.plan.stations["buffet_counter"]
    world.set_qpos("base_x", x)
    world.set_qpos("base_y", y)
    world.hold_ctrl()
    world.step(100)
    cams = Cameras(world)
    try:
        model = cams.model_of("head")
        out = cams.render(["head"], depth=True, segmentation=True)
        seg, depth = out["head_seg"], out["head_depth"]
        node = "serving_tray"
        k = cams.node_ids.index(node)
        centre = world.body_pos(world.plan.node_body[node])
        (u, v), d = model.project(centre[None])[0][0], model.project(centre[None])[1][0]
        assert 0 <= u < 320 and 0 <= v < 240 and d > 0
        rows, cols = np.nonzero(seg == k)
        # the projected centre falls among the tray's own pixels (within 2 px)
        assert np.min(np.hypot(cols + 0.5 - u, rows + 0.5 - v)) < 2.0
        # rendered depth deprojects onto the tray (its base top is ~1 cm from its centre)
        r, c = int(v), int(u)
        p = model.deproject(np.array([[c + 0.5, r + 0.5]]), np.array([depth[r, c]]))[0]
        assert abs(p[2] - centre[2]) < 0.03
        assert np.linalg.norm(p[:2] - centre[:2]) < 0.05
    finally:
        cams.close()
