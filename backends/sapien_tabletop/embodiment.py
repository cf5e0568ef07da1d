"""`robograph_skills.interface` Robot, Scene and Assist over the SAPIEN tabletop world, so the
same primitives (`robograph_skills.primitives`, `.articulation`) drive the two Pandas.

The two arms share one base on a rail along the table's front edge: `drive_base` slides it
along y (kinematically, as a servoed base; x and yaw stay), so a hand works straight across the
table from its shoulder; what lies deeper than an arm reaches fails as "out of reach". Hand orientations follow the interface: a yaw about
world z for the direction the fingers close along (top-down work, `pitch` tilting the approach
toward +x, away from the robot), or approach + closing directions. Geometry comes from the
layout (sizes) and the live bodies (poses), never from the graph's relations.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import numpy as np

from robograph.graph import FURNITURE, GRABBABLE, INSIDE, OBJECT, ON, Edge, SceneGraph
from robograph.rotations import quat_from_mat, yaw_of
from robograph_backends.reading import is_open
from robograph_backends.sapien_tabletop.hiding import covers
from robograph_backends.sapien_tabletop.layout import (
    BOOK_OVERHANG,
    DEEP_WALLS,
    EDGE_DEPTH,
    LIP,
    WINDOW_KEEP,
    Region,
    window_box,
)
from robograph_backends.sapien_tabletop.layout import Placement as BodyPlacement
from robograph_backends.sapien_tabletop.motion import Motion, hand_rotation
from robograph_backends.sapien_tabletop.sense import (
    FINGERS,
    ancestors,
    body_pose,
    floor_frame,
    hand_holding,
    holding_hand,
    joined,
    joint_fraction,
    position,
    region_holds,
    to_local,
)
from robograph_backends.sapien_tabletop.spots import (
    aligned_box,
    aside_spots,
    half_of,
    occupants,
    spots_on,
)
from robograph_backends.sapien_tabletop.world import (
    ARM_BASES,
    BUTTON_DEPTH,
    BUTTON_HALF,
    HANDS,
    READY_QPOS,
    TAB_HALF,
    TIMESTEP,
    WALL,
    World,
    bar_half_height,
    handle_half,
)
from robograph_skills.articulation import PRE_HANDLE
from robograph_skills.interface import BasePose, Grasp, Handle, Placement
from robograph_skills.primitives import LIFT, upright_yaw

MAX_OPENING = 0.08  # m between the Panda's finger pads, fully open
PALM_CLEARANCE = 0.047  # m from the grip point (panda_grasptarget) up to the palm's lowest part
PINCH = 0.02  # m below an object's top the grip point goes (the pads' length)
APPROACH = 0.15  # m above a grasp or release point the hand comes down from
CARRY = np.array([0.25, 0.15, 0.35])  # m: carry pose of the grip point from the arm's base (x, outward, up):
# out to the arm's own side, so the other arm reaches across the middle without hitting it
CARRY_LIFT = 0.12  # m the hand rises straight up before swinging to its carry pose
WELD_REACH = 0.03  # m: an assisted grasp welds when the fingers touch the object or the grip is this close
# assisted joint servo: stiffness, damping, force limit (N/m, N s/m, N; hinges N m/rad ...). Gentle:
# 2000 N m/rad kicked a 0.3 kg pencil-case lid open so hard that the case jumped 7 cm sideways
SERVO_HINGE = (20.0, 5.0, 10.0)
SERVO_SLIDE = (300.0, 60.0, 40.0)
SPOT_CHOICES = 3
ASIDE_SETTLE = 0.04  # m: an aside spot's sight is judged this far toward each neighbour too (`aside`): a
# cereal box set aside came to rest 3.3 cm nearer a candle holder than aimed, 20 % -> 80 % over it (Dining-9)
FROM_END = ("bookshelf_slot",)  # surfaces filled from one end (+y), as books are shelved: a notebook set
# down in the middle of a 76 cm slot left no 36 cm stretch at its front for the book after it (Desk-13)
ALONG_RAIL = ("vanity_table",)  # furniture whose objects are grasped with the hand along the rail where they fit (`grasp`)
HAND_HALF = (0.11, 0.04)  # m: half the Panda hand's footprint along and across its closing axis
PALM_OVERLAP_GAIN = 0.01  # m less overlap with neighbours (`_palm_overlap`) a grasp turns a quarter for
# (or slides along a long object for, `_slid_clear`)
GRIP_END = 0.04  # m a grip slid along a long object stays from its ends
GRID_STEP = 0.01  # m between the grip points `_slid_clear` tries
HAND_ROOM = 0.01  # m the hand keeps from a container's walls when it goes down between them
FINGER_ROOM = 0.025  # m kept beside what the fingers set down in a container, along their closing axis
DRAWER_SIDE_ROOM = 0.017  # ... from a drawer's side walls: the finger's 1.3 cm and 4 mm
FINGER_HALF_WIDTH = 0.01  # m: half a Panda finger's width, across the closing axis
SQUARE = 0.002  # m: a footprint whose half sides differ less than this is seated either way round
SEAT_TURN_GAIN = 0.005  # m more finger room for which `seat_yaw` turns the hand
SEAT_YAWS = 12  # hand yaws (every 15 deg over a half turn) `seat_yaw` weighs for a round part
WALL_CLEAR = 0.03  # m: an object taken out of a container is lifted this far clear of its walls
CROSS_MARGIN = 0.15  # m: a target this close to the other arm's base line makes that arm turn aside
TUCK_TURN = 1.2  # rad the other arm's first joint turns out to its side
TILTS = (0.0, 0.35, 0.7)  # rad: approach tilts tried in turn when straight down has no IK solution
OVER_DROP = 0.05  # m: a move ending this much lower than the hand is goes over, then straight down ...
OVER_SPAN = 0.1  # ... when it also goes this far sideways
OVER_DOWN_S = 0.3  # s for the straight way down
UNDER_TOP = 0.0  # m: a grip this far below the arms' base (a drawer's bar under the top) is reached ...
OVER_TOP = 0.12  # ... from this high over the base (over the furniture's top), straight down in front of it,
FROM_ABOVE = 0.9  # ... unless approached from above (|approach z| at least this)
OUT_FIRST = 0.05  # m a hand further out than such a bar comes out level first
UP_RISE = 0.1  # m: a move ending this much higher (and OVER_SPAN across) first rises straight up
SWEEP_CLEAR = 0.03  # m what a hand carries passes over the bodies under its way (`_sweep_height`)
CHEST_CLEAR = 0.04  # m: what a hand brings into a chest (a mini fridge) comes in this high over its walls
RAIL_SPEED = 0.4  # m/s the base slides along the table
RAIL_STEPS = 2  # physics steps between root moves
RAIL_SETTLE = 0.1  # s: what the hands hold comes to rest after a slide
RAIL_KEEP = 0.45  # m across from the shoulder a hand still works without the base moving
RAIL_NEAR = 0.3  # m ahead of the shoulder: closer than this the hand needs a sideways offset
RAIL_OFFSET = 0.2  # m across from the shoulder the base puts a work point it had to slide for
FOREARM_RISE = 0.18  # m: a body standing this high over a grip point meets the forearm coming down to it ...
FOREARM_SIDE = 0.15  # ... within this far across from the point on the shoulder's side ...
FOREARM_DEPTH = 0.1  # ... and from this far in front of it (toward the arms) ...
FOREARM_PAST = 0.03  # ... to this far behind it along x (`_forearm_side`): the forearm slants toward the arms
EDGE_SIDE = 0.055  # m an edge pinch stays beside a cover's tab (TAB_HALF), each side: the palm
# (4.7 cm behind the grip) reaching under the tab pushed a 56 cm book 4 cm back from its fingers
EDGE_CLEAR = 0.015  # m the fingertips reach past an edge pinch's grip point: kept off the support
EDGE_ENTRY = 0.12  # m: an edge pinch comes in from this far out along its direction, and leaves so
EDGE_LIFT = 0.12  # m it lifts straight up before the carry
SIDEWAYS = 0.5  # |approach . z| under which a hand points sideways (an edge pinch: `carry` keeps it so)
SHOULDER_IN = 0.2  # m within the end walls of a box DEEP_WALLS tall the shoulder of a hand working in it stands ...
SHOULDER_BOX = 0.8  # m: ... where the box is at least this long along the rail (`_shoulder_in_box`)
DRAWER_DIP = math.radians(25)  # a closed drawer's bar is approached this far below level
HANDLE_BAR = 0.02  # m: a drawer's handle bar, finger span (world.py builds it 2 cm thick)
BAR_PALM_MARGIN = 0.007  # m: a drawer's bar taken from above is held high enough for the palm to pass this
# far over the drawer's front wall, at most BAR_PINCH below the bar's top
BAR_PINCH = 0.01
HANGING_SLOW = 2.5  # a hand carrying a book by its front wall moves this many times slower: the book
# hangs about 33 deg from the pinch and swung to 52 deg, out of the fingers, when the hand went
# 15 cm forward in 0.5 s to set it down (Desk-14's puton(book_1, shelf_slot_1))
SLENDER = 1.5  # a held body this many times taller than wide is moved in one sweep (`Motion.move`)


class SapienRobot:
    """`Robot` for the two fixed Pandas."""

    hands: tuple[str, ...] = HANDS
    max_opening = MAX_OPENING
    palm_clearance = PALM_CLEARANCE

    def __init__(self, world: World) -> None:
        self.world = world
        self.motion = Motion(world)
        self._tilt = {hand: 0.0 for hand in self.hands}  # rad the last top-down approach was tilted

    @property
    def failures(self) -> list[str]:
        return [f for arm in self.motion.arms.values() for f in arm.failures]

    def clear_failures(self) -> None:
        for arm in self.motion.arms.values():
            arm.failures.clear()

    def base(self) -> np.ndarray:
        """(x, y) of the base: the midpoint of the two arms' roots (m, world)."""
        return self.world.base()

    def drive_base(self, pose: BasePose) -> bool:
        """Slide the common base of both arms along the table's front (y; x and yaw stay): a
        rail positioned kinematically, as a servoed mobile base; what the hands hold moves with
        them. Smooth start and stop at RAIL_SPEED."""
        from robograph_backends.sapien_tabletop.deps import sapien_module

        sapien = sapien_module()
        start = self.base()
        dy = float(pose[1]) - float(start[1])
        if abs(dy) < 0.01:
            return True
        roots = {h: r.get_root_pose() for h, r in self.world.robots.items()}
        # the root moves every RAIL_STEPS physics steps: moved every 10, the fingers jumped
        # 1.5 cm at a time through what they held and dropped it
        steps = max(2, int(abs(dy) / RAIL_SPEED / (RAIL_STEPS * TIMESTEP)))
        # what both fingers of a hand hold moves with the rail (the roots are teleported, which
        # gives the fingers no velocity: alone, a 1 mm step dropped a held glass)
        held = _held_by_fingers(self.world)  # and what is snapped to it (an assembled whole)
        held += [t for t in {_snapped_to(self.world, p) for p in held} if t is not None and t not in held]
        carried = {node: body_pose(self.world, node) for node in held}
        dt = RAIL_STEPS * TIMESTEP
        for k in range(1, steps + 1):
            s = k / steps
            s = s * s * (3 - 2 * s)
            shift = np.array([0.0, dy * s, 0.0])
            for h, r in self.world.robots.items():
                r.set_root_pose(sapien.Pose(np.asarray(roots[h].p, dtype=float) + shift, roots[h].q))
            for node, T in carried.items():
                self.world.teleport(node, T[:3, 3] + shift, tuple(quat_from_mat(T[:3, :3])))
            self.motion.run(dt)
        self.motion.run(RAIL_SETTLE)
        return True

    def _clear_way(self, hand: str, position: np.ndarray) -> None:
        """Before a hand works across the middle, the other arm turns out to its own side (the
        bases stand 50 cm apart: the other arm's ready pose is in the way)."""
        for other in self.hands:
            if other == hand:
                continue
            base = np.asarray(self.world.robots[other].get_root_pose().p, dtype=float)
            side = own_side(other)
            if side * (float(position[1]) - base[1]) > -CROSS_MARGIN and not self.motion.tucked[other]:
                q = np.array(READY_QPOS)
                q[0] = side * TUCK_TURN
                self.motion.move_joints(other, q, 0.5)
                self.motion.tucked[other] = True

    def move_hand(self, hand: str, position: np.ndarray, yaw: float, *, pitch: float = 0.0,
                  duration: float = 0.5, straight: bool = False) -> bool:
        position = np.asarray(position, dtype=float)
        held = _in_hand(self.world, hand)
        if any(self.world.layout.placements[n].app.articulation == "book_cover" for n in held):
            duration *= HANGING_SLOW  # a book, held by its front wall (`TabletopScene._wall_grasp`)
        here = self.hand_position(hand)
        if held and not straight and float(np.linalg.norm((position - here)[:2])) > OVER_SPAN:
            # up, over and down where what the hand carries would sweep something on the way:
            # a 28 cm paper towel roll held by its top hung 26 cm below the hand and, swung from
            # the carry pose to its aside spot, knocked a milk carton over (Fridge-T1)
            # (also on the way up to a higher point: a honey jar carried from the carry pose up
            # to its spot over a mini fridge's shelf met the fridge's front wall on the way)
            height = self._sweep_height(held, here, position)
            if height is not None and height > here[2] + 0.01:
                cruise = max(height, float(position[2]))
                if self._move_hand(hand, np.array([here[0], here[1], cruise]), self.hand_yaw(hand), pitch,
                                   OVER_DOWN_S, straight=True) \
                        and self._move_hand(hand, np.array([position[0], position[1], cruise]), yaw, pitch, duration,
                                            straight=False, keep_height=True) \
                        and (cruise - float(position[2]) < 1e-3
                             or self._move_hand(hand, position, yaw, pitch, OVER_DOWN_S, straight=True)):
                    return True
            here = self.hand_position(hand)
        if not straight and position[2] > here[2] + UP_RISE and float(np.linalg.norm((position - here)[:2])) > OVER_SPAN:
            # up, then over: what the hand carries hangs below it (a bottle swung up and over a
            # mini fridge's wall met the wall on the way)
            up = np.array([here[0], here[1], position[2]])
            self._move_hand(hand, up, self.hand_yaw(hand), pitch, OVER_DOWN_S, straight=True)
            here = self.hand_position(hand)
        # over, then down: a joint-space swing from the carry pose to a point lower down swept
        # the hand through what stood on the way (a 22 cm hand mirror moved aside next to the
        # lipstick cap the hand was bringing a body to)
        if not straight and here[2] > position[2] + OVER_DROP and float(np.linalg.norm((position - here)[:2])) > OVER_SPAN \
                and self._over_then_down(hand, position, yaw, pitch, duration, float(here[2])):
            return True
        if self._move_hand(hand, position, yaw, pitch, duration, straight):
            return True
        top = self.world.layout.robot_z
        stopped = self.hand_position(hand)
        if straight or here[2] < position[2] + OVER_DROP or float(position[2]) > top - UNDER_TOP \
                or float(stopped[2]) < top:
            return False
        # a swing down to a point below the top the bases stand on that stopped on that top: the
        # swing bulges forward, and from the carry pose to a notebook in a lower drawer pulled
        # out 6 cm in front of a desk the fingers came down on the desk's edge (Desk-2). Back
        # up, over the point, straight down. Only after the swing failed: taken first, the
        # straight way changed grips that worked (Cosmetics-15, docs/sapien_backend.md, session
        # 23). Not where it stopped under the top: straight up from there runs into it
        up = np.array([stopped[0], stopped[1], max(float(here[2]), float(stopped[2]))])
        return self._move_hand(hand, up, self.hand_yaw(hand), pitch, OVER_DOWN_S, straight=True) \
            and self._over_then_down(hand, position, yaw, pitch, duration, float(up[2]))

    def _over_then_down(self, hand: str, position: np.ndarray, yaw: float, pitch: float, duration: float,
                        height: float) -> bool:
        """Level at `height` to over `position`, turning to `yaw` on the way, then straight down to it."""
        over = np.array([position[0], position[1], height])
        return self._move_hand(hand, over, yaw, pitch, duration, straight=False, keep_height=True) \
            and self._move_hand(hand, position, yaw, pitch, OVER_DOWN_S, straight=True)

    def _sweep_height(self, held: list[str], here: np.ndarray, position: np.ndarray) -> float | None:
        """The grip height at which the `held` bodies (a hand at `here` holds them) pass
        SWEEP_CLEAR over every other body near the straight way from `here` to `position`
        (None: no body is near)."""
        boxes = {n: aligned_box(self.world, n) for n in self.world.bodies}
        hang = float(here[2]) - min(float(c[2] - h[2]) for c, h in (boxes[n] for n in held))
        reach = max(float(np.linalg.norm(boxes[n][1][:2])) for n in held)
        a, b = np.asarray(here[:2], dtype=float), np.asarray(position[:2], dtype=float)
        way = b - a
        tops = []
        for n, (c, h) in boxes.items():
            if n in held:
                continue
            t = float(np.clip((c[:2] - a) @ way / max(float(way @ way), 1e-9), 0.0, 1.0))
            if float(np.linalg.norm(c[:2] - (a + t * way))) < reach + float(np.linalg.norm(h[:2])):
                tops.append(float(c[2] + h[2]))
        return max(tops) + hang + SWEEP_CLEAR if tops else None

    def _move_hand(self, hand: str, position: np.ndarray, yaw: float, pitch: float, duration: float,
                   straight: bool, keep_height: bool = False) -> bool:
        """`keep_height`: a straight-line move that turns the hand to `yaw` as it goes."""
        if keep_height:
            straight = True
        self._clear_way(hand, position)
        # where straight down has no IK solution (far across the table) the approach tilts
        # toward +x, as a person reaches; a straight move keeps the tilt it started with. The
        # fingers are symmetric: yaw + pi is the same grip, and the wrist reaches one of the two
        # where the other is out of its range (the nearer the hand's present yaw first)
        tilts = [self._tilt[hand]] if straight and not keep_height else [t for t in TILTS]
        now = self.hand_yaw(hand)
        yaws = sorted((yaw, yaw + math.pi), key=lambda y: abs(math.remainder(y - now, 2 * math.pi)))

        def rotations_per_tilt() -> Iterator[list[np.ndarray]]:
            for tilt in tilts:
                self._tilt[hand] = tilt
                p = pitch + tilt
                approach = np.array([math.sin(p), 0.0, -math.cos(p)])
                yield [hand_rotation(approach, np.array([math.cos(y), math.sin(y), 0.0])) for y in yaws]

        return self._first_reachable(hand, position, rotations_per_tilt(), duration, straight)

    def move_grip(self, hand: str, position: np.ndarray, approach: np.ndarray, closing: np.ndarray, *,
                  duration: float = 0.5, straight: bool = False, base: BasePose | None = None) -> bool:
        """`base` is not followed: the rail is positioned by teleporting the arms' roots, which
        jerks a pinched lid tab out of the fingers (measured on the tabletop branch); the skills'
        stances before a move put the handle within reach of its whole arc. Taking the argument
        keeps a whole-body pull a skill asks for from raising a TypeError out of `execute`."""
        del base
        self._clear_way(hand, position)
        # the fingers are symmetric: closing along -closing is the same grip, and which of the
        # two the wrist reaches depends on the side of the shoulder (a drawer bar 20 cm to the
        # right was out of reach with one roll, within reach with the other); the one nearer the
        # hand's present roll first on a straight move (a pull keeps its wrist); else the one
        # closing toward the shoulder's side (IK over the reach band: a hand pointing forward
        # beside its shoulder reaches far with it, only 25 cm with the other)
        now = self.world.grip_pose(hand)[:3, 1]
        closing = np.asarray(closing, dtype=float)
        toward = np.asarray(self.world.robots[hand].get_root_pose().p, dtype=float) - np.asarray(position, dtype=float)
        toward[2] = 0.0
        prefer = now if straight else toward
        # where the approach given has no IK solution (a lid's tab 70 cm ahead) the fingers tilt
        # forward about the closing axis, as in `move_hand`: a tab or bar pinched across that
        # axis is held the same way at any tilt about it
        closings = sorted((closing, -closing), key=lambda c: -float(c @ prefer))
        per_tilt = ([hand_rotation(a, c) for c in closings] for a in _tilted(np.asarray(approach, dtype=float), closing))
        base_z = self.world.layout.robot_z
        if not straight and float(position[2]) < base_z - UNDER_TOP and float(self.hand_position(hand)[2]) > base_z \
                and abs(float(approach[2])) < FROM_ABOVE:
            # over the top, then straight down in front of the furniture: swung in joint space
            # from the carry pose to a point in front of a closed lower drawer's bar (22 cm below
            # the base), the hand bulged 9 cm forward and its fingers met the top's front edge
            # (Cosmetics-13, both hands, "out of reach"); to a desk drawer's bar just under the
            # top it swept a closed laptop standing at the top's front edge off the desk
            # (Desk-8). A hand over the furniture (further out than the bar) first comes out
            # level, as it points: swung from over the desk, it swept the laptop off all the
            # same. Not to a bar taken from above: an open drawer's is pulled out in front of
            # the furniture, with nothing to go over
            here = self.hand_position(hand)
            if float(here[0]) > float(position[0]) + OUT_FIRST:
                self._move_hand(hand, np.array([float(position[0]), float(position[1]), float(here[2])]),
                                self.hand_yaw(hand), 0.0, OVER_DOWN_S, straight=True)
            over = np.array([float(position[0]), float(position[1]), base_z + OVER_TOP])
            return self._first_reachable(hand, position, per_tilt, duration, straight, via=over)
        return self._first_reachable(hand, position, per_tilt, duration, straight)

    def _first_reachable(self, hand: str, position: np.ndarray, groups: Iterable[list[np.ndarray]],
                         duration: float, straight: bool, via: np.ndarray | None = None) -> bool:
        """Move to the first hand rotation IK can reach, group by group (a group: the two
        symmetric grips of one approach). The search ends at the first move that got somewhere
        or failed for another reason than "no IK solution": the arm tried that pose and missed,
        and another pose of the same grip would not do better. `via`: the rotation is sought
        there (the move goes there first), then the hand keeps it on a straight line on."""
        sweep = self._sweeps(hand)  # once: it reads the fingers' contacts
        for group in groups:
            for rotation in group:
                before = len(self.failures)
                ok = self.motion.move(hand, position if via is None else via, rotation, duration=duration,
                                      straight=straight, sweep=sweep)
                if ok and via is not None:
                    return self.motion.move(hand, position, rotation, duration=OVER_DOWN_S + duration / 2, straight=True,
                                            sweep=sweep)
                if ok or not any("no IK solution" in f for f in self.failures[before:]):
                    return ok
        return False

    def _sweeps(self, hand: str) -> bool:
        """Whether `hand` holds a slender body (a bottle), which rocks in the pads where the hand
        stops at every waypoint. Only those: every straight move swept won four benchmark
        episodes and lost six, and one held-out (docs/sapien_backend.md, session 37)."""
        halves = (half_of(self.world, n) for n in _in_hand(self.world, hand) if n in self.world.bodies)
        return any(float(h[2]) > SLENDER * float(max(h[0], h[1])) for h in halves)

    def hand_position(self, hand: str) -> np.ndarray:
        return self.world.grip_pose(hand)[:3, 3].copy()

    def hand_yaw(self, hand: str) -> float:
        closing = self.world.grip_pose(hand)[:3, 1]
        return math.atan2(float(closing[1]), float(closing[0]))

    def carry(self, hand: str) -> None:
        """Up first (the joint-space swing from a low hand swept a pencil case off its place),
        then to the carry pose out to the arm's own side."""
        T = self.world.grip_pose(hand)
        if _points_sideways(self.world, hand) and _in_hand(self.world, hand):
            # an edge pinch (`TabletopScene._edge_grasps`) keeps pointing its way: turned down,
            # the book would hang from the pinch. Straight up to the carry height, over what
            # stands on the top, where the rail carries it
            up = max(float(T[2, 3]), self._carry_height(hand))
            self.motion.move(hand, np.array([T[0, 3], T[1, 3], up]), T[:3, :3], duration=0.5, straight=True,
                             sweep=self._sweeps(hand))
            return
        if T[2, 3] < self._carry_height(hand) - 0.05:
            self.motion.move(hand, T[:3, 3] + np.array([0.0, 0.0, CARRY_LIFT]), T[:3, :3], duration=0.3, straight=True,
                             sweep=self._sweeps(hand))
        base = np.asarray(self.world.robots[hand].get_root_pose().p, dtype=float)
        side = own_side(hand)
        if not self.move_hand(hand, base + CARRY * np.array([1.0, side, 1.0]), self.hand_yaw(hand)):
            self.stow(hand)

    def _carry_height(self, hand: str) -> float:
        return float(self.world.robots[hand].get_root_pose().p[2]) + float(CARRY[2])

    def stow(self, hand: str) -> None:
        self.motion.move_joints(hand, np.array(READY_QPOS), 0.6)

    def tuck(self, hand: str) -> None:
        """The fixed Pandas have no leaves swinging past them: the ready pose will do."""
        self.stow(hand)

    def gripper(self, hand: str, opening: float) -> None:
        """What the hand let go of collides with it again once the fingers have opened
        (`World.unweld`): until carry, its fingertips pushing a book home passed through it."""
        self.motion.gripper(hand, opening)
        if opening > 0.0:
            self.world.restore_contacts(hand)

    def holds(self, hand: str, node: str) -> bool:
        if node in self.world.parts:  # an assembled whole: snapped parts, one of them in the hand
            parts = self.world.parts[node]
            if any(p in self.world.snaps for p in parts) and joined(self.world, *parts[:2]):
                return any(self.holds(hand, p) for p in parts)
            return all(self.holds(hand, p) for p in parts)
        if node not in self.world.bodies:
            return False
        if node in self.world.welds:
            return self.world.welds[node][0] == hand
        return holding_hand(self.world, node) == hand

    def detach(self, hand: str) -> None:
        for node, (h, _rel) in list(self.world.welds.items()):
            if h == hand:
                self.world.unweld(node, let_go=True)

    def wait(self, seconds: float) -> None:
        self.motion.run(seconds)


