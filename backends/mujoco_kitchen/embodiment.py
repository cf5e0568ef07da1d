"""MuJoCo implementations of the skills' `Robot` and `Scene` interfaces for the kitchen world."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from itertools import islice

import numpy as np

from robograph.graph import INSIDE, ON, SceneGraph
from robograph.rotations import yaw_of
from robograph_backends.mujoco_kitchen.assist import KitchenAssist, assembly_misalignment
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.ik import R_DOWN, ArmIK, IKResult, grip_rotation, hand_rotation
from robograph_backends.mujoco_kitchen.layout import SLOT_GAP
from robograph_backends.mujoco_kitchen.placement import free_spots, local, slot_spots, to_world
from robograph_backends.mujoco_kitchen.plan import (
    CORRIDOR_X,
    STANDOFF,
    WALL_FINGER_MARGIN,
    Articulation,
    Region,
)
from robograph_backends.mujoco_kitchen.robot import (
    ARM_MOUNT_Y,
    ARM_MOUNT_Z,
    FINGER_OPEN,
    HANDS,
    LIFT_RANGE,
    PALM_ABOVE_GRIP,
    PALM_HALF_LENGTH,
    PALM_HALF_WIDTH,
    PANDA_HOME,
    RobotNames,
    add_robot,
)
from robograph_backends.mujoco_kitchen.sense import (
    assembly_parts,
    half_of,
    holding_hand,
    joint_fraction,
    node_bodies,
    stand_in,
)
from robograph_backends.mujoco_kitchen.tuning import LID_TAB_HALF, TIMESTEP
from robograph_backends.mujoco_kitchen.world import World, assembly_pairs
from robograph_backends.reading import is_open
from robograph_skills.articulation import rotate
from robograph_skills.interface import BasePose, Grasp, GripWaypoint, Handle, Placement

DT = TIMESTEP  # s per physics step: motion durations are converted to steps with the model's own
# timestep (a second copy of 0.002 here made a changed TIMESTEP double every motion's time)
SHOULDER_DZ = 0.93  # preferred height of the torso lift reference above a work point (m)
REACH = 0.55  # preferred horizontal distance from the base centre to a work point (m)
BASE_FRONT = 0.24  # base centre to the front of its body (m)
FINGERS_ALONG_X = math.pi / 2  # at hand yaw 0 the Panda fingers close along world y
# IK restarts when a solution misses or hits something: the home posture, then elbow variants
IK_SEEDS = (PANDA_HOME,
            (PANDA_HOME[0], PANDA_HOME[1], 0.6, *PANDA_HOME[3:]),
            (PANDA_HOME[0], PANDA_HOME[1], -0.6, *PANDA_HOME[3:]),
            (0.5, *PANDA_HOME[1:]),
            (-0.5, *PANDA_HOME[1:]))
LINK_PENETRATION = 0.002  # an arm link this deep in the kitchen or an object is a hit (m)
ROBOT_BODIES = ("robot_base", "torso", "head")
SIDESTEP = 0.3  # base moves longer than this along y (m) ...
LANE_BACKOFF = 0.25  # ... back off this far from the nearer of start and goal first (m)
CARRY_ACCEL = 2.0  # peak base acceleration while a hand is closed (m/s^2)
JOINT_SPEED = np.array([3.0, 3.0, 3.0, 3.0, 1.8, 1.8, 1.8])  # rad/s an arm joint servo follows (m: wrist)
STOW_TURN = 1.3  # shoulder turn (rad) of a stowed arm, outward
TUCK_POSTURE = (0.0, -1.5, 0.0, -3.0, 0.0, 1.5, math.pi / 4)  # Panda joints (rad) of a tucked arm:
# upper arm raised back, forearm folded down along it, the hand hanging 0.16 m ahead of the
# shoulder at about its carry height (forward kinematics on the robot-only model; no contact)
STRAIGHT_STEP = 0.05  # waypoint spacing of straight-line hand moves (m)
# settling at the end of a move (and once at the end of a continuous path, move_grip_path)
SETTLE_MIN = 0.06  # s every move waits at its end ...
SETTLE_TOLERANCE = 0.012  # m ... then is done when the hand is this close to its target, ...
SETTLE_WAIT = 0.05  # s ... else waits this long again ...
SETTLE_TRIES = 4  # ... at most this often ...
SETTLE_PROGRESS = 0.002  # m ... while each wait brings the hand at least this much closer
TRACK_MISS = 0.03  # m: a hand settled this far from its target missed it
PATH_LAG = 0.15  # m: a continuous path stops where the hand is this far behind its waypoint
# (held back: a jammed leaf). Pulling a fridge door at 50 deg/s it runs 3-9 cm behind, the base
# following it
FRONT_CLEAR = 0.22  # minimum front entry distance for roofed spots (m)
FINGER_CLEAR = 0.1  # the open fingers stick out this far along x in front of a held object (m)
ROOFED_SIDE_MARGIN = 0.08
FINGER_GAP = 0.04  # gap kept between a placed object and its neighbours (open fingers)
ASIDE_GAP = 0.12  # gap kept, where the support has room, around an object moved aside
VESSEL_GAP = 0.012
ROOFED_DEPTH = 0.3
MIN_APPROACH, MAX_APPROACH = 0.12, 0.3  # descent start over a grip or release point (m)
APPROACH_RADIUS = 0.3  # neighbours this close (m) ...
APPROACH_CLEARANCE = 0.06  # ... are passed this high over by the grip point (m)
SPOT_CHOICES = 3  # placement candidates offered to a skill (tried in turn when one is out of reach)
LEAF_CLEAR = 0.03  # the base's front stays this far from a swinging leaf's tip (m)
HELD_CLEAR = 0.12  # a held object sticks out this far beyond the grip point (m); set by hand
LEAF_IN_THE_WAY = math.radians(10)  # a door leaf open this far stands out in front of its carcass
ROBOT_HALF_WIDTH = ARM_MOUNT_Y + 0.08  # base centre to the outside of an arm's links (m): the base
# body is 0.24 wide each side, but the shoulders stand 0.25 out and reach forward over the leaves
DOOR_PITCH = math.radians(60)  # door bars: approach 30 deg below level (a level hand could not reach)
DOOR_REACH = 0.93  # doors: the shut handle at most this far ahead (x) of the base centre (m): the
# arm reached it 0.94 m ahead, not 1.0 m (IK from five seeds, 0.77 m leaves of held-out Fridge-Is27,
# where the stance clear of the whole sweep put it); the benchmark's leaves (<= 0.69 m) stay at 0.927
PULL_REACH = 0.68  # drawers: base centre to the shut bar (m) ...
PULL_SHOULDER_DROP = 0.3  # ... and the shoulders this far below it (m): the whole pull in reach
DRAWER_PITCH = math.radians(60)  # drawer bars: approach 30 deg below level (45: the palm hit the top above)
HANDLE_BAR = 0.02  # door and drawer handle bars are 2 cm thick across the fingers (bodies.py)
DOOR_HANDLE_FRONT = 0.03  # a door's bar centre stands this far in front of the leaf's front face (m)
DOOR_HANDLE_BEHIND = 0.05  # ... and this far in front of its back face (m)
MAX_SPAN = 0.072  # widest side the open fingers (80 mm) close across with a margin (m)  # usable depth of a roofed region, from its front edge (m)  # spots on shelves stay this far from the compartment's sides (m)


def _palm_half(yaw: float) -> tuple[float, float]:
    """Half extents (x, y) of the palm's footprint at hand yaw `yaw`."""
    if yaw == FINGERS_ALONG_X:
        return PALM_HALF_LENGTH, PALM_HALF_WIDTH
    return PALM_HALF_WIDTH, PALM_HALF_LENGTH


