"""A competent scripted agent that sees only the payload (never the latent graph).

It keeps a belief of the scene from what it has seen (`memory`), works the goal greedily on that
belief, searches for what it has not seen by opening containers, moving blockers aside and
walking to unvisited rooms (`exploration`), and re-checks its belief against each new view,
retrying failed actions and redoing facts that an intervention undid (`recheck`). Switching one
of the three off gives a controlled state-maintenance, exploration or updating deficit, which is
how `scripts/metric_validity.py` shows each metric measures what it claims.

Affordances are not in the payload, so the agent infers them the way a model would: from the
goal (subjects of INSIDE/ON are movable, their targets are containers/surfaces), from the
observed fields (`open` means openable) and from typed failure feedback.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from robograph.actions import Action
from robograph.agents.base import Reply, Request, history_action, last_step, reply_text
from robograph.errors import FactSyntaxError
from robograph.facts import Fact, parse_fact

# failures that will not go away by retrying the same grounded action
_PERMANENT = frozenset(
    {
        "not_openable", "not_pressable", "not_grabbable", "not_movable", "not_a_surface",
        "not_a_container", "not_a_part", "incompatible_parts", "unknown_node", "unknown_action",
        "invalid_arguments", "navigation_disabled", "invalid_target", "cycle",
    }
)
_TWO_HANDS = frozenset({"open", "close", "attach"})
_VIEW_CHANGING = frozenset({"open", "close", "move_aside", "walk"})
_MAX_ATTEMPTS = 3


@dataclass
class Belief:
    """What the agent believes about the scene (only from observations)."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    loc: dict[str, tuple[str, str]] = field(default_factory=dict)  # child -> (relation, parent)
    part_of: dict[str, str] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)
    visible: set[str] = field(default_factory=set)
    room: str | None = None
    adjacent: dict[str, list[str]] = field(default_factory=dict)
    seen_in_room: dict[str, str] = field(default_factory=dict)
    visited: set[str] = field(default_factory=set)
    surfaces: set[str] = field(default_factory=set)
    containers: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class ExplorerConfig:
    memory: bool = True
    exploration: bool = True
    recheck: bool = True


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
        self.explored: set[Action] = set()
        self.achieved: set[Fact] = set()
        self.came_from: dict[str, tuple[str, str]] = {}
        self.opened_to_look: list[str] = []
        self._last: Action | None = None

    # ------------------------------------------------------------------------------------------
    def act(self, request: Request) -> Reply:
        payload = request.payload
        cfg = self.config
        if not cfg.memory:
            self.belief = Belief()
            self.attempts.clear()
            self.bad.clear()
            self.explored.clear()
            self.opened_to_look.clear()
        goal = _goal(payload)
        surprised = self._observe(payload.get("current_observation") or {}, goal)
        if surprised and cfg.recheck:
            self.explored.clear()  # the world changed behind our back: look again
        failed = self._assess_previous(payload)
        action, reason = self._decide(goal, failed)
        self.attempts[action] = self.attempts.get(action, 0) + 1
        if action.name == "grab" and action.args[0] in self.belief.loc:
            self.came_from[action.args[0]] = self.belief.loc[action.args[0]]
        if action.name in ("open", "move_aside", "walk"):
            self.explored.add(action)
        self._last = action
        repairs = failed is not None and (action == failed or set(action.args) & set(failed.args))
        return Reply(reply_text(action, reason, failed if repairs else None))

    # belief update --------------------------------------------------------------------------
    def _observe(self, obs: Mapping[str, Any], goal: list[Fact]) -> bool:
        b = self.belief
        robot = obs.get("robot") or {}
        room = robot.get("current_room")
        b.room = str(room) if room else None
        if b.room:
            b.visited.add(b.room)
            b.adjacent[b.room] = [str(r) for r in robot.get("adjacent_rooms") or []]
        before = dict(b.loc)
        visible = {str(n["id"]) for n in obs.get("visible_nodes", [])}
        changed = {  # observed state that changed without us touching the node
            str(n["id"])
            for n in obs.get("visible_nodes", [])
            if str(n["id"]) in b.nodes and b.nodes[str(n["id"])] != n and not self._moved_by_us(str(n["id"]))
        }
        for node in obs.get("visible_nodes", []):
            b.nodes[str(node["id"])] = dict(node)
            if b.room:
                b.seen_in_room[str(node["id"])] = b.room
        b.held = [str(h["id"]) for h in obs.get("held_objects", [])]
        for nid in b.held:
            b.loc.pop(nid, None)
        seen_loc: dict[str, tuple[str, str]] = {}
        for e in obs.get("visible_edges", []):
            src, dst, rel = str(e["from"]), str(e["to"]), str(e["relation"])
            if rel in ("INSIDE", "ON", "IN_ROOM"):
                seen_loc[src] = (rel, dst)
                (b.containers if rel == "INSIDE" else b.surfaces if rel == "ON" else set()).add(dst)
            elif rel == "PART_OF":
                b.part_of[src] = dst
        for nid in visible:
            if nid in seen_loc:
                b.loc[nid] = seen_loc[nid]
            elif nid not in b.held:
                b.loc.pop(nid, None)
        for f in goal:
            if f.pred == "INSIDE":
                b.containers.add(f.args[1])
            elif f.pred == "ON":
                b.surfaces.add(f.args[1])
        surprised = False
        # after our own open/close/move_aside/walk a changed view is expected, not a surprise
        explained = self._last is not None and self._last.name in _VIEW_CHANGING
        if self.config.recheck:
            for nid, (_rel, parent) in list(b.loc.items()):
                # a remembered node that should be in view but is not: its location is unknown
                if nid not in visible and parent in visible and not self._closed(parent):
                    del b.loc[nid]
                    surprised = not explained
            surprised = surprised or bool(changed) or any(
                before.get(n) not in (None, b.loc.get(n)) and not self._moved_by_us(n) for n in visible
            )
        b.visible = visible
        return surprised

    def _moved_by_us(self, nid: str) -> bool:
        last = self._last
        return last is not None and nid in last.args

    def _closed(self, nid: str) -> bool:
        return self.belief.nodes.get(nid, {}).get("open") is False

    def _assess_previous(self, payload: Mapping[str, Any]) -> Action | None:
        """Return the previous action when it failed (and learn from the failure)."""
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
        if ftype == "execution_failed" and not self.config.recheck:
            # no re-checking: assume the effect happened anyway
            self._record_success(action)
            return None
        return action

    def _record_success(self, action: Action) -> None:
        """Track the goal-level facts our own actions made (and unmade) true."""
        a = action.args
        if action.name in ("open", "close"):
            self.achieved.discard(Fact("CLOSED" if action.name == "open" else "OPEN", a))
        if action.name == "grab":
            self.achieved -= {f for f in self.achieved if f.pred in ("INSIDE", "ON") and f.args[0] == a[0]}
        self.achieved.update(_intended(action, self.belief))

    # decision --------------------------------------------------------------------------------
    def _decide(self, goal: list[Fact], failed: Action | None) -> tuple[Action, str]:
        b = self.belief
        if failed is not None and self.config.recheck and self._usable(failed, retry=True):
            return failed, f"previous {failed} failed; retrying it"
        open_facts = [f for f in goal if not self._holds(f)]
        if not open_facts:
            return Action("stop"), "every goal fact holds in the current observation"
        for step in (self._handle_held, self._work_goal):
            found = step(open_facts)
            if found is not None:
                return found
        if self.config.exploration:
            found = self._explore(open_facts)
            if found is not None:
                return found
        if b.held:
            found = self._put_down(b.held[0])
            if found is not None:
                return found
        return Action("stop"), "no further progress possible from what is known"

    def _usable(self, action: Action, retry: bool = False) -> bool:
        if action in self.bad:
            return False
        limit = _MAX_ATTEMPTS + (1 if retry else 0)
        return not (self.config.memory and self.attempts.get(action, 0) >= limit)

    def _holds(self, fact: Fact) -> bool:
        if not self.config.recheck and fact in self.achieved:
            return True
        b = self.belief
        pred, args = fact.pred, fact.args
        if pred in ("INSIDE", "ON"):
            ok = b.loc.get(args[0]) == (pred, args[1])
        elif pred in ("OPEN", "CLOSED"):
            state = b.nodes.get(args[0], {}).get("open")
            ok = state is (pred == "OPEN")
        elif pred in ("ASSEMBLED", "PRESSED"):
            ok = bool(b.nodes.get(args[0], {}).get(pred.lower()))
        elif pred == "HELD":
            ok = args[0] in b.held
        elif pred == "ROBOT_IN":
            ok = b.room == args[0]
        elif pred == "IN_ROOM":
            ok = b.seen_in_room.get(args[0]) == args[1] and args[0] not in b.held
        else:
            ok = False
        return ok

    def _sees(self, nid: str) -> bool:
        return nid in self.belief.visible or nid in self.belief.held

    def _free(self) -> int:
        return 2 - len(self.belief.held)

    def _try(self, action: Action, reason: str) -> tuple[Action, str] | None:
        return (action, reason) if self._usable(action) else None

    def _placement_of(self, obj: str, open_facts: Iterable[Fact]) -> Fact | None:
        for f in open_facts:
            if f.pred in ("INSIDE", "ON") and f.args[0] == obj:
                return f
        return None

    def _handle_held(self, open_facts: list[Fact]) -> tuple[Action, str] | None:
        b = self.belief
        for obj in list(b.held):
            fact = self._placement_of(obj, open_facts)
            if fact is not None:
                target = fact.args[1]
                if self._sees(target):
                    if fact.pred == "INSIDE" and self._closed(target):
                        return self._put_down(obj, avoid=target)
                    verb = "putin" if fact.pred == "INSIDE" else "puton"
                    found = self._try(Action(verb, (obj, target)), f"place {obj} for {fact}")
                    if found:
                        return found
                    return self._put_down(obj, avoid=target)
                step = self._walk_towards(target)
                if step is not None:
                    return step
                return self._put_down(obj)
            whole = b.part_of.get(obj)
            if whole is not None and any(f == Fact("ASSEMBLED", (whole,)) for f in open_facts):
                continue  # keep it for the attach
            if obj in {a for f in open_facts for a in f.args} and any(
                f.pred == "HELD" and f.args[0] == obj for f in open_facts
            ):
                continue
            if obj in {f.args[0] for f in open_facts if f.pred == "IN_ROOM"}:
                continue
            return self._put_down(obj)
        return None

    def _put_down(self, obj: str, avoid: str | None = None) -> tuple[Action, str] | None:
        b = self.belief
        options: list[Action] = []
        origin = self.came_from.get(obj)
        if origin is not None and origin[1] != avoid and self._sees(origin[1]):
            rel, parent = origin
            if rel == "ON":
                options.append(Action("puton", (obj, parent)))
            elif rel == "INSIDE" and not self._closed(parent):
                options.append(Action("putin", (obj, parent)))
        options += [
            Action("puton", (obj, s)) for s in sorted(b.surfaces) if s not in (obj, avoid) and self._sees(s)
        ]
        for action in options:
            if self._usable(action) and action.args[1] not in b.held:
                return action, f"put {obj} down to free a hand"
        return None

    def _work_goal(self, open_facts: list[Fact]) -> tuple[Action, str] | None:
        ordered = sorted(open_facts, key=lambda f: _PRIORITY.get(f.pred, 9))
        for fact in ordered:
            found = self._advance(fact, open_facts)
            if found is not None:
                return found
        return None

    def _advance(self, fact: Fact, open_facts: list[Fact]) -> tuple[Action, str] | None:
        b = self.belief
        pred, args = fact.pred, fact.args
        why = f"towards {fact}"
        if pred == "ASSEMBLED":
            parts = sorted(p for p, w in b.part_of.items() if w == args[0])
            if len(parts) >= 2 and all(self._sees(p) for p in parts[:2]):
                held_parts = sum(1 for p in parts[:2] if p in b.held)
                if self._free() + held_parts >= 2:
                    return self._try(Action("attach", (parts[0], parts[1])), why)
                return self._free_hands_for(parts[:2])
            return None
        if pred in ("INSIDE", "ON"):
            obj, target = args
            if obj in b.held or not self._sees(obj):
                return None if obj in b.held else self._walk_towards(obj)
            if not self._sees(target):
                # carry it there when we know where the target is; otherwise look for it first
                if b.seen_in_room.get(target) not in (None, b.room) and self._free() >= 1:
                    return self._try(Action("grab", (obj,)), f"carry {obj} to {target}")
                return self._walk_towards(target)
            if b.nodes.get(obj, {}).get("assembled") is False:
                return self._advance(Fact("ASSEMBLED", (obj,)), open_facts)
            if pred == "INSIDE" and self._closed(target):
                if self._free() < 2:
                    return self._free_hands_for(())
                return self._try(Action("open", (target,)), f"open {target} before placing {obj}")
            if self._free() < 1:
                return self._free_hands_for(())
            return self._try(Action("grab", (obj,)), why)
        if pred in ("PRESSED", "OPEN"):
            if not self._sees(args[0]):
                return self._walk_towards(args[0])
            verb = "press" if pred == "PRESSED" else "open"
            need = 1 if pred == "PRESSED" else 2
            if self._free() < need:
                return self._free_hands_for(())
            return self._try(Action(verb, (args[0],)), why)
        if pred == "CLOSED":
            c = args[0]
            if not self._sees(c):
                return self._walk_towards(c)
            still_needed = any(
                (f.pred == "INSIDE" and f.args[1] == c) or b.loc.get(f.args[0]) == ("INSIDE", c)
                for f in open_facts
                if f.pred in ("INSIDE", "ON")
            )
            if still_needed:
                return None
            if self._free() < 2:
                return self._free_hands_for(())
            return self._try(Action("close", (c,)), why)
        if pred == "ROBOT_IN":
            return self._walk_towards_room(args[0])
        return None

    def _free_hands_for(self, keep: Iterable[str]) -> tuple[Action, str] | None:
        for obj in self.belief.held:
            if obj not in keep:
                return self._put_down(obj)
        return None

    # exploration -----------------------------------------------------------------------------
    def _explore(self, open_facts: list[Fact]) -> tuple[Action, str] | None:
        b = self.belief
        wanted = {a for f in open_facts for a in f.args}
        candidates: list[tuple[Action, str]] = []
        for nid in sorted(b.visible):
            if self._closed(nid):
                candidates.append((Action("open", (nid,)), f"look inside {nid}"))
        for nid in sorted(b.visible):
            node = b.nodes.get(nid, {})
            if nid in b.held or nid in b.surfaces or nid == b.room or nid in b.adjacent:
                continue
            if b.loc.get(nid, ("", ""))[0] == "IN_ROOM" and nid not in wanted:
                continue  # furniture standing in a room
            if "pressed" in node:
                continue
            candidates.append((Action("move_aside", (nid,)), f"move {nid} aside to look behind it"))
        hands_ok = [
            c for c in candidates
            if self._free() >= (2 if c[0].name in _TWO_HANDS else 1)
        ]
        fresh = [c for c in hands_ok if c[0] not in self.explored and self._usable(c[0])]
        if not self.config.memory:
            fresh = [c for c in hands_ok if c[0] not in self.bad]
            if fresh:
                return self.rng.choice(fresh)
        elif fresh:
            action, reason = fresh[0]
            if action.name == "open":
                self.opened_to_look.append(action.args[0])
            return action, reason
        if b.held and candidates:
            return self._put_down(b.held[0])
        # close what we opened to look: an open drawer can hide the one below it
        for c in reversed(self.opened_to_look):
            needed_inside = any(b.loc.get(a) == ("INSIDE", c) for a in wanted)
            if self._sees(c) and self._closed(c) is False and self._free() >= 2 and not needed_inside:
                found = self._try(Action("close", (c,)), f"close {c} again to uncover what it hides")
                if found:
                    self.opened_to_look.remove(c)
                    return found
        return self._walk_unvisited()

    def _walk_unvisited(self) -> tuple[Action, str] | None:
        b = self.belief
        if b.room is None:
            return None
        if not self.config.memory:
            rooms = b.adjacent.get(b.room, [])
            return (Action("walk", (self.rng.choice(rooms),)), "walk to look around") if rooms else None
        path = self._path(lambda r: r not in b.visited)
        if path:
            return Action("walk", (path[0],)), "walk towards an unvisited room"
        return None

    def _walk_towards(self, nid: str) -> tuple[Action, str] | None:
        room = self.belief.seen_in_room.get(nid)
        if room is None or room == self.belief.room:
            return None
        return self._walk_towards_room(room)

    def _walk_towards_room(self, room: str) -> tuple[Action, str] | None:
        if self.belief.room is None or room == self.belief.room:
            return None
        path = self._path(lambda r: r == room)
        if path:
            return self._try(Action("walk", (path[0],)), f"walk towards {room}")
        return None

    def _path(self, is_goal: Any) -> list[str]:
        b = self.belief
        start = b.room
        if start is None:
            return []
        frontier = [[start]]
        seen = {start}
        while frontier:
            nxt = []
            for path in frontier:
                for r in b.adjacent.get(path[-1], []):
                    if r in seen:
                        continue
                    if is_goal(r):
                        return [*path[1:], r]
                    seen.add(r)
                    nxt.append([*path, r])
            frontier = nxt
        return []


_PRIORITY = {"ASSEMBLED": 0, "INSIDE": 1, "ON": 1, "PRESSED": 2, "OPEN": 3, "ROBOT_IN": 5, "CLOSED": 4}


def _goal(payload: Mapping[str, Any]) -> list[Fact]:
    out = []
    for text in payload.get("success_criterion") or []:
        try:
            out.append(parse_fact(str(text)))
        except FactSyntaxError:
            continue
    return out


def _intended(action: Action, belief: Belief) -> set[Fact]:
    """The goal-level facts an action is meant to achieve (used when not re-checking)."""
    a = action.args
    table = {
        "putin": lambda: {Fact("INSIDE", a)},
        "puton": lambda: {Fact("ON", a)},
        "open": lambda: {Fact("OPEN", a)},
        "close": lambda: {Fact("CLOSED", a)},
        "press": lambda: {Fact("PRESSED", a)},
        "attach": lambda: {Fact("ASSEMBLED", (belief.part_of[a[0]],))} if a[0] in belief.part_of else set(),
    }
    return table.get(action.name, set)()
