"""The MuJoCo arm IK (backends/mujoco_kitchen/ik.py) is mink's differential IK written out in
numpy (issue 9 SPEED): each QP step must be the step mink computes for the same tasks (frame
task with Levenberg-Marquardt damping, a damping task freezing every other dof, joint limits),
so the motions the skills were tuned with stay the same."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("requires_mujoco")


def _robot_model():
    import mujoco

    from robograph_backends.mujoco_kitchen.robot import add_robot

    spec = mujoco.MjSpec()
    add_robot(spec, (0.0, 0.0, 0.0))
    return spec.compile()


def _random_problems(model, hand: str, n: int, seed: int):
    """Random in-limit configurations and targets near the grip frame they put the hand at."""
    import mujoco

    from robograph_backends.mujoco_kitchen.robot import RobotNames

    rng = np.random.default_rng(seed)
    site = model.site(RobotNames.grip_site(hand)).id
    data = mujoco.MjData(model)
    for _ in range(n):
        q = model.qpos0.copy()
        for j in range(model.njnt):
            if model.jnt_limited[j]:
                lo, hi = model.jnt_range[j]
                q[model.jnt_qposadr[j]] = rng.uniform(lo, hi)
        data.qpos[:] = q
        mujoco.mj_kinematics(model, data)
        axis = rng.normal(size=3)
        quat = np.empty(4)
        mujoco.mju_axisAngle2Quat(quat, axis / np.linalg.norm(axis), rng.uniform(0.0, 0.5))
        turn = np.empty(9)
        mujoco.mju_quat2Mat(turn, quat)
        rotation = turn.reshape(3, 3) @ data.site_xmat[site].reshape(3, 3)
        yield q, data.site_xpos[site] + rng.normal(0.0, 0.08, 3), rotation


def _mink_step(model, hand: str, q, position, rotation) -> np.ndarray:
    """One step of mink's own QP for the tasks ArmIK states (mink 0.0.5's build_ik + quadprog)."""
    import mink
    import qpsolvers

    from robograph_backends.mujoco_kitchen import ik
    from robograph_backends.mujoco_kitchen.robot import RobotNames

    cfg = mink.Configuration(model)
    cfg.update(q)
    task = mink.FrameTask(RobotNames.grip_site(hand), "site", position_cost=ik.FRAME_COST[0],
                          orientation_cost=ik.FRAME_COST[3], lm_damping=ik.LM_DAMPING)
    task.set_target(mink.SE3.from_rotation_and_translation(mink.SO3.from_matrix(rotation), position))
    cost = np.full(model.nv, ik.FROZEN_COST)
    for j in RobotNames.arm_joints(hand):
        cost[model.jnt_dofadr[model.joint(j).id]] = ik.ARM_COST
    problem = mink.build_ik(cfg, [task, mink.DampingTask(model, cost)], 0.05, damping=ik.QP_DAMPING,
                            limits=[mink.ConfigurationLimit(model, gain=ik.LIMIT_GAIN)])
    dq = qpsolvers.solve_problem(problem, solver="quadprog").x
    cfg.integrate_inplace(dq / 0.05, 0.05)
    return cfg.q


@pytest.mark.parametrize("hand", ["left", "right"])
def test_each_ik_step_is_minks_qp_step(hand: str) -> None:
    from robograph_backends.mujoco_kitchen.ik import ArmIK
    from robograph_backends.mujoco_kitchen.robot import RobotNames

    model = _robot_model()
    arm = ArmIK(model, RobotNames.grip_site(hand), RobotNames.arm_joints(hand))
    qadr = [model.jnt_qposadr[model.joint(j).id] for j in RobotNames.arm_joints(hand)]
    moved = 0.0
    for q, position, rotation in _random_problems(model, hand, 40, seed=3):
        ours = arm.solve(q, position, rotation, max_iter=1)
        theirs = _mink_step(model, hand, q, position, rotation)[qadr]
        np.testing.assert_allclose(ours.q, theirs, atol=1e-10)
        moved = max(moved, float(np.max(np.abs(ours.q - np.asarray(q)[qadr]))))
    assert moved > 0.05  # the steps compared are real moves, not a standing still that agrees trivially


def test_reachable_targets_converge_to_the_tolerance() -> None:
    """A target the hand was just at, moved 5 cm and turned a little, is reached within 1 mm."""
    import mujoco

    from robograph_backends.mujoco_kitchen.ik import ArmIK
    from robograph_backends.mujoco_kitchen.robot import PANDA_HOME, RobotNames

    model = _robot_model()
    hand = "left"
    arm = ArmIK(model, RobotNames.grip_site(hand), RobotNames.arm_joints(hand))
    data = mujoco.MjData(model)
    q = model.qpos0.copy()
    for jn, v in zip(RobotNames.arm_joints(hand), PANDA_HOME, strict=True):
        q[model.jnt_qposadr[model.joint(jn).id]] = v
    data.qpos[:] = q
    mujoco.mj_kinematics(model, data)
    site = model.site(RobotNames.grip_site(hand)).id
    target = data.site_xpos[site] + np.array([0.05, -0.03, 0.02])
    result = arm.solve(q, target, data.site_xmat[site].reshape(3, 3))
    assert result.converged(1e-3, 1e-2), result
    data.qpos[[model.jnt_qposadr[model.joint(j).id] for j in RobotNames.arm_joints(hand)]] = result.q
    mujoco.mj_kinematics(model, data)
    assert np.linalg.norm(data.site_xpos[site] - target) < 1e-3
