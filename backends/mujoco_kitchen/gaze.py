"""Where the robot's cameras look: the head at the furniture the robot works at, the side cameras
over the room on their side.

Why: with fixed mounts the head looked 42 deg down from the middle of the room (two arms and a far
counter with tiny objects) and the side cameras at the floor. A pan-tilt head and aimed side
cameras are what a real robot's perception stack uses; here each camera turns to its gaze point
at render time (orientation and field of view only: positions stay the mounting points, so the
head camera position used by the OCCLUDES measurement and by the layout is unchanged).

Gaze rules (deterministic functions of the world's state):
- head: the nearest piece of furniture with a station (`plan.stations`) in the robot's room; the
  point `HEAD_DEPTH` into its static footprint from its front face, at the robot's own y
  (clamped to the footprint), at the height of its top (at most `HEAD_MAX_Z`). The narrower
  field of view (`HEAD_FOVY`) leaves the arms' home posture below and beside the frame.
- left / right: the room on the camera's side, so the three views together cover the room: the
  nearest other furniture on that side (its footprint as the head's rule places the point), else
  the work furniture half-way between the robot's line and its end on that side (a long counter
  is seen end to end). Furniture stands against the +x wall and the robot faces +x (plan.py),
  so a side is a sign of y. In a room without furniture, the point `SIDE_AHEAD` ahead of each
  grip site and `SIDE_DROP` below it. What is in front of the hands is the eye-in-hand cameras'
  view (`left_wrist`, `right_wrist`; fixed in the hand).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.robot import CAMERA_NAMES, RobotNames
from robograph_backends.mujoco_kitchen.world import World

HEAD_FOVY = 45.0  # deg (the fixed mount had 70; a RealSense D435's colour camera has 42)
HEAD_DEPTH = 0.6  # fraction of the footprint's depth behind its front face
HEAD_MAX_Z = 1.1  # m: tall furniture (a fridge) is looked at at about a hand's working height
SIDE_FOVY = 55.0  # deg
SIDE_MARGIN = 0.05  # m: other furniture counts as on a side when its station is this far out
SIDE_AHEAD = 0.30  # m in front of the grip site (a room without furniture)
SIDE_DROP = 0.12  # m below it
_BOX = 6  # mjtGeom.mjGEOM_BOX


@dataclass(frozen=True, slots=True)
class Aim:
    """One camera turned to look at `target` (world, m) with vertical field of view `fovy` (deg)."""

    camera: str
    target: tuple[float, float, float]
    fovy: float


def footprint(world: World, node: str) -> tuple[np.ndarray, np.ndarray]:
    """World (low, high) corners of the static box geoms of a piece of furniture (its carcass,
    shelves and fixed tops: what does not move when doors or drawers do)."""
    m, d = world.model, world.data
    sub = np.fromiter(world.subtree(world.plan.node_body[node]), dtype=int)
    geoms = np.flatnonzero(np.isin(m.geom_bodyid, sub) & (np.asarray(m.geom_type) == _BOX)
                           & (np.asarray(m.body_weldid)[np.asarray(m.geom_bodyid)] == 0))
    if len(geoms) == 0:
        p = world.body_pos(world.plan.node_body[node])
        return p, p
    centres = np.asarray(d.geom_xpos)[geoms]
    ext = np.einsum("nij,nj->ni", np.abs(np.asarray(d.geom_xmat)[geoms].reshape(-1, 3, 3)),
                    np.asarray(m.geom_size)[geoms])
    return (centres - ext).min(axis=0), (centres + ext).max(axis=0)


def room_furniture(world: World) -> list[str]:
    """Furniture with a station in the robot's room, nearest first (ties by name)."""
    x, y = world.qpos("base_x"), world.qpos("base_y")
    room = world.plan.room_at(x, y)
    near = sorted((math.hypot(sx - x, sy - y), n) for n, (sx, sy, _) in world.plan.stations.items()
                  if n in world.plan.node_body and world.plan.room_at(sx, sy) == room)
    return [n for _, n in near]


def work_furniture(world: World) -> str | None:
    """The furniture the robot works at: the nearest station in the robot's room."""
    near = room_furniture(world)
    return near[0] if near else None


