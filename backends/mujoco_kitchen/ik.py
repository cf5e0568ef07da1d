"""Inverse kinematics for one arm with mink (differential IK on a MuJoCo model).

The model is the robot alone (no scene), so the QP is small (~22 dofs) and contacts in the scene
cannot push the configuration outside its limits (which makes mink's limit QP infeasible). All
dofs except the chosen arm's are frozen by a heavy damping task (mink 0.0.5 has no helper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import numpy as np

from robograph.errors import DependencyNotInstalled

# Grip-site frame of a straight-down grasp at yaw 0: approach z down, x along world y.
R_DOWN = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])


def hand_rotation(yaw: float, pitch: float = 0.0) -> np.ndarray:
    """Rz(yaw) @ Ry(-pitch) @ R_DOWN: pitch tilts the approach from down toward +x (heading)."""
    cy, sy = math.cos(yaw), math.sin(yaw)
    cp, sp = math.cos(-pitch), math.sin(-pitch)
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    return rz @ ry @ R_DOWN


def grip_rotation(approach: np.ndarray, closing: np.ndarray) -> np.ndarray:
    """Grip-site frame whose z points where the fingers point and whose x is the direction they
    close along (`closing` is made orthogonal to `approach`)."""
    z = np.asarray(approach, dtype=float)
    z = z / np.linalg.norm(z)
    x = np.asarray(closing, dtype=float)
    x = x - z * float(x @ z)
    x = x / np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _mink() -> Any:
    try:
        return import_module("mink")
    except ImportError as exc:
        raise DependencyNotInstalled("mink", "mujoco") from exc


def _qpsolvers() -> Any:
    try:
        return import_module("qpsolvers")
    except ImportError as exc:
        raise DependencyNotInstalled("qpsolvers", "mujoco") from exc


POSTURE_STEPS = 12  # IK iterations that include the weak pull toward the home posture


@dataclass(frozen=True, slots=True)
class IKResult:
    q: np.ndarray  # the arm's joint targets (7,)
    iterations: int
    position_error: float  # m
    rotation_error: float  # rad

    def converged(self, tol_pos: float = 0.01, tol_rot: float = 0.1) -> bool:
        return self.position_error <= tol_pos and self.rotation_error <= tol_rot


class ArmIK:
    """IK for the frame `site` moving only `arm_joints` of `model` (a robot-only MjModel)."""

    def __init__(self, model: Any, site: str, arm_joints: list[str], *, dt: float = 0.05,
                 home: list[float] | tuple[float, ...] | None = None, posture_cost: float = 0.02) -> None:
        mink = _mink()
        self.model = model
        self.dt = dt
        self.cfg = mink.Configuration(model)
        self.task = mink.FrameTask(site, "site", position_cost=1.0, orientation_cost=0.3, lm_damping=1e-3)
        cost = np.full(model.nv, 1e4)
        self.dofs = [int(model.jnt_dofadr[model.joint(j).id]) for j in arm_joints]
        self.qadr = [int(model.jnt_qposadr[model.joint(j).id]) for j in arm_joints]
        cost[self.dofs] = 1e-3
        self.damping = mink.DampingTask(model, cost)
        self.limits = [mink.ConfigurationLimit(model)]
        # a weak pull toward the home posture keeps the elbow up and out (without it the null
        # space drifts and the two arms' elbows can meet between them)
        self.posture = None
        if home is not None:
            pcost = np.zeros(model.nv)
            pcost[self.dofs] = posture_cost
            self.posture = mink.PostureTask(model, pcost)
            self._home = list(home)
        lo = model.jnt_range[:, 0]
        hi = model.jnt_range[:, 1]
        self._clip = [(int(model.jnt_qposadr[j]), float(lo[j]), float(hi[j])) for j in range(model.njnt)
                      if model.jnt_limited[j]]

    def solve(self, q: np.ndarray, position: np.ndarray, rotation: np.ndarray, *, max_iter: int = 80,
              tol_pos: float = 1e-3, tol_rot: float = 1e-2) -> IKResult:
        mink = _mink()
        q = np.array(q, dtype=float)
        for adr, lo, hi in self._clip:  # contacts can leave joints marginally outside their range
            q[adr] = min(max(q[adr], lo + 1e-6), hi - 1e-6)
        self.cfg.update(q)
        target = mink.SE3.from_rotation_and_translation(mink.SO3.from_matrix(rotation), np.asarray(position, float))
        self.task.set_target(target)
        tasks = [self.task, self.damping]
        if self.posture is not None:
            q_home = q.copy()
            q_home[self.qadr] = self._home
            self.posture.set_target(q_home)
            tasks.append(self.posture)
        iterations = 0
        err = self.task.compute_error(self.cfg)
        for iterations in range(1, max_iter + 1):  # noqa: B007 (reported in the result)
            # the posture pull only shapes the first steps: it competes with the frame task,
            # which then converges exactly without it
            # mink.solve_ik without its per-iteration limit check (a loop over every joint in
            # Python, a fifth of an iteration; q was clipped into the limits above and the QP
            # keeps it there): the same QP, the same solution
            problem = mink.build_ik(self.cfg, tasks if iterations <= POSTURE_STEPS else tasks[:2], self.dt,
                                    damping=1e-3, limits=self.limits)
            dq = _qpsolvers().solve_problem(problem, solver="quadprog").x
            if dq is None:
                break
            self.cfg.integrate_inplace(dq / self.dt, self.dt)
            err = self.task.compute_error(self.cfg)
            if np.linalg.norm(err[:3]) < tol_pos and np.linalg.norm(err[3:]) < tol_rot:
                break
        return IKResult(self.cfg.q[self.qadr].copy(), iterations, float(np.linalg.norm(err[:3])),
                        float(np.linalg.norm(err[3:])))
