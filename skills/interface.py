"""The small robot and scene interfaces every skill is written against.

A simulator backend (MuJoCo here, SAPIEN next) implements `Robot` (motion: base, hands,
grippers, holds) and `Scene` (geometry: where to grasp, where to put, handles, buttons), and
reuses `robograph_skills.primitives` unchanged. Units: metres, radians; world frame z up. Hand poses are
given as a grip-point position plus a yaw about world z (`pitch` tilts the approach from
straight down toward horizontal along the robot's heading), or as the directions the fingers
point and close along (`Robot.move_grip`). Nothing here assumes a layout: which side the robot
works from, handle frames and hand names come from `Scene` and `Robot`; IK is the robot's.

`Assist` is the privileged help only a simulator can give (servo a joint, weld a grasp or two
parts); `Scene.assist` is None in physics mode, and the skills ask for it only when present,
naming each use in `SkillResult.assists`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

BasePose = tuple[float, float, float, float]  # x, y, yaw, torso lift
# one waypoint of a continuous hand path: grip point, approach and closing directions (as in
# `Robot.move_grip`) and where the base stands for it (None: where it is)
GripWaypoint = tuple[np.ndarray, np.ndarray, np.ndarray, "BasePose | None"]


@dataclass(frozen=True, slots=True)
class SkillResult:
    """Outcome of one motion primitive. `ok` is the skill's own check (e.g. the object is in
    the hand after a grasp); the graph is still reconciled from the world afterwards.
    `assists`: each privileged help the skill used (assisted mode), e.g. "servo fridge_door",
    "weld grasp milk"; `retries`: attempts beyond the first (another grasp, another spot)."""

    ok: bool
    message: str = ""
    assists: tuple[str, ...] = ()
    retries: int = 0


OK = SkillResult(True)


@dataclass(frozen=True, slots=True)
class Grasp:
    """Top-down grasp (or an edge pinch, `edge`): grip point (world), finger-closing direction
    as a yaw (rad), and whether the hand must come in from the front (something above the object)."""

    position: np.ndarray
    yaw: float
    from_front: bool = False
    entry: float = 0.22  # from the front: how far in front of the grip point the hand enters (m)
    span: float = 0.0  # the object's width between the fingers (m); 0 = unknown
    rim: float | None = None  # world z of the walls around the object (the palm stays above)
    approach: float = 0.12  # from above: the hand comes down from this high over the grip point (m)
    # an edge pinch instead of a top-down grasp: the fingers point this (horizontal, unit) way
    # into an edge that overhangs its support and close vertically across the object's thickness
    # (a closed book is wider than the open fingers both ways; a person slides it over the
    # table's edge and takes it so). None: top-down
    edge: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a held object's centre should be at release, and whether the hand must enter from
    the front (a shelf or cabinet with a roof) instead of from above."""

    center: np.ndarray
    from_front: bool
    target: str  # the node the spot belongs to (where the base goes to work)
    entry: float = 0.22  # from the front: how far in front of the spot the hand enters (m)
    rim: float | None = None  # world z of the walls around the spot (the palm stays above)
    approach: float = 0.12  # from above: the hand comes down from this high over the release point (m)
    yaw: float | None = None  # the hand's yaw at release where the spot needs one (None: the object
    # turned back to its built orientation): a hand that must fit between walls it goes down into
    push: float = 0.0  # m the closed fingers push an edge-pinched object (`Grasp.edge`) on along
    # the pinch's direction once let go: back over its support, off the edge it was set down over


@dataclass(frozen=True, slots=True)
class Handle:
    """How a hand takes hold of one articulation and how its joint moves (world frame). The
    skills compute every waypoint from this: nothing about the furniture's orientation is
    assumed. Opening is the joint's positive direction (slide: along `axis`; hinge: a
    right-handed rotation about `axis` through `pivot`)."""

    name: str
    position: np.ndarray  # grip point on the handle
    approach: np.ndarray  # unit: the hand moves along this onto the handle (its fingers point this way)
    closing: np.ndarray  # unit: the fingers close along this, across the handle
    span: float  # the handle's width between the fingers (m)
    kind: str  # "slide" | "hinge"
    axis: np.ndarray  # slide: unit opening direction; hinge: unit rotation axis
    pivot: np.ndarray  # hinge: a point on the axis (slide: the handle's position)
    opening: float  # how far it is open now, from closed (m or rad)
    travel: float  # fully open (m or rad)
    face: np.ndarray  # hinge: unit normal out of the leaf's front face (the handle's side)
    behind: float  # from the grip point against `face` to the leaf's back face (m)
    front: float  # from the grip point against `face` to the leaf's front face (m)
    tip: float  # hinge: from the axis to the leaf's free edge (m)


