"""The explorer's memory: what it has seen, where, and what may have changed since.

Built only from the Appendix B payload (the view graph and the action history), never from the
latent graph. Remembered facts outlive the view (a closed drawer's contents, an object in
another room); re-checking drops a remembered location when the view contradicts it (the node
should be in view but is not, or is seen somewhere else), because an intervention may have moved
or hidden it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Location = tuple[str, str]  # (relation, parent): ("INSIDE", "drawer_1"), ("ON", "desk"), ("IN_ROOM", "kitchen")
LOCATION_RELATIONS = ("INSIDE", "ON", "IN_ROOM")


@dataclass
class Belief:
    """The scene as last seen. `room` is None on a tabletop (no navigation): everything is here."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    loc: dict[str, Location] = field(default_factory=dict)
    room_of: dict[str, str] = field(default_factory=dict)
    part_of: dict[str, str] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)
    visible: set[str] = field(default_factory=set)
    room: str | None = None
    adjacent: dict[str, list[str]] = field(default_factory=dict)
    visited: set[str] = field(default_factory=set)
    looked_in: set[str] = field(default_factory=set)  # containers seen open with us beside them
    lost: set[str] = field(default_factory=set)  # seen before, location now unknown

    # queries --------------------------------------------------------------------------------
    def sees(self, nid: str) -> bool:
        return nid in self.visible or nid in self.held

    def is_closed(self, nid: str) -> bool:
        return self.nodes.get(nid, {}).get("open") is False

    def openable(self, nid: str) -> bool:
        return "open" in self.nodes.get(nid, {})

    def free_hands(self) -> int:
        return 2 - len(self.held)

    def parts(self, whole: str) -> list[str]:
        return sorted(p for p, w in self.part_of.items() if w == whole)

    def where(self, nid: str) -> str | None:
        """The room a node is believed to be in ('' on a tabletop); None when unknown."""
        if nid in self.held:
            return self.room or ""
        if self.room is None:
            return "" if self.known(nid) else None
        if nid in self.room_of and self.known(nid):
            return self.room_of[nid]
        return None

    def known(self, nid: str) -> bool:
        """Seen and not lost since (furniture at a tabletop's root has no location edge)."""
        if nid in self.held or (nid in self.room_of and nid not in self.lost):
            return True
        return self.nodes.get(nid, {}).get("assembled") is False and any(self.known(p) for p in self.parts(nid))

    def closed_ancestors(self, nid: str, include_self: bool = False) -> list[str]:
        """Closed openable nodes that must be opened to reach inside `nid` (outermost first)."""
        chain: list[str] = [nid] if include_self and self.is_closed(nid) else []
        seen = {nid}
        cur = nid
        while cur in self.loc:
            rel, parent = self.loc[cur]
            if parent in seen or rel == "IN_ROOM":
                break
            seen.add(parent)
            if rel == "INSIDE" and self.is_closed(parent):
                chain.append(parent)
            cur = parent
        return list(reversed(chain))

    def path(self, is_goal: Callable[[str], bool]) -> list[str]:
        """Rooms to walk through (first step first) to the nearest room satisfying `is_goal`."""
        if self.room is None:
            return []
        frontier, seen = [[self.room]], {self.room}
        while frontier:
            nxt = []
            for route in frontier:
                for r in self.adjacent.get(route[-1], []):
                    if r in seen:
                        continue
                    if is_goal(r):
                        return [*route[1:], r]
                    seen.add(r)
                    nxt.append([*route, r])
            frontier = nxt
        return []

    def distance(self, room: str | None) -> int | None:
        if room is None:
            return None
        if self.room is None or room in ("", self.room):
            return 0
        route = self.path(lambda r: r == room)
        return len(route) if route else None

    # update ---------------------------------------------------------------------------------
    def observe(
        self, obs: Mapping[str, Any], recheck: bool, explained: bool = False, ours: frozenset[str] = frozenset()
    ) -> set[str]:
        """Fold one observation in; return the remembered nodes the view contradicted (moved or
        vanished) when re-checking, else an empty set. `explained`: our own last action (an
        open) accounts for what vanished, so it is hidden, not moved: its location is kept.
        `ours`: nodes our last action moved (their new place is no surprise)."""
        robot = obs.get("robot") or {}
        room = robot.get("current_room")
        self.room = str(room) if room else None
        if self.room:
            self.visited.add(self.room)
            self.adjacent[self.room] = [str(r) for r in robot.get("adjacent_rooms") or []]
        records = {str(n["id"]): dict(n) for n in obs.get("visible_nodes", [])}
        visible = set(records)
        self.held = [str(h["id"]) for h in obs.get("held_objects", [])]
        seen_loc: dict[str, Location] = {}
        for e in obs.get("visible_edges", []):
            src, dst, rel = str(e["from"]), str(e["to"]), str(e["relation"])
            if rel in LOCATION_RELATIONS:
                seen_loc[src] = (rel, dst)
            elif rel == "PART_OF":
                self.part_of[src] = dst
        contradicted: set[str] = set()
        if recheck:
            for nid, (rel, parent) in list(self.loc.items()):
                if nid in visible or nid in self.held or nid in ours or self.room_of.get(nid, self.room or "") != (self.room or ""):
                    continue
                expected = parent in visible and not (rel == "INSIDE" and records[parent].get("open") is False)
                if expected:
                    contradicted.add(nid)
                    if not explained:
                        del self.loc[nid]
                        self.lost.add(nid)
            contradicted |= {
                n for n in visible - ours if n in self.loc and n in seen_loc and seen_loc[n] != self.loc[n]
            }
        for nid, rec in records.items():
            self.nodes[nid] = rec
            self.room_of[nid] = self.room or ""
            self.lost.discard(nid)
            if rec.get("open") is True:
                self.looked_in.add(nid)
        for nid in self.held:
            self.loc.pop(nid, None)
            self.room_of[nid] = self.room or ""
            self.lost.discard(nid)
        for nid in visible:
            if nid in seen_loc:
                self.loc[nid] = seen_loc[nid]
        self.visible = visible
        return contradicted
