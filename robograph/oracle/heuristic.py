"""An admissible, domain-aware lower bound on the number of actions still needed.

The bound is a sum of *disjoint* counts: every counted action is identified by its kind and its
subject (first argument), e.g. ("grab", pen) or ("open", drawer_1), each identified action must
occur in every plan from the state, and no plan action is identified twice. So the sum never
exceeds the plan length. docs/oracle.md gives the argument for each term:

* put(o): a placement goal INSIDE/ON(o, t) is unmet (only puton/putin(o, .) establishes it).
* grab(o): o must be placed, held or carried to a room and is not held now (put needs o held).
  An unassembled whole is exempt: attach can put it straight into a hand or onto a support.
* attach(w): ASSEMBLED(w) is unmet, or an unassembled w must be placed or held.
* press(o), move_aside(o), open(c), close(c) for unmet PRESSED / MOVED_ASIDE / OPEN / CLOSED goals.
* open(c): c is closed and something must be put into c, or c sits on the location chain (INSIDE
  link) of a node that must be accessed: a node in a closed container can only leave it by being
  grabbed, which needs it reachable, so c is opened before that node is first touched.
* close(c): CLOSED(c) is a goal and c is open now or must be opened.
* unblock(b): b actively occludes a node on such a chain and no other term counts an action on b;
  some action on b (move_aside, grab, open, close or press) must remove the occlusion.
* a second grab and put of o when o must go INSIDE c and c, while open, hides o's spot (the
  Figure 3 drawers): see `_self_blocking`; likewise when o lies in a container that, while open,
  hides o's target (an I4 relocation into the drawer above the right one): see `_hides_target`;
  likewise when o is held and must go INSIDE a closed c (open needs both hands free).
* a reopen of c (and a second close if CLOSED(c) is a goal) when c is open now, something must still
  go INSIDE c, and c, while open, hides a node that must be touched before that item can be
  grabbed (an I5 blocker behind an open box the blocked item belongs in): see `_needs_reopen`.
* walks: max of (rooms to enter), (distance to the farthest such room) and, per pair of rooms
  (s, t), the cost of bringing the m items that must go from s to targets in t: shuttling them two
  at a time, d(cur, s) + d(s, t) + (ceil(m / 2) - 1) * 2 d(s, t), or, for targets that can move,
  carrying the target instead at the price of the grabs and puts that emptying and moving it needs
  and no other term counts (`_shuttle_bound`).
"""

from __future__ import annotations

import itertools
from collections import deque

from robograph.oracle.model import NOWHERE, S_ASSEMBLED, S_HA, S_HB, S_OPEN, S_ROOM, Occlusion, Problem, State


class RoomDistances:
    """All-pairs walk distances between rooms (BFS over ADJACENT); unknown pairs are absent."""

    def __init__(self, problem: Problem) -> None:
        self.dist: dict[tuple[int, int], int] = {}
        for r in problem.rooms:
            seen = {r: 0}
            queue = deque([r])
            while queue:
                x = queue.popleft()
                for y in problem.adjacent[x]:
                    if problem.is_room[y] and y not in seen:
                        seen[y] = seen[x] + 1
                        queue.append(y)
            for y, d in seen.items():
                self.dist[(r, y)] = d

    def get(self, a: int, b: int) -> int:
        return self.dist.get((a, b), 0)


_CHANGEABLE = frozenset({"open", "pressed", "moved_aside"})


def _fixed_room(p: Problem, s: State, t: int) -> int:
    """Room of t if neither t nor anything it stands in can ever move, else NOWHERE."""
    if t in p.slot:
        return NOWHERE
    code = p.initial_loc[t]
    while code != NOWHERE:
        a = code >> 2
        if p.is_room[a]:
            return a
        if a in p.slot:
            return NOWHERE
        code = p.initial_loc[a]
    return NOWHERE