class Robot(Protocol):
    hands: tuple[str, ...]
    max_opening: float  # distance between the fingers of a fully open gripper (m)
    palm_clearance: float  # height of the palm (the hand's lowest part) above the grip point (m)

    def drive_base(self, pose: BasePose) -> bool:
        """Drive the base (and torso lift) to a pose; True when reached."""

    def move_hand(self, hand: str, position: np.ndarray, yaw: float, *, pitch: float = 0.0,
                  duration: float = 0.5, straight: bool = False) -> bool:
        """Move a hand's grip point to `position`; True when it got there (IK + tracking).
        `straight`: along a straight line (in and out of shelves, down onto an object)."""

    def move_grip(self, hand: str, position: np.ndarray, approach: np.ndarray, closing: np.ndarray, *,
                  duration: float = 0.5, straight: bool = False, base: BasePose | None = None) -> bool:
        """Like `move_hand`, with the hand's orientation given by the direction its fingers
        point (`approach`) and the one they close along (`closing`): any parallel gripper.
        `base`: the base (and torso) moves there during the same motion (whole-body: a hand
        pulling a door along its arc goes further than the arm reaches from one stance)."""

    def hand_position(self, hand: str) -> np.ndarray: ...

    def hand_yaw(self, hand: str) -> float:
        """The hand's yaw about world z, in move_hand's convention."""

    def carry(self, hand: str) -> None:
        """Bring a hand (holding something or not) to its carry pose close to the body."""

    def stow(self, hand: str) -> None:
        """Move an arm out of the way of the other one (to its side)."""

    def tuck(self, hand: str) -> None:
        """Fold an idle arm (holding nothing) close to the body: out of the sweep of the leaves
        the other hand swings and of the leaves the base passes."""

    def gripper(self, hand: str, opening: float) -> None:
        """Open (1.0) or close (0.0) a gripper and wait for the fingers to settle."""

    def holds(self, hand: str, node: str) -> bool: ...

    def detach(self, hand: str) -> None:
        """Let go of an assisted (welded) hold, if any; the fingers are opened separately."""

    def wait(self, seconds: float) -> None: ...


@runtime_checkable
class PathRobot(Protocol):
    """Optional for a `Robot`: track a whole hand path as one motion. Skills use it where a
    robot offers it (the MuJoCo kitchen's) and otherwise make one `move_grip` per waypoint,
    each settled: a door pull that settled at each of its ~20 waypoints spent most of its
    simulated time waiting (issue 9 SPEED)."""

    def move_grip_path(self, hand: str, waypoints: Sequence[GripWaypoint], *, duration: float) -> int:
        """Move through the waypoints without stopping, at least `duration` seconds each,
        settling only at the end; stop early where the arm has no IK solution or the hand
        falls behind its waypoint (something holds it back). Returns how many waypoints the
        hand reached (0: none)."""


class Assist(Protocol):
    """Privileged help only a simulator can give (the assisted execution controller). A real
    robot has none; the skills ask for it only in assisted mode and name each use in
    `SkillResult.assists`."""

    def servo(self, node: str, fraction: float) -> None:
        """Drive an articulation's joints toward `fraction` of their travel (0 closed, 1 open)."""

    def release_servo(self, node: str) -> None: ...

    def weld_grasp(self, hand: str, node: str) -> bool:
        """Fix `node` to the hand when the hand touches it; True when welded."""

    def weld_parts(self, part: str, target: str) -> bool:
        """Join two assembly parts wherever they are; True when joined."""


class Scene(Protocol):
    assist: Assist | None  # None: physics mode, every change of state comes from contact

    @property
    def assisted(self) -> bool: ...

    def work_pose(self, node: str, hand: str | None, point: np.ndarray | None = None, *,
                  operate: bool = False) -> BasePose:
        """Base pose from which `hand` (None: both) works on `node` (at `point` if given);
        `operate`: to open or close it (standing back from where its leaves and drawers move)."""

    def outward(self, node: str) -> np.ndarray:
        """Horizontal unit vector from `node` toward the side the robot works from (roofed
        spots are entered from there)."""

    def grasp(self, node: str) -> Grasp: ...

    def grasps(self, node: str) -> list[Grasp]:
        """Grasps to try in turn, `grasp(node)` first (then e.g. deeper, or across the other side)."""

    def center(self, node: str) -> np.ndarray: ...

    def yaw(self, node: str) -> float:
        """The object's yaw about world z (0 as built: its half extents are along x, y)."""

    def half_extents(self, node: str) -> np.ndarray: ...

    def place(self, node: str, target: str, relation: str) -> list[Placement]:
        """Free spots for `node` ON / INSIDE `target`, best first; empty when there is no room."""

    def aside(self, node: str) -> list[Placement]:
        """Spots on the same support that no longer hide what `node` occludes, best first."""

    def handles(self, node: str) -> list[Handle]:
        """One handle per joint of an articulated node, as it is now."""

    def handle(self, name: str) -> Handle:
        """A handle re-read from the world (after it moved)."""

    def hand_on(self, hand: str, handle: str) -> bool:
        """Whether both fingers of `hand` hold the part `handle` belongs to."""

    def touches(self, hand: str, handle: str) -> bool:
        """Whether `hand` touches the part `handle` belongs to at all (a push)."""

    def open_fraction(self, node: str) -> float: ...

    def is_open(self, node: str) -> bool:
        """Whether the world reads `node` open: the one threshold reconcile uses too, so a
        skill never reports an open or close that the graph then reads the other way."""

    def button_top(self, node: str) -> tuple[np.ndarray, float]:
        """Top of a button (world) and its travel (m)."""

    def pressed(self, node: str) -> bool: ...

    def seat_yaw(self, part: str, target: str, yaw: float) -> float:
        """The hand's yaw for seating `part` on `target`, from `yaw` (the part turned back as
        built, about the target): a backend may turn it where the fingers then keep clear of
        what stands beside the target."""

    def join(self, part: str, target: str) -> str | None:
        """Snap two assembly parts together if `part` sits aligned on `target` and touches it;
        None when joined, else what was wrong."""

    def route(self, room: str) -> list[BasePose]: ...

    def robot_room(self) -> str | None: ...
