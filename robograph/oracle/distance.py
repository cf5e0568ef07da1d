"""The ordered action distance C_distance(G) = C_goal(G) + C_pre(G) of Appendix A.

C_goal counts one goal-directed action per unsatisfied goal fact (a put for INSIDE/ON/IN_ROOM, an
open/close/press/attach/move_aside for OPEN/CLOSED/PRESSED/ASSEMBLED/MOVED_ASIDE, a grab for HELD).
C_pre counts the prerequisites those actions need, each grounded prerequisite once however many
goal facts share it:

* grab(o) for every object that must be placed and is not held (an unassembled whole that must be
  placed needs attach, then grab);
* open(c) for every closed container on the location chain of a node that must be touched, and for
  a closed container something must go into; close(c) again when CLOSED(c) is a goal that the
  open breaks (the paper's closed pencil case: open before putin, close after);
* removing an active occluder of such a chain: move_aside(b), or close(b) when b hides things only
  while open; nothing when b is grabbed anyway;
* navigation: the walks of the ordered route, transports served one at a time in goal order, then
  the remaining rooms that must be touched (see `_walks`).

Unlike the oracle's bound this is a fixed count, not a lower bound: it is what ADR measures progress
against. Paper examples (tests/test_oracle_distance.py): 4, 5 in an adjacent room, 5 when closed.
"""

from __future__ import annotations

from collections.abc import Sequence

from robograph.actions import ACTION_NAMES
from robograph.facts import Goal
from robograph.graph import SceneGraph
from robograph.oracle.heuristic import RoomDistances
from robograph.oracle.model import NOWHERE, S_HA, S_HB, S_OPEN, S_ROOM, Problem, State

Key = tuple[str, int]


def action_distance(graph: SceneGraph, goal: Goal, actions: Sequence[str] = ACTION_NAMES) -> int:
    """C_distance(graph) for `goal` (0 when the goal holds)."""
    problem = Problem.compile(graph, goal, actions, prune=True)
    goal_actions, pre, walks = distance_terms(problem, problem.encode(graph))
    return len(goal_actions) + len(pre - goal_actions) + walks


def distance_terms(p: Problem, s: State) -> tuple[set[Key], set[Key], int]:
    """(goal-directed actions, prerequisite actions, walks), actions as (kind, node index)."""
    held = {h for h in (s[S_HA], s[S_HB]) if h != NOWHERE}
    goal_actions: set[Key] = set()
    pre: set[Key] = set()
    touch: list[int] = []
    closed_goals: set[int] = set()
    pickups: list[tuple[int, int]] = []  # (item, target) transports
    rooms_needed: set[int] = set()
    idx = p.index
    for fact in p.goal:
        a = [idx[x] for x in fact.args]
        if fact.pred == "CLOSED":
            closed_goals.add(a[0])
        if p.holds(s, fact):
            continue
        pred = fact.pred
        if pred in ("INSIDE", "ON", "IN_ROOM", "HELD"):
            o = a[0]
            goal_actions.add(("grab" if pred == "HELD" else "put", o))
            if p.assembly[o] and not p.attr(s, o, "assembled"):
                pre.add(("attach", o))
                touch.extend(x for x in p.parts[o] if x not in held)
                if pred != "HELD":
                    pre.add(("grab", o))
            elif o not in held:
                pre.add(("grab", o))
                touch.append(o)
            if pred in ("INSIDE", "ON"):
                t = a[1]
                if t not in held:
                    touch.append(t)
                    pickups.append((o, t))
                if pred == "INSIDE" and p.openable[t] and not s[S_OPEN] >> t & 1:
                    pre.add(("open", t))
            elif pred == "IN_ROOM":
                rooms_needed.add(a[1])
        elif pred in ("OPEN", "CLOSED", "PRESSED", "MOVED_ASIDE"):
            kind = {"OPEN": "open", "CLOSED": "close", "PRESSED": "press", "MOVED_ASIDE": "move_aside"}[pred]
            goal_actions.add((kind, a[0]))
            touch.append(a[0])
        elif pred == "ASSEMBLED":
            goal_actions.add(("attach", a[0]))
            touch.extend(x for x in p.parts[a[0]] if x not in held)
        elif pred == "ROBOT_IN":
            rooms_needed.add(a[0])

    grabbed = {i for kind, i in goal_actions | pre if kind == "grab"}
    seen: set[int] = set()
    touch_rooms: dict[int, int] = {}
    while touch:
        n = touch.pop()
        if n in seen or n in held:
            continue
        seen.add(n)
        touch_rooms[n] = p.room_of(s, n)
        x = n
        for _ in range(p.n + 1):
            for occ in p.occluders_of[x]:
                if not p.occlusion_active(s, occ) or occ.src in grabbed:
                    continue
                if dict(occ.when).get("open") is True:
                    pre.add(("close", occ.src))
                else:
                    pre.add(("move_aside", occ.src))
                touch.append(occ.src)
            code = p.loc(s, x)
            if code == NOWHERE:
                break
            parent = code >> 2
            if code & 3 == 0 and p.openable[parent] and not s[S_OPEN] >> parent & 1:
                pre.add(("open", parent))
            x = parent
    for c in closed_goals:
        if ("open", c) in pre:
            pre.add(("close", c))
    walks = _walks(p, s, touch_rooms, pickups, rooms_needed)
    return goal_actions, pre, walks


def _walks(p: Problem, s: State, touch_rooms: dict[int, int], pickups: list[tuple[int, int]],
           rooms_needed: set[int]) -> int:
    """Walks of the *ordered* route: transports are served one at a time in goal order (walk to
    the item's room, then to its destination's room), then any other room that must be touched
    or entered, nearest first. This is what makes the distance ordered: it does not batch two
    items per trip the way the optimal plan may, so it can exceed L_o, as the paper's does."""
    start = s[S_ROOM]
    if start == NOWHERE or "walk" not in p.actions:
        return 0
    hops = RoomDistances(p)
    here, walks = start, 0
    served: set[int] = set()
    for item, target in pickups:
        for room in (touch_rooms.get(item, NOWHERE), touch_rooms.get(target, NOWHERE)):
            if room in (NOWHERE, here):
                continue
            walks += hops.get(here, room)
            here = room
            served.add(room)
    served.add(start)
    rest = {r for r in touch_rooms.values() if r != NOWHERE} | rooms_needed
    rest -= served
    while rest:
        room = min(rest, key=lambda r: (hops.get(here, r), r))
        walks += hops.get(here, room)
        here = room
        rest.discard(room)
    return walks

