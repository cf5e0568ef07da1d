"""open / close: drawers, hinged doors, lids and book covers.

Physics mode moves a joint only through contact: the hand pinches the handle and pulls it along
the slide or the arc (waypoints with the grasp held, the hand turning with the leaf, the base
following the handle: a wide door's handle travels further than the arm reaches from one
stance); where the pull stops short, or the handle faces away from the robot (a lid leaning
back), the hand lets go, goes round the leaf's free edge and pushes the leaf along the rest
of its arc. Assisted mode does the same first; where contact left the joint short, it servos
the joint the rest of the way while the hands follow the handles (`Scene.assist`), and says
so in `SkillResult.assists`.

Everything is computed from `Scene.handles` (grip point, approach and closing directions,
axis, pivot): nothing here assumes which way the furniture faces.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from robograph_skills.interface import (
    OK,
    Assist,
    BasePose,
    GripWaypoint,
    Handle,
    PathRobot,
    Robot,
    Scene,
    SkillResult,
)

LID_SWING = math.radians(75)  # a lid (horizontal hinge) is lifted this far with the grasp held (the
# fingers pinching its tab from above met the lid near upright: at 80 deg the pull tipped the box
# back), then pushed on past upright
ARC_STEP = math.radians(6)  # waypoint spacing along an arc
ARC_STEP_SECONDS = 0.12  # s per waypoint along an arc (at least: 50 deg/s; 75 deg/s on the continuous
# path left a pantry leaf where neither hand reached its handle to close it: benchmark FoodPack-I1)
SLIDE_SPEED = 0.25  # drawer pull speed (m/s)
SLIDE_FULL = 0.9  # a drawer is pulled to this fraction of its travel
SLIDE_TOLERANCE = 0.02  # a drawer within this of where it was pulled to got there (m)
PRE_HANDLE = 0.10  # the hand lines up this far in front of a handle before going onto it (m)
AWAY_MIN = 0.5  # length of the way off a handle below which the hand backs straight off it (of 1 at right angles)
CENTRE_TRIES = 2  # re-measure the grip point against the handle and correct this often ...
CENTRE_TOLERANCE = 0.004  # ... until within this (m): one finger on the bar before the other pushed it
CENTRE_MAX = 0.03
FINGER_CLEAR = 0.03  # open fingers: this much wider than the handle (m)
BACK_OFF = 0.15  # m: a hand that shut a door backs this far straight off it
CLEAR = 0.08  # going round a leaf's free edge: this far clear of it (m)
PUSH_OFFSET = 0.035  # a pushing hand's grip point aims this far off the face it pushes (m):
# about the palm's half width, so the palm's side presses it
PUSH_LEAD = math.radians(6)  # the pushing hand aims this far ahead of the leaf
PUSH_ROUNDS = 3  # a push that runs out of reach goes on from a new base pose, this often in all
PUSH_PROGRESS = math.radians(5)  # ... while the last round moved the leaf at least this far
PUSH_RADIUS = 1.0  # push at this fraction of the handle's distance from the axis (nearer the
# hinge: a shorter path for the arm, plenty of lever for a light leaf)
STANCE_BACK = 0.4  # m: regrasping, the shoulder lines up with a point this far behind the handle
PULLS = 4  # a hinge is taken and pulled at most this often
DOOR_OPEN_ENOUGH = 0.9  # a leaf pulled open past this fraction of its travel is left there
# (kitchen doors stop at 120 deg: this is 108 deg, three pulls; the handle still faces the robot)
DOOR_PULL_TO = 0.95  # a door is pulled with the base following to this fraction of its travel
DONE = 0.6  # a hand is done opening at this fraction of the travel (else the other hand tries) ...
SHUT = 0.15  # ... and closing at this one; success itself is the world's reading (Scene.is_open)
HANDLE_PITCH = math.radians(60)  # assisted: handle approach 30 deg below horizontal
HANDLE_STANDOFF = 0.03  # assisted: the hand follows this far in front of the handle
FOLLOW_STEPS = 5  # assisted: servo set points along the travel
FOLLOW_SETTLE = 0.05  # s the joint moves toward each set point before the hands follow: followed at
# once, a hand 3 cm in front of a pencil case's rising tab met it and the servo tipped the case off
# the desk instead (Desk-1, with the book in front of the case 6 cm over the desk's edge)
DOWN = np.array([0.0, 0.0, -1.0])  # world z is up (robograph_skills.interface)


def rotate(v: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    """`v` turned by `angle` about the unit vector `axis` (Rodrigues)."""
    v = np.asarray(v, dtype=float)
    k = np.asarray(axis, dtype=float)
    c, s = math.cos(angle), math.sin(angle)
    return v * c + np.cross(k, v) * s + k * float(k @ v) * (1.0 - c)


def articulate(robot: Robot, scene: Scene, node: str, opening: bool) -> SkillResult:
    """By contact first; in assisted mode the joint is servoed the rest of the way only where
    contact left it short, so a help is used (and named) only where physics needed it. Servoed
    from the start, the assisted controller lost what contact wins: the hands following a
    storage bag's handles knocked it over, and a mini fridge's heavy lid rose only 34 %."""
    handles = scene.handles(node)
    if not handles:
        return SkillResult(False, f"{node} has no handle")
    result = _by_contact(robot, scene, node, handles, opening)
    assist = scene.assist
    if assist is None:
        return result
    now = scene.handles(node)  # as they are after contact (the leaves have moved)
    if result.ok and all(_done(h, opening) for h in now):
        return result
    # short of where the motion aims, even where the reading already agrees: a lunch box's lid
    # left at 54 deg by contact read closed at 49.9 % and open at 50.3 % one step later (MuJoCo
    # FoodPack-I8, assisted)
    robot.drive_base(scene.work_pose(node, None))
    served = _servo_with_hands_following(robot, scene, assist, node, scene.handles(node), opening)
    why = f"{served.message} (by contact first: {result.message})" if not served.ok else ""
    return replace(served, message=why, retries=result.retries + 1)


def _by_contact(robot: Robot, scene: Scene, node: str, handles: list[Handle], opening: bool) -> SkillResult:
    messages: list[str] = []
    retries = 0
    for first, handle in assign_hands(robot, handles, opening):
        # the preferred hand first; when it misses (out of reach, slipped), the other hand
        # tries from where the leaf now is
        for hand in [first, *(h for h in robot.hands if h != first)]:
            handle = scene.handle(handle.name)  # as it is now (a leaf may have moved)
            if not _is_door(handle):  # a door's stance comes from its handle's approach (_swing):
                # a stance in front of a leaf open 114 deg put the carried hand into it
                robot.drive_base(scene.work_pose(node, hand, handle.position, operate=True))
                handle = scene.handle(handle.name)
            else:  # the idle arms fold in, out of every leaf's sweep while the base follows
                # the handle (in its carry pose one knocked the other leaf from 100 to 54 deg)
                for idle in robot.hands:
                    if idle != hand:
                        robot.tuck(idle)
            result = _slide(robot, scene, hand, handle, opening) if handle.kind == "slide" else \
                _swing(robot, scene, node, hand, handle, opening)
            robot.carry(hand)
            if result.ok or _done(scene.handle(handle.name), opening):
                break
            messages.append(result.message)
            retries += 1
    robot.wait(0.2)  # a pushed leaf comes to rest (a lid past its balance point falls open)
    return replace(_check(scene, node, opening, messages), retries=retries)


def _done(h: Handle, opening: bool) -> bool:
    """Whether a leaf or drawer got where the motion aims (another hand tries otherwise)."""
    return h.opening >= DONE * h.travel if opening else h.opening <= SHUT * h.travel


def _is_door(h: Handle) -> bool:
    """A leaf on a vertical hinge (a door), as opposed to a lid or a book cover."""
    return h.kind == "hinge" and abs(float(h.axis @ DOWN)) > 0.7


def _check(scene: Scene, node: str, opening: bool, messages: list[str],
           assists: tuple[str, ...] = ()) -> SkillResult:
    """The skill's own verdict is the world's reading (`Scene.is_open`, the threshold
    reconcile uses), not the motion's aims (`DONE`, `SHUT`): a close that left a fridge 19 %
    open reported a failure the graph then read as closed."""
    frac = scene.open_fraction(node)
    why = f" ({'; '.join(messages)})" if messages else ""
    if scene.is_open(node) != opening:
        what = f"opened only {frac:.0%}" if opening else f"still {frac:.0%} open"
        return SkillResult(False, f"{node} {what}{why}", assists)
    return SkillResult(True, "", assists)


def assign_hands(robot: Robot, handles: list[Handle], opening: bool = True) -> list[tuple[str, Handle]]:
    """Each handle to a different hand, the pairing with the lower total cost (`_cost`)."""
    hands = list(robot.hands)
    if len(handles) == 1 or len(hands) == 1:
        best = min(hands, key=lambda hand: _cost(robot, hand, handles[0], opening))
        return [(best, h) for h in handles]
    a, b = hands[0], hands[1]
    h0, h1 = handles[0], handles[1]
    straight = _cost(robot, a, h0, opening) + _cost(robot, b, h1, opening)
    crossed = _cost(robot, a, h1, opening) + _cost(robot, b, h0, opening)
    pairs = [(a, h0), (b, h1)] if straight <= crossed else [(a, h1), (b, h0)]
    return pairs + [(pairs[-1][0], h) for h in handles[2:]]


def _cost(robot: Robot, hand: str, h: Handle, opening: bool) -> float:
    """A drawer: the nearer hand. A door: the hand on the leaf's own side. A lid or cover
    whose grip turns with it: the hand on the side the grip turns toward as it swings."""
    offset = robot.hand_position(hand) - h.position
    if _is_door(h):  # the hand on the leaf's own side (nearer its hinge): with the base following
        # the handle, it swung a fridge leaf 0 -> 114 deg and back in one pull each way; the
        # other hand's wrist ran out of range at 95 deg
        # (squared: summed over two leaves, plain distances tie when the base stands aside)
        return float(np.sum((robot.hand_position(hand) - h.pivot)[:2] ** 2))
    if h.kind == "slide" or not _turns(h):
        return float(np.linalg.norm(offset[:2]))
    del opening  # the same hand both ways: it works the same arc
    turn = rotate(h.approach, h.axis, LID_SWING) - h.approach
    return -float(offset[:2] @ turn[:2])


def _turns(h: Handle) -> bool:
    """Whether the hand turns with the leaf: fingers closing along the hinge axis hold the
    handle like a pin instead (the leaf turns between them: a lid's tab)."""
    return abs(float(h.closing @ h.axis)) < 0.9


def take_handle(robot: Robot, scene: Scene, hand: str, h: Handle) -> SkillResult:
    """Line up in front of the handle, go onto it and close the fingers; the hold is checked
    by contact (both fingers on the handle's part)."""
    width = min(1.0, (h.span + FINGER_CLEAR) / robot.max_opening)
    robot.gripper(hand, width)
    if not robot.move_grip(hand, h.position - h.approach * PRE_HANDLE, h.approach, h.closing, duration=0.4):
        return SkillResult(False, f"handle {h.name} is out of reach of the {hand} hand")
    robot.move_grip(hand, h.position, h.approach, h.closing, duration=0.3, straight=True)
    for _ in range(CENTRE_TRIES):  # centre the fingers on the bar (IK and tracking leave ~1 cm)
        miss = h.position - robot.hand_position(hand)
        if float(np.linalg.norm(miss)) < CENTRE_TOLERANCE:
            break
        if float(np.linalg.norm(miss)) > CENTRE_MAX:  # stopped by something: not a tracking error
            break
        robot.move_grip(hand, robot.hand_position(hand) + miss, h.approach, h.closing, duration=0.15)
    robot.gripper(hand, 0.0)
    if not scene.hand_on(hand, h.name):
        robot.gripper(hand, width)
        return SkillResult(False, f"no hand on the handle {h.name}")
    return OK


def _let_go(robot: Robot, hand: str, h: Handle, approach: np.ndarray, closing: np.ndarray,
            ahead: np.ndarray | None = None) -> None:
    """Open the fingers and back off the handle; `ahead`: also move along the way the leaf
    was going (backing straight off a door's bar, a finger and then the palm dragged it
    back 0.1 rad: touching it on the way ahead only helps). Straight back where that way is
    the way the hand points: a lid's tab pressed shut from above, (ahead - approach) was nil;
    the hand stayed on the tab, closed its fingers round it again for the push and pulled the
    makeup box off the vanity (Cosmetics-13). (Backing off along -approach plus only the part
    of ahead across it everywhere changed how doors and lids were left: Desk-7, -13, Fridge-T2
    and Cosmetics-11 lost on the benchmark.)"""
    robot.gripper(hand, min(1.0, (h.span + FINGER_CLEAR) / robot.max_opening) if ahead is None else 1.0)
    away = -approach if ahead is None else (ahead - approach) / math.sqrt(2.0)
    if float(np.linalg.norm(away)) < AWAY_MIN:
        away = -approach
    robot.move_grip(hand, robot.hand_position(hand) + away * PRE_HANDLE, approach, closing, duration=0.25,
                    straight=True)


def _slide(robot: Robot, scene: Scene, hand: str, h: Handle, opening: bool) -> SkillResult:
    """Pinch the drawer's bar and pull (push) it along the slide."""
    # pulled to 90 % of the travel: the last centimetres of a drawer run into its stop, and a
    # hand pulling on slid off the bar
    dist = (h.travel * SLIDE_FULL if opening else 0.0) - h.opening
    if abs(dist) < 0.01:
        return OK
    taken = take_handle(robot, scene, hand, h)
    if not taken.ok:
        return taken
    end = h.position + h.axis * dist
    robot.move_grip(hand, end, h.approach, h.closing, duration=max(0.4, abs(dist) / SLIDE_SPEED), straight=True)
    held = scene.hand_on(hand, h.name)
    _let_go(robot, hand, h, h.approach, h.closing)
    if not held and abs(scene.handle(h.name).opening - (h.opening + dist)) > SLIDE_TOLERANCE:
        return SkillResult(False, f"the handle {h.name} slipped out of the {hand} hand")
    return OK


FACING = 0.75  # a handle whose approach points less than this toward the robot can be taken
# (a door leaf at its 126 deg stop: 0.51; with the base following it is pulled shut from there)


def _faces_robot(scene: Scene, node: str, h: Handle) -> bool:
    """Whether the handle can be taken from the robot's side: its approach points away from
    the robot (a leaf folded back or leaning away shows the robot its back)."""
    return float(h.approach @ scene.outward(node)) < FACING


def _swing(robot: Robot, scene: Scene, node: str, hand: str, h: Handle, opening: bool) -> SkillResult:
    """Pull a hinged leaf with the grasp held while the base follows the handle: a door all
    the way in one pull, a lid until the fingers would meet it near upright; when a pull
    stops short (the grip slipped, out of reach), let go and take the handle again where it
    now is, while it faces the robot; a leaf open far enough is left there; what is left is
    pushed."""
    goal = h.travel if opening else 0.0
    if abs(goal - h.opening) < 0.03:
        return OK
    sign = 1.0 if goal > h.opening else -1.0
    pulled: tuple[np.ndarray, np.ndarray] | None = None  # the hand's last frame on the handle
    # the base follows the handle (whole-body): a door's and a lid's handle travel further
    # than the arm reaches from one stance
    door = _is_door(h)
    follow = _door_stance(scene, node, hand) if door else _lid_stance(scene, node, hand)
    for pull in range(PULLS):
        if not _faces_robot(scene, node, h) or _enough(h, opening):
            break
        if pull and not door:  # off the lid before the base moves: the base rising with the
            # hand still at a lid's tab tipped the lunch box over toward the robot
            robot.carry(hand)
        if pull or door:  # a door: the shoulder behind the handle along its approach, where
            # it is now; the hand stays on the handle's side of the leaf (on its way to the
            # carry pose it crossed the leaf and pushed the door 15 deg back)
            robot.drive_base(follow(h.position, h.approach))
            h = scene.handle(h.name)
        taken = take_handle(robot, scene, hand, h)
        if not taken.ok:
            return taken
        # a lid lifted past upright falls open on its own; a door is pulled to where it is
        # left open (pulled on into its stop, the fingers slid off the bar)
        end = min(goal, DOOR_PULL_TO * h.travel) if opening and door else goal
        limit = abs(end - h.opening) if door else LID_SWING
        approach, closing = pull_hinge(robot, hand, h, sign * min(abs(end - h.opening), limit), follow)
        pulled = approach, closing
        held = scene.hand_on(hand, h.name)
        grip = robot.hand_position(hand)
        ahead = sign * np.cross(h.axis, grip - h.pivot)
        _let_go(robot, hand, h, approach, closing, ahead / max(float(np.linalg.norm(ahead)), 1e-9))
        if not opening:  # straight back off the shut leaf: swinging to its carry pose from
            # there, the hand hooked the other leaf's bar and pulled it 13 deg open
            back = approach - DOWN * float(approach @ DOWN)
            robot.move_grip(hand, robot.hand_position(hand) - back * BACK_OFF, approach, closing,
                            duration=0.25, straight=True)
        if not held:
            return SkillResult(False, f"the handle {h.name} slipped out of the {hand} hand")
        before, h = h.opening, scene.handle(h.name)
        if abs(goal - h.opening) < 0.03 or abs(h.opening - before) < PUSH_PROGRESS:
            break
    if abs(goal - h.opening) < 0.03 or _enough(h, opening):
        if pulled is not None:
            _clear_edge(robot, hand, h, *pulled)
        return OK
    for other in robot.hands:  # the hand goes round the leaf's edge, toward the middle of the base
        if other != hand:
            robot.stow(other)
    result = SkillResult(False, f"{h.name} was not pushed")
    for push in range(PUSH_ROUNDS):
        if push:  # stand where the arm reaches the middle of the arc still to go
            robot.carry(hand)
            middle = h.pivot + rotate(h.position - h.pivot, h.axis, (goal - h.opening) / 2)
            robot.drive_base(scene.work_pose(node, hand, middle, operate=True))
        result = _push(robot, scene, hand, h, opening, goal - h.opening)
        before, h = h.opening, scene.handle(h.name)
        if abs(goal - h.opening) < 0.03 or abs(h.opening - before) < PUSH_PROGRESS:
            break
    return result


def _clear_edge(robot: Robot, hand: str, h: Handle, approach: np.ndarray, closing: np.ndarray) -> None:
    """Move the hand out past the leaf's free edge, on the side it is on: going straight to
    its carry pose it crossed the leaf and pushed a door 15 deg back. Off a leaf lying flat
    (a shut lid: a horizontal hinge, the hand level with it) that is straight up: out past a
    pencil case's shut lid, the fingers swept 10 cm toward the arms at the tab's height and
    dragged the book in front of the case 5 cm over the desk's edge (Desk-14)."""
    p = robot.hand_position(hand)
    radial = p - h.pivot
    radial = radial - h.axis * float(radial @ h.axis)
    r = float(np.linalg.norm(radial))
    if h.kind == "slide" or r < 1e-6 or r >= h.tip + CLEAR:
        return
    out = radial / r
    if abs(float(h.axis @ DOWN)) < 0.5 and abs(float(out @ DOWN)) < 0.5:
        out = -DOWN
    robot.move_grip(hand, p + out * (h.tip + CLEAR - r), approach, closing, duration=0.3, straight=True)


def _enough(h: Handle, opening: bool) -> bool:
    """A door pulled open this far is left there: the last degrees up to the hinge's stop
    would cost another re-grasp and base step for nothing the world reads differently."""
    return opening and h.opening >= DOOR_OPEN_ENOUGH * h.travel


def pull_hinge(robot: Robot, hand: str, h: Handle, angle: float,
               stance: Callable[[np.ndarray, np.ndarray], BasePose] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Move a hand holding `h` along the leaf's arc by `angle` (waypoints, the hand turning
    with the leaf) as far as the arm reaches; returns the hand's last approach and closing
    directions. Whether the leaf came along is up to the fingers' grip. `stance(grip point,
    approach)`: where the base stands for each waypoint; the base then follows the handle
    (whole-body: a wide leaf's handle travels further than the arm reaches from one stance)."""
    n = max(1, math.ceil(abs(angle) / ARC_STEP))
    turn = _turns(h)

    def waypoint(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        phi = angle * k / n
        a, c = (rotate(h.approach, h.axis, phi), rotate(h.closing, h.axis, phi)) if turn else (h.approach, h.closing)
        return h.pivot + rotate(h.position - h.pivot, h.axis, phi), a, c

    if isinstance(robot, PathRobot):  # one continuous motion along the arc, settled at its end
        path: list[GripWaypoint] = []
        for k in range(1, n + 1):
            p, a, c = waypoint(k)
            path.append((p, a, c, stance(p, a) if stance is not None else None))
        reached = robot.move_grip_path(hand, path, duration=ARC_STEP_SECONDS)
        return (path[reached - 1][1], path[reached - 1][2]) if reached else (h.approach, h.closing)
    approach, closing = h.approach, h.closing
    for k in range(1, n + 1):  # one settled move per waypoint
        p, a, c = waypoint(k)
        base = stance(p, a) if stance is not None else None
        if not robot.move_grip(hand, p, a, c, duration=ARC_STEP_SECONDS, base=base):
            break
        approach, closing = a, c
    return approach, closing


def _lid_stance(scene: Scene, node: str, hand: str) -> Callable[[np.ndarray, np.ndarray], BasePose]:
    """Base pose for a hand on a lid's tab at `point`: where that hand works on the point (a
    lid lifted past 70 deg took its tab out of reach of the arm from the first stance)."""
    def stance(point: np.ndarray, approach: np.ndarray) -> BasePose:
        del approach
        return scene.work_pose(node, hand, point, operate=True)
    return stance


def _door_stance(scene: Scene, node: str, hand: str) -> Callable[[np.ndarray, np.ndarray], BasePose]:
    """Base pose for a hand on a door's handle at `point` with fingers along `approach`: the
    shoulder behind the handle along its approach (in line with the handle, the wrist folded
    into the forearm as the approach turned), clear of the leaf's sweep (`Scene.work_pose`)."""
    def stance(point: np.ndarray, approach: np.ndarray) -> BasePose:
        back = approach - DOWN * float(approach @ DOWN)
        return scene.work_pose(node, hand, point - back * STANCE_BACK, operate=True)
    return stance


def _push(robot: Robot, scene: Scene, hand: str, h: Handle, opening: bool, angle: float) -> SkillResult:
    """Push the leaf's trailing face (opening: its back, closing: its front) along the arc by
    `angle` with the side of the hand, pointing along the leaf toward the hinge, its fingers
    closing along the hinge axis (the palm's long side then lies along the leaf)
    (its forearm then stays beyond the free edge; pointing down, the wrist hit the leaf of a
    door open 30 deg); reached round the free edge when the hand is on the other side."""
    normal = -h.face if opening else h.face  # out of the pushed face, toward the hand
    point = h.position - h.face * (h.behind if opening else h.front)
    radial = point - h.pivot
    radial = radial - h.axis * float(radial @ h.axis)
    r = float(np.linalg.norm(radial))
    u = radial / r
    base = point - radial  # on the axis, level with the handle
    robot.gripper(hand, 0.0)
    hand_side = float((robot.hand_position(hand) - point) @ normal)
    path = []
    if hand_side < 0.0:  # round the free edge, clear of it
        around = base + u * (h.tip + CLEAR)
        path += [around - normal * CLEAR, around + normal * CLEAR]
    path.append(base + u * r * PUSH_RADIUS + normal * CLEAR)
    for p in path:
        if not robot.move_grip(hand, p, -u, h.axis, duration=0.3):
            return SkillResult(False, f"the {hand} hand cannot reach round {h.name}")
    n = max(1, math.ceil(abs(angle) / ARC_STEP))
    sign = 1.0 if angle > 0 else -1.0
    pushed = False
    nk, uk = normal, u
    for k in range(0, n + 1):
        phi = angle * k / n + sign * PUSH_LEAD
        nk, uk = rotate(normal, h.axis, phi), rotate(u, h.axis, phi)
        if not robot.move_grip(hand, base + uk * r * PUSH_RADIUS + nk * PUSH_OFFSET, -uk, h.axis, duration=0.12):
            break
        pushed = pushed or scene.touches(hand, h.name)
    robot.move_grip(hand, robot.hand_position(hand) + nk * CLEAR, -uk, h.axis, duration=0.2)
    return OK if pushed else SkillResult(False, f"the {hand} hand never touched {h.name}")


def _servo_with_hands_following(robot: Robot, scene: Scene, assist: Assist, node: str, handles: list[Handle],
                                opening: bool) -> SkillResult:
    """Assisted: the joint servo moves while the hands follow the handles (the hands do not
    need to hold them)."""
    target = 1.0 if opening else 0.0
    start = scene.open_fraction(node)
    out = scene.outward(node)
    approach = -out * math.sin(HANDLE_PITCH) + DOWN * math.cos(HANDLE_PITCH)
    closing = np.cross(out, -DOWN)
    follow: list[tuple[str, str]] = []
    pairs = assign_hands(robot, handles, opening)
    for hand, h in pairs:
        robot.gripper(hand, 1.0)
        if robot.move_grip(hand, h.position + out * 0.10, approach, closing, duration=0.4) and \
                robot.move_grip(hand, h.position + out * HANDLE_STANDOFF, approach, closing, duration=0.3):
            follow.append((hand, h.name))
    for k in range(1, FOLLOW_STEPS + 1):
        assist.servo(node, start + (target - start) * k / FOLLOW_STEPS)
        robot.wait(FOLLOW_SETTLE)
        still = []
        for hand, name in follow:
            if robot.move_grip(hand, scene.handle(name).position + out * HANDLE_STANDOFF, approach, closing,
                               duration=0.12):
                still.append((hand, name))
        follow = still
        if not follow:
            break
    for hand, _ in pairs:
        robot.move_grip(hand, robot.hand_position(hand) + out * 0.12 - DOWN * 0.03, approach, closing, duration=0.25)
        robot.carry(hand)
    assist.servo(node, target)
    for _ in range(6):
        robot.wait(0.15)
        if abs(scene.open_fraction(node) - target) < 0.05:
            break
    assist.release_servo(node)
    robot.wait(0.15)  # without the servo: a lid resting on a too-tall content springs back up
    return _check(scene, node, opening, [], assists=(f"servo {node}",))