def _self_blocking(p: Problem, s: State, locs: list[int], o: int, c: int) -> bool:
    """True when o must go INSIDE c but c, while open, hides o where o is now (Figure 3: the open
    first drawer hides the second). putin(o, c) needs c open and o held; open(c) needs two free
    hands, so c's last opening precedes o's last grab, and at that grab c is open. If c can never
    stop hiding o's spot (c cannot be moved aside or grabbed, and nothing between o and the hidden
    node can move), o must already have left that spot: one more grab and one more put of o."""
    if p.movable[c] or p.grabbable[c] or not p.openable[c]:
        return False
    x = o
    for _ in range(p.n + 1):
        for occ in p.occluders_of[x]:
            if occ.src == c and occ.when == (("open", True),):
                return True
        code = locs[x]
        if code == NOWHERE:
            return False
        x = code >> 2
        if x in p.slot:
            return False
    return False


def _hides_target(p: Problem, s: State, locs: list[int], o: int, t: int, held: set[int]) -> bool:
    """True when a container c that, while open, hides o's target t forces a second grab and put
    of o (an I4 relocation into the drawer above the right one). Neither c nor t can move, so
    putting o into or onto t needs c closed, and close needs two free hands. If o lies directly
    INSIDE c, it leaves c only by a grab, which needs c open; if o is held while c is open, the
    same holds from now on. Either way o must be put down elsewhere (t is hidden all the while)
    and grabbed again before the put on t."""
    if t in p.slot:
        return False
    if o in held:
        return any(_static_hider(p, occ) and s[S_OPEN] >> occ.src & 1 for occ in p.occluders_of[t])
    code = locs[o]
    if code == NOWHERE or code & 3 != 0:
        return False
    c = code >> 2
    return c != t and any(occ.src == c and _static_hider(p, occ) for occ in p.occluders_of[t])


def _needs_reopen(p: Problem, s: State, locs: list[int], o: int, c: int) -> bool:
    """True when the open container c, while open, hides a node on o's access path (o, the active
    blockers of o and of its location chain, theirs in turn). Every such node is touched before o
    is grabbed, hence with c closed, and o goes INSIDE c later, with c open again: c must be closed
    and reopened (c cannot move, so closing is the only way to lift its occlusion)."""
    todo, seen = [o], set()
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        for _ in range(p.n + 1):
            for occ in p.occluders_of[x]:
                if not p.occlusion_active(s, occ):
                    continue
                if occ.src == c and _static_hider(p, occ):
                    return True
                if all(k in _CHANGEABLE for k, _ in occ.when):
                    todo.append(occ.src)
            code = locs[x]
            if code == NOWHERE:
                break
            x = code >> 2
    return False


def _static_hider(p: Problem, occ: Occlusion) -> bool:
    """The occlusion holds exactly while its source is open, and the source can never move."""
    c = occ.src
    return (occ.when == (("open", True),) and c not in p.slot and not p.movable[c] and not p.grabbable[c]
            and p.openable[c])