class TabletopAssist:
    """`Assist` (assisted mode): servo a joint, weld a grasp, seat two parts."""

    def __init__(self, world: World) -> None:
        self.world = world

    def servo(self, node: str, fraction: float) -> None:
        articulation, closed, opened = self.world.joints[node]
        joint = articulation.get_active_joints()[-1]
        slide = self.world.layout.placements[node].app.articulation == "drawer"
        joint.set_drive_property(*(SERVO_SLIDE if slide else SERVO_HINGE))
        joint.set_drive_target(closed + (opened - closed) * float(np.clip(fraction, 0.0, 1.0)))

    def release_servo(self, node: str) -> None:
        articulation, _closed, _opened = self.world.joints[node]
        articulation.get_active_joints()[-1].set_drive_property(0.0, 0.0)

    def weld_grasp(self, hand: str, node: str) -> bool:
        if node in self.world.parts:  # an assembled whole: its parts go together
            parts = self.world.parts[node]
            if not any(self.weld_grasp(hand, p) for p in parts):
                return False
            for p in parts:
                if p not in self.world.welds:
                    self.world.weld(p, hand)
            return True
        grip = self.world.grip_pose(hand)[:3, 3]
        T = body_pose(self.world, node)
        local = np.abs(T[:3, :3].T @ (grip - T[:3, 3])) - half_of(self.world, node)
        near = float(np.linalg.norm(np.maximum(local, 0.0))) <= WELD_REACH
        if not (near or _touches(self.world, hand, node)):
            return False
        self.world.weld(node, hand)
        return True

    def weld_parts(self, part: str, target: str) -> bool:
        """Seat `part` on `target` wherever they are (the parts read joined when stacked)."""
        seat = position(self.world, target) + np.array([0, 0, half_of(self.world, target)[2] + half_of(self.world, part)[2]])
        hand = self.world.welds.get(part, (None,))[0]
        self.world.unweld(part)
        self.world.teleport(part, seat)
        if hand is not None:
            self.world.weld(part, hand)
        return True