def _steps(seconds: float) -> int:
    return max(1, round(seconds / DT))


class MujocoRobot:
    """Two arms + mobile base driven through position servos; IK on a robot-only model."""

    hands = HANDS
    max_opening = 2 * FINGER_OPEN
    palm_clearance = PALM_ABOVE_GRIP

    def __init__(self, world: World) -> None:
        mj = mujoco_module()
        self.world = world
        spec = mj.MjSpec()
        add_robot(spec, (0.0, 0.0, 0.0))
        self.ik_model = spec.compile()
        self.ik_q = np.zeros(self.ik_model.nq)
        self._map = [(int(self.ik_model.jnt_qposadr[j]), world.qadr(self.ik_model.joint(j).name))
                     for j in range(self.ik_model.njnt)]
        self.ik = {h: ArmIK(self.ik_model, RobotNames.grip_site(h), RobotNames.arm_joints(h)) for h in HANDS}
        self._ik_data = mj.MjData(self.ik_model)
        self._scratch = mj.MjData(world.model)  # the world posed with a candidate arm solution
        self._arm_world_qadr = {h: [world.qadr(j) for j in RobotNames.arm_joints(h)] for h in HANDS}
        names = [world.model.body(i).name for i in range(world.model.nbody)]
        self._arm_links = {h: {i for i, b in enumerate(names) if b.startswith(f"{h}_link")} for h in HANDS}
        self._robot_bodies = {i for i, b in enumerate(names) if b.startswith(("left_", "right_")) or b in ROBOT_BODIES}
        self._arm_qadr = {h: [int(self.ik_model.jnt_qposadr[self.ik_model.joint(j).id]) for j in RobotNames.arm_joints(h)]
                          for h in HANDS}
        self._side = {b: h for b in range(self.ik_model.nbody) for h in HANDS
                      if self.ik_model.body(b).name.startswith(f"{h}_")}
        self.arm_act = {h: [world.actuator(a) for a in RobotNames.arm_actuators(h)] for h in HANDS}
        self.finger_act = {h: [world.actuator(a) for a in RobotNames.finger_actuators(h)] for h in HANDS}
        self.base_act = [world.actuator(f"act_{j}") for j in ("base_x", "base_y", "base_yaw", "torso_lift")]
        self.failures: list[str] = []
        self._released: set[str] = set()  # hand welds released whose object ignores the robot

    # base ------------------------------------------------------------------------------------------
    def base_pose(self) -> BasePose:
        w = self.world
        return (w.qpos("base_x"), w.qpos("base_y"), w.qpos("base_yaw"), w.qpos("torso_lift"))

    def drive_base(self, pose: BasePose) -> bool:
        """Drive to `pose`; a long move sideways goes along a lane backed off from the
        furniture (a bottle in the carry pose hit an open fridge door leaf driving past it)."""
        start = np.array([self.world.data.ctrl[a] for a in self.base_act])
        goal = np.array(pose, dtype=float)
        if abs(goal[1] - start[1]) > SIDESTEP:
            # (not along a lane already)
            lane = min(start[0], goal[0]) - LANE_BACKOFF if abs(goal[0] - start[0]) > 0.02 else math.inf
            # ... and in front of open door leaves, hands and what they hold included (doors stop
            # at 120 deg: a fridge leaf stands out 54 cm; the lane 25 cm back swept a held
            # ketchup bottle through it and pushed the door shut; going straight from one leaf
            # of a fridge to the other, the hand in its carry pose knocked the first one shut)
            ys = (min(start[1], goal[1]) - ROBOT_HALF_WIDTH, max(start[1], goal[1]) + ROBOT_HALF_WIDTH)
            ahead = max([BASE_FRONT] + [float(self.hand_position(h)[0]) - float(start[0]) + HELD_CLEAR
                                        for h in HANDS])
            lane = min(lane, self._leaves_front(*ys) - ahead - LEAF_CLEAR)
            if lane < min(start[0], goal[0]) - 0.005:
                self._drive((lane, start[1], start[2], start[3]))
                self._drive((lane, goal[1], goal[2], goal[3]))
        return self._drive(goal)

    def _leaves_front(self, y0: float, y1: float) -> float:
        """The smallest x reached by an open door leaf lying between y0 and y1 (inf: none)."""
        w = self.world
        front = math.inf
        for arts in w.plan.articulations.values():
            for a in arts:
                if a.kind != "hinged_door" or abs(w.qpos(a.joint) - a.closed) < LEAF_IN_THE_WAY:
                    continue
                gid = int(w.model.body_geomadr[w.body_id(a.body)])
                centre = np.array(w.data.geom_xpos[gid])
                half = np.abs(np.array(w.data.geom_xmat[gid]).reshape(3, 3)) @ np.array(w.model.geom_size[gid])
                if centre[1] + half[1] >= y0 and centre[1] - half[1] <= y1:
                    front = min(front, float(centre[0] - half[0]))
        return front

    def _drive(self, pose: BasePose | np.ndarray) -> bool:
        w = self.world
        start = np.array([w.data.ctrl[a] for a in self.base_act])
        goal = np.array(pose, dtype=float)
        goal[3] = min(max(goal[3], LIFT_RANGE[0]), LIFT_RANGE[1])
        dist = float(np.linalg.norm(goal[:2] - start[:2]))
        if dist < 1e-3 and abs(goal[3] - start[3]) < 1e-3 and abs(goal[2] - start[2]) < 1e-3:
            return True
        seconds = max(0.3, dist / 1.2, abs(goal[3] - start[3]) / 0.5)
        if any(self._closed(h) for h in HANDS):
            # a closed hand may carry something: a smooth start peaks at 6 d / T^2, and a tall
            # bottle pinched at its top swung out of the fingers at 7 m/s^2
            seconds = max(seconds, math.sqrt(6.0 * dist / CARRY_ACCEL))
        n = _steps(seconds)
        chunk = 10
        for k in range(0, n, chunk):
            s = min(1.0, (k + chunk) / n)
            s = s * s * (3 - 2 * s)  # smoothstep: gentle on grasped objects
            for a, v in zip(self.base_act, start + s * (goal - start), strict=True):
                w.data.ctrl[a] = v
            w.step(chunk)
        w.step(_steps(0.1))
        return float(np.linalg.norm(np.array(self.base_pose()[:2]) - goal[:2])) < 0.03

    # hands -----------------------------------------------------------------------------------------
    def hand_position(self, hand: str) -> np.ndarray:
        return self.world.site_pos(RobotNames.grip_site(hand))

    def hand_yaw(self, hand: str) -> float:
        return yaw_of(np.array(self.world.data.site(RobotNames.grip_site(hand)).xmat).reshape(3, 3) @ R_DOWN.T)

    def _sync_ik(self) -> None:
        q = self.world.data.qpos
        for ik_adr, w_adr in self._map:
            self.ik_q[ik_adr] = q[w_adr]
        # plan from the servo targets of the base (where it is going), not from transients
        for name, a in zip(("base_x", "base_y", "base_yaw", "torso_lift"), self.base_act, strict=True):
            self.ik_q[self.ik_model.jnt_qposadr[self.ik_model.joint(name).id]] = self.world.data.ctrl[a]

    def move_hand(self, hand: str, position: np.ndarray, yaw: float, *, pitch: float = 0.0,
                  duration: float = 0.5, straight: bool = False) -> bool:
        return self._move(hand, position, hand_rotation(yaw, pitch), duration, straight)

    def move_grip(self, hand: str, position: np.ndarray, approach: np.ndarray, closing: np.ndarray, *,
                  duration: float = 0.5, straight: bool = False, base: BasePose | None = None) -> bool:
        return self._move(hand, position, grip_rotation(approach, closing), duration, straight, base)

    def move_grip_path(self, hand: str, waypoints: Sequence[GripWaypoint], *, duration: float) -> int:
        """Track the waypoints as one continuous motion and settle once at the end (a pull
        along a door's arc: settling at each of its ~20 waypoints was ~half of a door's
        simulated time). The joint targets of all waypoints are solved first, each from the
        previous one; the motion covers the solved prefix up to the first waypoint without an
        IK solution, and stops early where the hand falls more than PATH_LAG behind its
        waypoint (something holds it back). Returns how many waypoints the hand reached."""
        self._sync_ik()
        base_from = self._base_ctrl()
        path: list[np.ndarray] = []
        bases: list[tuple[np.ndarray, np.ndarray] | None] = []
        b0 = base_from
        for position, approach, closing, base in waypoints:
            b1 = self._ik_base(base)
            result = self._solve(hand, np.asarray(position, dtype=float), grip_rotation(approach, closing))
            if not result.converged(0.015, 0.15):
                self.failures.append(f"IK {hand} -> {np.round(position, 3).tolist()}: {result.position_error:.3f} m")
                break
            path.append(result.q)
            bases.append(None if b1 is None else (b0, b1))
            b0 = b0 if b1 is None else b1
            self.ik_q[self._arm_qadr[hand]] = result.q  # the next waypoint starts from here
        if not path:
            return 0
        targets = [np.asarray(wp[0], dtype=float) for wp in waypoints[:len(path)]]
        reached = self._track(hand, path, bases, duration * len(path), targets)
        if reached == 0:
            return 0
        if self._settle(hand, targets[reached - 1]) >= TRACK_MISS:
            return reached - 1
        return reached

    def _ik_base(self, base: BasePose | None) -> np.ndarray | None:
        """Put the IK model's base where `base` says (the arm's IK is solved for where the base
        is going) and return it, the lift clipped to its range; None: the base stays."""
        if base is None:
            return None
        base_to = np.array(base, dtype=float)
        base_to[3] = min(max(base_to[3], LIFT_RANGE[0]), LIFT_RANGE[1])
        for name, v in zip(("base_x", "base_y", "base_yaw", "torso_lift"), base_to, strict=True):
            self.ik_q[self.ik_model.jnt_qposadr[self.ik_model.joint(name).id]] = v
        return base_to

    def _base_ctrl(self) -> np.ndarray:
        return np.array([self.world.data.ctrl[a] for a in self.base_act])

    def _move(self, hand: str, position: np.ndarray, rot: np.ndarray, duration: float, straight: bool,
              base: BasePose | None = None) -> bool:
        self._sync_ik()
        base_from = self._base_ctrl()
        base_to = self._ik_base(base)
        position = np.asarray(position, dtype=float)
        targets = [position]
        if straight:  # waypoints every STRAIGHT_STEP: a joint-space move between two far poses
            # curves, and a bottle carried into a fridge bin swung 6 cm sideways into its neighbour
            start = self.hand_position(hand)
            n = max(1, math.ceil(float(np.linalg.norm(position - start)) / STRAIGHT_STEP))
            targets = [start + (position - start) * (i / n) for i in range(1, n + 1)]
        path = []
        for target in targets:
            result = self._solve(hand, target, rot)
            if not result.converged(0.015, 0.15):
                self.failures.append(f"IK {hand} -> {np.round(target, 3).tolist()}: {result.position_error:.3f} m")
                return False
            path.append(result.q)
            self.ik_q[self._arm_qadr[hand]] = result.q  # the next waypoint starts from here
        bases = [None if base_to is None else (base_from + (base_to - base_from) * (i / len(path)),
                                               base_from + (base_to - base_from) * ((i + 1) / len(path)))
                 for i in range(len(path))]
        self._track(hand, path, bases, duration)
        return self._settle(hand, position) < TRACK_MISS

    def _track(self, hand: str, path: list[np.ndarray], bases: Sequence[tuple[np.ndarray, np.ndarray] | None],
               duration: float, targets: Sequence[np.ndarray] | None = None) -> int:
        """Servo the arm's targets along the joint-space path (and the base from b0 to b1 with
        each waypoint, None: it stays) without stopping at the waypoints. `targets` (the grip
        point of each waypoint): stop once the hand is more than PATH_LAG from the one it just
        went to. Returns how many waypoints' motions completed."""
        w = self.world
        acts = self.arm_act[hand]
        q0 = np.array([w.data.ctrl[a] for a in acts])
        chunk = 10
        for i, q in enumerate(path):
            # the wrist servos are force limited (12 N m against 5 N m s damping): a large wrist
            # turn in too short a time lagged 0.6 rad behind and the hand stopped 12 cm short
            n = _steps(max(duration / len(path), float(np.max(np.abs(q - q0) / JOINT_SPEED))))
            for k in range(0, n, chunk):
                s = min(1.0, (k + chunk) / n)
                for a, v in zip(acts, q0 + s * (q - q0), strict=True):
                    w.data.ctrl[a] = v
                if bases[i] is not None:  # the base moves with the hand (whole-body motion)
                    b0, b1 = bases[i]
                    for a, v in zip(self.base_act, b0 + s * (b1 - b0), strict=True):
                        w.data.ctrl[a] = v
                w.step(chunk)
            q0 = q
            if targets is not None and float(np.linalg.norm(self.hand_position(hand) - targets[i])) > PATH_LAG:
                return i
        return len(path)

    def _settle(self, hand: str, position: np.ndarray) -> float:
        """Wait for the hand to arrive at `position` (a lagging servo, a load in the hand):
        SETTLE_MIN, then SETTLE_WAIT at a time while it still closes in (at most SETTLE_TRIES);
        a hand TRACK_MISS or more away is reported a miss. Returns the remaining distance (m)."""
        w = self.world
        w.step(_steps(SETTLE_MIN))
        err = float(np.linalg.norm(self.hand_position(hand) - position))
        for _ in range(SETTLE_TRIES):
            if err < SETTLE_TOLERANCE:
                break
            w.step(_steps(SETTLE_WAIT))
            new = float(np.linalg.norm(self.hand_position(hand) - position))
            if new > err - SETTLE_PROGRESS:
                err = new
                break
            err = new
        if err >= TRACK_MISS:
            self.failures.append(f"track {hand} -> {np.round(position, 3).tolist()}: {err:.3f} m")
        return err

    def _solve(self, hand: str, position: np.ndarray, rot: np.ndarray) -> IKResult:
        """IK from the current posture; when that misses or is blocked, from the home posture
        and a few elbow variants of it: avoids local minima, and the null-space drift over an
        episode (shoulder yawed ~110 deg) that puts this arm into the other arm, a cabinet side
        or a tall neighbour of what it reaches for."""
        result = self.ik[hand].solve(self.ik_q, position, rot)
        if self._closed(hand) and self._holding_fixture(hand):
            # a hand holding a handle must not swing through another posture (a restart from
            # home flung the arm round with a door's bar in its fingers)
            return result
        if not result.converged(0.015, 0.15) or self._blocked(hand, result.q):
            for home in IK_SEEDS:
                seed = self.ik_q.copy()
                for jn, v in zip(RobotNames.arm_joints(hand), home, strict=True):
                    seed[self.ik_model.jnt_qposadr[self.ik_model.joint(jn).id]] = v
                retry = self.ik[hand].solve(seed, position, rot, max_iter=100)
                if retry.converged(0.015, 0.15) and not self._blocked(hand, retry.q):
                    return retry
                if not result.converged(0.015, 0.15) and retry.position_error < result.position_error:
                    result = retry
        return result

    def _blocked(self, hand: str, q: np.ndarray) -> bool:
        return self._arms_clash(hand, q) or self._hits_world(hand, q)

    def _hits_world(self, hand: str, q: np.ndarray) -> bool:
        """Whether arm joints `q` put one of the arm's links (not the gripper: it is meant to
        touch things) into the kitchen or an object, with the world as it is now."""
        mj = mujoco_module()
        w, d = self.world, self._scratch
        d.qpos[:] = w.data.qpos
        d.qpos[self._arm_world_qadr[hand]] = q
        mj.mj_kinematics(w.model, d)
        mj.mj_collision(w.model, d)
        links, robot = self._arm_links[hand], self._robot_bodies
        for c in d.contact[: d.ncon]:
            if c.dist > -LINK_PENETRATION:
                continue
            a, b = int(w.model.geom_bodyid[c.geom1]), int(w.model.geom_bodyid[c.geom2])
            if (a in links and b not in robot) or (b in links and a not in robot):
                return True
        return False

    def _arms_clash(self, hand: str, q: np.ndarray) -> bool:
        """Whether arm joints `q` for `hand` (the rest of the robot as in the IK state) make the
        two arms touch, checked on the robot-only model."""
        mj = mujoco_module()
        d = self._ik_data
        d.qpos[:] = self.ik_q
        d.qpos[self._arm_qadr[hand]] = q
        mj.mj_kinematics(self.ik_model, d)
        mj.mj_collision(self.ik_model, d)
        m = self.ik_model
        for c in d.contact[: d.ncon]:
            a = self._side.get(int(m.geom_bodyid[c.geom1]))
            b = self._side.get(int(m.geom_bodyid[c.geom2]))
            if a is not None and b is not None and a != b:
                return True
        return False

    def carry(self, hand: str) -> None:
        self._restore_contacts()
        x, y, yaw, lift = self.base_pose()
        side = ARM_MOUNT_Y if hand == "left" else -ARM_MOUNT_Y
        c, s = math.cos(yaw), math.sin(yaw)
        fwd, lat = 0.32, side
        p = np.array([x + c * fwd - s * lat, y + s * fwd + c * lat, 1.22 + lift])
        # a closed hand keeps its yaw: turning a physically held croissant 90 deg into the carry
        # pose and back at the release shook it out of the fingers
        hand_yaw = self.hand_yaw(hand) if self._closed(hand) else yaw
        if not self.move_hand(hand, p, hand_yaw, duration=0.35):
            self.move_hand(hand, p + np.array([0.0, 0.0, -0.1]), hand_yaw, duration=0.35)

    def stow(self, hand: str) -> None:
        """Swing the arm out to its side (the home posture turned at the shoulder): clear of
        the space in front of the base where the other hand works (pushing a door leaf round,
        the left wrist hit the right hand in its carry pose)."""
        q = np.array(PANDA_HOME, dtype=float)
        q[0] = STOW_TURN if hand == self.hands[0] else -STOW_TURN
        self._move_joints(hand, q)

    def tuck(self, hand: str) -> None:
        """Fold the arm in front of its shoulder (`TUCK_POSTURE`): its links stay within the
        base's width and reach 0.30 m ahead of its centre, where the carry pose reaches 0.44 m
        (held-out FoodPack-Is2: the idle hand in its carry pose knocked an open fridge leaf
        from 100 to 54 deg while the base followed the other leaf's handle)."""
        self._move_joints(hand, np.array(TUCK_POSTURE, dtype=float))

    def _move_joints(self, hand: str, q: np.ndarray) -> None:
        """Servo the arm's joints to `q` in joint space (no IK), at the joints' speeds."""
        w = self.world
        acts = self.arm_act[hand]
        q0 = np.array([w.data.ctrl[a] for a in acts])
        n = _steps(max(0.3, float(np.max(np.abs(q - q0) / JOINT_SPEED))))
        chunk = 10
        for k in range(0, n, chunk):
            s = min(1.0, (k + chunk) / n)
            for a, v in zip(acts, q0 + s * (q - q0), strict=True):
                w.data.ctrl[a] = v
            w.step(chunk)

    def _holding_fixture(self, hand: str) -> bool:
        """Whether the hand's fingers touch something that is not a free object (a handle)."""
        w = self.world
        free = {w.body_id(b) for b in w.movable_bodies()}
        m = w.model
        fingers = w.finger_ids(hand)
        for c in w.data.contact[: w.data.ncon]:
            a, b = int(m.geom_bodyid[c.geom1]), int(m.geom_bodyid[c.geom2])
            other = b if a in fingers else a if b in fingers else None
            if other is not None and other not in fingers and other not in free and other not in self._robot_bodies:
                return True
        return False

    def _closed(self, hand: str) -> bool:
        """Whether the hand's fingers are commanded closed (it may be carrying something)."""
        return bool(self.world.data.ctrl[self.finger_act[hand][0]] < FINGER_OPEN / 2)

    def _restore_contacts(self) -> None:
        for name in sorted(self._released):
            self.world.robot_contacts(name, on=True)
        self._released.clear()

    def gripper(self, hand: str, opening: float) -> None:
        w = self.world
        a1, a2 = self.finger_act[hand]
        width = FINGER_OPEN * float(opening)
        w.data.ctrl[a1], w.data.ctrl[a2] = width, -width
        w.step(_steps(0.25))

    def holds(self, hand: str, node: str) -> bool:
        body = node_bodies(self.world).get(stand_in(self.world, node))
        return body is not None and holding_hand(self.world, body) == hand

    def detach(self, hand: str) -> None:
        """Let go of an assisted weld (physics mode never makes one: then this does nothing)."""
        w = self.world
        for i in range(w.model.neq):
            name = w.model.equality(i).name
            if name.startswith(f"weld_{hand}_") and w.data.eq_active[i]:
                # the fingers may have closed into the (non-colliding) object: open them first,
                # and let it collide with the robot again only once the hand has left (carry)
                w.deactivate_weld(name, collide=False)
                self._released.add(name)

    def wait(self, seconds: float) -> None:
        self.world.step(_steps(seconds))


