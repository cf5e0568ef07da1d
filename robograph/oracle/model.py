"""A compact, hashable re-encoding of the runtime's action semantics for exact search.

`robograph.actions.check()` / `effects()` work on `SceneGraph`s and recompute the whole view for
every check; that is the reference semantics but too slow to expand thousands of states. A
`Problem` compiles one (graph, goal, catalog) into integer-indexed static tables, and a `State` is a
flat tuple of ints:

    (room, hand_a, hand_b, open_mask, aside_mask, pressed_mask, assembled_mask, unoccluding_mask,
     loc_0, ..., loc_{m-1})

`room` is the robot's room index (-1 on a tabletop); the two hands are kept *sorted* (-1 = empty)
because no precondition or effect depends on which hand holds what, so left/right mirror states
collapse into one; the masks hold the boolean attributes of every node (bit i = node i);
`unoccluding_mask` marks nodes whose OCCLUDES edges a grab removed; `loc_j` is the location code of
the j-th *mobile* node (`parent * 4 + relation`, or -1 when held or detached). Nodes that can never
move keep their location from the compiled graph.

`successors()` mirrors `check()` + `effects()` rule by rule (the mapping is spelled out next to each
operator); `tests/test_oracle_model.py` proves the two agree on the applicable action set and on
every successor along random walks, and every oracle plan is replayed in `Episode`.

Relevance pruning (see `relevance.py` and docs/oracle.md) decides which nodes may be the *subject*
of an action ("active"); every SURFACE/CONTAINER node stays a possible placement target.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from robograph.actions import ACTION_NAMES, Action, assembly_of
from robograph.facts import Fact, Goal
from robograph.graph import (
    ADJACENT,
    ASSEMBLY,
    CONTAINER,
    GRABBABLE,
    IN_ROOM,
    INSIDE,
    MOVABLE,
    OCCLUDES,
    ON,
    OPENABLE,
    PART,
    PART_OF,
    PRESSABLE,
    ROBOT,
    ROBOT_ID,
    ROOM,
    SURFACE,
    TRANSPARENT,
    SceneGraph,
)
from robograph.oracle.errors import OracleError
from robograph.oracle.relevance import relevant_nodes

State = tuple[int, ...]

REL_CODES = {INSIDE: 0, ON: 1, IN_ROOM: 2}
REL_NAMES = (INSIDE, ON, IN_ROOM)
NOWHERE = -1
# state slots
S_ROOM, S_HA, S_HB, S_OPEN, S_ASIDE, S_PRESSED, S_ASSEMBLED, S_UNOCC = range(8)
S_LOC = 8
MASK_SLOTS = {"open": S_OPEN, "moved_aside": S_ASIDE, "pressed": S_PRESSED, "assembled": S_ASSEMBLED}
# view status of a node
HIDDEN, SEEN, REACH = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Occlusion:
    src: int
    dst: int
    when: tuple[tuple[str, Any], ...]


class Problem:
    """Static tables for one (graph, goal, catalog). Build with `Problem.compile`."""

    def __init__(self, graph: SceneGraph, goal: Goal, actions: Sequence[str], prune: bool) -> None:
        self.graph = graph
        self.goal = goal
        self.actions = tuple(a for a in ACTION_NAMES if a in set(actions))
        ids = sorted(n for n in graph.nodes if n != ROBOT_ID)
        self.ids: tuple[str, ...] = tuple(ids)
        self.index: dict[str, int] = {nid: i for i, nid in enumerate(ids)}
        idx = self.index
        nodes = [graph.nodes[n] for n in ids]
        n = len(ids)
        self.n = n

        def flags(aff: str) -> tuple[bool, ...]:
            return tuple(node.has(aff) for node in nodes)

        self.openable = flags(OPENABLE)
        self.transparent = flags(TRANSPARENT)
        self.container = flags(CONTAINER)
        self.surface = flags(SURFACE)
        self.pressable = flags(PRESSABLE)
        self.movable = flags(MOVABLE)
        self.part = flags(PART)
        self.assembly = flags(ASSEMBLY)
        self.grabbable = tuple(node.has(GRABBABLE) and node.has(MOVABLE) for node in nodes)
        self.is_room = tuple(node.kind == ROOM for node in nodes)
        self.capacity = tuple(node.capacity for node in nodes)
        self.rooms = tuple(i for i in range(n) if self.is_room[i])

        # PART_OF: wholes of each part, parts of each whole
        wholes: list[list[int]] = [[] for _ in range(n)]
        parts: list[list[int]] = [[] for _ in range(n)]
        for e in sorted(graph.edges):
            if e.rel == PART_OF and e.src in idx and e.dst in idx:
                wholes[idx[e.src]].append(idx[e.dst])
                parts[idx[e.dst]].append(idx[e.src])
        self.wholes = tuple(tuple(w) for w in wholes)
        self.parts = tuple(tuple(p) for p in parts)
        in_part_of = {i for i in range(n) if wholes[i] or parts[i]}

        # occlusions (static list; grab disables all of a source's edges for good)
        occ = [Occlusion(idx[e.src], idx[e.dst], e.when) for e in sorted(graph.edges)
               if e.rel == OCCLUDES and e.src in idx and e.dst in idx]
        self.occlusions = tuple(occ)
        self.occluders_of: tuple[tuple[Occlusion, ...], ...] = tuple(
            tuple(o for o in occ if o.dst == i) for i in range(n))
        self.has_occlusions = tuple(any(o.src == i for o in occ) for i in range(n))
        self.static_attr = tuple(dict(graph.attrs.get(nid, {})) for nid in ids)

        adj: list[set[int]] = [set() for _ in range(n)]
        for e in graph.edges:
            if e.rel == ADJACENT and e.src in idx and e.dst in idx:
                adj[idx[e.src]].add(idx[e.dst])
                adj[idx[e.dst]].add(idx[e.src])
        self.adjacent = tuple(tuple(sorted(a)) for a in adj)
        self.has_adjacency = any(e.rel == ADJACENT for e in graph.edges)

        # relevance: which nodes may be an action's subject
        active = {idx[x] for x in relevant_nodes(graph, goal)} if prune else set(range(n))
        self.active = frozenset(active)
        mobile = sorted(i for i in active if self.grabbable[i] or self.part[i] or self.assembly[i])
        self.mobile: tuple[int, ...] = tuple(mobile)
        self.slot = {node: S_LOC + j for j, node in enumerate(mobile)}

        # static locations and static children (for nodes that never move)
        static_loc = [NOWHERE] * n
        for nid, e in graph.location.items():
            if nid in idx and e.dst in idx:
                static_loc[idx[nid]] = idx[e.dst] * 4 + REL_CODES[e.rel]
        self.initial_loc = tuple(static_loc)
        static_load = [0] * n
        for i in range(n):
            if i not in self.slot and static_loc[i] != NOWHERE and static_loc[i] % 4 != 2:
                static_load[static_loc[i] // 4] += 1
        self.static_load = tuple(static_load)
        # unrooted nodes never become tabletop roots (compute_view excludes PART_OF endpoints)
        self.in_part_of = frozenset(in_part_of)

        self.receivers_on = tuple(i for i in range(n) if self.surface[i])
        self.receivers_in = tuple(i for i in range(n) if self.container[i])
        self.active_sorted = tuple(sorted(active))
        self.attach_pairs = self._attach_pairs(graph)
        self.slot_items = tuple(self.slot.items())
        # goal facts as (predicate, first arg index, second arg index or -1)
        self.goal_placed = frozenset(idx[f.args[0]] for f in goal if f.pred in ("INSIDE", "ON"))
        self.goal_codes = tuple(
            (f.pred, idx[f.args[0]], idx[f.args[1]] if len(f.args) > 1 else NOWHERE) for f in goal)

    def _attach_pairs(self, graph: SceneGraph) -> tuple[tuple[int, int, int], ...]:
        out = []
        parts = [i for i in self.active_sorted if self.part[i]]
        for p in parts:
            for q in parts:
                if p == q:
                    continue
                whole = assembly_of(graph, self.ids[p], self.ids[q])
                if whole is not None and self.index[whole] in self.active:
                    out.append((p, q, self.index[whole]))
        return tuple(out)

    @classmethod
    def compile(
        cls, graph: SceneGraph, goal: Goal, actions: Sequence[str], *, prune: bool = True
    ) -> Problem:
        for fact in goal:
            for arg in fact.args:
                if arg not in graph.nodes:
                    raise OracleError(f"goal fact {fact} names unknown node {arg!r}")
        return cls(graph, goal, actions, prune)

    # encoding ------------------------------------------------------------------------------------
    def encode(self, graph: SceneGraph) -> State:
        """The compact state of a graph that shares this problem's nodes (a descendant of it)."""
        idx = self.index
        room = graph.robot_room()
        held = sorted(idx[h] for h in graph.held())
        hands = ([NOWHERE] * (2 - len(held))) + held
        masks = [0, 0, 0, 0]
        for key, slot in MASK_SLOTS.items():
            m = 0
            for nid, attrs in graph.attrs.items():
                if nid in idx and attrs.get(key):
                    m |= 1 << idx[nid]
            masks[slot - S_OPEN] = m
        unocc = 0
        for o in self.occlusions:
            edge_src = self.ids[o.src]
            present = any(e.src == edge_src and e.rel == OCCLUDES for e in graph.edges)
            if not present:
                unocc |= 1 << o.src
        locs = []
        for i in self.mobile:
            e = graph.location.get(self.ids[i])
            locs.append(NOWHERE if e is None else idx[e.dst] * 4 + REL_CODES[e.rel])
        return (idx[room] if room is not None else NOWHERE, hands[0], hands[1], *masks, unocc, *locs)

    # queries on states -----------------------------------------------------------------------------
    def loc(self, s: State, i: int) -> int:
        slot = self.slot.get(i)
        return self.initial_loc[i] if slot is None else s[slot]

    def attr(self, s: State, i: int, key: str) -> Any:
        slot = MASK_SLOTS.get(key)
        if slot is None:
            return self.static_attr[i].get(key, False)
        return bool(s[slot] >> i & 1)

    def locs(self, s: State) -> list[int]:
        """Location code of every node in state s (one pass; index it instead of calling loc)."""
        out = list(self.initial_loc)
        for node, slot in self.slot_items:
            out[node] = s[slot]
        return out

    def loads(self, locs: list[int]) -> list[int]:
        """Items in or on every node, from a `locs` array."""
        out = list(self.static_load)
        for node, _slot in self.slot_items:
            code = locs[node]
            if code != NOWHERE and code & 3 != 2:
                out[code >> 2] += 1
        return out

    def load(self, s: State, i: int) -> int:
        count = self.static_load[i]
        for j in self.mobile:
            code = s[self.slot[j]]
            if code != NOWHERE and code >> 2 == i and code & 3 != 2:
                count += 1
        return count

    def ancestors(self, s: State, i: int) -> Iterator[int]:
        seen = {i}
        code = self.loc(s, i)
        while code != NOWHERE:
            p = code >> 2
            if p in seen:
                return
            seen.add(p)
            yield p
            code = self.loc(s, p)

    def room_of(self, s: State, i: int) -> int:
        """Index of the room that holds node i (held: the robot's room), NOWHERE if none."""
        if self.is_room[i]:
            return i
        if i in (s[S_HA], s[S_HB]):
            return s[S_ROOM]
        for a in self.ancestors(s, i):
            if self.is_room[a]:
                return a
            if a in (s[S_HA], s[S_HB]):
                return s[S_ROOM]
        return NOWHERE

    def occlusion_active(self, s: State, o: Occlusion) -> bool:
        src = o.src
        if s[S_UNOCC] >> src & 1 or s[S_ASIDE] >> src & 1 or src in (s[S_HA], s[S_HB]):
            return False
        return all(self.attr(s, src, k) == v for k, v in o.when)

    def view(self, s: State, locs: list[int] | None = None) -> list[int]:
        """Status (HIDDEN / SEEN / REACH) of every node, exactly as `compute_view` decides it."""
        n = self.n
        if locs is None:
            locs = self.locs(s)
        status = [-1] * n
        held = {h for h in (s[S_HA], s[S_HB]) if h != NOWHERE}
        occluded = {o.dst for o in self.occlusions if self.occlusion_active(s, o)}
        room = s[S_ROOM]
        open_mask = s[S_OPEN]

        def resolve(i: int, depth: int = 0) -> int:
            st = status[i]
            if st >= 0:
                return st
            status[i] = HIDDEN  # guards cycles
            if i in held:
                st = REACH
            elif i in occluded:
                st = HIDDEN
            else:
                code = locs[i]
                if code == NOWHERE:
                    if room != NOWHERE:
                        st = REACH if i == room else HIDDEN
                    else:
                        st = HIDDEN if (self.is_room[i] or i in self.in_part_of) else REACH
                else:
                    p, rel = code >> 2, code & 3
                    ps = resolve(p, depth + 1)
                    if ps == HIDDEN:
                        st = HIDDEN
                    elif rel == 0 and self.openable[p] and not open_mask >> p & 1:
                        st = HIDDEN if not self.transparent[p] else SEEN
                    else:
                        st = ps
            status[i] = st
            return st

        for i in range(n):
            resolve(i)
        # assemblies (view._add_assemblies): parts seen with their assembled whole, an unplaced
        # whole seen through any of its parts
        for whole in range(n):
            for part in self.parts[whole]:
                if status[whole] and locs[part] == NOWHERE and part not in held:
                    if status[part] < status[whole]:
                        status[part] = max(status[part], status[whole])
                elif status[part] and locs[whole] == NOWHERE and whole not in held:
                    status[whole] = max(status[whole], status[part])
        return status

    # goal ----------------------------------------------------------------------------------------
    def holds(self, s: State, fact: Fact) -> bool:
        idx = self.index
        a = [idx[x] for x in fact.args]
        pred = fact.pred
        if pred in ("INSIDE", "ON"):
            return self.loc(s, a[0]) == a[1] * 4 + REL_CODES[pred]
        if pred == "OPEN":
            return bool(s[S_OPEN] >> a[0] & 1)
        if pred == "CLOSED":
            return not s[S_OPEN] >> a[0] & 1
        if pred == "ASSEMBLED":
            return bool(s[S_ASSEMBLED] >> a[0] & 1)
        if pred == "PRESSED":
            return bool(s[S_PRESSED] >> a[0] & 1)
        if pred == "HELD":
            return a[0] in (s[S_HA], s[S_HB])
        if pred == "IN_ROOM":
            return self.room_of(s, a[0]) == a[1]
        if pred == "ROBOT_IN":
            return s[S_ROOM] == a[0]
        if pred == "MOVED_ASIDE":
            return bool(s[S_ASIDE] >> a[0] & 1)
        raise OracleError(f"unsupported goal predicate {pred}")

    def is_goal(self, s: State) -> bool:
        locs = self.locs(s)
        return all(self.holds_code(s, locs, pred, a, b) for pred, a, b in self.goal_codes)

    def holds_code(self, s: State, locs: list[int], pred: str, a: int, b: int) -> bool:
        """`holds` on a precompiled goal fact, given the state's `locs` array."""
        if pred == "INSIDE":
            return locs[a] == b * 4
        if pred == "ON":
            return locs[a] == b * 4 + 1
        if pred == "CLOSED":
            return not s[S_OPEN] >> a & 1
        if pred == "OPEN":
            return bool(s[S_OPEN] >> a & 1)
        if pred == "ASSEMBLED":
            return bool(s[S_ASSEMBLED] >> a & 1)
        if pred == "PRESSED":
            return bool(s[S_PRESSED] >> a & 1)
        if pred == "HELD":
            return a in (s[S_HA], s[S_HB])
        if pred == "MOVED_ASIDE":
            return bool(s[S_ASIDE] >> a & 1)
        if pred == "ROBOT_IN":
            return s[S_ROOM] == a
        if pred == "IN_ROOM":
            return self.room_in(s, locs, a) == b
        raise OracleError(f"unsupported goal predicate {pred}")

    def room_in(self, s: State, locs: list[int], i: int) -> int:
        """`room_of` given the state's `locs` array."""
        held = (s[S_HA], s[S_HB])
        if self.is_room[i]:
            return i
        if i in held:
            return s[S_ROOM]
        code = locs[i]
        for _ in range(self.n):
            if code == NOWHERE:
                return NOWHERE
            a = code >> 2
            if self.is_room[a]:
                return a
            if a in held:
                return s[S_ROOM]
            code = locs[a]
        return NOWHERE

    # successors ------------------------------------------------------------------------------------
    def successors(self, s: State) -> list[tuple[Action, State]]:
        """Applicable actions and their successor states, in a fixed order (catalog order, then
        node-id order of the arguments) so that search expansions are reproducible."""
        out: list[tuple[Action, State]] = []
        ids = self.ids
        locs = self.locs(s)
        loads = self.loads(locs)
        st = self.view(s, locs)
        ha, hb = s[S_HA], s[S_HB]
        held = {h for h in (ha, hb) if h != NOWHERE}
        free = 2 - len(held)
        open_mask = s[S_OPEN]
        active = self.active_sorted
        names = self.actions
        for name in names:
            if name == "walk":
                # navigation_enabled: robot in a room and the scene has ADJACENT edges
                if s[S_ROOM] == NOWHERE or not self.has_adjacency:
                    continue
                for r in self.adjacent[s[S_ROOM]]:
                    if self.is_room[r] and r != s[S_ROOM]:
                        out.append((Action("walk", (ids[r],)), _set(s, S_ROOM, r)))
            elif name in ("open", "close"):
                if free < 2:
                    continue
                want_open = name == "open"
                for c in active:
                    if self.openable[c] and bool(open_mask >> c & 1) != want_open and st[c] == REACH:
                        out.append((Action(name, (ids[c],)), _set(s, S_OPEN, open_mask ^ (1 << c))))
            elif name == "press":
                if free < 1:
                    continue
                for o in active:
                    if self.pressable[o] and not s[S_PRESSED] >> o & 1 and st[o] == REACH:
                        out.append((Action("press", (ids[o],)), _set(s, S_PRESSED, s[S_PRESSED] | 1 << o)))
            elif name == "grab":
                if free < 1:
                    continue
                for o in self.mobile:
                    if o in held or not self.grabbable[o] or st[o] != REACH or self._absorbed(s, o, held):
                        continue
                    if self.assembly[o] and not s[S_ASSEMBLED] >> o & 1:
                        continue
                    if loads[o] > 0:
                        continue
                    out.append((Action("grab", (ids[o],)), self._grab(s, o)))
            elif name == "attach":
                for p, q, whole in self.attach_pairs:
                    if s[S_ASSEMBLED] >> whole & 1 or st[p] != REACH or st[q] != REACH:
                        continue
                    counted = (p in held) + (q in held)
                    if free + counted < 2:
                        continue
                    out.append((Action("attach", (ids[p], ids[q])), self._attach(s, p, q, whole)))
            elif name in ("puton", "putin"):
                rel = 1 if name == "puton" else 0
                targets = self.receivers_on if rel == 1 else self.receivers_in
                for o in sorted(held):
                    for t in targets:
                        if t == o or t in held or st[t] != REACH:
                            continue
                        if rel == 0 and self.openable[t] and not open_mask >> t & 1:
                            continue
                        if o in self.ancestors(s, t):
                            continue
                        cap = self.capacity[t]
                        if cap is not None and loads[t] >= cap:
                            continue
                        out.append((Action(name, (ids[o], ids[t])), self._place(s, o, t * 4 + rel)))
            elif name == "move_aside":
                if free < 1:
                    continue
                for o in active:
                    if (self.movable[o] and o not in held and not s[S_ASIDE] >> o & 1
                            and st[o] == REACH and not self._absorbed(s, o, held)):
                        out.append((Action("move_aside", (ids[o],)), _set(s, S_ASIDE, s[S_ASIDE] | 1 << o)))
        return out

    def _absorbed(self, s: State, i: int, held: set[int]) -> bool:
        """actions.is_absorbed: an unplaced part of an assembled whole moves only with the whole."""
        if not self.part[i] or i in held or self.loc(s, i) != NOWHERE:
            return False
        return any(s[S_ASSEMBLED] >> w & 1 for w in self.wholes[i])

    def _hands(self, s: list[int], remove: Sequence[int] = (), add: Sequence[int] = ()) -> None:
        held = [h for h in (s[S_HA], s[S_HB]) if h != NOWHERE and h not in remove]
        held.extend(add)
        held.sort()
        if len(held) > 2:
            raise OracleError("internal: more than two held objects")
        full = [NOWHERE] * (2 - len(held)) + held
        s[S_HA], s[S_HB] = full[0], full[1]

    def _grab(self, s: State, o: int) -> State:
        # effects(): MoveNode(o, HELD), remove o's OCCLUDES edges, moved_aside -> False
        out = list(s)
        out[self.slot[o]] = NOWHERE
        self._hands(out, add=(o,))
        if self.has_occlusions[o]:
            out[S_UNOCC] |= 1 << o
        out[S_ASIDE] &= ~(1 << o)
        return tuple(out)

    def _place(self, s: State, o: int, code: int) -> State:
        out = list(s)
        self._hands(out, remove=(o,))
        out[self.slot[o]] = code
        return tuple(out)

    def _attach(self, s: State, p: int, q: int, whole: int) -> State:
        # effects(): parts DETACHED; whole takes the target's hand, else the part's hand, else the
        # target's support, else the part's support; whole assembled
        held = (s[S_HA], s[S_HB])
        out = list(s)
        place: int | None = None
        into_hand = False
        for i in (q, p):
            if i in held:
                into_hand = True
                break
        if not into_hand:
            lq, lp = self.loc(s, q), self.loc(s, p)
            place = lq if lq != NOWHERE else (lp if lp != NOWHERE else None)
        self._hands(out, remove=(p, q))
        out[self.slot[p]] = NOWHERE
        out[self.slot[q]] = NOWHERE
        out[S_ASSEMBLED] |= 1 << whole
        if into_hand:
            self._hands(out, add=(whole,))
            out[self.slot[whole]] = NOWHERE
        elif place is not None:
            out[self.slot[whole]] = place
        return tuple(out)


def _set(s: State, slot: int, value: int) -> State:
    out = list(s)
    out[slot] = value
    return tuple(out)


def node_kind_ok(graph: SceneGraph) -> None:
    """Sanity check used by `solve`: the oracle needs a robot node to hold things."""
    if ROBOT_ID not in graph.nodes or graph.nodes[ROBOT_ID].kind != ROBOT:
        raise OracleError("the graph has no robot node; nothing can act")
