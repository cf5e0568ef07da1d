"""How the MuJoCo robot executes a motion: a continuous path settles once, at its end (not at
every waypoint); a path stops before a waypoint the arm cannot reach; a move ends on its target."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]


@pytest.fixture(scope="module")
def kitchen():
    from robograph_backends.mujoco_kitchen.embodiment import MujocoRobot
    from robograph_backends.mujoco_kitchen.samples import skills_playground
    from robograph_backends.mujoco_kitchen.world import World

    world = World.build(skills_playground().graph)
    return world, MujocoRobot(world)


HAND = "left"
DOWN = np.array([0.0, 0.0, -1.0])
ACROSS = np.array([0.0, 1.0, 0.0])


def _line(robot, n: int, length: float) -> list:
    """`n` waypoints along a straight line forward of the hand, pointing down."""
    start = robot.hand_position(HAND) + np.array([0.0, 0.0, -0.1])
    robot.move_grip(HAND, start, DOWN, ACROSS)
    return [(start + np.array([length * k / n, 0.0, 0.0]), DOWN, ACROSS, None) for k in range(1, n + 1)]


def test_a_continuous_path_reaches_its_end_and_settles_once(kitchen) -> None:
    from robograph_backends.mujoco_kitchen.embodiment import (
        DT,
        SETTLE_MIN,
        SETTLE_TRIES,
        SETTLE_WAIT,
        TRACK_MISS,
    )

    world, robot = kitchen
    path = _line(robot, 10, 0.2)
    steps = world.timers.steps
    reached = robot.move_grip_path(HAND, path, duration=0.05)
    used = world.timers.steps - steps
    assert reached == len(path)
    assert np.linalg.norm(robot.hand_position(HAND) - path[-1][0]) < TRACK_MISS
    # no settle at the waypoints: at most the joint-speed-limited motion plus one settle
    assert used * DT < 10 * 0.05 + SETTLE_MIN + SETTLE_TRIES * SETTLE_WAIT + 0.1, used


def test_a_path_stops_before_a_waypoint_out_of_reach(kitchen) -> None:
    world, robot = kitchen
    path = _line(robot, 4, 0.1)
    far = (path[1][0] + np.array([3.0, 0.0, 0.0]), DOWN, ACROSS, None)
    robot.failures.clear()
    reached = robot.move_grip_path(HAND, [path[0], path[1], far, path[2]], duration=0.1)
    assert reached == 2
    assert any(f.startswith("IK") for f in robot.failures)
    assert np.linalg.norm(robot.hand_position(HAND) - path[1][0]) < 0.02


def test_a_move_ends_on_its_target(kitchen) -> None:
    from robograph_backends.mujoco_kitchen.embodiment import SETTLE_TOLERANCE

    world, robot = kitchen
    goal = robot.hand_position(HAND) + np.array([0.05, -0.05, 0.05])
    assert robot.move_grip(HAND, goal, DOWN, ACROSS, duration=0.3)
    assert np.linalg.norm(robot.hand_position(HAND) - goal) < SETTLE_TOLERANCE
