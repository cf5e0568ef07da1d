"""PDDL export of a fully observed instance, for cross-checking L_o with an external optimal planner.

The export is plain STRIPS (positive preconditions, no derived predicates, no conditional effects)
plus zero-cost bookkeeping steps under `:action-costs`, so admissible planners such as Fast
Downward's `seq-opt-bjolp` accept it. Visibility is recursive in the runtime (a node is reachable
when its whole location chain is), which STRIPS cannot derive; the export therefore *grounds*
every operator once per possible location chain of its arguments, and once per value of each
counter it touches (free hands, container loads). Chains through movable receivers (trays, bags,
books that can hold each other) multiply: a chain that crosses more than `depth` of them ends at a
focus token instead, put on the receiver by a zero-cost step that checks the rest of the chain
(`_Exporter.focus_ops`). The domain is instance-specific (parameterless actions, 0-ary atoms),
written from the oracle's compiled `Problem` without relevance pruning. Each action is named
`a<k>_<name>_<args>`; `ExportedProblem` maps the index k back to the runtime `Action`.

Not exported (ExportError): IN_ROOM goals, OCCLUDES conditions on attributes other than `open`, an
initially held object that occludes something, an unassembled whole that already has a place.
Events are not part of the export (it is the instance's G0 and goal).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from robograph.actions import Action
from robograph.errors import RoboGraphError
from robograph.instance import TaskInstance
from robograph.oracle.model import NOWHERE, REL_NAMES, S_HA, S_HB, Problem

MAX_CHAINS = 2000
IDLE = "idle"  # held by every operator except the later attach stages (see `_Exporter._attach`)
# movable receivers a grounded chain may cross before it takes the focus token (`_Exporter.reach`):
# 1 grounds more operators but searches as fast as full chains; 0 is the smallest export, at a
# search cost (docs/oracle.md). `export_instance(depth=None)` takes 1 unless that grounds more
# than AUTO_LIMIT operators.
DEPTHS = (0, 1)
AUTO_LIMIT = 8000
HOME = "home"  # the reachability token is not out (see `_Exporter.focus_ops`)


class ExportError(RoboGraphError):
    """The instance uses something the STRIPS export cannot express (the message says what)."""


@dataclass(frozen=True)
class Operator:
    """One grounded STRIPS action. `action` is None for a zero-cost bookkeeping stage of an attach
    (`label` names the attach it belongs to); a plan's runtime actions are its cost-1 operators."""

    action: Action | None
    pre: frozenset[str]
    add: frozenset[str]
    delete: frozenset[str]
    cost: int = 1
    label: Action | None = None
    name: str = ""