def _half_along(F: np.ndarray, region: Region, axis: int) -> float:
    """Half the extent along world `axis` (0: x, 1: y) of the floor of `region`, whose floor
    frame is `F` (turned about z)."""
    return float(np.abs(F[axis, :2]) @ np.asarray(region.half, dtype=float))


def _tilted(approach: np.ndarray, closing: np.ndarray) -> list[np.ndarray]:
    """`approach` turned about `closing` by each of TILTS, the way that points it further
    away from the robot (+x) first."""
    axis = closing / max(float(np.linalg.norm(closing)), 1e-9)
    out = [approach]
    for t in TILTS[1:]:
        turned = [_turn(approach, axis, s * t) for s in (1.0, -1.0)]
        out.append(max(turned, key=lambda a: float(a[0])))
    return out


def _turn(v: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    """`v` rotated by `angle` about the unit `axis` (Rodrigues)."""
    return v * math.cos(angle) + np.cross(axis, v) * math.sin(angle) + axis * float(axis @ v) * (1 - math.cos(angle))


def _around(centre: np.ndarray, half: np.ndarray, point: np.ndarray) -> bool:
    """Whether `point` lies within the box (a container around the spot: its walls are no blocker)."""
    return bool(np.all(np.abs(np.asarray(point)[:2] - centre[:2]) <= half[:2]))


def _toward(spot: np.ndarray, other: np.ndarray, shift: float) -> list[np.ndarray]:
    """`spot`, and (for a `shift`) `spot` moved that far toward `other` along y."""
    if shift <= 0.0:
        return [spot]
    return [spot, spot + np.array([0.0, math.copysign(shift, float(other[1] - spot[1])), 0.0])]


def own_side(hand: str) -> float:
    """+1 or -1: the arm's own side of the rail (+y for the left arm), away from the other arm.
    Relative to the rail, not to the world's y = 0: with the base slid to y < 0, a left arm
    carrying "out to +y of the world" swung into the right arm (Buffet-T2's first put)."""
    return 1.0 if ARM_BASES[hand] >= 0 else -1.0


def _snapped_to(world: World, part: str) -> str | None:
    """The part `part` is snapped onto (`World.snap`), or the one snapped onto it."""
    for whole in world.parts.values():
        if part in whole and any(p in world.snaps for p in whole):
            return next((p for p in whole if p != part), None)
    return None


def _held_then_turned(half: np.ndarray, held_yaw: float) -> list[tuple[np.ndarray, float, bool]]:
    """(footprint half extents, hand yaw, turned) a spot is sought with: as the object is held,
    then turned a quarter by the hand (its footprint's sides swapped)."""
    return [(half, held_yaw, False), (np.array([half[1], half[0], half[2]]), held_yaw + math.pi / 2, True)]


def _points_sideways(world: World, hand: str) -> bool:
    """The hand's approach axis within SIDEWAYS of level: an edge pinch."""
    return abs(float(world.grip_pose(hand)[2, 2])) < SIDEWAYS


def _in_hand(world: World, only: str | None = None) -> list[str]:
    """What a hand (hand `only`, where given) holds: between its fingers or welded to it
    (assisted mode; a welded body collides with nothing, so the fingers do not read it)."""
    welded = [node for node, (hand, _rel) in sorted(world.welds.items()) if only is None or hand == only]
    return _held_by_fingers(world, only) + welded


def _held_by_fingers(world: World, only: str | None = None) -> list[str]:
    """Free bodies both fingers of one hand (of hand `only`, where given) touch now (one pass
    over the contacts). On a movable articulated body the fingers touch the body proper
    (`_body_link`), but for a closed book pinched at its edge, whose upper finger is on its
    cover (one on the body proper is enough there): a lid's tab pinched is not the box held."""
    touched: dict[tuple[str, str], dict[str, bool]] = {}
    for contact in world.scene.get_contacts():
        if not any(p.separation < 1e-3 for p in contact.points):
            continue
        a, b = (c.entity for c in contact.bodies)
        for mine, other in ((a, b), (b, a)):
            node = world.entity_node.get(mine.per_scene_id)
            hand = world.hand_of_entity.get(other.per_scene_id)
            if node is None or hand is None or other.name not in FINGERS or node in world.welds \
                    or world.layout.placements[node].parent is None:
                continue
            n = world.graph_nodes.get(node)
            if node in world.joints and (n is None or n.kind == FURNITURE):
                continue
            proper = node not in world.joints or _body_link(world, node, mine)
            if not proper and world.layout.placements[node].app.articulation != "book_cover":
                continue  # a lid's tab and a finger on the box's wall: the lid is worked, not the box
            fingers = touched.setdefault((node, hand), {})
            fingers[other.name] = fingers.get(other.name, False) or proper
    return sorted({node for (node, hand), fingers in touched.items()
                   if len(fingers) == 2 and any(fingers.values()) and only in (None, hand)})


def _body_link(world: World, node: str, entity: object) -> bool:
    """Whether `entity` is the body proper (root link) of the movable articulated object `node`:
    an open book held by its front wall rides the rail like any held body (left behind, it was
    pulled out of the fingers and fell off the desk); a lid's tab or a drawer's bar does not."""
    n = world.graph_nodes.get(node)
    if n is None or n.kind == FURNITURE:
        return False
    return world.bodies[node].get_links()[0].entity.per_scene_id == entity.per_scene_id  # type: ignore[attr-defined]


def _touches(world: World, hand: str, node: str, both: bool = False) -> bool:
    body = world.bodies[node]
    ids = {lk.entity.per_scene_id for lk in body.get_links()} if hasattr(body, "get_links") else {body.per_scene_id}
    robot_ids = {lk.entity.per_scene_id: lk.name for lk in world.robots[hand].get_links()}
    fingers: set[str] = set()
    for contact in world.scene.get_contacts():
        a, b = (c.entity for c in contact.bodies)
        for mine, other in ((a, b), (b, a)):
            if mine.per_scene_id in ids and other.per_scene_id in robot_ids \
                    and any(p.separation < 1e-3 for p in contact.points):
                fingers.add(robot_ids[other.per_scene_id])
    return bool(fingers) if not both else set(FINGERS) <= fingers


class TabletopScene:
    """`Scene` over the tabletop world. `graph` is the runtime's current graph (for the room)."""

    def __init__(self, world: World, *, assisted: bool) -> None:
        self.world = world
        self.assist: TabletopAssist | None = TabletopAssist(world) if assisted else None
        self.graph: SceneGraph | None = None

    @property
    def assisted(self) -> bool:
        return self.assist is not None

    def work_pose(self, node: str, hand: str | None, point: np.ndarray | None = None, *,
                  operate: bool = False) -> BasePose:
        """The rail position from which `hand` (None: both) works at `point` (default: the
        node): where it is, while the point lies within RAIL_KEEP across of the shoulder (the
        Panda reaches best 0.3-0.5 m ahead with a little sideways offset, worst straight ahead
        and close); else the base slides so the shoulder is RAIL_OFFSET across from it. A hand
        working at the point from above then has its shoulder on the side away from furniture
        its forearm would meet (`_forearm_side`) and, going down into a box DEEP_WALLS tall,
        within the box's span (`_shoulder_in_box`)."""
        p = self.center(node) if point is None else np.asarray(point, dtype=float)
        if operate and self.world.layout.placements[node].app.articulation == "drawer":
            # the hand lines up PRE_HANDLE in front of a drawer's bar first, and that nearer
            # point decides: the bar 0.35 m ahead and 4 cm across the right shoulder, the hand
            # found no IK there, nor the left from 0.2 m across on its inner side (held-out
            # Desk-Ts21, Cosmetics-Ts2: a lower tier in the middle of the desk)
            p = p - np.array([PRE_HANDLE, 0.0, 0.0])
        pose = self._rail_pose(p, hand, operate)
        if hand is not None and not operate:
            pose = self._forearm_side(node, hand, p, pose)
        box = self._deep_box(node) if hand is not None and not operate and float(p[0] - pose[0]) >= RAIL_NEAR else None
        return pose if box is None else self._shoulder_in_box(pose, hand, box)

    def _forearm_side(self, node: str, hand: str, p: np.ndarray, pose: BasePose) -> BasePose:
        """`pose`, or, where furniture stands FOREARM_RISE over `p` beside it on the side `hand`'s
        shoulder stands (from `pose`) and none on the other, the pose with that shoulder
        RAIL_OFFSET across on the other side. Coming down to a grip, the wrist stands about
        21 cm over it and the forearm slants up from there toward the shoulder: reaching 23 cm
        across for a honey jar on the counter, link 5 came down on the top of a mini fridge
        standing 12 cm beside the jar, 21 cm taller (held-out Fridge-Ts11, three grasps
        stopped 6-8 cm high)."""
        shoulder = self._shoulder_y(hand, pose)
        side = 1.0 if shoulder >= float(p[1]) else -1.0
        if self._forearm_sides(node, p) != {side}:
            return pose
        return (pose[0], pose[1] + float(p[1]) - side * RAIL_OFFSET - shoulder, pose[2], pose[3])

    def _shoulder_y(self, hand: str, pose: BasePose) -> float:
        """y of `hand`'s shoulder (its arm's root) with the base at `pose`."""
        return float(self.world.robots[hand].get_root_pose().p[1]) + float(pose[1]) - float(self.world.base()[1])

    def _forearm_sides(self, node: str, p: np.ndarray) -> set[float]:
        """The sides of `p` (+1: +y, -1: -y) on which a piece of furniture other than what
        holds `node` stands FOREARM_RISE over `p` within FOREARM_SIDE of it, from FOREARM_DEPTH
        in front of it to FOREARM_PAST behind it. Not objects: judged by every object too, the shoulder moved
        for bottles in toy chests and cartons on fridge shelves, and later steps started from
        elsewhere (37 of 57 instead of 39: Fridge-T2, Toy-B3, -B4 lost). Not furniture standing
        behind the point: a dish rack 9 cm behind a soup bowl in a sideboard drawer moved the
        shoulder, and the bowl slipped (held-out Dining-Ts10)."""
        skip = set(ancestors(self.world, node))
        y = float(p[1])
        sides: set[float] = set()
        for other in self.world.bodies:
            n = self.world.graph_nodes.get(other)
            if other in skip or n is None or n.kind != FURNITURE:
                continue
            c, h = aligned_box(self.world, other)
            if float(c[2] + h[2]) <= float(p[2]) + FOREARM_RISE \
                    or float(c[0] - h[0]) >= float(p[0]) + FOREARM_PAST or float(c[0] + h[0]) <= float(p[0]) - FOREARM_DEPTH:
                continue
            lo, hi = float(c[1] - h[1]), float(c[1] + h[1])
            if lo < y + FOREARM_SIDE and hi > y:
                sides.add(1.0)
            if lo < y and hi > y - FOREARM_SIDE:
                sides.add(-1.0)
        return sides

    def _deep_box(self, node: str) -> str | None:
        """The box with walls at least DEEP_WALLS tall the hand goes down into to work at
        `node`: `node` itself (a put into it) or, for an object, the box holding it now (the
        current graph); not a drawer (pulled out toward the arms, its walls are low), nor the
        furniture round a shelf or bin put onto (a mini fridge round its shelf: the shoulder
        within the fridge's span left a butter out of reach over the shelf, Fridge-T1)."""
        pl = self.world.layout.placements.get(node)
        box: str | None = node
        if pl is None or not pl.container:
            n = self.world.graph_nodes.get(node)
            box = self._inside_now(node) if n is not None and n.kind == OBJECT else None
        where = self.world.layout.placements.get(box) if box is not None else None
        if where is None or not where.container or where.app.articulation == "drawer" \
                or box not in self.world.layout.regions or self.world.layout.regions[box].height < DEEP_WALLS:
            return None
        return box

    def _shoulder_in_box(self, pose: BasePose, hand: str, box: str) -> BasePose:
        """`pose`, or, where `hand`'s shoulder would stand beyond an end wall of `box` (along
        the rail) at least SHOULDER_BOX long, slid so it stands SHOULDER_IN within that wall:
        the forearm otherwise crosses the wall's top on the way down (the left hand reaching
        26 cm across, down to a robot torso 11 cm from a toy chest's end wall, stopped 7 cm
        high, link 5 on the wall, Toy-B5). Not for shorter boxes, whose middle is straight
        ahead of the shoulder (a mustard bottle put into a mini fridge's 40 cm door bin from
        there fell out, Fridge-T3; hands slipped off toys in 53 cm toy bins, Toy-A2), nor
        for a shoulder within the span."""
        F, region = floor_frame(self.world, box)
        centre = float(F[1, 3])
        half = _half_along(F, region, 1)
        shoulder = self._shoulder_y(hand, pose)
        if 2 * half < SHOULDER_BOX or abs(shoulder - centre) <= half:
            return pose
        inside = centre + float(np.clip(shoulder - centre, SHOULDER_IN - half, half - SHOULDER_IN))
        return (pose[0], pose[1] + inside - shoulder, pose[2], pose[3])

    def _rail_pose(self, p: np.ndarray, hand: str | None, operate: bool) -> BasePose:
        """`work_pose` before the deep-box rule."""
        roots = {h: np.asarray(r.get_root_pose().p, dtype=float) for h, r in self.world.robots.items()}
        x = float(np.mean([q[0] for q in roots.values()]))
        y = float(np.mean([q[1] for q in roots.values()]))
        shoulder = roots[hand][1] if hand is not None else y
        across = float(p[1]) - shoulder
        if hand is not None and float(p[0]) - x < RAIL_NEAR:
            # close in front of the shoulder the arm cannot bend down to it: put the point
            # RAIL_OFFSET out to the arm's own side (away from the other arm); also a close point
            # on the other arm's side (the left hand reaching 32 cm across, 28 cm ahead, down
            # into a pulled-out desk drawer stopped 14 cm short, in the right arm's room)
            side = 1.0 if roots[hand][1] >= y else -1.0
            if abs(across) < RAIL_OFFSET or across * side < 0:
                return (x, y + across - side * RAIL_OFFSET, 0.0, 0.0)
        keep = RAIL_KEEP if hand is not None and not operate else RAIL_OFFSET
        if abs(across) <= keep:
            return (x, y, 0.0, 0.0)
        # slide so the point ends RAIL_OFFSET across (to open or close something, too: a lid's
        # tab rises 35 cm along its arc, out of reach 45 cm across), out on the hand's own side
        # (on its inner side the other arm was in the way of a hand putting a croissant down)
        side = float(np.sign(across)) if hand is None else (1.0 if roots[hand][1] >= y else -1.0)
        return (x, y + across - side * RAIL_OFFSET, 0.0, 0.0)

    def outward(self, node: str) -> np.ndarray:
        return np.array([-1.0, 0.0, 0.0])  # the robot works from the table's front (-x)

    # objects ---------------------------------------------------------------------------------------
    def _box(self, node: str) -> tuple[np.ndarray, np.ndarray]:
        """Centre and half extents of a node's body; an assembled whole (no body of its own):
        the box around its stacked parts."""
        parts = self.world.parts.get(node) if node not in self.world.bodies else None
        if not parts:
            return position(self.world, node).copy(), half_of(self.world, node)
        lo = np.min([position(self.world, p) - half_of(self.world, p) for p in parts], axis=0)
        hi = np.max([position(self.world, p) + half_of(self.world, p) for p in parts], axis=0)
        return (lo + hi) / 2, (hi - lo) / 2

    def center(self, node: str) -> np.ndarray:
        return self._box(node)[0]

    def yaw(self, node: str) -> float:
        body = node if node in self.world.bodies else self.world.parts.get(node, (node,))[0]
        return _heading(body_pose(self.world, body)[:3, :3])

    def half_extents(self, node: str) -> np.ndarray:
        return self._box(node)[1]

    def _rim(self, node: str) -> float | None:
        parent = self._holder(node)
        if parent is None or not self.world.layout.placements[parent].container:
            return None
        F, region = floor_frame(self.world, parent)
        return float(F[2, 3] + region.height)

    def _holder(self, node: str) -> str | None:
        """What `node` stands in or on now: the current graph's container or support, else where
        it started (an assembled whole: where its lowest part did). By where it started only,
        the palm of a hand taking cotton pads put from a drawer into an organizer was kept over
        the drawer's walls, not the organizer's (Cosmetics-1)."""
        loc = self._location_now(node)
        if loc is not None and loc.rel in (INSIDE, ON):
            return loc.dst if loc.dst in self.world.layout.placements else None
        if node not in self.world.layout.placements:  # an assembled whole stands where its parts do
            node = min(self.world.parts.get(node, ()), key=lambda p: float(position(self.world, p)[2]), default=node)
            if node not in self.world.layout.placements:
                return None
        return self.world.layout.placements[node].parent

    def _handle_grasp(self, node: str, pl: BodyPlacement) -> Grasp:
        """Across the carry handle on `node`'s top (`Placement.handle`), its pads' length down it."""
        T = body_pose(self.world, node)
        hx, hy, hz = handle_half(pl)
        grip = T[:3, :3] @ np.array([0.0, 0.0, pl.size[2] / 2 + 2 * hz - PINCH]) + T[:3, 3]
        yaw = self.yaw(node) + (0.0 if hx <= hy else math.pi / 2)  # closing across the bar
        return Grasp(grip, (yaw + math.pi / 2) % math.pi - math.pi / 2, span=2 * min(hx, hy), approach=APPROACH)

    def grasp(self, node: str) -> Grasp:
        pl = self.world.layout.placements.get(node)
        if pl is not None and pl.handle:
            return self._handle_grasp(node, pl)
        edges = self._edge_grasps(node)
        if edges:
            return edges[0]
        return self._top_grasp(node)

    def _top_grasp(self, node: str) -> Grasp:
        """From above, PINCH below the top (`grasp` where no handle or edge is taken)."""
        c, h, yaw = self.center(node), self.half_extents(node), self.yaw(node)
        # the fingers close across the narrower side, or, on ALONG_RAIL furniture, across y
        # wherever the object fits them that way: the hand (HAND_HALF) then lies along the rail.
        # Lying front to back it reaches 11 cm behind its grip, into the raised lid of a box
        # hinged at its back edge (a nail polish put into a storage bag pushed the lid and
        # tipped the bag off the vanity). Not a part of an assembly: a lipstick body seated on
        # its cap by fingers closed across y tipped over with the cap when they let go
        part = any(node in parts for parts in self.world.parts.values())
        along = self._along_rail(node) or self._in_drawer(node)
        across_x = h[0] <= h[1] and (part or 2 * h[1] >= MAX_OPENING - 0.01 or not along)
        g_yaw = yaw if across_x else yaw + math.pi / 2
        g_yaw = (g_yaw + math.pi / 2) % math.pi - math.pi / 2
        grip = c + np.array([0.0, 0.0, h[2] - min(PINCH, h[2])])
        span, other = float(2 * (h[0] if across_x else h[1])), float(2 * (h[1] if across_x else h[0]))
        rim = None if self._hand_fits_inside(node, grip, g_yaw) else self._rim(node)
        if rim is not None and other < MAX_OPENING - 0.01:
            # the fingers also close round it the other way: take that way when only then the
            # hand goes down between the walls (a 2 cm highlighter body lying 6.6 cm off the
            # middle of a 12 cm deep desk drawer slipped from fingers kept above the walls; the
            # palm stayed 20 cm over a toy nose at the bottom of a toy bin too shallow for the
            # 22 cm hand; across a 16 cm deep grocery bag the fingers did not reach a jar)
            turned = _quarter_turned(g_yaw)
            if self._hand_fits_inside(node, grip, turned):
                g_yaw, rim, span = turned, None, other
        elif not part and other < MAX_OPENING - 0.01 \
                and (overlap := _palm_overlap(tall := _above_palm(self._palm_neighbours(node), grip), grip, g_yaw)) > 0.0:
            # the other way round where the palm then comes down further clear of the neighbours
            # (the hand along the rail, 11 cm each side of a makeup sponge's grip, came down 2 cm
            # into a 12 cm primer bottle beside it and knocked it off the vanity, Cosmetics-11)
            turned = _quarter_turned(g_yaw)
            if _palm_overlap(tall, grip, turned) + PALM_OVERLAP_GAIN <= overlap \
                    and (self._rim(node) is None or self._hand_fits_inside(node, grip, turned)):
                g_yaw, span = turned, other
        if not part and node in self.world.bodies:  # not an assembled whole either
            slid = self._slid_clear(node, grip, g_yaw)
            if slid is not None:
                grip = slid
                rim = None if self._hand_fits_inside(node, grip, g_yaw) else self._rim(node)
        # out of a deep container the object is lifted clear of its walls before the swing to
        # the carry pose (lifted 20 cm, a mustard bottle still in a 32 cm grocery bag dragged
        # the bag over, Fridge-T)
        walls = self._rim(node)
        clear = walls + WALL_CLEAR - float(c[2] - h[2]) if walls is not None else 0.0
        return Grasp(grip, g_yaw, span=span, rim=rim,
                     approach=clear if clear > LIFT else APPROACH)

    def _slid_clear(self, node: str, grip: np.ndarray, yaw: float) -> np.ndarray | None:
        """Along a long object, the grip point (hand closing along `yaw`) slid up to GRIP_END
        from its ends to where the palm comes down clearest of taller neighbours and, in a
        drawer, of the furniture over the drawer's back; None where no point does so by
        PALM_OVERLAP_GAIN. A 22 cm knife in a sideboard drawer, taken at its middle: the
        hand (11 cm each side of the grip, across the knife) came down on a cup beside it,
        then, with the knife pushed 3.5 cm deeper, on the sideboard's front (Dining-11)."""
        along = np.array([-math.sin(yaw), math.cos(yaw), 0.0])  # across the closing axis: along the object
        T = body_pose(self.world, node)
        h = half_of(self.world, node)
        slide = float(np.abs(T[:3, :3].T @ along) @ h) - GRIP_END
        if slide < GRID_STEP:
            return None
        boxes = _above_palm(self._palm_neighbours(node), grip)
        box = self._inside_now(node)
        drawer = self.world.layout.placements.get(box) if box is not None else None
        if drawer is not None and drawer.app.articulation == "drawer" and drawer.parent is not None:
            holder = self.world.layout.placements[drawer.parent]  # the furniture the drawer slides out of
            boxes.append((np.asarray(holder.centre, dtype=float), np.asarray(holder.size, dtype=float) / 2))
        now = _palm_overlap(boxes, grip, yaw)
        if now <= 0.0:
            return None
        steps = int(slide / GRID_STEP)
        offsets = sorted((k * GRID_STEP for k in range(-steps, steps + 1)), key=abs)
        best = min(offsets, key=lambda o: (round(_palm_overlap(boxes, grip + o * along, yaw), 3), abs(o)))
        if _palm_overlap(boxes, grip + best * along, yaw) + PALM_OVERLAP_GAIN > now:
            return None
        return grip + best * along

    def _palm_neighbours(self, node: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """Aligned boxes (`aligned_box`) of the other objects: not `node`'s parts, what holds it
        (where it started and now) nor what a hand holds."""
        skip = {node, *self.world.parts.get(node, ()), *ancestors(self.world, node), *_in_hand(self.world)}
        here = node
        while self.graph is not None and (loc := self.graph.location.get(here)) is not None:
            skip.add(loc.dst)  # what holds it now (moved into a box since the layout)
            here = loc.dst
        boxes = []
        for other in self.world.bodies:
            n = self.world.graph_nodes.get(other)
            if other in skip or n is None or n.kind != OBJECT:
                continue
            boxes.append(aligned_box(self.world, other))
        return boxes

    def _along_rail(self, node: str) -> bool:
        """Whether `node` (an assembled whole: one of its parts) started out on or in ALONG_RAIL
        furniture. Elsewhere the hand keeps closing across x where both sides fit: across y, a
        spring roll and a flower vase slipped from it on Buffet-T and Dining tops."""
        return any(self.world.graph_nodes[a].category in ALONG_RAIL for b in self.world.parts.get(node, (node,))
                   for a in ancestors(self.world, b) if a in self.world.graph_nodes)

    def _in_drawer(self, node: str) -> bool:
        """Whether `node` lies in a drawer: closing across x, the hand (11 cm behind its grip)
        reached under the furniture's top over the drawer's back (a wine glass in the middle
        of a 30 cm sideboard drawer: the palm met a dish rack on the top and pushed it)."""
        box = self._inside_now(node)
        where = self.world.layout.placements.get(box) if box is not None else None
        return where is not None and where.app.articulation == "drawer"

    def _location_now(self, node: str) -> Edge | None:
        """`node`'s location edge in the current graph (None before a graph is given)."""
        return self.graph.location.get(node) if self.graph is not None else None

    def _inside_now(self, node: str) -> str | None:
        """The container `node` lies INSIDE in the current graph (the layout's parent is where
        it started), or None."""
        loc = self._location_now(node)
        return loc.dst if loc is not None and loc.rel == INSIDE else None

    def _region_now(self, node: str) -> str | None:
        """The layout region (a support or a container's floor) `node` stands in or on in the
        current graph, or None (held, or somewhere the layout has no region)."""
        loc = self._location_now(node)
        return loc.dst if loc is not None and loc.dst in self.world.layout.regions else None

    def _hand_fits_inside(self, node: str, grip: np.ndarray, yaw: float) -> bool:
        """Whether the hand's footprint (HAND_HALF along and across its closing axis, at the
        grip point) lies within the walls of the container holding `node`: then the palm may go
        down between them (a fork on the floor of a 17 cm deep sideboard drawer slipped from
        fingers kept with the palm above the walls)."""
        parent = self._holder(node)
        if parent is None or not self.world.layout.placements[parent].container:
            return False
        return self._hand_within(parent, grip, yaw)

    def _hand_within(self, container: str, grip: np.ndarray, yaw: float) -> bool:
        """Whether the hand's footprint at `grip` with `yaw` lies within `container`'s walls."""
        F, region = floor_frame(self.world, container)
        local = F[:3, :3].T @ (np.asarray(grip, dtype=float) - F[:3, 3])
        along = F[:3, :3].T @ np.array([math.cos(yaw), math.sin(yaw), 0.0])
        across = np.array([-along[1], along[0], 0.0])
        reach = np.abs(along[:2]) * HAND_HALF[0] + np.abs(across[:2]) * HAND_HALF[1]
        return bool(np.all(np.abs(local[:2]) + reach <= np.asarray(region.half) - HAND_ROOM))

    def grasps(self, node: str) -> list[Grasp]:
        pl = self.world.layout.placements.get(node)
        if pl is not None and pl.handle:
            return [self._handle_grasp(node, pl)]  # lower, the fingertips meet the top it stands on
        wall = self._wall_grasp(node)
        if wall is not None:
            return [wall, replace(wall, position=wall.position - np.array([0.0, 0.0, 0.005]))]
        edges = self._edge_grasps(node)
        if edges:
            return edges
        g = self._top_grasp(node)
        out = [g, replace(g, position=g.position - np.array([0.0, 0.0, 0.015]))]
        h = self.half_extents(node)
        if 2 * max(h[0], h[1]) < MAX_OPENING - 0.01:  # across the other side when it fits the fingers
            out.append(replace(g, yaw=g.yaw + math.pi / 2, span=float(2 * max(h[0], h[1]))))
        return out

    def _edge_grasps(self, node: str) -> list[Grasp]:
        """A closed book (17-56 cm both ways, wider than the open fingers) is pinched across its
        3 cm thickness at its front edge, which overhangs its support (`layout.BOOK_OVERHANG`):
        the hand points away from the arms, level, EDGE_DEPTH in from the edge, beside the
        cover's tab on either side. [] for anything else, and for a book lying with its edge
        not far enough over its support for the lower finger (it would go into the top; held,
        it is pinched so already), and for a book welded to a hand pointing down (taken from
        above; turned to the pinch, the hand stood it on end, into the desk). A welded book is
        held, not read from the fingers: read as lying loose, it was let go of as if taken from
        above, the hand turned down and the book on end with it."""
        pl = self.world.layout.placements.get(node)
        if not self._closed_book(node) or pl is None or pl.parent is None:
            return []
        T = body_pose(self.world, node)
        h = half_of(self.world, node)
        if node in self.world.welds and not _points_sideways(self.world, self.world.welds[node][0]):
            return []  # welded to a hand pointing down: taken from above, let go of so
        if hand_holding(self.world, node) is None:
            # the support where it is now: a drawer pulled out 20 cm, read where the layout put
            # it (shut), made a book lying in it look 17 cm over its front edge, and the pinch
            # pushed the book and the drawer shut (held-out Desk-Ts9)
            F, support = floor_frame(self.world, self._region_now(node) or pl.parent)
            front = T[:3, :3] @ np.array([-h[0], 0.0, 0.0]) + T[:3, 3]
            if float(F[0, 3]) - _half_along(F, support, 0) - float(front[0]) < EDGE_DEPTH + EDGE_CLEAR:
                return []
        inward = T[:3, :3] @ np.array([1.0, 0.0, 0.0])
        inward[2] = 0.0
        inward /= float(np.linalg.norm(inward))
        yaw = float(math.atan2(inward[1], inward[0]))
        side = TAB_HALF + EDGE_SIDE
        return [Grasp(T[:3, :3] @ np.array([-h[0] + EDGE_DEPTH, s * side, 0.0]) + T[:3, 3], yaw,
                      span=float(2 * h[2]), approach=EDGE_LIFT, entry=EDGE_ENTRY, edge=inward)
                for s in (1.0, -1.0)]

    def _closed_book(self, node: str) -> bool:
        pl = self.world.layout.placements.get(node)
        return pl is not None and pl.app.articulation == "book_cover" and not self.is_open(node)

    def _edge_spots(self, node: str, target: str) -> list[Placement]:
        """Spots for a closed book held by its edge pinch: its front edge BOOK_OVERHANG over
        `target`'s front edge (the lower finger lets go there, off the support), the rest of
        it free on the support; the fingers then push it back flush (left over a desk's
        edge, it stood in the way of the hand going down to a drawer's bar, Desk-2)."""
        on = self.half_extents(node).copy()
        on[0] -= BOOK_OVERHANG / 2  # the part that rests on the support
        F, region = floor_frame(self.world, target)
        forward = F[:3, :3] @ np.array([-BOOK_OVERHANG / 2, 0.0, 0.0])
        front = [p for p in self._spots_in(node, target, on)
                 if float(to_local(F, p)[0] - on[0]) <= -region.half[0] + 1e-3]
        return [Placement(p + forward, False, target, approach=EDGE_LIFT, push=BOOK_OVERHANG) for p in _spaced(front)]

    def _wall_grasp(self, node: str) -> Grasp | None:
        """An open book (25 x 25 cm, 4 cm thick) is wider than the open fingers (8 cm) both ways,
        so no grasp goes across it; with its cover raised, its front wall (a 1 cm board, the side
        toward the arms) is pinched from above at its middle instead, the fingers closing front to
        back, one inside the shell, one outside, as a person lifts an open box by its rim. At the
        middle the weight hangs straight behind the pinch (no twist about the fingers); the hand
        (22 cm along its closing axis) then stays in front of the raised cover. None for
        anything else (a closed cover lies over the wall's top)."""
        local = self._wall_grasp_local(node)
        if local is None or not self.is_open(node):
            return None
        T = body_pose(self.world, node)
        grip = T[:3, :3] @ local + T[:3, 3]
        yaw = float(yaw_of(T[:3, :3]))  # closing along the book's own x (front to back)
        yaw = (yaw + math.pi / 2) % math.pi - math.pi / 2
        return Grasp(grip, yaw, span=WALL, approach=APPROACH)

    def place(self, node: str, target: str, relation: str) -> list[Placement]:
        if target not in self.world.layout.regions:
            return []
        rim = None
        if self.world.layout.placements[target].container:
            F, region = floor_frame(self.world, target)
            rim = float(F[2, 3] + region.height)
        half = self._seat_room(node)
        chests = self._chests_round(target)
        if chests:
            return self._place_in_chest(node, target, half, rim, chests)
        if self._closed_book(node):
            return self._edge_spots(node, target)
        shift, approach = self._flat_shift(node)
        if np.any(shift):  # a book hanging from its front wall is laid down as it hangs
            return [Placement(p + shift, False, target, rim=rim, approach=approach)
                    for p in _spaced(self._spots_in(node, target, half))]
        # with the hand in front of a raised lid first (`_before_lid`: a pen put into a pencil
        # case, the hand lying front to back 11 cm behind its grip, stopped on the lid, which
        # fell shut, Desk-14), then with the fingers clear of the walls (`_finger_room`); as
        # the object is held, else turned a quarter by the hand (it then lies along the hinge;
        # scissors, 17 cm across, fit a desk drawer's free strip along its depth beside a
        # stapler and sticky notes, Desk-14). Each way's spots come after the better ways',
        # so the hand goes on to them where it cannot reach the better ones; [] where no way
        # leaves room
        edge = self._lid_edge(target)
        F, floor = floor_frame(self.world, target)
        pl = self.world.layout.placements[target]
        all_round = self._keeps_finger_room(target)
        off_walls = not all_round and pl.container and pl.app.articulation in ("lid", "drawer")
        tiers = itertools.product((True, False) if edge is not None else (False,),
                                  (True, False) if all_round or off_walls else (False,),
                                  _held_then_turned(half, self._held_yaw(node)))
        out: list[Placement] = []
        for lid_kept, fingers, (h, yaw, turned) in tiers:
            room = self._finger_room(F, yaw, drawer=pl.app.articulation == "drawer") if fingers else None
            found = self._window_for_parts(node, target, self._spots_in(node, target, h, room if all_round else None))
            spots = _spaced(p for p in found
                            if (not lid_kept or self._before_lid(F, edge, p, yaw))
                            and (room is None or all_round or self._off_walls(F, floor.half, p, h, room)))
            out += [Placement(p, False, target, rim=rim, approach=approach, yaw=yaw if turned else None)
                    for p in spots if not any(_same_spot(q, p, yaw if turned else None) for q in out)]
        return out

    def _window_for_parts(self, node: str, target: str, spots: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
        """`spots` in a window box (`layout.window_box`: a bag the hand goes down into only at
        its middle) while an assembly in the world is still apart: where the hand fits between
        the walls (either way round) first for one of its parts, last for anything else. The
        part's mate is seated on it with the mate in the hand, which must come down between the
        walls to it: a lipstick cap put into the storage bag 6 cm off its middle took the body
        with the palm on the bag's 14 cm walls, 6 cm high, 3.6 cm off its seat (Cosmetics-14).
        What else is put in (let go of over the walls anywhere) goes first where it leaves
        WINDOW_KEEP free each side of the middle."""
        apart = [parts for parts in self.world.parts.values() if not any(p in self.world.snaps for p in parts)]
        if not apart or not self._window_box(target):
            return spots
        listed = list(spots)
        if any(node in parts for parts in apart):
            good = [any(self._hand_within(target, p, yaw) for yaw in (0.0, math.pi / 2)) for p in listed]
        else:  # its footprint clear of the middle, where the part's seat goes
            F, region = floor_frame(self.world, target)
            long = int(np.argmax(region.half))
            reach = float(np.max(self.half_extents(node)[:2]))
            good = [abs(float(to_local(F, p)[long])) - reach >= WINDOW_KEEP for p in listed]
        return iter([p for p, g in zip(listed, good, strict=True) if g] + [p for p, g in zip(listed, good, strict=True) if not g])

    def _window_box(self, node: str) -> bool:
        """Whether `node` is a window box (`layout.window_box`)."""
        pl, region = self.world.layout.placements.get(node), self.world.layout.regions.get(node)
        return pl is not None and region is not None and window_box(pl, self.world.graph_nodes.get(node), region)

    @staticmethod
    def _off_walls(F: np.ndarray, inner: tuple[float, float], spot: np.ndarray, half: np.ndarray,
                   room: np.ndarray) -> bool:
        """Whether a footprint `half` at `spot` keeps `room` (floor-frame x, y) from the walls
        of the box with floor frame `F` and half floor `inner`: in a lidded box that keeps no
        finger room from its neighbours (`_keeps_finger_room`) the fingers still keep off its
        walls. A palette set down against a makeup box's front wall left the front finger in
        the wall; opening to let go, it pushed the box, and the hand rising lifted it off the
        vanity (Cosmetics-1)."""
        local = to_local(F, spot)
        return bool(np.all(np.abs(local[:2]) + half[:2] + room <= np.asarray(inner) + 1e-9))

    def _keeps_finger_room(self, target: str) -> bool:
        """Whether spots in `target` keep `_finger_room` first: in a box a hand carries
        (GRABBABLE: bags, cases), light enough to be dragged by a finger opening into a wall.
        Not in the other lidded boxes: kept there too (78 of the 87 episodes run), the room the
        first puts took left a makeup box no spot for a lipstick cap (held-out Cosmetics-Ts20,
        26 -> 19 steps) and Toy-B3 lost its last two steps; they keep it from their walls only."""
        pl = self.world.layout.placements[target]
        n = self.world.graph_nodes.get(target)
        return pl.container and n is not None and n.has(GRABBABLE)

    def _seat_room(self, node: str) -> np.ndarray:
        """Half extents of the footprint `node` is set down for: its own, grown on both axes
        to the larger half side of any other part of an assembly it belongs to. That part is
        later seated on it and must not rest on a wall or a neighbour (a highlighter cap put
        against a pencil case's front wall took the 6.2 cm body brought onto it 2 cm high on
        the wall, 0.6 cm off centre, and the snap refused: Desk-14)."""
        half = self.half_extents(node).copy()
        partners = {o for parts in self.world.parts.values() if node in parts for o in parts}
        for other in sorted(partners - {node}):
            if other in self.world.bodies:
                half[:2] = np.maximum(half[:2], float(np.max(half_of(self.world, other)[:2])))
        return half

    def _spots_in(self, node: str, target: str, half: np.ndarray,
                  room: np.ndarray | None = None) -> Iterator[np.ndarray]:
        """Free spots for `node` (footprint `half`) on or in `target`, ordered by sight; with
        `room` (floor-frame x, y), that much kept free beside it (`_finger_room`)."""
        if room is not None:
            half = half + np.append(room, 0.0)
        spots = spots_on(self.world, node, target, half=half, skip=self.world.parts.get(node, ()), roomy=True,
                         clear_of_arms=True)
        if self.world.graph_nodes[target].category in FROM_END:
            spots = iter(sorted(spots, key=lambda p: -float(p[1])))
        # into a lidded box, only what is in the box counts: ordered by sight past the box in
        # front, the spots in a toy bin behind another went to its back and its lid then stopped
        # out of reach (Toy-A3); a blush compact put behind a foundation bottle in the makeup
        # box read hidden by it (Cosmetics-4)
        lidded = self.world.layout.placements[target].app.articulation == "lid"
        return self._in_sight(node, spots, among=(lambda n: region_holds(self.world, n, INSIDE, target))
                              if lidded else None)

    def _lid_edge(self, target: str) -> float | None:
        """Floor-frame x (`floor_frame`: away from the arms) of the innermost point of
        `target`'s raised lid or cover where it leans in over the box: hinged at the back top
        edge and resting on a 75 deg stop, a lid (2 hx + LIP long) reaches (2 hx + LIP) cos
        75 deg in from the back, 8 cm for a pencil case. Open past vertical (the 92 deg stop of
        `Layout.lid_open`), the lid stands over the back wall, and the palm coming down behind
        it met it there (a hand lying front to back pushed a storage bag's lid, Cosmetics-10).
        None where no lid is raised (none, or shut)."""
        pl = self.world.layout.placements[target]
        if target not in self.world.joints or pl.app.articulation in ("drawer", "hinged_door") \
                or not self.is_open(target):
            return None
        leaf = np.asarray(self.world.joints[target][0].get_links()[-1].entity_pose.to_transformation_matrix())
        hx, hy, hz = (s / 2 for s in pl.size)
        F, region = floor_frame(self.world, target)
        edge = [(-hx - LIP, 0.0), (-hx, hy), (-hx, -hy)]  # the tab's tip, the panel's front corners
        tips = [to_local(F, leaf[:3, :3] @ np.array([x, y, z]) + leaf[:3, 3])[0]
                for x, y in edge for z in (hz, hz + WALL)]
        return float(min(tips))

    @staticmethod
    def _finger_room(F: np.ndarray, yaw: float, *, drawer: bool = False) -> np.ndarray:
        """Room (x, y of the floor frame `F` of the box set into) kept beside a footprint set down by a hand
        closing along `yaw`, from walls and neighbours: FINGER_ROOM along the closing axis. A
        finger stands 1.3 cm outside what it holds and opens 1 cm further to let go
        (`release_opening`): a nail polish set down 1.5 cm from a storage bag's front wall, the
        finger opened into the wall and the hand rising lifted the bag off the vanity; turned
        and set down 0.5 cm from a lip balm, it slid 2 cm onto it (Cosmetics-10). Kept from
        walls and neighbours in boxes a hand carries only (`_keeps_finger_room`), from the
        walls only in other lidded boxes and drawers (`_off_walls`). Kept from neighbours in
        drawers too, the room moved a stapler in a desk drawer so that scissors put in later
        found only a strip against its front wall and pushed the stapler (Desk-14); for toy
        bins, a plush bunny was turned to a spot 4 cm deeper in a bin on the floor 0.78 m
        ahead, out of reach there (Toy-A2). From a drawer's walls: a stapler set down against
        a desk drawer's front wall put the front finger on the wall's top, the hand pushed the
        drawer 5 cm shut and stopped 7 cm short (Desk-1, and a calculator in held-out
        Desk-Ts15). Across its slide (`drawer`, the floor frame's y) only DRAWER_SIDE_ROOM: a
        finger opening into a side wall presses a wall that does not give, and a calculator in
        a full drawer found room only there."""
        along = F[:3, :3].T @ np.array([math.cos(yaw), math.sin(yaw), 0.0])
        return np.array([FINGER_ROOM, DRAWER_SIDE_ROOM if drawer else FINGER_ROOM]) * np.abs(along[:2])

    @staticmethod
    def _before_lid(F: np.ndarray, edge: float, p: np.ndarray, yaw: float) -> bool:
        """Whether the hand's footprint (HAND_HALF along and across its closing axis, `yaw`)
        releasing at `p` stays HAND_ROOM in front of a raised lid leaning in to floor-frame x
        `edge` (`_lid_edge`) of the box with floor frame `F`."""
        along = F[:3, :3].T @ np.array([math.cos(yaw), math.sin(yaw), 0.0])
        reach = abs(float(along[0])) * HAND_HALF[0] + abs(float(along[1])) * HAND_HALF[1]
        return float(to_local(F, p)[0]) + reach + HAND_ROOM <= edge

    def _in_sight(self, node: str, spots: Iterable[np.ndarray],
                  among: Callable[[str], bool] | None = None, settle: float = 0.0) -> Iterator[np.ndarray]:
        """`spots` where `node` would neither stand hidden behind another object nor hide one
        from the head camera (the shared coverage on boxes, as `hiding.unplanned_covers` checks
        the layout), then the others: a perfume bottle put into the organizer behind a 14 cm
        setting spray read back hidden by it, an OCCLUDES fact the action does not make.
        `settle`: judged also with the spot that far toward each neighbour (along y, across
        the camera's view), where what is let go may come to rest."""
        half = self.half_extents(node)
        skip = {node, *self.world.parts.get(node, ()), *_in_hand(self.world)}  # held: carried away
        others = []
        for n in sorted(self.world.bodies):
            if n in skip or (self.graph is not None and n in self.graph.nodes and self.graph.nodes[n].kind != OBJECT) \
                    or (among is not None and not among(n)):
                continue
            others.append((n, *aligned_box(self.world, n)))
        rest = []
        for p in spots:
            near = [(c, h) for _, c, h in others if abs(c[1] - p[1]) < 0.3 and abs(c[0] - p[0]) < 0.5
                    and not _around(c, h, p)]
            at = [(q, c, h) for c, h in near for q in _toward(p, c, settle)]
            if any(covers(c, h, q, half) for q, c, h in at if c[0] - h[0] < q[0] - half[0]) \
                    or any(covers(q, half, c, h) for q, c, h in at if q[0] - half[0] < c[0] - h[0]):
                rest.append(p)
                continue
            yield p
        yield from rest

    def _chests_round(self, target: str) -> list[str]:
        """The lidded furniture `target` stands in (a mini fridge round its shelf and bin): the
        hand putting something there goes down between its walls."""
        out = []
        parent = self.world.layout.placements[target].parent
        while parent is not None:
            pl = self.world.layout.placements[parent]
            n = self.world.graph_nodes.get(parent)
            if pl.container and pl.app.articulation == "lid" and n is not None and n.kind == FURNITURE:
                out.append(parent)
            parent = pl.parent
        return out

    def _place_in_chest(self, node: str, target: str, half: np.ndarray, rim: float | None,
                        chests: list[str]) -> list[Placement]:
        """Spots where the hand (22 cm along its closing axis) fits between the chest's walls:
        with the object as it is held, else turned a quarter (the hand along the chest's long
        side; a bottle taken across x on the counter met a mini fridge's front wall 5 cm above a
        door bin, Fridge-T). Each spot says the hand's yaw. In front of the chest's raised lid
        where that leaves a spot (`_before_lid`): the lid of a mini fridge stays at 75 deg (past
        vertical its tab is out of reach), and a hand 11 cm along x over the back of its shelf
        met it on the way in, its wrist 35 cm over the shelf (Fridge-T7). Within each of
        those, where the palm comes down clear of what stands taller first (`_palm_lands`):
        the hand, lying along y 11 cm each side of a pickle jar's grip, came down on a milk
        carton 9 cm beside the spot, stopped 8 cm short and let go; the mayonnaise after it
        did the same, fell and rolled 18 cm to the shelf's back (Fridge-T3). Only here: on
        open tops and in boxes the spots it put first went behind tall neighbours, where
        what was set down read hidden (Cosmetics-1, -16)."""
        lids = [(floor_frame(self.world, c)[0], edge) for c in chests if (edge := self._lid_edge(c)) is not None]
        ways = _held_then_turned(half, self._held_yaw(node))
        for lid_kept in (True, False) if lids else (False,):  # in front of the lids first, then anywhere
            for h, yaw, _ in ways:
                fits = (p for p in spots_on(self.world, node, target, half=h, skip=self.world.parts.get(node, ()),
                                             roomy=True)
                        if all(self._hand_within(chest, p, yaw) for chest in chests)
                        and (not lid_kept or all(self._before_lid(F, edge, p, yaw) for F, edge in lids)))
                spots = _spaced(fits)
                if spots:
                    # the object comes in over the chest's walls (from the carry pose, a bottle hanging
                    # 16 cm under the grip swept into a mini fridge's front wall and fell off the counter)
                    top = max(float(floor_frame(self.world, c)[0][2, 3] + self.world.layout.regions[c].height)
                              for c in chests)
                    lands = self._palm_lands(node)
                    if lands is not None:  # the palm clear of what stands taller first
                        spots = sorted(spots, key=lambda p, y=yaw: lands(p, y))
                    return [Placement(p, False, target, rim=rim, yaw=yaw,
                                      approach=max(APPROACH, top + CHEST_CLEAR - float(p[2] - h[2])))
                            for p in spots]
        return []

    def _held_yaw(self, node: str) -> float:
        """The hand yaw that sets `node` (an assembly: by one of its parts) down as built
        (`held_upright_yaw`'s), or its grasp's."""
        hand = self._hand_on(node)
        if hand is None:
            return self.grasp(node).yaw
        closing = self.world.grip_pose(hand)[:3, 1]
        return upright_yaw(math.atan2(float(closing[1]), float(closing[0])), self.yaw(node))

    def _hand_on(self, node: str) -> str | None:
        """The hand holding `node` (an assembled whole: one of its parts), or None."""
        bodies = (node,) if node in self.world.bodies else self.world.parts.get(node, ())
        return next((h for h in (hand_holding(self.world, b) for b in bodies) if h is not None), None)

    def _palm_lands(self, node: str) -> Callable[[np.ndarray, float], bool] | None:
        """Whether the palm of the hand holding `node`, setting it down at a spot with a yaw,
        comes down on something standing taller (`_above_palm`, `_palm_overlap`); None where no
        hand holds it."""
        hand = self._hand_on(node)
        if hand is None:
            return None
        grip = self.world.grip_pose(hand)[:3, 3] - self.center(node)  # the grip from the object's centre
        around = self._palm_neighbours(node)  # measured once for every spot

        def lands(spot: np.ndarray, yaw: float) -> bool:
            at = np.asarray(spot, dtype=float) + grip
            return _palm_overlap(_above_palm(around, at), at, yaw) > 0.0

        return lands

    def _flat_shift(self, node: str) -> tuple[np.ndarray, float]:
        """For a book held by its front wall (it hangs steeply from the pinch): the shift of the
        release point that brings the hand to where it would hold the book lying flat on the
        spot, so the hand coming down lays the book down about its back edge, and an approach
        from high enough that the hanging book clears the spot on the way there (from the
        usual 15 cm its back edge met the shelf and the hand stopped 3 cm short). Let go where
        its hanging centre was over the spot, the book stood on its spine, leaning on its
        raised cover. (zero, APPROACH) for anything else."""
        wall = self._wall_grasp_local(node)
        hand = None if wall is None else holding_hand(self.world, node)
        if wall is None or hand is None:
            return np.zeros(3), APPROACH
        T = body_pose(self.world, node)
        h = half_of(self.world, node)
        corners = np.array([[a * h[0], b * h[1], c * h[2]] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
        grip_z = float(self.world.grip_pose(hand)[2, 3])
        hangs = grip_z - float(np.min(corners @ T[:3, :3].T[:, 2] + T[2, 3]))  # grip over its lowest corner
        approach = max(APPROACH, hangs - (wall[2] + h[2]) + 0.03)
        yaw = _heading(T[:3, :3])
        flat = np.array([math.cos(yaw) * wall[0] - math.sin(yaw) * wall[1],
                         math.sin(yaw) * wall[0] + math.cos(yaw) * wall[1], wall[2]])
        hanging = self.world.grip_pose(hand)[:3, 3] - T[:3, 3]
        return flat - hanging, approach

    def _wall_grasp_local(self, node: str) -> np.ndarray | None:
        """The front-wall grip point in a book's own frame (`_wall_grasp`), or None."""
        pl = self.world.layout.placements.get(node)
        if pl is None or not pl.container or pl.app.articulation != "book_cover" or node not in self.world.joints:
            return None
        if min(pl.size[0], pl.size[1]) <= MAX_OPENING - 0.01:
            return None
        hx, _hy, hz = (s / 2 for s in pl.size)
        return np.array([-hx + WALL / 2, 0.0, hz - PINCH])

    def aside(self, node: str) -> list[Placement]:
        if node not in self.world.layout.placements:
            return []
        support = self.world.layout.placements[node].parent
        if support is None:
            return []
        hiding = self.world.blocking.get(node, (None, position(self.world, node)[:2]))[1]
        return [Placement(p, False, support, approach=APPROACH)
                for p in _spaced(self._in_sight(node, aside_spots(self.world, node, support, hiding, 0.06, roomy=True),
                                                settle=ASIDE_SETTLE))]

    # articulations -----------------------------------------------------------------------------------
    def handles(self, node: str) -> list[Handle]:
        return [self.handle(node)] if node in self.world.joints else []

    def handle(self, name: str) -> Handle:
        articulation, _closed, opened = self.world.joints[name]
        pl = self.world.layout.placements[name]
        hx, hy, hz = (s / 2 for s in pl.size)
        links = articulation.get_links()
        root = np.asarray(links[0].entity_pose.to_transformation_matrix())
        leaf = np.asarray(links[-1].entity_pose.to_transformation_matrix())
        q = float(articulation.get_qpos()[-1])

        def at(T: np.ndarray, p: tuple[float, float, float]) -> np.ndarray:
            return T[:3, :3] @ np.asarray(p) + T[:3, 3]

        if pl.app.articulation == "drawer":
            R = leaf[:3, :3]
            grip = at(leaf, (-hx - 0.01, 0.0, 0.0))
            # an open drawer's bar is taken from above: from the front, the hand lining up in
            # front of a bar pulled out toward the arms had no room (IK) between bar and shoulder
            # a closed one from the front and above (DRAWER_DIP down): level, a forearm reaching
            # a lower drawer's bar ran into the top above it
            approach = R @ np.array([math.cos(DRAWER_DIP), 0.0, -math.sin(DRAWER_DIP)])
            if q >= opened / 2:  # from above, the palm over the front wall (it came down onto
                # the wall of a 12 cm desk drawer, stopped 2 cm short, and the other hand's next
                # try slammed the drawer shut: a stapler in it slid onto the sticky notes)
                approach = np.array([0.0, 0.0, -1.0])
                bar_top = grip[2] + bar_half_height(hz)
                palm_over = leaf[2, 3] + hz + BAR_PALM_MARGIN - PALM_CLEARANCE
                grip = np.array([grip[0], grip[1], min(bar_top - BAR_PINCH, max(float(grip[2]), palm_over))])
            return Handle(name, grip, approach, R @ np.array([0, 1.0, 0]), HANDLE_BAR, "slide",
                          R @ np.array([-1.0, 0, 0]), grip, q, opened, -R[:, 0], 0.01, 0.01, 0.0)
        R = leaf[:3, :3]
        if pl.app.articulation == "hinged_door":  # vertical hinge at the -y edge of the front panel
            pivot = at(root, (-hx - WALL / 2, -hy, 0.0))
            grip = at(leaf, (-hx - WALL / 2, hy - 0.03, 0.0))
            axis = root[:3, 2]
            return Handle(name, grip, R @ np.array([1.0, 0, 0]), R @ np.array([0, 1.0, 0]), WALL, "hinge",
                          axis, pivot, q, opened, -R[:, 0], WALL / 2, WALL / 2, 2 * hy)
        # lid / book cover: hinge along y at the back top edge; the grip is the free (front) edge
        # the tab is pinched from above, the fingers closing along the hinge axis: it turns
        # between them like a pin and the hand keeps its orientation along the arc (pinched at its
        # edge from the front, the wrist turning with the lid ran out of reach at 50 deg)
        pivot = at(root, (hx, 0.0, hz + WALL / 2))
        grip = at(leaf, (-hx - LIP / 2, 0.0, hz + WALL / 2))
        axis = root[:3, 1]
        return Handle(name, grip, -root[:3, 2], axis, 2 * TAB_HALF, "hinge",
                      axis, pivot, q, opened, R[:, 2], WALL / 2, WALL / 2, 2 * hx + LIP)

    def hand_on(self, hand: str, handle: str) -> bool:
        return _touches(self.world, hand, handle, both=True)

    def touches(self, hand: str, handle: str) -> bool:
        return _touches(self.world, hand, handle)

    def open_fraction(self, node: str) -> float:
        return joint_fraction(self.world, node)

    def is_open(self, node: str) -> bool:
        return is_open(joint_fraction(self.world, node))

    # buttons, assembly, rooms ----------------------------------------------------------------------
    def button_top(self, node: str) -> tuple[np.ndarray, float]:
        articulation = self.world.buttons[node]
        cap = np.asarray(articulation.get_links()[-1].entity_pose.to_transformation_matrix())
        hz = self.world.layout.placements[node].size[2] / 2
        top = cap[:3, :3] @ np.array([0.0, 0.0, hz + 2 * BUTTON_HALF[2]]) + cap[:3, 3]
        return top, BUTTON_DEPTH

    def pressed(self, node: str) -> bool:
        return float(self.world.buttons[node].get_qpos()[-1]) >= BUTTON_DEPTH / 2

    def seat_yaw(self, part: str, target: str, yaw: float) -> float:
        """`yaw`, or the hand turned where the fingers closing along it would come down nearer a
        wall or a neighbour of `target` than FINGER_ROOM and another way gives SEAT_TURN_GAIN
        more room: a quarter turn where both parts are square about z (seated either way
        round), any of SEAT_YAWS where the part is round (seated any way round). Without the
        gain, the hand turned for 1.4 mm on Desk-14's highlighter and pushed the pencil case
        4.5 deg round, which lost the episode three actions later. A pen barrel brought onto
        its cap, 2 mm from a pencil case's side wall, with the fingers closing toward that wall
        put a finger on the wall and stopped 2 cm off centre (Desk-2); a pen cap brought onto
        its barrel in a pencil case's corner, flush with its end wall and 9 mm from its front,
        had no quarter turn clear of both and pushed the case 3 cm (Desk-7)."""
        round_part = self.world.layout.placements[part].app.geometry in ("cylinder", "sphere")
        if not round_part and any(abs(float(h[0] - h[1])) >= SQUARE
                                  for h in (self.half_extents(part), self.half_extents(target))):
            return yaw  # not square: seated one way round only (and no bodies measured for it)
        region = self._region_now(target)
        if region is not None and self._window_box(region):
            # in a window box the hand goes down between the walls only one way round (a lipstick
            # body held across x, brought onto its cap in the storage bag's window, stopped with
            # the palm on the bag's front and back walls 3 cm above the seat: Cosmetics-14)
            fits = [t for t in (yaw, yaw + math.pi / 2) if self._hand_within(region, self.center(target), t)]
            if fits:
                return fits[0]
        gap = self._finger_gap(part, target, yaw)
        if gap >= FINGER_ROOM:
            return yaw
        turns = [yaw + math.pi / 2]
        if round_part and region is not None:
            # square to the walls of what the target stands in, and every SEAT_YAWS-th of a half turn from there
            walls = float(yaw_of(floor_frame(self.world, region)[0][:3, :3]))
            turns += [walls + math.pi * k / SEAT_YAWS for k in range(SEAT_YAWS)]
        gaps = {turn: self._finger_gap(part, target, turn) for turn in turns}
        best = max(gaps, key=gaps.__getitem__)
        return best if gaps[best] > gap + SEAT_TURN_GAIN else yaw

    def _finger_gap(self, part: str, target: str, yaw: float) -> float:
        """Free distance (m) beside the footprint of `part` seated on `target` (the larger of
        the two along each axis) along the closing axis `yaw`, the lesser of its two sides,
        within a finger's width across: to the walls of the region `target` stands in and to
        every other body there; inf where it stands nowhere (held)."""
        where = self._region_now(target)
        if where is None:
            return math.inf
        F, region = floor_frame(self.world, where)
        walled = self.world.layout.placements[where].container
        centre, half = aligned_box(self.world, target)
        t = to_local(F, centre)[:2]
        h = np.maximum(np.abs(F[:3, :3].T) @ half, np.abs(F[:3, :3].T) @ aligned_box(self.world, part)[1])[:2]
        u = (F[:3, :3].T @ np.array([math.cos(yaw), math.sin(yaw), 0.0]))[:2]
        u /= float(np.linalg.norm(u))
        v = np.array([-u[1], u[0]])
        reach, width = float(np.abs(u) @ h), float(np.abs(v) @ h) + FINGER_HALF_WIDTH
        others = occupants(self.world, where, F, float(2 * half[2]) + WALL, skip={part, target})
        if walled:  # the walls stand between the fingers and what is outside them
            others = [b for b in others if np.all(np.abs(b.centre) <= np.asarray(region.half))]
        gaps = []
        for side in (u, -u):
            gap = math.inf
            if walled:  # to the walls: where a ray from the footprint's edge leaves the floor
                edge = t + side * reach
                gap = min((math.copysign(float(region.half[i]), float(side[i])) - float(edge[i])) / float(side[i])
                          for i in range(2) if abs(float(side[i])) > 1e-6)
            for b in others:
                d = b.centre - t
                if abs(float(d @ v)) <= float(np.abs(v) @ b.half) + width and float(d @ side) > 0:
                    gap = min(gap, float(d @ side) - float(np.abs(side) @ b.half) - reach)
            gaps.append(gap)
        return min(gaps)

    def join(self, part: str, target: str) -> str | None:
        """The snap: the parts are held together (`World.snap`) only once they sit stacked
        aligned and touching (`sense.joined`); else what was wrong."""
        if joined(self.world, part, target):
            if part not in self.world.snaps and target not in self.world.snaps:
                self.world.snap(part, target)
            return None
        miss = position(self.world, part)[:2] - position(self.world, target)[:2]
        return f"{part} is not seated on {target}: {100 * float(np.linalg.norm(miss)):.1f} cm off centre"

    def route(self, room: str) -> list[BasePose]:
        return []

    def robot_room(self) -> str | None:
        return self.graph.robot_room() if self.graph is not None else None


def _above_palm(boxes: list[tuple[np.ndarray, np.ndarray]], grip: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Those of `boxes` (`TabletopScene._palm_neighbours`) standing higher than the palm's
    lowest point with the grip at `grip`."""
    palm = float(grip[2]) + PALM_CLEARANCE
    return [(c, h) for c, h in boxes if float(c[2] + h[2]) > palm]


def _palm_overlap(boxes: list[tuple[np.ndarray, np.ndarray]], grip: np.ndarray, yaw: float) -> float:
    """How far (m) the deepest of `boxes` (`_above_palm`) reaches into the hand's
    footprint at `grip` (HAND_HALF along and across its closing axis, `yaw`); 0 for none."""
    along = np.array([math.cos(yaw), math.sin(yaw)])
    across = np.array([-along[1], along[0]])
    deepest = 0.0
    for c, h in boxes:
        d = c[:2] - np.asarray(grip[:2], dtype=float)
        into = min(HAND_HALF[0] + float(np.abs(along) @ h[:2]) - abs(float(d @ along)),
                   HAND_HALF[1] + float(np.abs(across) @ h[:2]) - abs(float(d @ across)))
        deepest = max(deepest, into)
    return deepest


def _quarter_turned(yaw: float) -> float:
    """A grip yaw turned a quarter, in the same half-turn range (a parallel grip is symmetric)."""
    return (yaw + math.pi) % math.pi - math.pi / 2


def _heading(R: np.ndarray) -> float:
    """A body's yaw, also when it hangs steeply (a book held by its front wall: its x axis
    points nearly straight down and its projection's heading is noise): then from its y axis,
    which stays level."""
    if abs(float(R[2, 0])) > 0.7:
        return float(math.atan2(R[1, 1], R[0, 1]) - math.pi / 2)
    return float(yaw_of(R))


def _same_spot(q: Placement, p: np.ndarray, yaw: float | None) -> bool:
    """Whether placement `q` already is the spot `p` set down at `yaw` (another way's tier)."""
    return q.yaw == yaw and float(np.linalg.norm(np.asarray(q.center) - p)) < 1e-3


def _spaced(spots: object, spacing: float = 0.08) -> list[np.ndarray]:
    """The first SPOT_CHOICES spots, each at least `spacing` from the ones before it."""
    out: list[np.ndarray] = []
    for p in spots:  # type: ignore[attr-defined]
        if all(float(np.linalg.norm(p[:2] - q[:2])) >= spacing for q in out):
            out.append(p)
            if len(out) == SPOT_CHOICES:
                break
    return out
