"""One motion primitive per task-level action (Table 5), written against `Robot` and `Scene`.

Every primitive returns a `SkillResult`; none raises for a physical miss (a slipped grasp, an
unreachable pose): the backend turns a miss into a typed failure and the reconciled graph says
what actually happened. Grasps are top-down (or an edge pinch, `Grasp.edge`); open/close live
in `robograph_skills.articulation`.
Privileged help (welds) is asked of `Scene.assist` only in assisted mode and named in
`SkillResult.assists`; `retries` counts the grasps and spots tried after the first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from robograph_skills.articulation import articulate as articulate  # open/close, dispatched from here
from robograph_skills.interface import OK, Grasp, Placement, Robot, Scene, SkillResult

PREGRASP = 0.12  # approach height above a grasp point (m)
LIFT = 0.2  # clears neighbours up to ~20 cm tall when carrying the object away
FRONT_ENTRY = 0.22  # how far in front of a roofed spot the hand enters (m)
ENTRY_LIFT = 0.08  # roofed spots: the hand travels this high above the spot (over bin lips)
PALM_MARGIN = 0.012  # the palm passes this high over the walls of a vessel (m)
MIN_PINCH = 0.012  # the finger pads reach at least this far below an object's top (m)
GRAB_ATTEMPTS = 3
UP = np.array([0.0, 0.0, 1.0])  # an edge pinch's fingers close along world z
PUSH_GAP = 0.02  # m off an edge the fingertips start a push from
EDGE_TIP = 0.01  # m the fingertips reach past the grip point
EDGE_LIFT_S = 2.0  # s an edge pinch (`Grasp.edge`) lifts in: in 0.5 s a 56 cm book slipped from it, in 1 s it turned 5 cm
RELEASE_CLEARANCE = 0.02  # the fingers open this much wider than the object to let go (m)
REAIM = 0.01  # m a held object may hang off where the release was aimed before the hand re-aims
SEAT_CORRECTIONS = 2  # attach: re-measure the part's offset from its seat and correct this often
SEAT_TOLERANCE = 0.004  # ... until it is this close (m)
SEAT_PRESS = 0.004  # attach: the hand presses the part this far down onto its seat (m)


def _up(p: np.ndarray, dz: float) -> np.ndarray:
    return np.asarray(p, dtype=float) + np.array([0.0, 0.0, dz])


def above_rim(robot: Robot, grip_z: float, rim: float | None, top: float) -> float:
    """Grip height that keeps the palm over the walls of a vessel, drawer or bin (the palm of a
    parallel gripper is wider than many interiors), yet low enough for the fingers to hold."""
    if rim is None:
        return grip_z
    return max(grip_z, min(rim + PALM_MARGIN - robot.palm_clearance, top - MIN_PINCH))


def grab(robot: Robot, scene: Scene, node: str, hand: str) -> SkillResult:
    """Verify-and-retry: when the object is not in the hand afterwards (it slipped, or the arm
    was stopped short), the next of the scene's grasps is tried from the object's new pose."""
    result = SkillResult(False, f"no grasp for {node}")
    assists: tuple[str, ...] = ()
    for attempt in range(GRAB_ATTEMPTS):
        choices = scene.grasps(node)
        if attempt >= len(choices):
            break
        result = _grab_with(robot, scene, node, hand, choices[attempt])
        assists += result.assists
        result = replace(result, assists=assists, retries=attempt)
        if result.ok:
            return result
    return result


def _grab_with(robot: Robot, scene: Scene, node: str, hand: str, g: Grasp) -> SkillResult:
    if g.edge is not None:
        return _pinch_edge(robot, scene, node, hand, g, g.edge)
    top = float(scene.center(node)[2] + scene.half_extents(node)[2])
    g = replace(g, position=np.array([*g.position[:2], above_rim(robot, float(g.position[2]), g.rim, top)]))
    out = scene.outward(node)
    stance = g.position + out * (g.entry / 2) if g.from_front else g.position
    robot.drive_base(scene.work_pose(node, hand, stance))
    robot.gripper(hand, 1.0)
    pre = _up(g.position + out * g.entry, ENTRY_LIFT) if g.from_front else _up(g.position, g.approach)
    if not robot.move_hand(hand, pre, g.yaw):
        robot.carry(hand)
        return SkillResult(False, f"{node} is out of reach of the {hand} hand")
    if g.from_front:
        robot.move_hand(hand, _up(g.position, ENTRY_LIFT), g.yaw, duration=0.35, straight=True)
    robot.move_hand(hand, g.position, g.yaw, duration=0.4, straight=True)
    robot.gripper(hand, 0.0)
    assists: tuple[str, ...] = ()
    if scene.assist is not None and scene.assist.weld_grasp(hand, node):
        assists = (f"weld grasp {node}",)
    # lift clear of the neighbours before the arm swings back to its carry pose
    robot.move_hand(hand, _up(g.position, ENTRY_LIFT if g.from_front else max(LIFT, g.approach)), g.yaw,
                    duration=0.3, straight=True)
    if g.from_front:
        robot.move_hand(hand, pre, g.yaw, duration=0.4, straight=True)
    robot.carry(hand)
    if not robot.holds(hand, node):
        return SkillResult(False, f"grasp of {node} slipped", assists)
    return SkillResult(True, "", assists)


def _pinch_edge(robot: Robot, scene: Scene, node: str, hand: str, g: Grasp, edge: np.ndarray) -> SkillResult:
    """In along `edge` at the grip's height, fingers open across the object's thickness, then
    closed and lifted straight up: the hand keeps pointing `edge`-wards (turned to point down,
    the object would hang from the pinch and swing) until `_release_edge` sets it down."""
    robot.drive_base(scene.work_pose(node, hand, g.position))
    robot.gripper(hand, 1.0)
    entry = g.position - edge * g.entry
    if not robot.move_grip(hand, entry, edge, UP):
        robot.carry(hand)
        return SkillResult(False, f"{node} is out of reach of the {hand} hand")
    robot.move_grip(hand, g.position, edge, UP, duration=0.4, straight=True)
    robot.gripper(hand, 0.0)
    assists: tuple[str, ...] = ()
    if scene.assist is not None and scene.assist.weld_grasp(hand, node):
        assists = (f"weld grasp {node}",)
    robot.move_grip(hand, _up(g.position, g.approach), edge, UP, duration=EDGE_LIFT_S, straight=True)
    robot.carry(hand)
    if not robot.holds(hand, node):
        return SkillResult(False, f"grasp of {node} slipped", assists)
    return SkillResult(True, "", assists)


def _release_edge(robot: Robot, scene: Scene, node: str, hand: str, spot: Placement, g: Grasp,
                  edge: np.ndarray) -> SkillResult:
    """The mirror of `_pinch_edge`: down onto the spot pointing the same way (the spot leaves
    the pinched edge overhanging its support), fingers opened just past the object's
    thickness, out backwards along the edge, then the object pushed back by `Placement.push`
    (`_push_along`)."""
    offset = robot.hand_position(hand) - scene.center(node)
    grip = spot.center + offset + np.array([0.0, 0.0, 0.005])
    robot.drive_base(scene.work_pose(spot.target, hand, grip))
    pre = _up(grip, spot.approach)
    if not robot.move_grip(hand, pre, edge, UP):
        robot.carry(hand)
        return SkillResult(False, f"cannot reach the spot for {node}")
    # the object turns with the hand as it points the edge's way for the spot, so it is aimed
    # again from where it is now: aimed from the carry pose, Desk-11's welded book came down
    # 13 cm off its shelf slot, 5 cm into the organizer beside it, and was flung through the
    # desk when its contacts came back
    moved = robot.hand_position(hand) - scene.center(node) - offset
    if float(np.linalg.norm(moved)) > REAIM:
        grip, pre = grip + moved, pre + moved
        robot.move_grip(hand, pre, edge, UP, duration=0.3, straight=True)
    robot.move_grip(hand, grip, edge, UP, duration=0.5, straight=True)
    robot.detach(hand)
    robot.gripper(hand, release_opening(robot, g.span))
    out = grip - edge * g.entry
    robot.move_grip(hand, out, edge, UP, duration=0.4, straight=True)
    if spot.push > 0.0:
        _push_along(robot, scene, node, hand, grip, edge, spot.push)
    robot.carry(hand)
    if robot.holds(hand, node):
        return SkillResult(False, f"{node} stuck to the {hand} hand")
    return OK


def _push_along(robot: Robot, scene: Scene, node: str, hand: str, grip: np.ndarray, edge: np.ndarray,
                push: float) -> None:
    """The closed fingertips (EDGE_TIP past the grip point), level at `grip`'s height and
    across from it, from PUSH_GAP off the object's near edge on along `edge` until that edge
    has gone `push`, then back."""
    centre, h = scene.center(node), scene.half_extents(node)
    turn = math.atan2(float(edge[1]), float(edge[0])) - scene.yaw(node)
    depth = abs(math.cos(turn)) * float(h[0]) + abs(math.sin(turn)) * float(h[1])  # centre to near edge
    aside = (grip - centre)[:2]
    start = centre - edge * (depth + PUSH_GAP + EDGE_TIP)
    start[:2] += aside - edge[:2] * float(aside @ edge[:2])  # across from the grip, as pinched
    start[2] = grip[2]
    robot.gripper(hand, 0.0)
    if robot.move_grip(hand, start, edge, UP, duration=0.4, straight=True):
        robot.move_grip(hand, start + edge * (PUSH_GAP + push), edge, UP, duration=1.0, straight=True)
        robot.move_grip(hand, start, edge, UP, duration=0.4, straight=True)


def _release_at(robot: Robot, scene: Scene, node: str, hand: str, spot: Placement) -> SkillResult:
    grasp = scene.grasp(node)
    if grasp.edge is not None:
        return _release_edge(robot, scene, node, hand, spot, grasp, grasp.edge)
    placement_center, from_front, target = spot.center, spot.from_front, spot.target
    offset = robot.hand_position(hand) - scene.center(node)  # grip point relative to the object
    grip = placement_center + offset + np.array([0.0, 0.0, 0.01])
    if spot.rim is not None:  # let go above the walls: the object drops the last centimetres
        grip[2] = max(grip[2], spot.rim + PALM_MARGIN - robot.palm_clearance)
    yaw = held_upright_yaw(robot, scene, node, hand) if spot.yaw is None else spot.yaw
    # roofed spots: stand back far enough for the entry point in front of the spot as well
    out = scene.outward(target)
    stance = grip + out * (spot.entry / 2) if from_front else grip
    robot.drive_base(scene.work_pose(target, hand, stance))
    pre = _up(grip + out * spot.entry, ENTRY_LIFT) if from_front else _up(grip, spot.approach)
    if not robot.move_hand(hand, pre, yaw):
        robot.carry(hand)
        return SkillResult(False, f"cannot reach the spot for {node}")
    # an object held off its middle swings round with the hand turning it for the spot (either
    # way round: the fingers are symmetric), so where it hangs is measured again once turned.
    # Not one held at its middle: re-aimed by how a jar swung in the fingers, a hand going into
    # a mini fridge was moved off the spot its stance was chosen for (Fridge-T5)
    moved = robot.hand_position(hand) - scene.center(node) - offset
    moved[2] = 0.0
    if spot.yaw is not None and float(np.linalg.norm(offset[:2])) > REAIM and float(np.linalg.norm(moved)) > REAIM:
        grip, pre = grip + moved, pre + moved
        robot.move_hand(hand, pre, yaw, duration=0.3, straight=True)
    if from_front:  # in over the front row and bin lips, then down onto the spot
        robot.move_hand(hand, _up(grip, ENTRY_LIFT), yaw, duration=0.35, straight=True)
    robot.move_hand(hand, grip, yaw, duration=0.4, straight=True)
    robot.detach(hand)
    if spot.rim is not None:
        # let go of above walls, the object falls: flung from a full squeeze to open fingers, a
        # 4 x 2 cm eyeliner cap spun 6.5 rad/s as it fell 9 cm into a bag and came to rest on
        # its edge, where the eyeliner brought onto it later had no seat (Cosmetics-12, -13).
        # Not on every put: the same on all of them gained four benchmark episodes and lost four
        _ease_off(robot, scene, node, hand)
    same_side = abs((yaw - grasp.yaw + math.pi / 2) % math.pi - math.pi / 2) < 0.3
    robot.gripper(hand, release_opening(robot, grasp.span if same_side else 0.0))
    if from_front:
        robot.move_hand(hand, _up(grip, ENTRY_LIFT), yaw, duration=0.25, straight=True)
    robot.move_hand(hand, pre, yaw, duration=0.35, straight=True)
    robot.carry(hand)
    if robot.holds(hand, node):
        return SkillResult(False, f"{node} stuck to the {hand} hand")
    return OK


def held_upright_yaw(robot: Robot, scene: Scene, node: str, hand: str) -> float:
    """Hand yaw that turns a held object back to its built orientation (yaw 0 modulo pi), so
    its footprint is the one the spot was chosen for, whichever side it was grasped across."""
    return upright_yaw(robot.hand_yaw(hand), scene.yaw(node))


def upright_yaw(hand_yaw: float, object_yaw: float) -> float:
    """`held_upright_yaw` from the hand's and the held object's yaws (rad)."""
    yaw = hand_yaw - object_yaw
    yaw = (yaw + math.pi / 2) % math.pi - math.pi / 2  # the fingers are symmetric: modulo pi
    return math.pi / 2 if yaw < -math.pi / 2 + 0.3 else yaw


def release_opening(robot: Robot, span: float) -> float:
    """Gripper opening that lets go of an object `span` wide without sweeping the fingers into
    what stands beside it: fully open fingers wedged against a lunch box's walls and dragged
    the box off the counter when the hand rose."""
    if span <= 0.0:
        return 1.0
    return min(1.0, (span + RELEASE_CLEARANCE) / robot.max_opening)


def _release_at_one_of(robot: Robot, scene: Scene, node: str, hand: str, spots: list[Placement]) -> SkillResult:
    """Try the spots in turn while the object is still in the hand (the arm could not reach
    the last one, or something stopped it before the release)."""
    result = SkillResult(False, f"no spot for {node}")
    for spot in spots:
        result = _release_at(robot, scene, node, hand, spot)
        if result.ok or not robot.holds(hand, node):
            return result
    return result


def place(robot: Robot, scene: Scene, node: str, target: str, relation: str, hand: str) -> SkillResult:
    """puton (relation ON) and putin (relation INSIDE)."""
    spots = scene.place(node, target, relation)
    if not spots:
        return SkillResult(False, f"no free spot {relation} {target} for {node}")
    return _release_at_one_of(robot, scene, node, hand, spots)


def move_aside(robot: Robot, scene: Scene, node: str, hand: str) -> SkillResult:
    spots = scene.aside(node)
    if not spots:
        return SkillResult(False, f"no room to move {node} aside")
    result = grab(robot, scene, node, hand)
    if not result.ok:
        return result
    return _release_at_one_of(robot, scene, node, hand, spots)


def press(robot: Robot, scene: Scene, node: str, hand: str) -> SkillResult:
    top, travel = scene.button_top(node)
    robot.drive_base(scene.work_pose(node, hand, top))
    robot.gripper(hand, 0.0)
    if not robot.move_hand(hand, _up(top, 0.10), 0.0):
        robot.carry(hand)
        return SkillResult(False, f"{node} is out of reach")
    robot.move_hand(hand, _up(top, -travel - 0.006), 0.0, duration=0.4)
    robot.wait(0.1)
    robot.move_hand(hand, _up(top, 0.10), 0.0, duration=0.3)
    robot.carry(hand)
    robot.gripper(hand, 1.0)
    return OK if scene.pressed(node) else SkillResult(False, f"{node} did not click")


def attach(robot: Robot, scene: Scene, part: str, target: str, hand_of: Callable[[str], str | None],
           free_hand: Callable[[], str], keep: bool) -> SkillResult:
    """Join `part` onto `target`. The part is grabbed if needed and set down seated on top of
    the target (held or resting), its offset re-measured and corrected once; the parts snap
    together only when aligned and touching (`Scene.join`). Assisted mode welds them anyway
    when the snap refuses (and says so). Released unless `keep`."""
    assists: tuple[str, ...] = ()
    hand = hand_of(part)
    if hand is None:
        hand = free_hand()
        result = grab(robot, scene, part, hand)
        if not result.ok:
            return result
        assists = result.assists
    upright = held_upright_yaw(robot, scene, part, hand) + scene.yaw(target)
    seat = _seat(scene, part, target)
    grip = seat + robot.hand_position(hand) - scene.center(part)
    if hand_of(target) is None:
        robot.drive_base(scene.work_pose(target, hand, grip))
    # the yaw the scene turns the hand to for room beside the target first, else as held
    for yaw in dict.fromkeys((scene.seat_yaw(part, target, upright), upright)):
        if robot.move_hand(hand, _up(grip, 0.06), yaw):
            break
    else:
        return SkillResult(False, f"cannot bring {part} to {target}", assists)
    robot.move_hand(hand, grip, yaw, duration=0.3, straight=True)
    for _ in range(SEAT_CORRECTIONS):  # measure where the part ended up and correct the hand
        miss = _seat(scene, part, target) - scene.center(part)
        if float(np.linalg.norm(miss)) < SEAT_TOLERANCE:
            break
        robot.move_hand(hand, robot.hand_position(hand) + miss, yaw, duration=0.2, straight=True)
    robot.move_hand(hand, _up(robot.hand_position(hand), -SEAT_PRESS), yaw, duration=0.15)
    refused = scene.join(part, target)
    if refused is not None:
        if scene.assist is None or not scene.assist.weld_parts(part, target):
            robot.carry(hand)
            return SkillResult(False, refused, assists)
        assists += (f"weld parts {part} {target}",)
    if not keep:
        robot.detach(hand)
        _ease_off(robot, scene, part, hand)
        robot.gripper(hand, 1.0)
        robot.move_hand(hand, _up(robot.hand_position(hand), PREGRASP), yaw, duration=0.3)
    robot.carry(hand)
    return SkillResult(True, "", assists)


def _ease_off(robot: Robot, scene: Scene, part: str, hand: str) -> None:
    """Fingers back to the width they hold before they open. A fresh snap holds by its lock
    alone; flung from a full squeeze to wide open, the fingers turned a lipstick stack just
    joined on the vanity onto its side and off the front edge (Cosmetics-16). Also before a
    drop over a container's walls (`_release_at`)."""
    across = robot.hand_yaw(hand) - scene.yaw(part)
    hx, hy = (float(h) for h in scene.half_extents(part)[:2])
    held = 2.0 * (abs(math.cos(across)) * hx + abs(math.sin(across)) * hy)
    robot.gripper(hand, min(1.0, held / robot.max_opening))


def _seat(scene: Scene, part: str, target: str) -> np.ndarray:
    """Where the part's centre is when it sits on top of the target."""
    return _up(scene.center(target), _height(scene, target) / 2 + _height(scene, part) / 2)


def _height(scene: Scene, node: str) -> float:
    return 2.0 * float(scene.half_extents(node)[2])


def walk(robot: Robot, scene: Scene, room: str) -> SkillResult:
    for pose in scene.route(room):
        robot.drive_base(pose)
    here = scene.robot_room()
    return OK if here == room else SkillResult(False, f"base stopped in {here}, not {room}")


def observe(robot: Robot, scene: Scene) -> SkillResult:
    robot.wait(0.05)
    return OK
