"""How the MuJoCo robot executes motions (issue 9 SPEED): door pulls as one continuous motion."""

from __future__ import annotations

import math

import pytest
from kitchen_playground import playground

ANGLE = math.radians(40)


class _SettledWaypoints:
    """The same robot without `move_grip_path`: skills then make one settled move per waypoint."""

    def __init__(self, robot) -> None:
        self._robot = robot

    def __getattr__(self, name: str):
        if name == "move_grip_path":
            raise AttributeError(name)
        return getattr(self._robot, name)


@pytest.mark.slow
@pytest.mark.usefixtures("requires_mujoco")
def test_a_continuous_pull_swings_the_door_as_far_in_fewer_physics_steps() -> None:
    from robograph_backends.mujoco_kitchen.embodiment import SETTLE_MIN, _steps
    from robograph_skills.articulation import ARC_STEP, pull_hinge, take_handle
    from robograph_skills.interface import PathRobot

    opened, steps = [], []
    for wrap in (False, True):
        world, robot, scene = playground()
        a = world.plan.articulations["pantry_cabinet"][0]
        hand = "left"
        h = scene.handles("pantry_cabinet")[0]
        robot.drive_base(scene.work_pose("pantry_cabinet", hand, h.position, operate=True))
        h = scene.handle(h.name)
        assert take_handle(robot, scene, hand, h).ok
        used = _SettledWaypoints(robot) if wrap else robot
        assert isinstance(used, PathRobot) != wrap
        t0 = world.data.time
        pull_hinge(used, hand, h, ANGLE)
        steps.append(round((world.data.time - t0) / world.model.opt.timestep))
        assert scene.hand_on(hand, h.name)
        opened.append(world.qpos(a.joint))
    assert opened[0] > math.radians(30) and opened[1] > math.radians(30)
    # the continuous pull skips at least the fixed wait at the end of every waypoint but the last
    waypoints = math.ceil(ANGLE / ARC_STEP)
    assert steps[1] - steps[0] >= (waypoints - 1) * _steps(SETTLE_MIN)
