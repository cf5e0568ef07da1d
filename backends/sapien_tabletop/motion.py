"""Arm motion for the tabletop Pandas: IK with SAPIEN's Pinocchio model, joint-space and
straight-line moves tracked by the joint drives, finger control.

IK targets the URDF's `panda_grasptarget` link (10.5 cm past the hand flange, between the finger
pads), so a grip point is an IK target as it is. Pinocchio's solver does not enforce joint
limits (PLATFORM.md: 93 of 200 random targets came back outside): a solution outside the limits
or not converged is re-solved from the ready posture and a few elbow/shoulder variants of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robograph.rotations import quat_from_mat
from robograph_backends.sapien_tabletop.world import READY_QPOS, TIMESTEP, World

GRIP_LINK = "panda_grasptarget"
FINGER_OPEN = 0.04  # m per finger: fully open (8 cm between the pads)
ARM_DOFS = 7
IK_TOLERANCE = 2e-3  # m: a converged solution reaches its target this close
REACH_TOLERANCE = 0.03  # m: a tracked move got there when the grip point ends this close (2 cm: pre-grasp poses over a chafing dish ended 2.0-2.2 cm off and the grasp was given up)
STRAIGHT_STEP = 0.05  # m between IK waypoints of a straight-line move
STEPS_PER_CHUNK = 10  # gravity compensation is refreshed this often (physics steps)
SETTLE_S = 0.15  # s the drives get after a move's last set point
GRIPPER_S = 0.25  # s the fingers get to open or close
# re-solve seeds: the ready posture and elbow/shoulder variants of it (rad offsets)
SEED_OFFSETS = (
    np.zeros(ARM_DOFS),
    np.array([0.0, 0.3, 0.0, -0.3, 0.0, 0.3, 0.0]),
    np.array([0.0, -0.3, 0.0, 0.4, 0.0, -0.3, 0.0]),
    np.array([0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    np.array([-0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
)


def hand_rotation(approach: np.ndarray, closing: np.ndarray) -> np.ndarray:
    """Rotation (world) of the grip frame: z along `approach` (the fingers point that way), y
    along `closing` made orthogonal to it (the fingers close along the hand's y)."""
    z = np.asarray(approach, dtype=float)
    z = z / np.linalg.norm(z)
    y = np.asarray(closing, dtype=float) - z * float(np.dot(closing, z))
    n = float(np.linalg.norm(y))
    if n < 1e-6:  # closing along the approach: any perpendicular
        y = np.cross(z, [1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.cross(z, [0.0, 1.0, 0.0])
        n = float(np.linalg.norm(y))
    y = y / n
    return np.column_stack([np.cross(y, z), y, z])


@dataclass
class Arm:
    """One Panda: its articulation, Pinocchio model, grip link and joint limits."""

    robot: Any
    model: Any
    grip_index: int
    limits: np.ndarray  # (7, 2)
    failures: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, robot: Any) -> Arm:
        links = robot.get_links()
        index = next(k for k, lk in enumerate(links) if lk.name == GRIP_LINK)
        limits = np.array([j.get_limit()[0] for j in robot.get_active_joints()[:ARM_DOFS]], dtype=float)
        return cls(robot, robot.create_pinocchio_model(), index, limits)

    def grip_pose(self) -> np.ndarray:
        return np.asarray(self.robot.get_links()[self.grip_index].entity_pose.to_transformation_matrix())

    def qpos(self) -> np.ndarray:
        return np.asarray(self.robot.get_qpos(), dtype=float)

    def solve(self, position: np.ndarray, rotation: np.ndarray, start: np.ndarray) -> np.ndarray | None:
        """Arm joint angles (9 with the fingers as in `start`) putting the grip link at the pose;
        None when no seed converges within the joint limits."""
        from robograph_backends.sapien_tabletop.deps import sapien_module

        sapien = sapien_module()
        base = np.asarray(self.robot.get_root_pose().to_transformation_matrix())
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = rotation, position
        local = np.linalg.inv(base) @ T
        pose = sapien.Pose(local[:3, 3], quat_from_mat(local[:3, :3]))
        mask = [1] * ARM_DOFS + [0, 0]
        ready = np.array(READY_QPOS)
        seeds = [start] + [np.concatenate([ready[:ARM_DOFS] + off, start[ARM_DOFS:]]) for off in SEED_OFFSETS]
        for seed in seeds:
            q, _ok, err = self.model.compute_inverse_kinematics(self.grip_index, pose, initial_qpos=seed,
                                                               active_qmask=mask, max_iterations=200)
            q = np.asarray(q, dtype=float)
            inside = np.all(q[:ARM_DOFS] >= self.limits[:, 0] - 1e-4) and np.all(q[:ARM_DOFS] <= self.limits[:, 1] + 1e-4)
            err = np.asarray(err, dtype=float)
            if inside and float(np.linalg.norm(err[:3])) < IK_TOLERANCE and float(np.linalg.norm(err[3:])) < 0.02:
                q[ARM_DOFS:] = start[ARM_DOFS:]
                return q
        return None


class Motion:
    """Tracks joint set points on a world's Pandas, stepping physics (hooks run every chunk)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.arms = {hand: Arm.of(robot) for hand, robot in world.robots.items()}
        self.fingers = {hand: FINGER_OPEN for hand in world.robots}
        self.setpoints = {hand: np.array(READY_QPOS[:ARM_DOFS]) for hand in world.robots}
        self.tucked = {hand: False for hand in world.robots}  # turned aside for the other arm

    def run(self, seconds: float) -> None:
        steps = max(1, int(round(seconds / TIMESTEP)))
        while steps > 0:
            n = min(STEPS_PER_CHUNK, steps)
            self.world.step(n)
            steps -= n

    def _targets(self, hand: str) -> None:
        joints = self.world.robots[hand].get_active_joints()
        for j, v in zip(joints[:ARM_DOFS], self.setpoints[hand], strict=True):
            j.set_drive_target(float(v))
        for j in joints[ARM_DOFS:]:
            j.set_drive_target(self.fingers[hand])

    def move_joints(self, hand: str, q: np.ndarray, duration: float) -> None:
        """Interpolate the arm's set points from the last ones to `q` over `duration` seconds."""
        self._follow(hand, [np.asarray(q[:ARM_DOFS], dtype=float)], duration)

    def _follow(self, hand: str, path: list[np.ndarray], duration: float) -> None:
        """Set points along `path` (joint positions, the last one the goal) in one smooth start and
        stop over `duration` seconds, then SETTLE_S."""
        points = [self.setpoints[hand].copy()] + [np.asarray(q[:ARM_DOFS], dtype=float) for q in path]
        self.tucked[hand] = False
        steps = max(1, int(round(duration / (STEPS_PER_CHUNK * TIMESTEP))))
        legs = len(points) - 1
        for k in range(1, steps + 1):
            s = k / steps
            s = s * s * (3 - 2 * s)  # smooth start and stop
            leg = min(int(s * legs), legs - 1)
            t = s * legs - leg
            self.setpoints[hand] = points[leg] + (points[leg + 1] - points[leg]) * t
            self._targets(hand)
            self.run(STEPS_PER_CHUNK * TIMESTEP)
        self.run(SETTLE_S)

    def move(self, hand: str, position: np.ndarray, rotation: np.ndarray, *, duration: float = 0.5,
             straight: bool = False, sweep: bool = False) -> bool:
        """Grip point to `position` with `rotation`; True when it ended within REACH_TOLERANCE.
        A straight move starts and settles at each waypoint, or, with `sweep`, goes through them
        in one start and stop, as long as the stops took: stopping every 5 cm rocked a soy sauce
        bottle pinched 7 cm over its middle 11 deg in the pads on a 0.5 s move over a fridge's
        door bin, and it was let go of leaning (Fridge-T8). Not for every move: docs/sapien_backend.md
        (session 37) has what it changed there."""
        arm = self.arms[hand]
        position = np.asarray(position, dtype=float)
        start = arm.grip_pose()[:3, 3]
        waypoints = [position]
        if straight:
            n = max(1, int(np.ceil(np.linalg.norm(position - start) / STRAIGHT_STEP)))
            waypoints = [start + (position - start) * (k / n) for k in range(1, n + 1)]
        q = arm.qpos()
        plan = []
        for p in waypoints:
            sol = arm.solve(p, rotation, q)
            if sol is None:
                arm.failures.append(f"{hand}: no IK solution for {np.round(p, 3).tolist()}")
                return False
            plan.append(sol)
            q = sol
        if sweep:
            self._follow(hand, plan, duration + (len(plan) - 1) * SETTLE_S)
        else:
            for sol in plan:
                self.move_joints(hand, sol, duration / len(plan))
        miss = float(np.linalg.norm(arm.grip_pose()[:3, 3] - position))
        if miss >= REACH_TOLERANCE:
            arm.failures.append(f"{hand}: stopped {miss:.3f} m short of {np.round(position, 3).tolist()}")
        return miss < REACH_TOLERANCE

    def gripper(self, hand: str, opening: float) -> None:
        """Fingers to `opening` (1 open, 0 closed); the arm holds its set points."""
        self.fingers[hand] = float(np.clip(opening, 0.0, 1.0)) * FINGER_OPEN
        self._targets(hand)
        self.run(GRIPPER_S)
