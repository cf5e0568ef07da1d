"""Inverse kinematics for one arm: mink's differential IK, written out for this one problem.

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
from robograph.rotations import quat_conj
from robograph_backends.mujoco_kitchen.deps import mujoco_module

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


def _quadprog() -> Any:
    try:
        return import_module("quadprog")
    except ImportError as exc:
        raise DependencyNotInstalled("quadprog", "mujoco") from exc


POSTURE_STEPS = 12  # IK iterations that include the weak pull toward the home posture
EPS = 1e-10  # below this squared angle the SO(3)/SE(3) maps use their Taylor forms (as mink)
FRAME_COST = (1.0, 1.0, 1.0, 0.3, 0.3, 0.3)  # weights of the grip frame's position and orientation errors
LM_DAMPING = 1e-3  # Levenberg-Marquardt damping of the frame task, scaled by its squared weighted error
FROZEN_COST = 1e4  # damping weight on every dof but the solved arm's (they stay where they are)
ARM_COST = 1e-3  # ... and on the arm's own dofs
QP_DAMPING = 1e-3  # Tikhonov term of the QP
LIMIT_GAIN = 0.95  # a step may use this fraction of the distance to a joint limit


@dataclass(frozen=True, slots=True)
class IKResult:
    q: np.ndarray  # the arm's joint targets (7,)
    iterations: int
    position_error: float  # m
    rotation_error: float  # rad

    def converged(self, tol_pos: float = 0.01, tol_rot: float = 0.1) -> bool:
        return self.position_error <= tol_pos and self.rotation_error <= tol_rot


def _skew(x: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def _so3_log(quat: np.ndarray) -> np.ndarray:
    """Rotation vector of a unit quaternion (w, x, y, z)."""
    w, v = float(quat[0]), quat[1:]
    norm_sq = float(v @ v)
    if norm_sq < EPS:
        return (2.0 / w - 2.0 / 3.0 * norm_sq / w ** 3) * v
    norm = math.sqrt(norm_sq)
    if abs(w) < EPS:
        return (math.pi if w > 0.0 else -math.pi) / norm * v
    return 2.0 * math.atan2(-norm if w < 0 else norm, abs(w)) / norm * v


def _se3_log(quat: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """Twist (v, omega) of the transform (rotation `quat`, `translation`)."""
    omega = _so3_log(quat)
    theta_sq = float(omega @ omega)
    w = _skew(omega)
    ww = w @ w
    if theta_sq < EPS:
        v_inv = np.eye(3) - 0.5 * w + ww / 12.0
    else:
        theta = math.sqrt(theta_sq)
        half = 0.5 * theta
        v_inv = np.eye(3) - 0.5 * w + (1.0 - theta * math.cos(half) / (2.0 * math.sin(half))) / theta_sq * ww
    return np.concatenate([v_inv @ translation, omega])


def _se3_ljacinv(xi: np.ndarray) -> np.ndarray:
    """Inverse left Jacobian of SE(3) at the twist `xi` (Sola et al., eqs. 179b/180)."""
    theta_v = xi[3:]
    theta_sq = float(theta_v @ theta_v)
    if theta_sq < EPS:
        return np.eye(6)
    theta = math.sqrt(theta_sq)
    s, c = math.sin(theta), math.cos(theta)
    b = (theta - s) / (theta_sq * theta)
    cc = (1.0 - theta_sq / 2.0 - c) / (theta_sq * theta_sq)
    d = (2.0 * theta - 3.0 * s + theta * c) / (2.0 * theta_sq * theta_sq * theta)
    v, w = _skew(xi[:3]), _skew(theta_v)
    vw = v @ w
    wv = vw.T
    wvw = wv @ w
    vww = vw @ w
    q = 0.5 * v + b * (wv + vw + wvw) - cc * (vww - vww.T - 3 * wvw) + d * (wvw @ w + w @ wvw)
    a = (1.0 / theta_sq) * (1.0 - theta * s / (2.0 * (1.0 - c)))
    j_inv = np.eye(3) - 0.5 * w + a * (w @ w)
    out = np.zeros((6, 6))
    out[:3, :3] = out[3:, 3:] = j_inv
    out[:3, 3:] = -j_inv @ q @ j_inv
    return out


class ArmIK:
    """IK for the frame `site` moving only `arm_joints` of `model` (a robot-only MjModel).

    Differential IK as mink formulates it (a frame task weighted by FRAME_COST with
    Levenberg-Marquardt damping, a damping task that freezes the other dofs, joint limits as
    QP inequalities, quadprog), written out in numpy for this one problem: mink builds the
    same QP through Lie-group objects, and that Python overhead was a quarter of the CPU time
    of a door pull (issue 9 SPEED). `tests/test_mujoco_ik.py` checks the steps agree with
    mink's."""

    def __init__(self, model: Any, site: str, arm_joints: list[str], *, dt: float = 0.05,
                 home: list[float] | tuple[float, ...] | None = None, posture_cost: float = 0.02) -> None:
        mj = self._mj = mujoco_module()  # resolved once: solve runs ~13 QP steps per call
        self._qp = _quadprog()
        self.model = model
        self.data = mj.MjData(model)
        self.dt = dt
        self.site = int(model.site(site).id)
        self.dofs = [int(model.jnt_dofadr[model.joint(j).id]) for j in arm_joints]
        self.qadr = [int(model.jnt_qposadr[model.joint(j).id]) for j in arm_joints]
        nv = model.nv
        cost = np.full(nv, FROZEN_COST)
        cost[self.dofs] = ARM_COST
        self._eye = np.eye(nv)
        self._h_fixed = self._eye * QP_DAMPING + np.diag(cost ** 2)  # QP damping + damping task
        self._w = np.asarray(FRAME_COST)
        # a weak pull toward the home posture keeps the elbow up and out (without it the null
        # space drifts and the two arms' elbows can meet between them)
        self._pcost_sq: np.ndarray | None = None
        if home is not None:
            pcost = np.zeros(nv)
            pcost[self.dofs] = posture_cost
            self._pcost_sq = pcost ** 2
            self._h_posture = np.diag(self._pcost_sq)
            self._home = np.asarray(home, dtype=float)
        lower = np.full(model.nq, -mj.mjMAXVAL)
        upper = np.full(model.nq, mj.mjMAXVAL)
        limited: list[int] = []
        self._clip: list[tuple[int, float, float]] = []
        for j in range(model.njnt):
            if not model.jnt_limited[j] or model.jnt_type[j] == mj.mjtJoint.mjJNT_FREE:
                continue
            adr, lo, hi = int(model.jnt_qposadr[j]), float(model.jnt_range[j, 0]), float(model.jnt_range[j, 1])
            lower[adr], upper[adr] = lo, hi
            limited.append(int(model.jnt_dofadr[j]))
            self._clip.append((adr, lo, hi))
        self._lower, self._upper = lower, upper
        self._limited = np.array(limited, dtype=int)
        proj = np.eye(nv)[self._limited]
        self._c_limits = -np.vstack([proj, -proj]).T  # quadprog's C for G dq <= h
        self._dq_max = np.zeros(nv)
        self._dq_min = np.zeros(nv)

    def _kinematics(self) -> None:
        mj = self._mj
        mj.mj_kinematics(self.model, self.data)
        mj.mj_comPos(self.model, self.data)

    def _error(self, target_quat: np.ndarray, target_pos: np.ndarray) -> np.ndarray:
        """Body twist from the grip frame to the target: log(T_grip^-1 T_target)."""
        mj = self._mj
        quat = np.empty(4)
        mj.mju_mat2Quat(quat, self.data.site_xmat[self.site])
        inv = quat_conj(quat)
        rel = np.empty(4)
        mj.mju_mulQuat(rel, inv, target_quat)
        r_inv = np.empty(9)
        mj.mju_quat2Mat(r_inv, inv)
        r_inv = r_inv.reshape(3, 3)
        return _se3_log(rel, r_inv @ target_pos - r_inv @ self.data.site_xpos[self.site])

    def _step(self, err: np.ndarray, posture: bool) -> np.ndarray | None:
        """The QP's joint displacement at the current configuration."""
        mj = self._mj
        m, d, nv = self.model, self.data, self.model.nv
        jac = np.empty((6, nv))
        mj.mj_jacSite(m, d, jac[:3], jac[3:], self.site)
        rot_t = d.site_xmat[self.site].reshape(3, 3).T
        jac[:3] = rot_t @ jac[:3]
        jac[3:] = rot_t @ jac[3:]
        # the frame task: J = -jlog(T_target^-1 T_grip) J_body, with jlog(T^-1) = ljacinv(log T)
        wj = self._w[:, None] * (-_se3_ljacinv(err) @ jac)
        we = self._w * err
        mu = LM_DAMPING * float(we @ we)
        h = self._h_fixed + wj.T @ wj + mu * self._eye
        c = we @ wj  # mink: c = -(W (-e))^T (W J)
        if posture and self._pcost_sq is not None:
            e = np.zeros(nv)
            target = d.qpos.copy()
            target[self.qadr] = self._home
            mj.mj_differentiatePos(m, e, 1.0, d.qpos, target)
            h = h + self._h_posture
            c = c - self._pcost_sq * e
        mj.mj_differentiatePos(m, self._dq_max, 1.0, d.qpos, self._upper)
        mj.mj_differentiatePos(m, self._dq_min, 1.0, self._lower, d.qpos)
        b = -np.hstack([LIMIT_GAIN * self._dq_max[self._limited], LIMIT_GAIN * self._dq_min[self._limited]])
        try:
            return self._qp.solve_qp(h, -c, self._c_limits, b, 0)[0]
        except ValueError:  # infeasible (a configuration outside its limits)
            return None

    def solve(self, q: np.ndarray, position: np.ndarray, rotation: np.ndarray, *, max_iter: int = 80,
              tol_pos: float = 1e-3, tol_rot: float = 1e-2) -> IKResult:
        mj = self._mj
        q = np.array(q, dtype=float)
        for adr, lo, hi in self._clip:  # contacts can leave joints marginally outside their range
            q[adr] = min(max(q[adr], lo + 1e-6), hi - 1e-6)
        self.data.qpos[:] = q
        self._kinematics()
        target_quat = np.empty(4)
        mj.mju_mat2Quat(target_quat, np.asarray(rotation, dtype=float).ravel())
        target_pos = np.asarray(position, dtype=float)
        iterations = 0
        err = self._error(target_quat, target_pos)
        for iterations in range(1, max_iter + 1):  # noqa: B007 (reported in the result)
            # the posture pull only shapes the first steps: it competes with the frame task,
            # which then converges exactly without it
            dq = self._step(err, iterations <= POSTURE_STEPS)
            if dq is None:
                break
            mj.mj_integratePos(self.model, self.data.qpos, dq / self.dt, self.dt)
            self._kinematics()
            err = self._error(target_quat, target_pos)
            if np.linalg.norm(err[:3]) < tol_pos and np.linalg.norm(err[3:]) < tol_rot:
                break
        return IKResult(self.data.qpos[self.qadr].copy(), iterations, float(np.linalg.norm(err[:3])),
                        float(np.linalg.norm(err[3:])))