class KitchenScene:
    """Geometry queries for the skills, over the live world and the current graph."""

    def __init__(self, world: World, assisted: bool) -> None:
        self.world = world
        self.graph: SceneGraph = world.graph0
        # privileged help exists only in assisted mode; physics mode has none to ask for
        self.assist: KitchenAssist | None = KitchenAssist(world, self) if assisted else None

    @property
    def assisted(self) -> bool:
        return self.assist is not None

    # helpers ---------------------------------------------------------------------------------------
    def body(self, node: str) -> str:
        node = stand_in(self.world, node)
        return node_bodies(self.world).get(node) or self.world.plan.node_body[node]

    def parts(self, node: str) -> list[str]:
        """The nodes whose bodies make up `node`: itself, or both parts of an assembly whole."""
        parts = assembly_parts(self.world, node)
        return list(parts) if parts is not None else [stand_in(self.world, node)]

    def _bounds(self, node: str) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned box (low, high corners) around the bodies of `node`."""
        w, bodies = self.world, node_bodies(self.world)
        boxes = [(w.body_pos(bodies.get(p) or w.plan.node_body[p]), half_of(w, p)) for p in self.parts(node)]
        return np.min([c - h for c, h in boxes], axis=0), np.max([c + h for c, h in boxes], axis=0)

    def center(self, node: str) -> np.ndarray:
        """Centre of the node's bodies (an assembled whole: of both parts, so a placement
        spot is found for the whole stack, not for its upper part)."""
        if len(self.parts(node)) == 1:
            return self.world.body_pos(self.body(node))
        low, high = self._bounds(node)
        return (low + high) / 2

    def yaw(self, node: str) -> float:
        return yaw_of(self.world.body_mat(self.body(node)))

    def half_extents(self, node: str) -> np.ndarray:
        if len(self.parts(node)) == 1:
            return half_of(self.world, stand_in(self.world, node))
        low, high = self._bounds(node)
        return (high - low) / 2

    def root_furniture(self, node: str) -> str | None:
        """The furniture standing in the room that (transitively) holds a node."""
        last = None
        chain = [node, *self.graph.ancestors(node)]
        for n in chain:
            if n in self.world.plan.stations:
                return n
            last = n
        return last if last in self.world.plan.stations else None

    def front_x(self, node: str) -> float:
        root = self.root_furniture(node)
        if root is None:
            return self.center(node)[0]
        return self.world.plan.stations[root][0] + STANDOFF

    def work_pose(self, node: str, hand: str | None, point: np.ndarray | None = None, *,
                  operate: bool = False) -> BasePose:
        p = self.center(node) if point is None else np.asarray(point)
        root = self.root_furniture(node)
        front = self.front_x(node)
        # keep the base clear of open drawers of this furniture
        clear = max((self.world.qpos(a.joint) for n, arts in self.world.plan.articulations.items()
                     for a in arts if a.kind == "drawer" and self.root_furniture(n) == root), default=0.0)
        x_max = front - BASE_FRONT - 0.04 - (clear + 0.1 if clear > 0.02 else 0.0)
        arts = self.world.plan.articulations.get(node, [])
        lid = operate and all(a.kind in ("lid", "book_cover") for a in arts)
        if hand is None or (operate and not lid):  # stand back so handles travel toward the robot
            travel = max((a.open for a in arts if a.kind == "drawer"), default=0.0)
            door = max((self._door_width(a.body) for a in arts if a.kind == "hinged_door"), default=0.0)
            x = min(front - STANDOFF - 0.6 * door, x_max)
            if travel:  # the drawer comes out toward the base
                x = min(x, front - BASE_FRONT - 0.04 - travel - 0.1)
            y = float(np.mean([h.position[1] for h in self.handles(node)])) if arts else p[1]
            z = float(np.mean([h.position[2] for h in self.handles(node)])) if arts else p[2]
            if hand is not None:  # one hand: its shoulder in front of where it works
                y = p[1] - (ARM_MOUNT_Y if hand == "left" else -ARM_MOUNT_Y)
                z = float(p[2])
            if operate and door:  # swinging a leaf: clear of its sweep (it stands out a door's
                # width at 90 deg), the hand's shoulder in line with where it works; for a leaf
                # so wide that this puts its shut handle out of reach, as near as the arm reaches
                hinge = min(float(h.pivot[0]) for h in self.handles(node))
                x = max(hinge - door - BASE_FRONT - LEAF_CLEAR, self._shut_handles_x(node) - DOOR_REACH)
                return (x, y, 0.0, p[2] - ARM_MOUNT_Z - PULL_SHOULDER_DROP)
            if operate and travel:  # pulling a bar from the front: measured reach of the Panda
                # (IK from five seeds) at the pre-grasp, closed and open bar positions
                shut = min(float((h.position - h.axis * h.opening)[0]) for h in self.handles(node))
                return (shut - PULL_REACH, y, 0.0, z - ARM_MOUNT_Z - PULL_SHOULDER_DROP)
            if not operate:
                x, y = self._clear_of_leaves(root, x, y)
            return (x, y, 0.0, z - SHOULDER_DZ)
        x = min(p[0] - REACH, x_max)
        y = p[1] - (ARM_MOUNT_Y if hand == "left" else -ARM_MOUNT_Y)
        if not operate:
            x, y = self._clear_of_leaves(root, x, y)
        return (x, y, 0.0, p[2] - SHOULDER_DZ)

    def _clear_of_leaves(self, root: str | None, x: float, y: float) -> tuple[float, float]:
        """A stance that keeps the robot off the open door leaves of its furniture: between the
        leaves when the opening is wide enough for base and shoulders, else in front of their
        tips. Open leaves stand out in front of the carcass (doors stop at 120 deg: a 62 cm
        fridge leaf stands out 54 cm), where the base stands to reach shelves and door bins;
        standing with its shoulder over a leaf, the robot pushed a fridge door shut."""
        leaves = [(h.pivot, self._leaf_tip(h)) for n, arts in self.world.plan.articulations.items()
                  if self.root_furniture(n) == root for h in self.handles(n)
                  if h.kind == "hinge" and h.opening > LEAF_IN_THE_WAY and abs(float(h.axis[2])) > 0.7]
        if not leaves:
            return x, y
        out = min(min(float(pivot[0]), float(tip[0])) for pivot, tip in leaves) - LEAF_CLEAR
        if x + BASE_FRONT <= out:
            return x, y
        mid = float(np.mean([pivot[1] for pivot, _ in leaves]))
        lo = max((max(float(p[1]), float(t[1])) for p, t in leaves if p[1] < mid), default=-math.inf)
        hi = min((min(float(p[1]), float(t[1])) for p, t in leaves if p[1] >= mid), default=math.inf)
        room = ROBOT_HALF_WIDTH + LEAF_CLEAR
        if hi - lo >= 2 * room:
            return x, float(np.clip(y, lo + room, hi - room))
        return out - BASE_FRONT, y

    def _shut_handles_x(self, node: str) -> float:
        """The smallest x of `node`'s door handles with their leaves shut (where a pull starts),
        whatever their leaves' openings are now: the pulling stance stays put over a pull."""
        xs = [float((h.pivot + rotate(h.position - h.pivot, h.axis, -h.opening))[0])
              for h in self.handles(node) if h.kind == "hinge"]
        return min(xs, default=math.inf)

    @staticmethod
    def _leaf_tip(h: Handle) -> np.ndarray:
        """The free edge of a door leaf, level with its handle: the handle sits near it."""
        radial = h.position - h.pivot
        radial = radial - h.axis * float(radial @ h.axis)
        return h.pivot + radial / max(float(np.linalg.norm(radial)), 1e-9) * h.tip

    def _door_width(self, body: str) -> float:
        gid = int(self.world.model.body_geomadr[self.world.body_id(body)])
        return 2.0 * float(self.world.model.geom_size[gid][1])

    def grasp(self, node: str) -> Grasp:
        w = self.world
        c = self.center(node)
        half = self.half_extents(node)
        item = w.plan.items.get(stand_in(w, node))
        if item is not None and item.hollow:
            # pinch the front wall at its top edge
            R = w.body_mat(item.body)
            p = c + R @ np.array([-half[0] + 0.005, 0.0, half[2] - 0.012])
            return Grasp(p, FINGERS_ALONG_X, span=0.01)
        top = c[2] + half[2]
        z = top - min(0.03, half[2])
        loc = self.graph.location.get(node)
        roofed = loc is not None and loc.rel in (ON, INSIDE) and self._roofed(loc.dst, loc.rel)
        # close the fingers across the narrower side; the hand's long side then points along
        # the other axis (neighbours in a row stand side by side along y)
        yaw = FINGERS_ALONG_X if half[0] <= half[1] else 0.0
        if roofed:  # coming in from the front, the hand's long side points forward, unless the
            # object is too deep for the fingers that way (a sandwich 12 cm deep)
            yaw = FINGERS_ALONG_X if 2 * half[0] <= MAX_SPAN else 0.0
        elif loc is not None and loc.rel == INSIDE and self._walled(loc.dst) and 2 * half[1] <= MAX_SPAN:
            # the hand's long side along the width of a drawer or a vessel, clear of front and back
            yaw = 0.0
        entry = self._entry(loc.dst, loc.rel, c, half) if roofed and loc is not None else FRONT_CLEAR
        span = 2.0 * float(half[0] if yaw == FINGERS_ALONG_X else half[1])
        grip = np.array([c[0], c[1], z])
        rim = None
        if loc is not None and not roofed and not self._palm_fits(loc.dst, loc.rel, grip, yaw):
            rim = self._rim(loc.dst, loc.rel)
        return Grasp(grip, yaw, roofed, entry, span, rim, self.approach_height(grip, node))

    def approach_height(self, point: np.ndarray, node: str) -> float:
        """How high over `point` the hand starts its descent: above every movable standing
        within APPROACH_RADIUS (the hand swept a standing menu card over coming in at 12 cm)."""
        w = self.world
        mine = set(self.parts(node))
        tops = [float(w.body_pos(b)[2] + half_of(w, n)[2]) for n, b in node_bodies(w).items()
                if n not in mine and holding_hand(w, b) is None
                and float(np.linalg.norm(w.body_pos(b)[:2] - point[:2])) < APPROACH_RADIUS]
        need = max(tops, default=-1.0) + APPROACH_CLEARANCE - float(point[2])
        return min(max(MIN_APPROACH, need), MAX_APPROACH)

    def grasps(self, node: str) -> list[Grasp]:
        """The primary grasp, a deeper one (palm touching the walls of a vessel) and one across
        the other side when it fits the fingers; the ones whose palm would hit a taller
        neighbour (a standing menu card 5 cm in front of a sauce cup) go last."""
        primary = self.grasp(node)
        out = [primary]
        if primary.rim is not None:
            out.append(replace(primary, rim=None))
        half = self.half_extents(node)
        item = self.world.plan.items.get(stand_in(self.world, node))
        if not primary.from_front and not (item is not None and item.hollow):
            other = 0.0 if primary.yaw == FINGERS_ALONG_X else FINGERS_ALONG_X
            span = 2.0 * float(half[0] if other == FINGERS_ALONG_X else half[1])
            if span <= MAX_SPAN:
                out.append(replace(primary, yaw=other, span=span))
            out.sort(key=lambda g: self._palm_hits(node, g))  # stable: the order above otherwise
        return out

    def _palm_fits(self, target: str, relation: str, grip: np.ndarray, yaw: float) -> bool:
        """Whether the palm over `grip` lies inside the walls of the region (it may go down)."""
        region = self.region_for(target, relation)
        if region is None:
            return False
        px, py = _palm_half(yaw)
        p = local(self.world, region, grip)
        return abs(p[0]) + px <= region.half[0] and abs(p[1]) + py <= region.half[1]

    def _palm_hits(self, node: str, g: Grasp) -> bool:
        """Whether a movable other than `node` rises into the palm's footprint over the grip."""
        w = self.world
        px, py = _palm_half(g.yaw)
        palm_z = float(g.position[2]) + PALM_ABOVE_GRIP
        mine = set(self.parts(node))
        for other, body in node_bodies(w).items():
            if other in mine:
                continue
            c, h = w.body_pos(body), half_of(w, other)
            if c[2] + h[2] > palm_z and abs(c[0] - g.position[0]) < px + h[0] \
                    and abs(c[1] - g.position[1]) < py + h[1]:
                return True
        return False

    def _rim(self, target: str, relation: str) -> float | None:
        """World z of the top of the walls around a region (None: no walls)."""
        region = self.region_for(target, relation)
        if region is None or region.rim <= 0.0:
            return None
        return float(to_world(self.world, region, (0.0, 0.0, region.rim))[2])

    def _walled(self, target: str) -> bool:
        """A drawer or a movable vessel wider than deep: the palm fits along its width."""
        region = self.region_for(target, INSIDE)
        return self._in_drawer(target) or (target in self.world.plan.items and region is not None
                                           and region.half[1] > region.half[0])

    def region_for(self, target: str, relation: str) -> Region | None:
        return self.world.plan.support_region(target, relation)

    def place(self, node: str, target: str, relation: str) -> list[Placement]:
        region = self.region_for(target, relation)
        if region is None:
            return []
        skip = {self.body(node)}
        half = self.half_extents(node)
        roofed = self._roofed(target, relation)
        yaw = self.grasp(node).yaw
        along_x = yaw == FINGERS_ALONG_X  # the fingers close along x
        # reserved slots (one per capacity unit) first, then free spots
        spots = list(islice(slot_spots(self.world, region, half, skip, SLOT_GAP), SPOT_CHOICES))
        if roofed:  # keep the arm's elbow away from the side walls and door leaves, and the
            # forearm out of the back of the compartment (the level above limits its slope)
            hx = min(region.half[0], ROOFED_DEPTH / 2)
            cx = region.center[0] - region.half[0] + hx
            region = replace(region, center=(cx, region.center[1], region.center[2]),
                             half=(hx, max(region.half[1] - ROOFED_SIDE_MARGIN, 0.0)))
        # in a single row the fingers close across it, front to back, so neighbours along the
        # row only need room for the palm's narrow side
        row_gap = (FINGER_GAP, VESSEL_GAP) if along_x else (VESSEL_GAP, FINGER_GAP)
        if region.centre_row:  # one row along the middle of a deep lidded box first
            row = replace(region, half=(float(half[0]), max(region.half[1] - VESSEL_GAP, float(half[1]))))
            spots += islice(free_spots(self.world, row, half, skip, margin=row_gap, from_middle=False),
                            SPOT_CHOICES - len(spots))
        if region.rim > 0.0 and not roofed:  # keep the fingers off the walls: a finger pressed against the
            # front wall of a lunch box dragged the box along when the hand let go and rose
            mx, my = (WALL_FINGER_MARGIN, VESSEL_GAP) if along_x else (VESSEL_GAP, WALL_FINGER_MARGIN)
            region = replace(region, half=(max(region.half[0] - mx, float(half[0])),
                                           max(region.half[1] - my, float(half[1]))))
        # open fingers need room beside the object, except inside a small movable vessel (sized
        # for its capacity: there the walls keep neighbours apart anyway)
        gap: float | tuple[float, float] = FINGER_GAP if target not in self.world.plan.items else VESSEL_GAP
        if region.open_top or region.centre_row:
            gap = row_gap
        # a vessel is filled from one end, so what comes later still fits beside
        spots += islice(free_spots(self.world, region, half, skip, front_path=roofed, margin=gap,
                                   from_middle=target not in self.world.plan.items),
                        SPOT_CHOICES - len(spots))
        return [self._placement(spot, target, relation, half, yaw) for spot in spots]

    def _placement(self, spot: np.ndarray, target: str, relation: str, half: np.ndarray,
                   yaw: float) -> Placement:
        if self._roofed(target, relation):
            return Placement(spot, True, target, self._entry(target, relation, spot, half))
        # the held object hangs below the grip: clear neighbours by its height as well
        approach = self.approach_height(spot, target) + float(half[2])
        rim = None if self._palm_fits(target, relation, spot, yaw) else self._rim(target, relation)
        return Placement(spot, False, target, FRONT_CLEAR, rim, approach)

    def _in_drawer(self, node: str) -> bool:
        return any(a.kind == "drawer" for a in self.world.plan.articulations.get(node, []))

    def _entry(self, target: str, relation: str, point: np.ndarray, half: np.ndarray) -> float:
        """Distance from `point` back to where a held object of half extents `half` is clear
        of the region's front edge (and everything standing in its front row)."""
        region = self.region_for(target, relation)
        if region is None:
            return FRONT_CLEAR
        depth_in = float(local(self.world, region, point)[0]) + region.half[0]
        return max(FRONT_CLEAR, depth_in + float(half[0]) + FINGER_CLEAR)

    def _roofed(self, target: str, relation: str) -> bool:
        """Shelves and cabinet interiors have something above them: enter from the front."""
        region = self.region_for(target, relation)
        if region is None or target in self.world.plan.items or region.open_top:
            return False
        if relation == ON and target in self.world.plan.tops:
            return False
        return target not in self.world.plan.articulations or \
            any(a.kind == "hinged_door" for a in self.world.plan.articulations[target])

    def aside(self, node: str) -> list[Placement]:
        loc = self.graph.location.get(node)
        if loc is None or loc.rel not in (ON, INSIDE):
            return []
        region = self.region_for(loc.dst, loc.rel)
        if region is None:
            return []
        w = self.world
        skip = {self.body(node)}
        blocking = w.plan.blocking.get(node)
        avoid = []
        if blocking is not None:
            target, pose = blocking
            # keep the whole column in front of the target free
            tb = self.body(target)
            tl = local(w, region, w.body_pos(tb))
            bl = local(w, region, np.asarray(pose))
            h = half_of(w, node)
            span_x = (abs(tl[0] - bl[0]) + h[0] + 0.3) / 2
            avoid.append((np.array([(tl[0] + bl[0]) / 2 - 0.15, tl[1], 0.0]), np.array([span_x, h[1] + 0.02, 0.2])))
        half = self.half_extents(node)
        # well clear of everything first: the arm later reaches down beside the blocker to the
        # objects it no longer hides (a wrist hit a menu card set down 8 cm from a sauce cup)
        spots = list(islice(free_spots(w, region, half, skip, avoid=avoid, margin=ASIDE_GAP), SPOT_CHOICES))
        spots += islice(free_spots(w, region, half, skip, avoid=avoid, margin=FINGER_GAP), SPOT_CHOICES - len(spots))
        yaw = self.grasp(node).yaw
        return [self._placement(spot, loc.dst, loc.rel, half, yaw) for spot in spots]

    # articulations ---------------------------------------------------------------------------------
    def handles(self, node: str) -> list[Handle]:
        return [self._handle(a) for a in self.world.plan.articulations.get(node, [])]

    def handle(self, name: str) -> Handle:
        return self._handle(self._articulation(name))

    def _articulation(self, handle: str) -> Articulation:
        for arts in self.world.plan.articulations.values():
            for a in arts:
                if a.handle_site == handle:
                    return a
        raise KeyError(handle)

    def _handle(self, a: Articulation) -> Handle:
        """The handle's frame from the joint and the moving body as they are now: the door,
        drawer and lid builders (bodies.py) put the grip on a bar in front of the leaf or
        drawer front, or on a tab at the lid's front edge."""
        w = self.world
        jid = int(w.model.joint(a.joint).id)
        axis = np.array(w.data.xaxis[jid])
        pivot = np.array(w.data.xanchor[jid])
        R = w.body_mat(a.body)
        grip = w.site_pos(a.handle_site)
        opening = (w.qpos(a.joint) - a.closed) * (1.0 if a.open >= a.closed else -1.0)
        travel = abs(a.open - a.closed)
        if a.kind == "drawer":  # the horizontal bar pinched from the front and a little above, one
            # finger over it, one under its back edge: straight down the palm hits the drawer front
            # rising behind the bar, and level the Panda wrist cannot reach the near bar
            c, s = math.cos(DRAWER_PITCH), math.sin(DRAWER_PITCH)
            up = np.array([0.0, 0.0, 1.0])
            return Handle(a.handle_site, grip, -axis * s - up * c, -axis * c + up * s, HANDLE_BAR, "slide", axis, grip,
                          opening, travel, axis, 0.0, 0.0, 0.0)
        if a.kind == "hinged_door":  # the vertical bar, fingers on either side of it
            leaf = self._door_width(a.body)
            approach = R[:, 0] * math.sin(DOOR_PITCH) - R[:, 2] * math.cos(DOOR_PITCH)
            return Handle(a.handle_site, grip, approach, R[:, 1], HANDLE_BAR, "hinge", axis, pivot, opening, travel,
                          -R[:, 0], DOOR_HANDLE_BEHIND, DOOR_HANDLE_FRONT, leaf)
        # lids and book covers: the tab at the front edge, pinched across its width (along the
        # hinge axis, so it turns between the fingers like a pin), from above the lid while it
        # is below upright and from straight above once it leans back past upright
        tip = float(np.linalg.norm(np.cross(axis, grip - pivot))) + LID_TAB_HALF[0]
        approach = -R[:, 2] if opening <= math.pi / 2 else np.array([0.0, 0.0, -1.0])
        return Handle(a.handle_site, grip, approach, R[:, 1], 2 * LID_TAB_HALF[1], "hinge", axis, pivot, opening,
                      travel, R[:, 2], LID_TAB_HALF[2], -LID_TAB_HALF[2], tip)

    def hand_on(self, hand: str, handle: str) -> bool:
        """Whether both fingers of `hand` touch the part the handle belongs to."""
        w = self.world
        sub = w.subtree(self._articulation(handle).body)
        fingers = [{w.body_id(f"{hand}_gripper_{a}"), w.body_id(f"{hand}_gripper_{b}")}
                   for a, b in (("leftfinger", "finger_joint1_tip"), ("rightfinger", "finger_joint2_tip"))]
        return all(w.contacts(f, sub) > 0 for f in fingers)

    def touches(self, hand: str, handle: str) -> bool:
        """Whether any part of `hand` touches the part the handle belongs to (a push)."""
        w = self.world
        hand_bodies = {i for i in range(w.model.nbody) if w.model.body(i).name.startswith(f"{hand}_gripper")}
        return w.contacts(hand_bodies, w.subtree(self._articulation(handle).body)) > 0

    def outward(self, node: str) -> np.ndarray:
        """Kitchen furniture stands against the +x wall: the robot works from -x."""
        del node
        return np.array([-1.0, 0.0, 0.0])

    def open_fraction(self, node: str) -> float:
        return joint_fraction(self.world, node)

    def is_open(self, node: str) -> bool:
        return is_open(joint_fraction(self.world, node))

    def button_top(self, node: str) -> tuple[np.ndarray, float]:
        b = self.world.plan.buttons[node]
        return self.world.site_pos(b.site), b.depth

    def pressed(self, node: str) -> bool:
        b = self.world.plan.buttons[node]
        return self.world.qpos(b.joint) <= -b.depth / 2

    def seat_yaw(self, part: str, target: str, yaw: float) -> float:
        return yaw  # the kitchen's parts are seated on counters and shelves, not between walls

    def join(self, part: str, target: str) -> str | None:
        """The snap: switch the parts' constraint on only when `part` sits on `target` aligned
        (centres within ASSEMBLY_OFFSET across, its bottom within ASSEMBLY_OFFSET of the
        target's top, tilt and yaw within ASSEMBLY_ANGLE) and touching it. None when joined,
        else what was wrong."""
        whole = self.assembly_of(part, target)
        if whole is None:
            return f"{part} and {target} are not parts of one assembly"
        w = self.world
        bp, bt = self.body(part), self.body(target)
        error = assembly_misalignment(w.body_pos(bp), w.body_mat(bp), half_of(w, stand_in(w, part)),
                                      w.body_pos(bt), w.body_mat(bt), half_of(w, stand_in(w, target)))
        if error is not None:
            return f"{part} is not aligned on {target}: {error}"
        if w.contacts(w.subtree(bp), w.subtree(bt)) == 0:
            return f"{part} does not touch {target}"
        w.activate_weld(f"asm_{whole}")
        return None

    def assembly_of(self, part: str, target: str) -> str | None:
        for whole, a, b in assembly_pairs(self.graph):
            if {a, b} == {part, target}:
                return whole
        return None

    # navigation ------------------------------------------------------------------------------------
    def route(self, room: str) -> list[BasePose]:
        span = self.world.plan.room_span(room)
        x, y, _yaw, lift = (self.world.qpos("base_x"), self.world.qpos("base_y"), 0.0, 0.0)
        y_goal = (span.y0 + span.y1) / 2
        del x, y, lift
        return [(CORRIDOR_X, self.world.qpos("base_y"), 0.0, 0.0), (CORRIDOR_X, y_goal, 0.0, 0.0)]

    def robot_room(self) -> str | None:
        return self.world.plan.room_at(self.world.qpos("base_x"), self.world.qpos("base_y"))
