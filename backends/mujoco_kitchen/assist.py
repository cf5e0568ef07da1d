"""Privileged help that only a simulator can give (the paper's assisted execution controller):
servo an articulation joint, weld a grasped object to the hand, weld two assembly parts
whatever their pose. `KitchenScene.assist` holds one only in `assisted` mode; the skills ask
for it there and name every use in `SkillResult.assists`.

Also the pure alignment test of the physical "snap" (used in both modes).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from robograph_backends.mujoco_kitchen.robot import RobotNames
from robograph_backends.mujoco_kitchen.sense import half_of, node_bodies, stand_in

if TYPE_CHECKING:
    from robograph_backends.mujoco_kitchen.embodiment import KitchenScene
    from robograph_backends.mujoco_kitchen.world import World

ASSEMBLY_OFFSET = 0.01  # parts join only within 1 cm of their seated pose (m) ...
ASSEMBLY_ANGLE = math.radians(10)  # ... and 10 degrees of its orientation (issue 9)
LID_SERVO_KP = 60.0  # a lid is light: a stiffer servo flings it against its stop
DOOR_SERVO_KP = 400.0
WELD_REACH = 0.03  # an assisted grasp welds when the fingers touch or the grip is this close (m)


def assembly_misalignment(part_pos: np.ndarray, part_mat: np.ndarray, part_half: np.ndarray,
                          target_pos: np.ndarray, target_mat: np.ndarray, target_half: np.ndarray) -> str | None:
    """Why `part` does not sit seated on top of `target` (None when it does): centres within
    ASSEMBLY_OFFSET across, the part's bottom within ASSEMBLY_OFFSET of the target's top, both
    upright axes and the yaw (modulo a quarter turn: the parts are boxes and cylinders) within
    ASSEMBLY_ANGLE."""
    across = float(np.linalg.norm(part_pos[:2] - target_pos[:2]))
    if across > ASSEMBLY_OFFSET:
        return f"{across * 100:.1f} cm off centre (at most {ASSEMBLY_OFFSET * 100:.0f} cm)"
    gap = float((part_pos[2] - part_half[2]) - (target_pos[2] + target_half[2]))
    if abs(gap) > ASSEMBLY_OFFSET:
        return f"{gap * 100:.1f} cm above the seat (at most {ASSEMBLY_OFFSET * 100:.0f} cm)"
    tilt = math.acos(min(1.0, abs(float(part_mat[:, 2] @ target_mat[:, 2]))))
    if tilt > ASSEMBLY_ANGLE:
        return f"tilted {math.degrees(tilt):.0f} deg (at most {math.degrees(ASSEMBLY_ANGLE):.0f})"
    yaw = math.atan2(part_mat[1, 0], part_mat[0, 0]) - math.atan2(target_mat[1, 0], target_mat[0, 0])
    yaw = abs((yaw + math.pi / 4) % (math.pi / 2) - math.pi / 4)
    if yaw > ASSEMBLY_ANGLE:
        return f"turned {math.degrees(yaw):.0f} deg (at most {math.degrees(ASSEMBLY_ANGLE):.0f})"
    return None


class KitchenAssist:
    """The simulator's privileged operations over the kitchen world (robograph_skills.interface.Assist)."""

    def __init__(self, world: World, scene: KitchenScene) -> None:
        self.world = world
        self.scene = scene

    def servo(self, node: str, fraction: float) -> None:
        for a in self.world.plan.articulations[node]:
            kp = LID_SERVO_KP if a.kind in ("lid", "book_cover") else DOOR_SERVO_KP
            self.world.drive_joint(a.joint, a.closed + fraction * (a.open - a.closed), kp=kp, kv=kp / 6)

    def release_servo(self, node: str) -> None:
        for a in self.world.plan.articulations[node]:
            self.world.release_joint(a.joint)

    def weld_grasp(self, hand: str, node: str) -> bool:
        """Fix `node` to the hand if the fingers touch it or the grip point is close to it."""
        w = self.world
        node = stand_in(w, node)
        body = node_bodies(w)[node]
        touching = w.contacts(w.finger_ids(hand), w.subtree(body)) > 0
        grip = w.site_pos(RobotNames.grip_site(hand))
        near = float(np.linalg.norm(grip - w.body_pos(body))) < float(np.max(half_of(w, node))) + WELD_REACH
        if touching or near:
            w.activate_weld(f"weld_{hand}_{body}")
            return True
        return False

    def weld_parts(self, part: str, target: str) -> bool:
        """Join two assembly parts wherever they are."""
        whole = self.scene.assembly_of(part, target)
        if whole is None:
            return False
        self.world.activate_weld(f"asm_{whole}")
        return True
