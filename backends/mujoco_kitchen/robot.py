"""The robot: a mobile base (planar x/y/yaw joints + torso lift) carrying two robosuite Pandas with
Panda grippers, a head camera and two side cameras; composed into the kitchen with MjSpec.

Why this robot: robosuite ships no bimanual mobile Panda, but its Panda arm and gripper MJCF are
the best-known models (mink converges on them in a few iterations) and match the SAPIEN
backend's robot. robosuite's torque motors are replaced by joint position servos with gravity
compensation, which a skill layer can command directly.
"""

from __future__ import annotations

import importlib.util
import math
import os
from dataclasses import dataclass
from typing import Any

from robograph.rotations import rot_y, rot_z
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.lowpoly import simplify_visual_meshes

HANDS = ("left", "right")
PANDA_HOME = (0.0, -0.55, 0.0, -2.45, 0.0, 1.95, math.pi / 4)
ARM_KP = (3000, 3000, 2000, 2000, 1000, 800, 400)
FINGER_OPEN = 0.04
# the Panda hand's palm, measured on its collision mesh relative to the grip site (m): its lowest
# point above the grip, its half extent along the finger-closing axis, and across it
PALM_ABOVE_GRIP = 0.031
PALM_HALF_LENGTH = 0.105
PALM_HALF_WIDTH = 0.037
# Pairs of one arm's bodies whose collision hulls lie within each other's bounding boxes at
# nearly every posture but do not touch (MoveIt's panda SRDF disables the same pairs as
# "default" collisions): without the exclusion MuJoCo ran a convex-mesh narrow phase on each
# pair at every step (link5/link7: 13,500 of 13,500 checks in two benchmark episodes, 0
# contacts; 11 contacts in a third, where link5's hull fills the recess the wrist folds into,
# which the real link leaves open), and on each finger's pad against the other finger whenever
# the gripper closed on nothing (the pads then touch each other, a pair that stays) (issue 9 SPEED)
ARM_NEVER_COLLIDE = (("link5", "link7"), ("link5", "gripper_right_gripper"),
                     ("gripper_finger_joint1_tip", "gripper_rightfinger"),
                     ("gripper_finger_joint2_tip", "gripper_leftfinger"))
ARM_MOUNT_Y = 0.25
ARM_MOUNT_Z = 0.80
LIFT_RANGE = (-0.45, 0.5)
CAMERAS = ("head", "left", "right", "left_wrist", "right_wrist")
CAMERA_NAMES = {
    "head": "head_cam",
    "left": "left_cam",
    "right": "right_cam",
    "left_wrist": "left_eye_in_hand",
    "right_wrist": "right_eye_in_hand",
}


@dataclass(frozen=True, slots=True)
class RobotNames:
    """Names in the compiled model, per hand."""

    @staticmethod
    def arm_joints(hand: str) -> list[str]:
        return [f"{hand}_joint{i}" for i in range(1, 8)]

    @staticmethod
    def arm_actuators(hand: str) -> list[str]:
        return [f"{hand}_pos_j{i}" for i in range(1, 8)]

    @staticmethod
    def finger_actuators(hand: str) -> list[str]:
        return [f"{hand}_gripper_gripper_finger_joint{i}" for i in (1, 2)]

    @staticmethod
    def finger_joints(hand: str) -> list[str]:
        return [f"{hand}_gripper_finger_joint{i}" for i in (1, 2)]

    @staticmethod
    def grip_site(hand: str) -> str:
        return f"{hand}_gripper_grip_site"

    @staticmethod
    def eef_body(hand: str) -> str:
        return f"{hand}_gripper_eef"

    @staticmethod
    def finger_bodies(hand: str) -> list[str]:
        return [f"{hand}_gripper_{n}" for n in ("leftfinger", "rightfinger", "finger_joint1_tip",
                                                 "finger_joint2_tip")]


def robosuite_assets() -> str:
    """robosuite's shipped MJCF assets, located without importing robosuite (slow, noisy)."""
    spec = importlib.util.find_spec("robosuite")
    if spec is None or spec.origin is None:
        from robograph.errors import DependencyNotInstalled

        raise DependencyNotInstalled("robosuite", "mujoco")
    return os.path.join(os.path.dirname(spec.origin), "models", "assets")