def estimate(p: Problem, s: State, rooms: RoomDistances | None = None) -> int:
    """The admissible bound for state s (0 exactly when nothing the bound tracks is missing)."""
    ha, hb = s[S_HA], s[S_HB]
    held = {h for h in (ha, hb) if h != NOWHERE}
    locs = p.locs(s)
    open_mask = s[S_OPEN]
    assembled_mask = s[S_ASSEMBLED]
    nav = s[S_ROOM] != NOWHERE and rooms is not None
    grab: set[int] = set()
    put: set[int] = set()
    opened: set[int] = set()
    closed: set[int] = set()
    press: set[int] = set()
    attach: set[int] = set()
    aside: set[int] = set()
    access: set[int] = set()
    closed_goals: set[int] = set()
    rooms_needed: set[int] = set()
    shuttles: dict[tuple[int, int], list[int]] = {}  # room pair -> movable target or NOWHERE per item
    whole_puts: list[tuple[int, ...]] = []
    whole_grabs: list[tuple[int, ...]] = []
    twice = 0  # items that need a second grab and a second put (see _self_blocking)
    refill: list[tuple[int, int]] = []  # (item, open container it must go into), see _needs_reopen
    openable, assembly, parts = p.openable, p.assembly, p.parts

    def need_parts(w: int) -> None:
        attach.add(w)
        ps = parts[w]
        if len(ps) == 2:
            access.update(x for x in ps if x not in held)

    for pred, a, b in p.goal_codes:
        if pred == "CLOSED":
            closed_goals.add(a)
        if p.holds_code(s, locs, pred, a, b):
            continue
        if pred == "INSIDE" or pred == "ON":
            o, t = a, b
            if assembly[o] and not assembled_mask >> o & 1:
                need_parts(o)
                goal_code = t * 4 + (0 if pred == "INSIDE" else 1)
                if not any(locs[q] == goal_code for q in parts[o]):
                    # attach can only place the whole where a part already is: some put (of the
                    # whole or a part) and some grab (of the whole or a part) must happen
                    group = (o, *parts[o])
                    whole_puts.append(group)
                    if not any(q in held for q in group):
                        whole_grabs.append(group)
            else:
                put.add(o)
                if o not in held:
                    grab.add(o)
                    access.add(o)
                    if nav:
                        src, dst = p.room_in(s, locs, o), _fixed_room(p, s, t)
                        mover = NOWHERE
                        if dst == NOWHERE and t in p.slot and t not in held:
                            # a movable target whose own support is fixed: it may come to the item
                            code = locs[t]
                            if code != NOWHERE and (code >> 2 not in p.slot):
                                dst, mover = p.room_in(s, locs, t), t
                        if src != NOWHERE and dst != NOWHERE and src != dst:
                            shuttles.setdefault((src, dst), []).append(mover)
            if t not in held:
                access.add(t)
            if pred == "INSIDE" and openable[t]:
                if not open_mask >> t & 1:
                    opened.add(t)
                elif o not in held:
                    refill.append((o, t))
            if o in put and ((pred == "INSIDE" and o not in held and _self_blocking(p, s, locs, o, t))
                             or (pred == "INSIDE" and o in held and openable[t] and not open_mask >> t & 1)
                             or _hides_target(p, s, locs, o, t, held)):
                # (the middle case: o is held but t is closed, and open(t) needs both hands free,
                # so o is set down elsewhere and grabbed again before it goes in)
                twice += 1
        elif pred == "HELD":
            if assembly[a] and not assembled_mask >> a & 1:
                need_parts(a)
            else:
                grab.add(a)
                access.add(a)
        elif pred == "IN_ROOM":
            rooms_needed.add(b)
            if assembly[a] and not assembled_mask >> a & 1:
                need_parts(a)
            elif a not in held:
                grab.add(a)
                access.add(a)
        elif pred == "OPEN":
            opened.add(a)
            access.add(a)
        elif pred == "CLOSED":
            closed.add(a)
            access.add(a)
        elif pred == "PRESSED":
            press.add(a)
            access.add(a)
        elif pred == "ASSEMBLED":
            need_parts(a)
        elif pred == "MOVED_ASIDE":
            aside.add(a)
            access.add(a)
        elif pred == "ROBOT_IN":
            rooms_needed.add(a)

    # location chains of everything that must be touched (blockers must be touched too)
    blockers: dict[int, bool] = {}  # blocker -> some blocking edge is attribute-conditioned
    todo = list(access)
    seen: set[int] = set()
    occluders_of = p.occluders_of
    while todo:
        n = todo.pop()
        if n in seen or n in held:
            continue
        seen.add(n)
        if nav:
            room = p.room_in(s, locs, n)
            if room != NOWHERE:
                rooms_needed.add(room)
        x = n
        for _ in range(p.n + 1):
            for occ in occluders_of[x]:
                if p.occlusion_active(s, occ) and all(k in _CHANGEABLE for k, _ in occ.when):
                    if occ.src not in blockers:
                        blockers[occ.src] = bool(occ.when)
                        todo.append(occ.src)
                    elif occ.when:
                        blockers[occ.src] = True
            code = locs[x]
            if code == NOWHERE:
                break
            parent = code >> 2
            if code & 3 == 0 and openable[parent] and not open_mask >> parent & 1:
                opened.add(parent)
            x = parent
    for c in closed_goals:
        if c in opened:
            closed.add(c)
    # "some put / some grab of the whole or one of its parts" slots; covered members are
    # remembered so that no other slot can claim the same action
    put_cover, grab_cover = set(put), set(grab)
    extra = 0
    for group in whole_puts:
        if not put_cover.intersection(group):
            extra += 1
            put_cover.update(group)
    for group in whole_grabs:
        if not grab_cover.intersection(group):
            extra += 1
            grab_cover.update(group)
    # an unconditional occlusion only yields to move_aside(b) or grab(b); a conditional one also to
    # an attribute change of b (open, close, press)
    for b, conditional in blockers.items():
        if b in grab_cover or b in aside:
            continue
        if conditional and (b in opened or b in closed or b in press):
            continue
        extra += 1
    reopened = {c for o, c in refill if c not in opened and _needs_reopen(p, s, locs, o, c)}
    # the reopen itself, and the first close when the goal's close (counted in `closed`) comes last;
    # without a CLOSED goal the first close is the blocker term's action on c
    extra += sum(1 + (c in closed_goals) for c in reopened)
    total = len(grab) + len(put) + len(opened) + len(closed) + len(press) + len(attach) + len(aside) + extra
    total += 2 * twice
    cur = s[S_ROOM]
    if nav and rooms is not None:
        others = rooms_needed - {cur}
        walks = len(others)
        for r in others:
            walks = max(walks, rooms.get(cur, r))
        for (src, dst), movers in shuttles.items():
            walks = max(walks, _shuttle_bound(p, locs, rooms, cur, src, dst, movers, grab, put))
        total += walks
    return total


