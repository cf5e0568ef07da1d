"""The tabletop camera rig (pure): a head camera on the arms' base, riding the rail with it, and a
camera on each Panda's hand, 320x240 like RoboTwin's D435 layout, and the conversion of a SAPIEN
camera pose into the project's `CameraModel` (OpenCV convention)."""

from __future__ import annotations

import math

import numpy as np

from robograph.rotations import mat_from_quat
from robograph_backends.sapien_tabletop.layout import REACH_FAR, REACH_NEAR
from robograph_calibration.camera import CameraModel

WIDTH, HEIGHT = 320, 240
HEAD_FOVY = 60.0  # degrees (vertical). RoboTwin's D435 (37) was tried: after the oracle's actions
# of six episodes the arms took 37 % of the head image instead of 39 %, and it showed 22 % of the
# visible objects instead of 29 % (docs/sapien_backend.md, session 30)
WRIST_FOVY = 70.0
HEAD_POSITION = (-0.95, 0.0, 1.55)  # m, behind the arms' bases, looking along +x (y: the base's, on the rail)
HEAD_AIM = (REACH_NEAR + REACH_FAR) / 2  # m ahead of the arms' base line the head's optical axis
# meets the top: the middle of the band the layout packs into (0.49 m)
CAMERAS = ("head", "left", "right")


def head_viewpoint(y: float) -> np.ndarray:
    """Where the head camera stands with the arms' base at `y` on the rail (m, world), and where
    occlusion is judged from: with `y` straight in front of the object looked at, as the base
    drives to work there (the MuJoCo kitchen judges from the robot's work pose in front of the
    furniture too). Why not the base's present place: a sideboard beside the table, or the ends
    of a 1.8 m counter, lie outside or at the edge of its image, where no occlusion can be
    judged."""
    return np.array([HEAD_POSITION[0], float(y), HEAD_POSITION[2]])


def quat_pitch(pitch: float) -> np.ndarray:
    """(w, x, y, z) of a rotation by `pitch` about +y (positive tips +x down toward -z)."""
    return np.array([np.cos(pitch / 2), 0.0, np.sin(pitch / 2), 0.0])


def model_from_sapien(T_world_entity: np.ndarray, fovy_deg: float) -> CameraModel:
    """A SAPIEN camera entity's pose (x forward, y left, z up) as a CameraModel."""
    T = np.asarray(T_world_entity, dtype=float)
    return CameraModel.from_convention(WIDTH, HEIGHT, fovy_deg, T[:3, 3], T[:3, :3], "sapien")


def head_pitch(robot_x: float, top_z: float) -> float:
    """Radians below the horizon that aim the head at the top's surface (`top_z`, m) HEAD_AIM
    ahead of the arms' base line (`robot_x`). Why not one pitch for every top: the 0.6 rad that
    frames a 75 cm desk put a play mat on the floor, 1.5 m below the head, in the image's bottom
    strip, and its first row of toys, 0.35 m ahead of the arms, under the image's edge."""
    return math.atan2(HEAD_POSITION[2] - top_z, robot_x + HEAD_AIM - HEAD_POSITION[0])


def head_pose(base_y: float, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """(position, (w, x, y, z) quaternion) of the head camera, SAPIEN's convention, with the
    arms' base at `base_y` on the rail: `World` mounts it there, `head_model` models it."""
    return head_viewpoint(base_y), quat_pitch(pitch)


def head_model(base_y: float, pitch: float) -> CameraModel:
    """The head camera's model with the arms' base at `base_y` on the rail (the world's head
    camera is mounted on the base: `World.camera_model` reads the same pose from SAPIEN)."""
    position, quat = head_pose(base_y, pitch)
    T = np.eye(4)
    T[:3, :3] = mat_from_quat(quat)
    T[:3, 3] = position
    return model_from_sapien(T, HEAD_FOVY)