def _load_abs(path: str) -> Any:
    """MjSpec.from_file with mesh/texture paths made absolute: robosuite's paths are relative to
    their own file and would resolve against the parent spec after attaching."""
    mj = mujoco_module()
    spec = mj.MjSpec.from_file(path)
    base = os.path.dirname(path)
    for m in spec.meshes:
        if m.file and not os.path.isabs(m.file):
            m.file = os.path.join(base, m.file)
    for t in spec.textures:
        if t.file and not os.path.isabs(t.file):
            t.file = os.path.join(base, t.file)
    return spec


def _set_damping(joint: Any, value: float) -> None:
    """MjsJoint.damping is a float in mujoco 3.3 and a 3-vector in 3.9."""
    if hasattr(joint.damping, "__len__"):
        d = [0.0] * len(joint.damping)
        d[0] = value
        joint.damping = d
    else:
        joint.damping = value


def _arm_with_gripper() -> Any:
    mj = mujoco_module()
    assets = robosuite_assets()
    arm = _load_abs(os.path.join(assets, "robots", "panda", "robot.xml"))
    simplify_visual_meshes(arm)  # cheaper pictures; collision meshes untouched (lowpoly.py)
    for act in list(arm.actuators):
        arm.delete(act)
    for i, kp in enumerate(ARM_KP, start=1):
        a = arm.add_actuator(name=f"pos_j{i}", target=f"joint{i}", trntype=mj.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=kp, dampratio=1.0)
        a.ctrlrange = arm.joint(f"joint{i}").range
        a.ctrllimited = True
        a.forcerange = [-87, 87] if i <= 4 else [-12, 12]
        a.forcelimited = True
    for i in range(1, 8):
        j = arm.joint(f"joint{i}")
        _set_damping(j, 5.0)
        j.armature = 0.1
    grip = _load_abs(os.path.join(assets, "grippers", "panda_gripper.xml"))
    arm.body("right_hand").add_frame().attach_body(grip.body("right_gripper"), "gripper_", "")
    for b in arm.bodies:
        b.gravcomp = 1.0
    return arm


def _camera(body: Any, name: str, pos: list[float], pitch: float, yaw: float = 0.0, fovy: float = 70.0) -> None:
    """A camera looking along the robot's +x, pitched down by `pitch`, yawed by `yaw` (rad)."""
    mj = mujoco_module()
    R = rot_z(yaw) @ rot_y(pitch)  # MuJoCo cameras look along -z: z up, then pitched toward +x
    cam = body.add_camera(name=name, pos=pos, fovy=fovy)
    cam.alt.type = mj.mjtOrientation.mjORIENTATION_XYAXES
    cam.alt.xyaxes = [*(R @ (0.0, -1.0, 0.0)), *(R @ (0.0, 0.0, 1.0))]


