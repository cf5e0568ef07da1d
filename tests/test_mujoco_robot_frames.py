"""The MuJoCo kitchen's robot state as a robot driver publishes it (ROS 2 JointState and TF):
joint names and positions from the simulator, moving frames and camera mounts whose chain gives
the very camera poses the renderer uses, before and after the base moves."""

from __future__ import annotations

import numpy as np
import pytest

from robograph.registry import make_backend

pytestmark = pytest.mark.usefixtures("requires_mujoco")


def _chain(moving, fixed, camera: str) -> np.ndarray:
    """world -> <camera>_optical by walking parents, as a TF buffer does."""
    by_child = {c: (p, T) for p, c, T in [*moving, *fixed]}
    frame, T = f"{camera}_optical", np.eye(4)
    while frame != "world":
        parent, T_pc = by_child[frame]
        T, frame = T_pc @ T, parent
    return T


@pytest.mark.slow
def test_joint_state_and_frames_match_the_simulator_and_mounts_stay_fixed():
    """Fixed camera mounts (`gaze=false`): the cameras hang rigidly on the torso (/tf_static)."""
    from robograph.actions import Action, effects
    from robograph.backend import deadline_in
    from robograph.backend_check import conformance_instances
    from robograph.rewrite import apply_all

    inst = conformance_instances(1, "indoor")[0]
    be = make_backend("mujoco", gaze=False)
    be.reset(inst.graph, seed=0)
    names, q = be.joint_state()
    assert names[:4] == ["base_x", "base_y", "base_yaw", "torso_lift"] and len(names) == len(q) == 22
    assert {f"{h}_joint{i}" for h in ("left", "right") for i in range(1, 8)} <= set(names)
    moving0, fixed0 = be.robot_frames()
    assert [(p, c) for p, c, _ in moving0] == [("world", "base_link"), ("base_link", "torso")]
    assert {c: p for p, c, _ in fixed0} == {"head_optical": "torso", "left_optical": "torso", "right_optical": "torso"}
    T_base = moving0[0][2]
    assert np.allclose(T_base[:2, 3], q[:2]) and np.isclose(np.arctan2(T_base[1, 0], T_base[0, 0]), q[2])
    cams = be.cameras_renderer()
    for cam in be.cameras:
        assert np.allclose(_chain(moving0, fixed0, cam), cams.model_of(cam).T_world_cam, atol=1e-9)
    g = inst.graph
    room = next(e.dst for e in g.edges if e.rel == "ADJACENT" and e.src == g.robot_room())
    walk = Action("walk", (room,))
    be.execute(g, walk, apply_all(g, effects(g, walk)), deadline=deadline_in(1.0))  # part of the way
    names1, q1 = be.joint_state()
    assert names1 == names and not np.allclose(q1[:3], q[:3])  # the base moved
    moving1, fixed1 = be.robot_frames()
    for (_, _, a), (_, _, b) in zip(fixed0, fixed1, strict=True):
        assert np.allclose(a, b, atol=1e-9)  # a mount is fixed: /tf_static holds
    for cam in be.cameras:
        assert np.allclose(_chain(moving1, fixed1, cam), cams.model_of(cam).T_world_cam, atol=1e-9)
    be.close()


@pytest.mark.slow
def test_aimed_cameras_are_moving_frames_whose_chain_gives_the_aimed_pose():
    """With `gaze` (the default) the head is a pan-tilt unit aimed per picture: its transform is
    published as moving, and the TF chain gives the pose the frames are rendered with."""
    from robograph.backend_check import conformance_instances

    inst = conformance_instances(1, "indoor")[0]
    be = make_backend("mujoco")
    be.reset(inst.graph, seed=0)
    moving, fixed = be.robot_frames()
    assert fixed == []
    assert {c for _, c, _ in moving} >= {f"{cam}_optical" for cam in be.cameras}
    frames = {f.camera: f for f in be.render()}
    for cam in be.cameras:
        assert np.allclose(_chain(moving, fixed, cam), frames[cam].model.T_world_cam, atol=1e-9)
    be.close()