@dataclass(frozen=True)
class ExportedProblem:
    domain: str
    problem: str
    operators: tuple[Operator, ...]
    depth: int = 1  # the chain depth it was grounded with (see DEPTHS)

    def decode_plan(self, text: str) -> list[Action]:
        """Runtime actions of a plan file (`(a12_grab_pen)` lines; `;` comments ignored)."""
        out = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith(";"):
                continue
            match = re.match(r"^\(\s*a(\d+)_", line)
            if not match:
                raise ExportError(f"unrecognized plan line {line!r}")
            action = self.operators[int(match.group(1))].action
            if action is not None:
                out.append(action)
        return out

    def write(self, out_dir: str | Path) -> tuple[Path, Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        dom, prob = out / "domain.pddl", out / "problem.pddl"
        dom.write_text(self.domain, encoding="utf-8")
        prob.write_text(self.problem, encoding="utf-8")
        return dom, prob


class _Exporter:
    def __init__(self, instance: TaskInstance, depth: int) -> None:
        self.inst = instance
        self.p = Problem.compile(instance.graph, instance.goal, instance.actions, prune=False)
        p = self.p
        self.s0 = p.encode(instance.graph)
        names: dict[int, str] = {}
        used: set[str] = set()
        for i, nid in enumerate(p.ids):
            base = re.sub(r"[^a-z0-9_]", "_", nid.lower()) or "n"
            name = base if base not in used else f"{base}_{i}"
            used.add(name)
            names[i] = name
        self.name = names
        self.by_name = {v: k for k, v in names.items()}
        self.held0 = {h for h in (self.s0[S_HA], self.s0[S_HB]) if h != NOWHERE}
        # nodes whose load is tracked: placement targets and anything that starts loaded, where the
        # load can matter: a capacity limits puts, and a loaded carrier cannot be grabbed. A fixed
        # receiver without capacity needs no counter, and each counter multiplies the grounded
        # puts and grabs by its possible values.
        self.receiver = [(p.surface[i] or p.container[i] or p.load(self.s0, i) > 0)
                         and (p.capacity[i] is not None or i in p.slot) for i in range(p.n)]
        self._check_supported()
        self.possible = {i: self._possible_locs(i) for i in p.mobile}
        self.max_load = [self._max_load(i) for i in range(p.n)]
        self.ops: list[Operator] = []
        # attach is split into stages that hold a lock; without attach pairs there is no lock
        self.locked = bool(p.attach_pairs) and "attach" in p.actions
        # movable receivers: chains through more than `depth` of them use the `at` token
        self.depth = depth
        self.tokens = frozenset(m for m in p.mobile if (p.surface[m] or p.container[m]) and self.receiver[m])

    # atoms -------------------------------------------------------------------------------------
    def loc_atom(self, i: int, code: int) -> str:
        if code == NOWHERE:
            return f"detached {self.name[i]}"
        return f"{REL_NAMES[code & 3].lower()} {self.name[i]} {self.name[code >> 2]}"

    def robot_in(self, room: int) -> str:
        return f"robot-in {self.name[room]}"

    def held(self, i: int) -> str:
        return f"held {self.name[i]}"

    def flag(self, key: str, i: int, value: bool) -> str:
        return f"{key if value else 'not' + key} {self.name[i]}"

    def load(self, i: int, k: int) -> str:
        return f"load {self.name[i]} k-{k}"

    def inactive(self, k: int) -> str:
        return f"clear occ-{k}"

    # static analysis -----------------------------------------------------------------------------
    def _check_supported(self) -> None:
        p = self.p
        for f in self.inst.goal:
            if f.pred == "IN_ROOM":
                raise ExportError("IN_ROOM goals are not exported (room membership is derived)")
        for o in p.occlusions:
            if any(k != "open" for k, _ in o.when):
                raise ExportError(f"occlusion by {p.ids[o.src]} depends on {o.when}; only 'open' is exported")
            if o.src in self.held0:
                raise ExportError(f"{p.ids[o.src]} is held at the start and occludes something")
        for w in range(p.n):
            if p.assembly[w] and not p.attr(self.s0, w, "assembled") and (
                    p.loc(self.s0, w) != NOWHERE or w in self.held0):
                raise ExportError(f"unassembled whole {p.ids[w]} already has a place")

    def _possible_locs(self, i: int) -> list[int]:
        p = self.p
        codes = {p.loc(self.s0, i)}
        if i in p.slot:
            codes.update(t * 4 + 1 for t in p.receivers_on if t != i)
            codes.update(t * 4 + 0 for t in p.receivers_in if t != i)
        if p.assembly[i]:
            for part in p.parts[i]:
                codes.update(self._possible_locs(part) if part in p.slot else [p.loc(self.s0, part)])
        codes.discard(NOWHERE)  # held at the start: no place of its own
        if p.part[i] or (p.assembly[i] and p.loc(self.s0, i) == NOWHERE and i not in self.held0):
            codes.add(NOWHERE)
        return sorted(codes)

    def _max_load(self, t: int) -> int:
        p = self.p
        if not self.receiver[t]:
            return 0
        movers = sum(1 for i in p.mobile if i != t)
        bound = p.static_load[t] + movers
        cap = p.capacity[t]
        return bound if cap is None else min(bound, max(cap, p.load(self.s0, t)))

    # chains -----------------------------------------------------------------------------------------
    def reach(self, i: int, *, allow_held: bool, allow_detached: bool = True,
              visiting: frozenset[int] = frozenset(), depth: int | None = None) -> list[tuple[frozenset[str], int]]:
        """Alternatives that make node i reachable: (atoms, i's own location code or -2 = held).

        A chain through more than `depth` (default `self.depth`) movable receivers stops at the
        next one, m, with the atom `at m` instead of m's own chains: the token that `focus_ops`
        put there after checking them (see `focus_ops`)."""
        p = self.p
        if depth is None:
            depth = self.depth
        out: list[tuple[frozenset[str], int]] = []
        if i in visiting:
            return out
        visiting = visiting | {i}
        if allow_held and i in p.slot:
            out.append((frozenset({self.held(i)}), -2))
        codes = self.possible[i] if i in p.slot else [p.loc(self.s0, i)]
        clear = frozenset(self.inactive(k) for k, o in enumerate(p.occlusions) if o.dst == i)
        for code in codes:
            own = frozenset({self.loc_atom(i, code)}) if i in p.slot else frozenset()
            if code == NOWHERE:
                if p.is_room[i]:
                    if self.s0[0] != NOWHERE:
                        out.append((own | clear | {self.robot_in(i)}, code))
                    continue
                if self.s0[0] == NOWHERE and i not in p.in_part_of:
                    out.append((own | clear, code))  # a tabletop root
                    continue
                if allow_detached and p.part[i]:
                    for whole in p.wholes[i]:
                        for atoms, _ in self.reach(whole, allow_held=True, visiting=visiting, depth=depth):
                            out.append((own | atoms, code))
                continue
            parent, rel = code >> 2, code & 3
            gate = frozenset({self.flag("open", parent, True)}) if rel == 0 and p.openable[parent] else frozenset()
            if parent in self.tokens and depth == 0:
                out.append((own | clear | gate | {self.at(parent)}, code))
                continue
            for atoms, _ in self.reach(parent, allow_held=False, visiting=visiting,
                                       depth=depth - (parent in self.tokens)):
                out.append((own | clear | gate | atoms, code))
                if len(out) > MAX_CHAINS:
                    raise ExportError(f"too many location chains for {p.ids[i]} (> {MAX_CHAINS})")
        return out

    def at(self, m: int) -> str:
        return f"at {self.name[m]}"

    def focus_ops(self) -> None:
        """Zero-cost steps that put the `at m` token on a loaded movable receiver m, one per chain of
        m (itself ending in another token when m sits `depth` receivers deep). An action on a node
        below m then checks only the chain from m down and takes the token back (`home`).
        Grounding every chain through movable receivers grounds their nestings' product (Desk-11:
        96-193 chains per object; the books and the pencil case can hold each other); with the
        token the export grows with their sum. The token leaves only from `home`, and every other
        operator needs `home`, so the token always describes the current state. Emitted only for
        the tokens some operator takes, and only while m is loaded (nothing can be below an empty
        m), so a scene whose chains stay within `depth` gets no extra search states."""
        needed = sorted({a for op in self.ops for a in op.pre if a.startswith("at ")})
        if not needed:  # every chain stays within `depth`: no token, no `home`
            self.ops = [replace(op, pre=op.pre - {HOME}) for op in self.ops]
            self.tokens = frozenset()
            return
        done: set[str] = set()
        while needed:
            token = needed.pop()
            if token in done:
                continue
            done.add(token)
            m = self.by_name[token[3:]]
            for atoms, _ in self.reach(m, allow_held=False):
                consumed = {a for a in atoms if a.startswith("at ")}
                needed.extend(sorted(consumed - done))
                for k in range(1, self.max_load[m] + 1):
                    pre = set(atoms) | {self.load(m, k)} | (set() if consumed else {HOME})
                    self.ops.append(Operator(None, frozenset(pre), frozenset({token}),
                                             frozenset(consumed or {HOME}), cost=0, name=f"focus_{self.name[m]}"))

    # operators --------------------------------------------------------------------------------------
    def emit(self, action: Action | None, pre: Iterable[str], add: Iterable[str], delete: Iterable[str],
             load_delta: dict[int, int] | None = None, *, cost: int = 1, label: Action | None = None) -> None:
        base_pre, base_add, base_del = set(pre), set(add), set(delete)
        if self.locked and action is not None and action.name != "attach":
            base_pre.add(IDLE)
        if self.tokens:  # take the token back, or require that it is home
            token = {a for a in base_pre if a.startswith("at ")}
            base_add |= {HOME} if token else set()
            base_del |= token
            base_pre |= set() if token else {HOME}
        deltas = sorted((t, d) for t, d in (load_delta or {}).items() if d and self.receiver[t])
        choices = []
        for t, d in deltas:
            cap = self.p.capacity[t]
            top = self.max_load[t]
            ks = [k for k in range(top + 1) if 0 <= k + d <= top and (d < 0 or cap is None or k + d <= cap)]
            choices.append([(t, k, k + d) for k in ks])
        for combo in itertools.product(*choices):
            pre_c, add_c, del_c = set(base_pre), set(base_add), set(base_del)
            for t, k, k2 in combo:
                pre_c.add(self.load(t, k))
                del_c.add(self.load(t, k))
                add_c.add(self.load(t, k2))
            self.ops.append(Operator(action, frozenset(pre_c), frozenset(add_c), frozenset(del_c - add_c),
                                     cost, label or action))

    def hands(self, change: int) -> list[tuple[str, str]]:
        """(pre, post) free-hand atoms for a change of `change` free hands."""
        return [(f"free{k}", f"free{k + change}") for k in range(3) if 0 <= k + change <= 2]

    def edges_from(self, i: int) -> list[int]:
        return [k for k, o in enumerate(self.p.occlusions) if o.src == i]

    def build(self) -> None:
        p, ids = self.p, self.p.ids
        acts = set(p.actions)
        if "walk" in acts and self.s0[0] != NOWHERE and p.has_adjacency:
            for r in p.rooms:
                for r2 in p.adjacent[r]:
                    if p.is_room[r2] and r2 != r:
                        self.emit(Action("walk", (ids[r2],)), [self.robot_in(r)],
                                  [self.robot_in(r2)], [self.robot_in(r)])
        for c in range(p.n):
            if not p.openable[c]:
                continue
            for name, value in (("open", True), ("close", False)):
                if name not in acts:
                    continue
                for atoms, _ in self.reach(c, allow_held=False):
                    pre = atoms | {self.flag("open", c, not value), "free2"}
                    add, dele = {self.flag("open", c, value)}, {self.flag("open", c, not value)}
                    cond = [k for k in self.edges_from(c) if p.occlusions[k].when]
                    if not cond:
                        self.emit(Action(name, (ids[c],)), pre, add, dele)
                        continue
                    # grabbed-once or moved aside: the conditional occlusions stay off
                    self.emit(Action(name, (ids[c],)), pre | {f"grabbed {self.name[c]}"}, add, dele)
                    aside_off: set[str] = set()
                    if p.movable[c]:
                        self.emit(Action(name, (ids[c],)), pre | {f"ungrabbed {self.name[c]}",
                                                                 self.flag("aside", c, True)}, add, dele)
                        aside_off = {self.flag("aside", c, False)}
                    on = {self.inactive(k) for k in cond if dict(p.occlusions[k].when)["open"] != value}
                    off = {self.inactive(k) for k in cond} - on
                    self.emit(Action(name, (ids[c],)), pre | {f"ungrabbed {self.name[c]}"} | aside_off,
                              add | on, dele | off)
        for o in range(p.n):
            if p.pressable[o] and "press" in acts:
                for atoms, _ in self.reach(o, allow_held=True):
                    for free in ("free1", "free2"):
                        self.emit(Action("press", (ids[o],)), atoms | {self.flag("pressed", o, False), free},
                                  {self.flag("pressed", o, True)}, {self.flag("pressed", o, False)})
            if p.movable[o] and "move_aside" in acts:
                for atoms, _ in self.reach(o, allow_held=False, allow_detached=False):
                    for free in ("free1", "free2"):
                        self.emit(Action("move_aside", (ids[o],)),
                                  atoms | {self.flag("aside", o, False), free},
                                  {self.flag("aside", o, True)} | {self.inactive(k) for k in self.edges_from(o)},
                                  {self.flag("aside", o, False)})
        for o in p.mobile:
            if p.grabbable[o] and "grab" in acts:
                self._grab(o)
            for name, rel, targets in (("puton", 1, p.receivers_on), ("putin", 0, p.receivers_in)):
                if name in acts:
                    for t in targets:
                        if t != o:
                            self._put(o, t, rel, name)
        if "attach" in acts:
            for k, (part, target, whole) in enumerate(p.attach_pairs):
                self._attach(k, part, target, whole)
        self.focus_ops()

    def _grab(self, o: int) -> None:
        p = self.p
        if p.static_load[o] > 0:
            return
        extra_pre = set()
        if p.assembly[o]:
            extra_pre.add(self.flag("assembled", o, True))
        if self.receiver[o]:
            extra_pre.add(self.load(o, 0))
        add = {self.held(o)} | {self.inactive(k) for k in self.edges_from(o)}
        dele: set[str] = set()
        if p.movable[o]:
            add.add(self.flag("aside", o, False))
            dele.add(self.flag("aside", o, True))
        if p.has_occlusions[o]:
            add.add(f"grabbed {self.name[o]}")
            dele.add(f"ungrabbed {self.name[o]}")
        for atoms, code in self.reach(o, allow_held=False, allow_detached=False):
            delta = {} if code & 3 == 2 else {code >> 2: -1}
            for before, after in self.hands(-1):
                self.emit(Action("grab", (p.ids[o],)), atoms | extra_pre | {before},
                          add | {after}, dele | {before, self.loc_atom(o, code)}, delta)

    def _put(self, o: int, t: int, rel: int, name: str) -> None:
        p = self.p
        code = t * 4 + rel
        if code not in self.possible[o]:
            return
        gate = {self.flag("open", t, True)} if rel == 0 and p.openable[t] else set()
        for atoms, _ in self.reach(t, allow_held=False):
            for before, after in self.hands(+1):
                self.emit(Action(name, (p.ids[o], p.ids[t])), atoms | gate | {self.held(o), before},
                          {self.loc_atom(o, code), after}, {self.held(o), before}, {t: +1})

    def _attach(self, k: int, a: int, b: int, whole: int) -> None:
        """Three operators instead of one per pair of location chains (their product was 80% of
        a large scene's grounded actions). Stage a checks part a's chain and records its location
        code, stage b does the same for b, and the cost-1 finish applies the effects from the two
        codes. The stages cost 0 and hold the `idle` lock that every other operator needs, so the
        state cannot change between the checks and the finish: the sequence is exactly one attach."""
        p = self.p
        action = Action("attach", (p.ids[a], p.ids[b]))
        status = {self.flag("assembled", whole, False), self.loc_atom(whole, NOWHERE)}
        armed = f"attach{k}_armed"
        a_codes = sorted({code for _, code in self.reach(a, allow_held=True)})
        b_codes = sorted({code for _, code in self.reach(b, allow_held=True)})
        for atoms, code in self.reach(a, allow_held=True):
            self.emit(None, atoms | status | {IDLE}, {armed, self._mark(k, "a", code)}, {IDLE}, cost=0,
                      label=action)
        for atoms, code in self.reach(b, allow_held=True):
            self.emit(None, atoms | {armed}, {self._mark(k, "b", code)}, {armed}, cost=0, label=action)
        for ca, cb in itertools.product(a_codes, b_codes):
            marks = {self._mark(k, "a", ca), self._mark(k, "b", cb)}
            counted = (ca == -2) + (cb == -2)
            pre = set(status) | marks
            add = {self.flag("assembled", whole, True), self.loc_atom(a, NOWHERE), self.loc_atom(b, NOWHERE), IDLE}
            dele = set(status) | marks
            delta: dict[int, int] = {}
            for part, code in ((a, ca), (b, cb)):  # what is deleted is also required, or the
                if code == -2:                     # translator makes the delete conditional
                    dele.add(self.held(part))
                    pre.add(self.held(part))
                elif code != NOWHERE:
                    dele.add(self.loc_atom(part, code))
                    pre.add(self.loc_atom(part, code))
                    if code & 3 != 2:
                        delta[code >> 2] = delta.get(code >> 2, 0) - 1
            if counted:
                add.add(self.held(whole))
                change = counted - 1
            else:
                place = cb if cb != NOWHERE else ca
                change = 0
                if place != NOWHERE:
                    add.add(self.loc_atom(whole, place))
                    if place & 3 != 2:
                        delta[place >> 2] = delta.get(place >> 2, 0) + 1
                else:
                    add.discard(self.loc_atom(whole, NOWHERE))
                    dele.discard(self.loc_atom(whole, NOWHERE))
            need = 2 - counted
            for before, after in self.hands(change):
                if int(before[-1]) < need:
                    continue
                self.emit(action, pre | {before}, add | {after}, (dele | {before}) - {after}, delta)

    def _mark(self, k: int, role: str, code: int) -> str:
        where = "held" if code == -2 else "detached" if code == NOWHERE else (
            f"{REL_NAMES[code & 3].lower()}_{self.name[code >> 2]}")
        return f"attach{k}_{role}_{where}"

    # initial state and goal ---------------------------------------------------------------------------
    def init_atoms(self) -> set[str]:
        p, s = self.p, self.s0
        atoms = {f"free{2 - len(self.held0)}"} | ({IDLE} if self.locked else set()) | ({HOME} if self.tokens else set())
        if s[0] != NOWHERE:
            atoms.add(self.robot_in(s[0]))
        for i in range(p.n):
            if i in p.slot:
                atoms.add(self.held(i) if i in self.held0 else self.loc_atom(i, p.loc(s, i)))
            if p.openable[i]:
                atoms.add(self.flag("open", i, p.attr(s, i, "open")))
            if p.movable[i]:
                atoms.add(self.flag("aside", i, p.attr(s, i, "moved_aside")))
            if p.pressable[i]:
                atoms.add(self.flag("pressed", i, p.attr(s, i, "pressed")))
            if p.assembly[i]:
                atoms.add(self.flag("assembled", i, p.attr(s, i, "assembled")))
            if p.has_occlusions[i]:
                atoms.add(f"ungrabbed {self.name[i]}")
            if self.receiver[i]:
                atoms.add(self.load(i, p.load(s, i)))
        for k, o in enumerate(p.occlusions):
            if not p.occlusion_active(s, o):
                atoms.add(self.inactive(k))
        return atoms

    def goal_atoms(self) -> list[str]:
        idx = self.p.index
        out = []
        for f in self.inst.goal:
            a = [idx[x] for x in f.args]
            if f.pred in ("INSIDE", "ON"):
                code = a[1] * 4 + (0 if f.pred == "INSIDE" else 1)
                if a[0] not in self.p.slot and self.p.loc(self.s0, a[0]) == code:
                    continue  # a node that never moves has no location atom: the goal holds throughout
                out.append(self.loc_atom(a[0], code))
            elif f.pred in ("OPEN", "CLOSED"):
                out.append(self.flag("open", a[0], f.pred == "OPEN"))
            elif f.pred == "PRESSED":
                out.append(self.flag("pressed", a[0], True))
            elif f.pred == "ASSEMBLED":
                out.append(self.flag("assembled", a[0], True))
            elif f.pred == "HELD":
                out.append(self.held(a[0]))
            elif f.pred == "MOVED_ASIDE":
                out.append(self.flag("aside", a[0], True))
            elif f.pred == "ROBOT_IN":
                out.append(self.robot_in(a[0]))
        return out


def _atom(atom: str) -> str:
    """`pred arg ...` as one 0-ary PDDL atom. Hyphens join the parts: node names are [a-z0-9_], so
    the joined name is unambiguous. Typed predicates over node constants were tried and measured
    worse: with grounded operators, the translator's invariant synthesis on Desk-11 ran past 5 min
    (it takes seconds on 0-ary atoms)."""
    return atom.replace(" ", "-")


def _conj(atoms: Iterable[str]) -> str:
    inner = " ".join(f"({_atom(a)})" for a in sorted(atoms))
    return f"(and {inner})" if inner else "(and)"


def _build(instance: TaskInstance, depth: int) -> _Exporter:
    ex = _Exporter(instance, depth)
    ex.build()
    return ex


def export_instance(instance: TaskInstance, *, depth: int | None = None) -> ExportedProblem:
    """Build domain and problem text for `instance` (G0, goal, catalog). `depth` (0 or 1, see
    DEPTHS) bounds the movable receivers a grounded chain crosses; None picks 1, or 0 when 1
    would ground more than AUTO_LIMIT operators."""
    if depth is not None and depth not in DEPTHS:
        raise ExportError(f"depth must be one of {DEPTHS} or None (automatic), not {depth!r}")
    if depth is None:
        try:
            ex = _build(instance, 1)
        except ExportError:  # too many chains at depth 1; depth 0 re-raises what it cannot express
            ex = _build(instance, 0)
        if len(ex.ops) > AUTO_LIMIT:
            ex = _build(instance, 0)
    else:
        ex = _build(instance, depth)
    init = ex.init_atoms()
    goal = ex.goal_atoms()
    atoms: set[str] = set(init) | set(goal)
    for op in ex.ops:
        atoms |= op.pre | op.add | op.delete
    slug = re.sub(r"[^a-z0-9_-]", "-", instance.id.lower()) or "instance"
    costs = any(op.cost != 1 for op in ex.ops)  # zero-cost attach stages need :action-costs
    lines = [f"; RoboGraph instance {instance.id}: {len(ex.ops)} grounded STRIPS actions",
             f"(define (domain robograph-{slug})",
             "  (:requirements :strips :action-costs)" if costs else "  (:requirements :strips)",
             "  (:predicates"]
    lines += [f"    ({_atom(a)})" for a in sorted(atoms)]
    lines.append("  )")
    if costs:
        lines.append("  (:functions (total-cost) - number)")
    for k, op in enumerate(ex.ops):
        shown = op.label or op.action
        if shown is None:
            label = op.name
        else:
            label = "_".join([shown.name if op.action else shown.name + "_stage",
                              *(ex.name[ex.p.index[x]] for x in shown.args)])
        effect = sorted(f"({_atom(a)})" for a in op.add) + sorted(f"(not ({_atom(a)}))" for a in op.delete)
        if costs and op.cost:
            effect.append(f"(increase (total-cost) {op.cost})")
        lines += [f"  (:action a{k}_{label}", "    :parameters ()",
                  f"    :precondition {_conj(op.pre)}", f"    :effect (and {' '.join(effect)}))"]
    lines.append(")")
    domain = "\n".join(lines) + "\n"
    init_text = " ".join(f"({_atom(a)})" for a in sorted(init)) + (" (= (total-cost) 0)" if costs else "")
    problem = "\n".join([
        f"(define (problem robograph-{slug}-problem)",
        f"  (:domain robograph-{slug})",
        "  (:init " + init_text + ")",
        f"  (:goal {_conj(goal)})",
        *(["  (:metric minimize (total-cost))"] if costs else []),
        ")",
    ]) + "\n"
    return ExportedProblem(domain, problem, tuple(ex.ops), ex.depth)


# external planner ------------------------------------------------------------------------------------
OPTIMAL_ALIAS = "seq-opt-bjolp"  # the fastest optimal configuration measured here (PLATFORM.md)


def fast_downward_driver() -> Path | None:
    """The driver script bundled by the `up-fast-downward` package, or None when not installed.
    Found without importing the package (its `__init__` needs unified-planning, which we do not)."""
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or spec.origin is None:
        return None
    driver = Path(spec.origin).parent / "downward" / "fast-downward.py"
    return driver if driver.exists() else None


@dataclass(frozen=True)
class PlannerRun:
    """Outcome of one Fast Downward run: status is solved, unsolvable (exit 10 or 11: proved), unsolved
    (exit 12: search incomplete), timeout or
    error; translate_seconds is the translator's own wall-clock report (None if it did not finish)."""

    status: str
    plan: str | None
    seconds: float
    translate_seconds: float | None
    translate_cpu_seconds: float | None  # on a shared machine the honest figure (wall depends on load)
    log: str


def run_fast_downward(domain: Path, problem: Path, workdir: Path, timeout: float, *,
                      alias: str = OPTIMAL_ALIAS, nice: int = 0) -> PlannerRun:
    """Run the driver in its own process group and kill that whole group on timeout: the driver
    forks the translator and the search, and killing the driver alone leaves the search running."""
    driver = fast_downward_driver()
    if driver is None:
        raise ExportError("Fast Downward is not installed (pip install up-fast-downward)")
    plan = Path(workdir) / "sas_plan"
    plan.unlink(missing_ok=True)
    # invariant synthesis was 36 of 41 translator CPU seconds on Cosmetics-11 and finds next to no
    # mutex groups over 0-ary atoms: skip it
    cmd = [sys.executable, str(driver), "--alias", alias, "--plan-file", str(plan), str(domain), str(problem),
           "--translate-options", "--invariant-generation-max-candidates", "0"]
    if nice:
        cmd = ["nice", "-n", str(nice), *cmd]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        raw, _ = proc.communicate(timeout=timeout)
        status = {0: "solved", 10: "unsolvable", 11: "unsolvable", 12: "unsolved"}.get(proc.returncode, "error")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raw, _ = proc.communicate()
        status = "timeout"
    seconds = time.perf_counter() - t0
    log = raw.decode(errors="replace")
    done = re.search(r"Done! \[([0-9.]+)s CPU, ([0-9.]+)s wall-clock\]", log)  # the translator's last line
    text = plan.read_text() if status == "solved" and plan.exists() else None
    wall, cpu = (float(done.group(2)), float(done.group(1))) if done else (None, None)
    return PlannerRun(status, text, seconds, wall, cpu, log)


# CLI -------------------------------------------------------------------------------------------------
def _cmd_export(args: argparse.Namespace) -> int:
    from robograph.instance import load_instance

    inst = load_instance(args.instance)
    exported = export_instance(inst, depth=args.depth)
    dom, prob = exported.write(args.out)
    print(f"wrote {dom} ({len(exported.operators)} actions, chain depth {exported.depth}) and {prob}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export-pddl", help="write domain.pddl and problem.pddl (plain STRIPS) for an instance")
    p.add_argument("instance", metavar="INSTANCE", help="instance file (JSON or YAML)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--depth", type=int, choices=DEPTHS, default=None,
                   help="movable receivers a grounded chain crosses before it takes the focus token "
                        f"(default: 1, or 0 when 1 grounds more than {AUTO_LIMIT} actions)")
    p.set_defaults(handler=_cmd_export)
