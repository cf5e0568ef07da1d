"""The shared rotation helper (robograph.rotations): its identities, agreement with MuJoCo's own
quaternion routines, and with the copies it is meant to replace."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robograph import rotations as rot

angles = st.floats(-2 * math.pi, 2 * math.pi, allow_nan=False)
quats = st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda v: np.linalg.norm(v) > 0.1).map(
    lambda v: np.asarray(v) / np.linalg.norm(v))


@settings(max_examples=50, deadline=None)
@given(a=angles, b=angles)
def test_yaws_compose_and_read_back(a: float, b: float) -> None:
    assert np.allclose(rot.rot_z(a) @ rot.rot_z(b), rot.rot_z(a + b))
    assert abs(rot.wrap_angle(rot.yaw_of(rot.rot_z(a)) - a)) < 1e-9  # same heading (+pi is -pi)
    assert np.allclose(rot.mat_from_quat(rot.quat_from_yaw(a)), rot.rot_z(a))
    assert np.allclose(rot.rotate_planar((1.0, 0.0), a), [math.cos(a), math.sin(a)])
    assert -math.pi <= rot.wrap_angle(a) < math.pi
    half = rot.wrap_half_turn(a)
    assert -math.pi / 2 <= half < math.pi / 2
    assert abs(math.sin(half - a)) < 1e-9  # the same line: a differs by a multiple of pi


@settings(max_examples=50, deadline=None)
@given(q=quats, r=quats)
def test_quaternions_round_trip_and_multiply_like_matrices(q: np.ndarray, r: np.ndarray) -> None:
    R = rot.mat_from_quat(q)
    assert np.allclose(R @ R.T, np.eye(3)) and np.linalg.det(R) == pytest.approx(1.0)
    back = rot.quat_from_mat(R)
    assert np.allclose(back, q) or np.allclose(back, -q)
    assert np.allclose(rot.mat_from_quat(rot.quat_mul(q, r)), R @ rot.mat_from_quat(r))
    assert np.allclose(rot.quat_mul(q, rot.quat_conj(q)), [1.0, 0.0, 0.0, 0.0])


def test_half_turns_convert_without_losing_the_axis() -> None:
    for R in (rot.rot_x(math.pi), rot.rot_y(math.pi), rot.rot_z(math.pi)):
        assert np.allclose(rot.mat_from_quat(rot.quat_from_mat(R)), R)


def test_relative_pose_puts_frame_two_back_where_it_was() -> None:
    p1, q1 = np.array([0.3, -1.0, 0.8]), rot.quat_from_mat(rot.rot_z(0.7) @ rot.rot_x(0.2))
    p2, q2 = np.array([0.5, -0.9, 0.6]), rot.quat_from_yaw(-1.1)
    rel_p, rel_q = rot.relative_pose(p1, q1, p2, q2)
    assert np.allclose(p1 + rot.mat_from_quat(q1) @ rel_p, p2)
    assert np.allclose(rot.quat_mul(q1, rel_q), q2)


def test_the_grasp_frame_copy_in_skills_is_this_composition() -> None:
    """robograph_backends.mujoco_kitchen.ik.hand_rotation is Rz(yaw) @ Ry(-pitch) @ R_DOWN written out by hand."""
    from robograph_backends.mujoco_kitchen.ik import R_DOWN, hand_rotation

    for yaw, pitch in ((0.0, 0.0), (0.7, 0.3), (-2.5, 1.2)):
        assert np.allclose(hand_rotation(yaw, pitch), rot.rot_z(yaw) @ rot.rot_y(-pitch) @ R_DOWN)
        assert rot.yaw_of(hand_rotation(yaw) @ R_DOWN.T) == pytest.approx(yaw)


def test_agrees_with_mujoco(requires_mujoco) -> None:
    from robograph_backends.mujoco_kitchen.deps import mujoco_module

    mj = mujoco_module()
    rng = np.random.default_rng(0)
    for _ in range(20):
        q, r = (v / np.linalg.norm(v) for v in rng.normal(size=(2, 4)))
        mat = np.zeros(9)
        mj.mju_quat2Mat(mat, q)
        assert np.allclose(rot.mat_from_quat(q), mat.reshape(3, 3))
        prod = np.zeros(4)
        mj.mju_mulQuat(prod, q, r)
        assert np.allclose(rot.quat_mul(q, r), prod)
        back = np.zeros(4)
        mj.mju_mat2Quat(back, mat)
        assert np.allclose(rot.quat_from_mat(mat), back) or np.allclose(rot.quat_from_mat(mat), -back)
