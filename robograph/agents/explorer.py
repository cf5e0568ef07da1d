"""A strong scripted reference agent that sees only the payload (never the latent graph).

It remembers what it saw and where (`Belief`), works the goal on that memory cheapest first
(facts it can advance in the current room before those needing walks; a container a placement
needs is opened before the object is picked up; two objects are carried per trip), searches
systematically for what it has not seen (closed containers in the room, then possible
occluders, then the nearest unvisited room, finally closing containers it opened to look, since
an open drawer can hide the one below it), re-checks its memory against every view (a failed
action is retried, a fact the view contradicts is redone, a vanished object is searched for
again) and stops only when its memory says every goal fact holds.

Three switches turn one capability off each, giving controlled deficits that
`scripts/metric_validity.py` uses as a sensitivity check of the metrics:
`memory=False` (state maintenance: it keeps only the current view), `exploration=False` (it
never searches: it stops when something it needs is out of sight) and `recheck=False` (state
updating: it trusts its own actions' intended effects, never retries, never notices changes).

Affordances are not in the payload, so the agent infers them the way a model would: from the
goal (subjects of INSIDE/ON are movable, their targets are containers/surfaces), from observed
fields (`open` means openable) and from typed failure feedback.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robograph.actions import Action
from robograph.agents.base import Reply, Request, history_action, last_step, reply_text
from robograph.agents.belief import Belief
from robograph.errors import FactSyntaxError
from robograph.facts import Fact, parse_fact

# failures that will not go away by retrying the same grounded action
_PERMANENT = frozenset(
    {
        "not_openable", "not_pressable", "not_grabbable", "not_movable", "not_a_surface",
        "not_a_container", "not_a_part", "incompatible_parts", "unknown_node", "unknown_action",
        "invalid_arguments", "navigation_disabled", "invalid_target", "cycle", "capacity",
        "already_moved_aside", "already_held", "already_open", "already_closed",
        "already_pressed", "already_assembled",
    }
)
_INJECTED = frozenset({"execution_failed", "simulation_unstable"})
_MAX_ATTEMPTS = 3
_PRIORITY = {"ASSEMBLED": 0, "INSIDE": 1, "ON": 1, "PRESSED": 2, "OPEN": 3, "CLOSED": 4, "ROBOT_IN": 5}

Choice = tuple[Action, str]


@dataclass(frozen=True)
class ExplorerConfig:
    memory: bool = True
    exploration: bool = True
    recheck: bool = True


class _Search(Exception):
    """Raised inside planning when a fact needs a node whose whereabouts are unknown."""


class ExplorerAgent:
    name = "explorer"
    privileged = False

    def __init__(
        self, memory: bool = True, exploration: bool = True, recheck: bool = True, seed: int = 0
    ) -> None:
        self.config = ExplorerConfig(memory, exploration, recheck)
        self.reset(seed)

    def reset(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.belief = Belief()
        self.attempts: dict[Action, int] = {}
        self.bad: set[Action] = set()
        self.moved_aside: set[str] = set()
        self.opened: list[str] = []  # containers our own successful opens left open
        self.hiders: set[str] = set()  # containers whose opening hid something from view
        self.hidden_by: dict[str, str] = {}  # node -> the container whose opening hid it
        self.achieved: set[Fact] = set()  # intended effects of our own successful actions
        self.came_from: dict[str, tuple[str, str]] = {}
        self.retryable: set[Action] = set()
        self.loaded: set[str] = set()  # carriers that refused a grab while holding something
        self.sweeps = 0  # extra search sweeps after everything was searched once

    # ------------------------------------------------------------------------------------------
    def act(self, request: Request) -> Reply:
        payload = request.payload
        cfg = self.config
        if not cfg.memory:
            self.reset(self.rng.randrange(1 << 30))
        goal = _goal(payload)
        self.goal_nodes = {a for f in goal for a in f.args}
        self.places = {f.args[1] for f in goal if f.pred in ("INSIDE", "ON")} | {
            p for _r, p in self.belief.loc.values()
        }
        failed = self._assess_previous(payload)
        toggled = self._toggled_just_now(payload)
        entry = last_step(payload)
        ours = frozenset(history_action(entry).args) if entry else frozenset()
        contradicted = self.belief.observe(
            payload.get("current_observation") or {}, cfg.recheck, explained=toggled is not None, ours=ours
        )
        newly_hidden = contradicted - self.hidden_by.keys()
        if newly_hidden and toggled is not None and not self.belief.is_closed(toggled):
            self.hiders.add(toggled)  # an open door or lid can hide what is behind it
            self.hidden_by.update(dict.fromkeys(newly_hidden, toggled))
        elif contradicted:
            # something moved behind our back: blockers may be back, containers may hold it now
            here = self.belief.room or ""
            self.moved_aside = {n for n in self.moved_aside if self.belief.room_of.get(n) != here}
        action, reason = self._decide(goal, failed)
        self.attempts[action] = self.attempts.get(action, 0) + 1
        if action.name == "grab" and action.args[0] in self.belief.loc:
            self.came_from[action.args[0]] = self.belief.loc[action.args[0]]
        repairs = failed is not None and (action == failed or bool(set(action.args) & set(failed.args)))
        return Reply(reply_text(action, reason, failed if repairs else None))

    @staticmethod
    def _toggled_just_now(payload: Mapping[str, Any]) -> str | None:
        entry = last_step(payload)
        if entry is None or (entry.get("event") or {}).get("status") != "success":
            return None
        action = history_action(entry)
        return action.args[0] if action.name in ("open", "close") and action.args else None

    def _assess_previous(self, payload: Mapping[str, Any]) -> Action | None:
        """The previous action when it failed (learning from its failure type), else None."""
        entry = last_step(payload)
        if entry is None:
            return None
        action = history_action(entry)
        event = entry.get("event") or {}
        if not action.name:
            return None
        if event.get("status") != "failure":
            self._record_success(action)
            return None
        ftype = str(event.get("failure_type") or "")
        if ftype in _PERMANENT:
            self.bad.add(action)
        if ftype == "already_moved_aside":
            self.moved_aside.add(action.args[0])
        if ftype == "loaded_carrier" and action.name == "grab":
            self.loaded.add(action.args[0])
        elif ftype == "not_visible" and self.config.recheck:
            for nid in action.args:  # our memory of it is stale
                if not self.belief.sees(nid):
                    self.belief.loc.pop(nid, None)
                    self.belief.lost.add(nid)
        self.retryable = {action} if ftype in _INJECTED else set()
        if ftype in _INJECTED and not self.config.recheck:
            self._record_success(action)  # no re-checking: assume it worked anyway
            return None
        return action

    def _record_success(self, action: Action) -> None:
        a = action.args
        if action.name == "open":
            self.opened.append(a[0])
        if action.name == "move_aside":
            self.moved_aside.add(a[0])
        elif action.name == "grab":
            self.moved_aside.discard(a[0])
            self.achieved -= {f for f in self.achieved if f.pred in ("INSIDE", "ON") and f.args[0] == a[0]}
        elif action.name in ("open", "close"):
            self.achieved.discard(Fact("CLOSED" if action.name == "open" else "OPEN", a))
        intended = {
            "putin": Fact("INSIDE", a), "puton": Fact("ON", a), "open": Fact("OPEN", a),
            "close": Fact("CLOSED", a), "press": Fact("PRESSED", a),
        }.get(action.name)
        if intended is not None:
            self.achieved.add(intended)
        if action.name == "attach" and a[0] in self.belief.part_of:
            self.achieved.add(Fact("ASSEMBLED", (self.belief.part_of[a[0]],)))

    # decision --------------------------------------------------------------------------------
    def _decide(self, goal: list[Fact], failed: Action | None) -> Choice:
        if failed is not None and failed in self.retryable and self.config.recheck and self._usable(failed, retry=True):
            return failed, f"previous {failed} failed; retrying it"
        pending = [f for f in goal if not self._holds(f)]
        if not pending:
            return Action("stop"), "memory says every goal fact holds"
        found = self._handle_held(pending)
        if found is not None:
            return found
        options: list[tuple[int, int, int, Choice]] = []
        for i, fact in enumerate(pending):
            try:
                step = self._advance(fact, pending)
            except _Search:
                continue
            if step is not None:
                cost, choice = step
                if self._usable(choice[0]):
                    options.append((cost, _PRIORITY.get(fact.pred, 9), i, choice))
        if options:
            return min(options, key=lambda o: o[:3])[3]
        found = self._explore() if self.config.exploration else None
        if found is not None:
            return found
        if self.belief.held:
            found = self._put_down(self.belief.held[0])
            if found is not None:
                return found
        return Action("stop"), "nothing left that memory says can be done"

    def _usable(self, action: Action, retry: bool = False) -> bool:
        if action in self.bad:
            return False
        return self.attempts.get(action, 0) < _MAX_ATTEMPTS + (1 if retry else 0)

    def _holds(self, fact: Fact) -> bool:
        b = self.belief
        if not self.config.recheck and fact in self.achieved:
            return True
        pred, args = fact.pred, fact.args
        if pred in ("INSIDE", "ON"):
            return b.loc.get(args[0]) == (pred, args[1])
        if pred in ("OPEN", "CLOSED"):
            state = b.nodes.get(args[0], {}).get("open")
            return state is (pred == "OPEN")
        if pred in ("ASSEMBLED", "PRESSED"):
            return bool(b.nodes.get(args[0], {}).get(pred.lower()))
        if pred == "HELD":
            return args[0] in b.held
        if pred == "ROBOT_IN":
            return b.room == args[0]
        return False

    # per-fact planning: (walks before the first action, action) or None (nothing to do now) -----
    def _advance(self, fact: Fact, pending: list[Fact]) -> tuple[int, Choice] | None:
        pred, args = fact.pred, fact.args
        why = f"towards {fact}"
        if pred in ("INSIDE", "ON"):
            return self._place(args[0], args[1], pred == "INSIDE", pending)
        if pred == "ASSEMBLED":
            return self._assemble(args[0])
        if pred in ("PRESSED", "OPEN", "CLOSED"):
            node = args[0]
            if pred == "CLOSED" and self._still_needed_open(node, pending):
                return None
            verb = {"PRESSED": "press", "OPEN": "open", "CLOSED": "close"}[pred]
            return self._operate(node, verb, 1 if verb == "press" else 2, why)
        if pred == "ROBOT_IN":
            walk = self._walk_to(args[0], why)
            return (1, walk) if walk else None
        return None

    def _locate(self, nid: str) -> tuple[int, str]:
        """(walks to reach it, room); raises `_Search` when its whereabouts are unknown."""
        room = self.belief.where(nid)
        dist = self.belief.distance(room)
        if room is None or dist is None:
            raise _Search(nid)
        return dist, room

    def _go_or(self, nid: str, why: str) -> tuple[int, Choice] | None:
        """Walk towards `nid` when it is in another room; None when it is here."""
        dist, room = self._locate(nid)
        if dist == 0:
            return None
        walk = self._walk_to(room, why)
        return (dist, walk) if walk else None

    def _open_chain(self, nid: str, into: bool, why: str) -> tuple[int, Choice] | None:
        """Open the outermost closed container between us and `nid` (or `nid` itself)."""
        chain = self.belief.closed_ancestors(nid, include_self=into)
        if not chain:
            return None
        return 0, self._with_hands(2, Action("open", (chain[0],)), f"open {chain[0]} to reach {nid}; {why}")

    def _with_hands(self, need: int, action: Action, why: str, keep: tuple[str, ...] = ()) -> Choice:
        if self.belief.free_hands() >= need:
            return action, why
        for obj in self.belief.held:
            if obj not in keep:
                found = self._put_down(obj)
                if found is not None:
                    return found
        return action, why

    def _operate(self, node: str, verb: str, hands: int, why: str) -> tuple[int, Choice] | None:
        walk = self._go_or(node, why)
        if walk is not None:
            return walk
        reach = self._open_chain(node, False, why)
        if reach is not None:
            return reach
        if not self.belief.sees(node):
            raise _Search(node)
        return 0, self._with_hands(hands, Action(verb, (node,)), why)

    def _still_needed_open(self, container: str, pending: list[Fact]) -> bool:
        b = self.belief
        for f in pending:
            if f.pred not in ("INSIDE", "ON", "ASSEMBLED"):
                continue
            nodes = [f.args[0], *(f.args[1:] if f.pred != "ASSEMBLED" else b.parts(f.args[0]))]
            for n in nodes:
                if n == container and f.pred == "INSIDE" and f.args[1] == container:
                    return True
                if container in self._ancestors(n):
                    return True
        return False

    def _ancestors(self, nid: str) -> list[str]:
        out, cur, seen = [], nid, {nid}
        while cur in self.belief.loc:
            parent = self.belief.loc[cur][1]
            if parent in seen:
                break
            out.append(parent)
            seen.add(parent)
            cur = parent
        return out

    def _place(self, obj: str, target: str, into: bool, pending: list[Fact]) -> tuple[int, Choice] | None:
        b = self.belief
        why = f"towards {'INSIDE' if into else 'ON'}({obj}, {target})"
        if b.nodes.get(obj, {}).get("assembled") is False:
            return self._assemble(obj)
        if obj in b.held:
            return None  # `_handle_held` carries it
        walk = self._go_or(obj, why)
        if walk is not None:
            return walk
        reach = self._open_chain(obj, False, why)  # remembered inside something closed
        if reach is not None:
            return reach
        if not b.sees(obj):
            raise _Search(obj)
        self._locate(target)  # do not pick it up before we know where it goes
        if obj in self.loaded:
            return self._unload(obj, pending)
        chain = b.closed_ancestors(target, include_self=into)
        hides_obj = any(self.hidden_by.get(n) in chain for n in (obj, *self._ancestors(obj)))
        if b.where(target) == b.where(obj) and chain and not hides_obj and b.sees(chain[0]):
            return 0, self._with_hands(2, Action("open", (chain[0],)), f"open {chain[0]} first; {why}")
        return 0, self._with_hands(1, Action("grab", (obj,)), why)

    def _unload(self, carrier: str, pending: list[Fact]) -> tuple[int, Choice] | None:
        """A carrier that cannot be picked up loaded: look inside, take out what no goal
        moves anyway, then grab it."""
        b = self.belief
        if b.is_closed(carrier) and carrier not in b.looked_in:
            return 0, self._with_hands(2, Action("open", (carrier,)), f"look inside {carrier} to empty it")
        contents = [n for n, (_r, p) in b.loc.items() if p == carrier]
        if not contents:
            self.loaded.discard(carrier)
            return 0, self._with_hands(1, Action("grab", (carrier,)), f"grab {carrier}, now empty")
        moving = {f.args[0] for f in pending if f.pred in ("INSIDE", "ON")}
        loose = [n for n in contents if n not in moving]
        if not loose:
            return None  # the goal takes them out
        if b.is_closed(carrier):
            return 0, self._with_hands(2, Action("open", (carrier,)), f"open {carrier} to empty it")
        return 0, self._with_hands(1, Action("grab", (loose[0],)), f"take {loose[0]} out of {carrier}")

    def _assemble(self, whole: str) -> tuple[int, Choice] | None:
        b = self.belief
        why = f"towards ASSEMBLED({whole})"
        parts = b.parts(whole)
        if len(parts) < 2:
            raise _Search(whole)
        located = [self._locate(p) for p in parts[:2]]
        here = [p for p, (d, _r) in zip(parts, located, strict=False) if d == 0 and b.sees(p)]
        if len(here) < 2:
            if any(p in b.held for p in parts):
                far = [p for p in parts[:2] if p not in here]
                return self._go_or(far[0], why) if far else None
            if here:
                reach = self._open_chain(here[0], False, why)
                return reach or (0, self._with_hands(1, Action("grab", (here[0],)), why))
            return self._go_or(parts[0], why)
        for p in parts[:2]:
            reach = self._open_chain(p, False, why)
            if reach is not None:
                return reach
        held_parts = sum(1 for p in parts[:2] if p in b.held)
        need = 2 - held_parts
        return 0, self._with_hands(need, Action("attach", (parts[0], parts[1])), why, keep=tuple(parts))

    # carrying --------------------------------------------------------------------------------
    def _goal_of(self, obj: str, pending: list[Fact]) -> Fact | None:
        for f in pending:
            if f.pred in ("INSIDE", "ON") and f.args[0] == obj:
                return f
        return None

    def _handle_held(self, pending: list[Fact]) -> Choice | None:
        b = self.belief
        for obj in list(b.held):
            fact = self._goal_of(obj, pending)
            if fact is None:
                whole = b.part_of.get(obj)
                if whole is not None and Fact("ASSEMBLED", (whole,)) in pending:
                    continue  # kept for the attach
                return self._put_down(obj, back=True)
            target, into = fact.args[1], fact.pred == "INSIDE"
            room = b.where(target)
            dist = b.distance(room)
            if room is None or dist is None:
                found = self._explore() if self.config.exploration else None
                return found or self._put_down(obj)
            if dist > 0:
                second = self._second_load(obj, room, pending) if b.free_hands() >= 1 else None
                return second or self._walk_to(room, f"carry {obj} to {target}") or self._put_down(obj)
            if not b.sees(target):
                hider = self.hidden_by.get(target)
                if hider is not None and b.sees(hider) and not b.is_closed(hider):
                    close = Action("close", (hider,))
                    if self._usable(close):
                        return self._with_hands(2, close, f"close {hider}: open, it hides {target}")
                return self._put_down(obj, avoid=target)
            chain = b.closed_ancestors(target, include_self=into)
            if chain:
                return self._with_hands(2, Action("open", (chain[0],)), f"open {chain[0]} for {obj}")
            verb = "putin" if into else "puton"
            action = Action(verb, (obj, target))
            if self._usable(action):
                return action, f"place {obj} for {fact}"
            return self._put_down(obj, avoid=target)
        return None

    def _second_load(self, carried: str, room: str, pending: list[Fact]) -> Choice | None:
        """Pick up one more object bound for the same room before walking there."""
        b = self.belief
        for f in pending:
            obj = f.args[0]
            if f.pred not in ("INSIDE", "ON") or obj == carried or obj in b.held or not b.sees(obj):
                continue
            if b.where(f.args[1]) != room or b.closed_ancestors(obj):
                continue
            if b.nodes.get(obj, {}).get("assembled") is False:
                continue
            action = Action("grab", (obj,))
            if self._usable(action):
                return action, f"carry {obj} along with {carried}"
        return None

    def _put_down(self, obj: str, avoid: str | None = None, back: bool = False) -> Choice | None:
        """Free a hand: an object no goal needs goes `back` where it came from; one still to be
        placed goes onto a visible surface (not back into a container it must leave)."""
        b = self.belief
        options: list[Action] = []
        origin = self.came_from.get(obj)
        if back and origin is not None and origin[1] not in (avoid, *self.loaded) and b.sees(origin[1]):
            rel, parent = origin
            if rel == "ON":
                options.append(Action("puton", (obj, parent)))
            elif rel == "INSIDE" and not b.closed_ancestors(parent, include_self=True):
                options.append(Action("putin", (obj, parent)))
        surfaces = sorted({p for r, p in b.loc.values() if r == "ON"})
        options += [
            Action("puton", (obj, s))
            for s in surfaces
            if s not in (obj, avoid) and b.sees(s) and not b.closed_ancestors(s)
            and not b.nodes.get(s, {}).get("is_full")
        ]
        for action in options:
            if self._usable(action) and action.args[1] not in b.held:
                return action, f"put {obj} down to free a hand"
        return None

    # exploration -----------------------------------------------------------------------------
    def _explore(self) -> Choice | None:
        """Cheapest search step first: open a closed container here we have not looked into,
        close one whose opening hid something, move a likely occluder aside (objects no goal
        needs before goal objects), walk to the nearest unvisited room, go back to a room with
        search candidates left, and last close containers we opened (an open one can hide another)."""
        b = self.belief
        here = b.room or ""
        for nid in sorted(b.visible):
            if b.is_closed(nid) and nid not in b.looked_in and not b.closed_ancestors(nid):
                action = Action("open", (nid,))
                if self._usable(action):
                    return self._with_hands(2, action, f"look inside {nid}")
        wanted = {self.hidden_by[n] for n in self.goal_nodes if n in self.hidden_by and not b.sees(n)}
        for nid in sorted(self.hiders, key=lambda h: (h not in wanted, h)):
            found = self._close_again(nid)
            if found is not None:
                return found
        blockers = self._blockers(here)
        first = [n for n in blockers if n not in self.goal_nodes and n not in self.places]
        if first and b.free_hands() >= 1:
            return Action("move_aside", (first[0],)), f"move {first[0]} aside to look behind it"
        walk = self._walk_unvisited()
        if walk is not None:
            return walk
        if blockers and b.free_hands() >= 1:
            return Action("move_aside", (blockers[0],)), f"move {blockers[0]} aside to look behind it"
        rooms = sorted(
            {r for n, r in b.room_of.items() if r != here and (self._is_blocker(n) or self._unlooked(n))},
            key=lambda r: (b.distance(r) is None, b.distance(r) or 0, r),
        )
        for room in rooms:
            walk = self._walk_to(room, f"go back to {room}: it has places not searched yet")
            if walk is not None:
                return walk
        for nid in reversed(self.opened):
            found = self._close_again(nid)
            if found is not None:
                return found
        if self.config.recheck and self.sweeps < 1:
            # nothing found anywhere: a blocker may have slid back, a lid shut before we looked
            # (state regression), or a part was seen while its whole was hidden (PART_OF edges
            # show only when both ends are in view), so search everything once more
            self.sweeps += 1
            self.moved_aside.clear()
            b.looked_in = {c for c in b.looked_in if not b.is_closed(c)}
            return self._explore()
        return None

    def _unlooked(self, nid: str) -> bool:
        b = self.belief
        return b.is_closed(nid) and nid not in b.looked_in and self._usable(Action("open", (nid,)))

    def _is_blocker(self, nid: str) -> bool:
        """A possible occluder: a loose thing (on or in something) not yet moved aside, not a
        button, not already known to be immovable."""
        b = self.belief
        rel = b.loc.get(nid, ("", ""))[0]
        if rel not in ("ON", "INSIDE") or nid in self.moved_aside or nid in b.held:
            return False
        if "pressed" in b.nodes.get(nid, {}):
            return False
        return self._usable(Action("move_aside", (nid,)))

    def _blockers(self, room: str) -> list[str]:
        """Candidates in `room`, likeliest occluders first: loose objects before places others
        stand on or in, openable things inside furniture (drawers, door bins) last."""
        b = self.belief

        def rank(n: str) -> tuple[bool, bool, bool, str]:
            fixture = b.openable(n) and b.loc[n][0] == "INSIDE"
            return fixture, n in self.places, n in self.goal_nodes, n

        found = [
            n for n in b.visible
            if b.room_of.get(n) == room and self._is_blocker(n) and not b.closed_ancestors(n)
        ]
        return sorted(found, key=rank)

    def _close_again(self, nid: str) -> Choice | None:
        b = self.belief
        action = Action("close", (nid,))
        if not b.sees(nid) or b.is_closed(nid) or not self._usable(action):
            return None
        return self._with_hands(2, action, f"close {nid} again: an open one can hide another")

    def _walk_unvisited(self) -> Choice | None:
        b = self.belief
        if b.room is None:
            return None
        if not self.config.memory:
            rooms = b.adjacent.get(b.room, [])
            return (Action("walk", (self.rng.choice(rooms),)), "walk to look around") if rooms else None
        route = b.path(lambda r: r not in b.visited)
        return (Action("walk", (route[0],)), "walk towards an unvisited room") if route else None

    def _walk_to(self, room: str, why: str) -> Choice | None:
        b = self.belief
        if b.room is None or room in ("", b.room):
            return None
        route = b.path(lambda r: r == room)
        return (Action("walk", (route[0],)), why) if route else None


def _goal(payload: Mapping[str, Any]) -> list[Fact]:
    out = []
    for text in payload.get("success_criterion") or []:
        try:
            out.append(parse_fact(str(text)))
        except FactSyntaxError:
            continue
    return out