def _shuttle_bound(p: Problem, locs: list[int], rooms: RoomDistances, cur: int, src: int, dst: int,
                   movers: list[int], grab: set[int], put: set[int]) -> int:
    """Walks (plus actions no other term counts) to bring items from room src to targets in dst.

    Items bound for a target that cannot move are shuttled two at a time. A movable target t may
    instead be carried to the items; that needs a grab of t, a put of t (items cannot go into a held
    target) and t emptied first (a loaded carrier cannot be grabbed): a grab of everything now in or
    on t, and a put of those the goal places somewhere. Only actions not already counted (sets
    `grab`, `put`) are charged. The bound is the cheapest choice of targets to
    carry; each choice's charge is a valid lower bound on walks + uncounted actions."""
    d = rooms.get(src, dst)

    def shuttle(m: int) -> int:
        return 0 if m <= 0 else rooms.get(cur, src) + d + ((m + 1) // 2 - 1) * 2 * d

    targets = sorted({t for t in movers if t != NOWHERE})
    if len(targets) > 4:
        return shuttle(sum(1 for t in movers if t == NOWHERE))
    charge: dict[int, float] = {}
    for t in targets:
        cost: float = (t not in grab) + (t not in put)
        for j in p.mobile:
            code = locs[j]
            if code != NOWHERE and code >> 2 == t and code & 3 != 2:
                # j must be grabbed out of t; it must be put back down only if the goal places it
                cost += (j not in grab) + (j not in put and j in p.goal_placed)
        if p.static_load[t]:
            cost = float("inf")  # something that never moves sits in it: t can never be grabbed
        charge[t] = cost
    best = float("inf")
    for r in range(len(targets) + 1):
        for carried in itertools.combinations(targets, r):
            left = sum(1 for t in movers if t == NOWHERE or t not in carried)
            best = min(best, shuttle(left) + sum(charge[t] for t in carried))
    return int(best)