def aims(world: World) -> list[Aim]:
    """The gaze of every aimed camera in the current state (head first)."""
    yaw = world.qpos("base_yaw")
    heading = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    grips = {hand: world.site_pos(RobotNames.grip_site(hand)) for hand in ("left", "right")}
    near = room_furniture(world)
    if not near:  # nothing to look at (a bare room): straight ahead of the hands
        drop = np.array([0.0, 0.0, SIDE_DROP])
        return [Aim(hand, _point(grip + heading * SIDE_AHEAD - drop), SIDE_FOVY) for hand, grip in grips.items()]
    lo, hi = footprint(world, near[0])
    z = float(min(hi[2], HEAD_MAX_Z))
    x = float(lo[0] + HEAD_DEPTH * (hi[0] - lo[0]))
    y = _clamp(world.qpos("base_y"), lo[1], hi[1])
    out = [Aim("head", (x, y, z), HEAD_FOVY)]
    base_y = world.qpos("base_y")
    for hand in ("left", "right"):
        # the nearest other furniture on the camera's side (+y is the robot's left: it faces +x),
        # else the work furniture between the robot's line and its end on that side
        sign = 1.0 if hand == "left" else -1.0
        others = [n for n in near[1:] if sign * (world.plan.stations[n][1] - base_y) > SIDE_MARGIN]
        if others:
            olo, ohi = footprint(world, others[0])
            target = (float(olo[0] + HEAD_DEPTH * (ohi[0] - olo[0])), float(olo[1] + ohi[1]) / 2,
                      float(min(ohi[2], HEAD_MAX_Z)))
        else:
            edge = float(hi[1] if sign > 0 else lo[1])
            target = (x, (y + edge) / 2, z)
        out.append(Aim(hand, target, SIDE_FOVY))
    return out


def _clamp(v: float, lo: float, hi: float) -> float:
    return float(min(max(v, lo), hi))


def _point(p: np.ndarray | tuple[float, ...]) -> tuple[float, float, float]:
    return (float(p[0]), float(p[1]), float(p[2]))


def look_at_quat(cam_pos: np.ndarray, target: np.ndarray, parent_rot: np.ndarray) -> np.ndarray:
    """Camera orientation (w, x, y, z) in its parent body's frame that looks from `cam_pos` at
    `target` with the image upright (MuJoCo cameras look along their -z, y up)."""
    mj = mujoco_module()
    f = np.asarray(target, dtype=float) - np.asarray(cam_pos, dtype=float)
    f /= max(float(np.linalg.norm(f)), 1e-9)
    x = np.cross(f, (0.0, 0.0, 1.0))
    if np.linalg.norm(x) < 1e-6:  # straight down: keep the parent's heading
        x = parent_rot[:, 1] * -1.0
    x /= np.linalg.norm(x)
    y = np.cross(x, f)
    world_rot = np.stack([x, y, -f], axis=1)
    q = np.zeros(4)
    mj.mju_mat2Quat(q, (parent_rot.T @ world_rot).flatten())
    return q


@contextmanager
def aimed(world: World) -> Iterator[None]:
    """The cameras turned to their gaze points for the duration (camera poses in `world.data`
    updated), then back to their mounts: other readers of the model (the perception survey)
    see the mounts as before."""
    mj = mujoco_module()
    m, d = world.model, world.data
    saved = []
    for aim in aims(world):
        cid = m.camera(CAMERA_NAMES[aim.camera]).id
        saved.append((cid, m.cam_quat[cid].copy(), float(m.cam_fovy[cid])))
        parent = np.asarray(d.xmat[m.cam_bodyid[cid]]).reshape(3, 3)
        m.cam_quat[cid] = look_at_quat(d.cam_xpos[cid], np.asarray(aim.target), parent)
        m.cam_fovy[cid] = aim.fovy
    mj.mj_camlight(m, d)
    try:
        yield
    finally:
        for cid, quat, fovy in saved:
            m.cam_quat[cid] = quat
            m.cam_fovy[cid] = fovy
        mj.mj_camlight(m, d)