def add_robot(spec: Any, start: tuple[float, float, float]) -> None:
    """Attach the mobile bimanual robot at `start` = (x, y, yaw)."""
    mj = mujoco_module()
    G = mj.mjtGeom
    J = mj.mjtJoint
    base = spec.worldbody.add_body(name="robot_base", pos=[0, 0, 0])
    for name, jtype, axis, damping in (("base_x", J.mjJNT_SLIDE, [1, 0, 0], 200.0),
                                       ("base_y", J.mjJNT_SLIDE, [0, 1, 0], 200.0),
                                       ("base_yaw", J.mjJNT_HINGE, [0, 0, 1], 100.0)):
        j = base.add_joint(name=name, type=jtype, axis=axis, armature=5.0)
        _set_damping(j, damping)
    base.explicitinertial = True
    base.mass, base.inertia = 60.0, [5, 5, 5]
    dark, grey = [0.2, 0.2, 0.22, 1], [0.8, 0.8, 0.82, 1]
    base.add_geom(name="base_body", type=G.mjGEOM_BOX, size=[0.26, 0.24, 0.15], pos=[-0.04, 0, 0.17], rgba=dark, group=1)
    # the lift housing stays below the lowest shoulder: a taller column stopped the arms reaching
    # low compartments with the torso down (the IK model does not check arm-base contacts)
    base.add_geom(name="base_col", type=G.mjGEOM_BOX, size=[0.08, 0.12, 0.04], pos=[-0.12, 0, 0.36], rgba=grey, group=1)
    torso = base.add_body(name="torso", pos=[0, 0, 0])
    lift = torso.add_joint(name="torso_lift", type=J.mjJNT_SLIDE, axis=[0, 0, 1], armature=5.0)
    _set_damping(lift, 500.0)
    lift.range = list(LIFT_RANGE)
    torso.explicitinertial = True
    torso.mass, torso.inertia = 10.0, [1, 1, 1]
    torso.gravcomp = 1.0
    torso.add_geom(name="torso_col", type=G.mjGEOM_BOX, size=[0.07, 0.11, 0.6], pos=[-0.12, 0, 0.92], rgba=grey,
                   group=1, contype=0, conaffinity=0)
    torso.add_geom(name="shoulder_bar", type=G.mjGEOM_BOX, size=[0.06, 0.32, 0.03], pos=[-0.06, 0, 0.77],
                   rgba=grey, group=1)
    spec.add_exclude(bodyname1="robot_base", bodyname2="torso")
    head = torso.add_body(name="head", pos=[-0.08, 0, 1.58])
    head.add_geom(name="head_g", type=G.mjGEOM_BOX, size=[0.07, 0.1, 0.06], rgba=dark, group=1,
                  contype=0, conaffinity=0)
    _camera(head, "head_cam", [0.08, 0, 0], pitch=math.radians(42))
    _camera(torso, "left_cam", [0.0, 0.3, 1.3], pitch=math.radians(45), yaw=math.radians(-12))
    _camera(torso, "right_cam", [0.0, -0.3, 1.3], pitch=math.radians(45), yaw=math.radians(12))
    for hand, y in (("left", ARM_MOUNT_Y), ("right", -ARM_MOUNT_Y)):
        arm = _arm_with_gripper()
        torso.add_frame(pos=[0.0, y, ARM_MOUNT_Z]).attach_body(arm.body("base"), f"{hand}_", "")
        for a, b in ARM_NEVER_COLLIDE:
            spec.add_exclude(bodyname1=f"{hand}_{a}", bodyname2=f"{hand}_{b}")
    for jn, kp in (("base_x", 20000.0), ("base_y", 20000.0), ("base_yaw", 5000.0), ("torso_lift", 20000.0)):
        a = spec.add_actuator(name=f"act_{jn}", target=jn, trntype=mj.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=kp, dampratio=1.0)
    del start  # the start pose is written into qpos after compiling (world.reset)


def add_welds(spec: Any, bodies: list[str], part_pairs: list[tuple[str, str, str]]) -> None:
    """Inactive weld equalities, switched on at run time (equalities cannot be added after
    compiling): hand<->body for assisted grasps and realized holds, part<->part for attach."""
    mj = mujoco_module()
    for hand in HANDS:
        for b in bodies:
            spec.add_equality(name=f"weld_{hand}_{b}", type=mj.mjtEq.mjEQ_WELD, objtype=mj.mjtObj.mjOBJ_BODY,
                              name1=RobotNames.eef_body(hand), name2=b, active=False)
    for whole, a, b in part_pairs:
        spec.add_equality(name=f"asm_{whole}", type=mj.mjtEq.mjEQ_WELD, objtype=mj.mjtObj.mjOBJ_BODY,
                          name1=a, name2=b, active=False)


def add_servos(spec: Any, joints: list[str]) -> None:
    """Position actuators on articulation joints with zero gain: a skill switches one on by
    writing its gains (World.drive_joint), so passive joints stay passive otherwise."""
    mj = mujoco_module()
    for jn in joints:
        a = spec.add_actuator(name=f"servo_{jn}", target=jn, trntype=mj.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=0.0, kv=0.0)
