"""Point clouds to scene-graph relations: INSIDE / ON / IN_ROOM for every observed object and OPEN
for every observed articulated part, with the predicates the simulator's reconcile uses.

The geometric tests of a region (is a centre inside its volume, does a bottom rest on its floor)
come from the backend through the `SupportRegion` protocol, so perception and the simulator's
reconcile apply literally the same predicates; what differs is where the object's centre and
height come from: the fused cloud here, the simulator's body pose there. One addition, because a
cloud rarely sees an object's bottom (a container's walls or the object in front hide it): an
object no region claims rests on the highest floor below its lowest visible point (objects do not
float), INSIDE when that floor is a container's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from robograph_calibration.cloud import ObjectCloud

INSIDE, ON, IN_ROOM = "INSIDE", "ON", "IN_ROOM"
UNOBSERVED = "unobserved"
MAX_HIDDEN_BOTTOM = 0.25  # a support claimed by the fallback is at most this far below the lowest point (m)

Location = tuple[str, str]


class SupportRegion(Protocol):
    """A container interior (`inside`) or a support surface of node `node`, in the current world."""

    node: str
    inside: bool
    volume: float

    def contains(self, centre: np.ndarray, half_z: float) -> bool: ...

    def supports(self, centre: np.ndarray, half_z: float) -> bool: ...

    def floor_gap(self, centre: np.ndarray, half_z: float) -> float | None:
        """Height of the object's bottom above the floor when its centre is over the footprint,
        else None."""


class PartModel(Protocol):
    """An articulated part (drawer, door, lid) of node `node`: how far open its points say it is."""

    node: str

    def open_fraction(self, points: np.ndarray) -> float: ...


@dataclass(frozen=True, slots=True)
class Relations:
    locations: dict[str, Location]
    open: dict[str, bool]
    open_fraction: dict[str, float] = field(default_factory=dict)


def locate(cloud: ObjectCloud, regions: Sequence[SupportRegion], room_at: Callable[[np.ndarray], str | None],
           exclude: str = "") -> Location | None:
    """Where an object is, from its cloud: innermost containing volume, else the support its
    bottom rests on, else the highest floor (support or container) below it, else the room."""
    centre, hz = cloud.centre, float(cloud.half[2])
    inside = [(r.volume, r.node) for r in regions if r.inside and r.node != exclude and r.contains(centre, hz)]
    if inside:
        return (INSIDE, min(inside)[1])
    on = []
    for r in regions:
        if r.inside or r.node == exclude or not r.supports(centre, hz):
            continue
        gap = r.floor_gap(centre, hz)
        on.append((abs(gap) if gap is not None else 0.0, r.node))
    if on:
        return (ON, min(on)[1])
    below = []
    for r in regions:
        if r.node == exclude:
            continue
        gap = r.floor_gap(centre, hz)
        if gap is not None and 0.0 <= gap <= MAX_HIDDEN_BOTTOM:
            below.append((gap, INSIDE if r.inside else ON, r.node))
    if below:
        _, rel, node = min(below)
        return (rel, node)
    room = room_at(centre)
    return (IN_ROOM, room) if room is not None else None


def openings(parts: Sequence[PartModel], part_clouds: Mapping[str, ObjectCloud]) -> dict[str, float]:
    """Opening fraction of every part with a cloud (keyed by the part's node)."""
    return {p.node: p.open_fraction(part_clouds[p.node].points) for p in parts if p.node in part_clouds}


def infer_relations(clouds: Mapping[str, ObjectCloud], movable: Sequence[str], regions: Sequence[SupportRegion],
                    room_at: Callable[[np.ndarray], str | None],
                    fractions: Mapping[str, float] | None = None) -> Relations:
    """Relations of every movable object with a cloud, and OPEN (fraction > 0.5, the reconcile's
    rule) of every part in `fractions` (see `openings`). Objects without points are left out:
    unobserved. Fit the parts first and pose the regions inside them at those openings."""
    locations: dict[str, Location] = {}
    for node in movable:
        cloud = clouds.get(node)
        if cloud is None:
            continue
        loc = locate(cloud, regions, room_at, exclude=node)
        if loc is not None:
            locations[node] = loc
    fr = dict(fractions or {})
    return Relations(locations, {n: f > 0.5 for n, f in fr.items()}, fr)


@dataclass(frozen=True, slots=True)
class Agreement:
    """Perceived vs ground-truth facts. `table[(truth, perceived)]` counts facts by relation kind
    (INSIDE/ON/IN_ROOM/..., open/closed); a perceived fact with the right relation but another
    target is counted under perceived "<REL> (other target)"."""

    agreed: int
    observed: int
    unobserved: int
    table: dict[tuple[str, str], int]

    @property
    def rate(self) -> float:
        return self.agreed / self.observed if self.observed else 0.0


def compare(truth_locations: Mapping[str, Location], truth_open: Mapping[str, bool], perceived: Relations) -> Agreement:
    table: dict[tuple[str, str], int] = {}
    agreed = observed = unobserved = 0

    def count(key: tuple[str, str]) -> None:
        table[key] = table.get(key, 0) + 1

    for node, (rel, dst) in sorted(truth_locations.items()):
        got = perceived.locations.get(node)
        if got is None:
            unobserved += 1
            count((rel, UNOBSERVED))
            continue
        observed += 1
        if got == (rel, dst):
            agreed += 1
            count((rel, rel))
        elif got[0] == rel:
            count((rel, f"{rel} (other target)"))
        else:
            count((rel, got[0]))
    for node, is_open in sorted(truth_open.items()):
        want = "open" if is_open else "closed"
        got_open = perceived.open.get(node)
        if got_open is None:
            unobserved += 1
            count((want, UNOBSERVED))
            continue
        observed += 1
        got = "open" if got_open else "closed"
        agreed += got == want
        count((want, got))
    return Agreement(agreed, observed, unobserved, table)


def merge(agreements: Sequence[Agreement]) -> Agreement:
    table: dict[tuple[str, str], int] = {}
    for a in agreements:
        for k, v in a.table.items():
            table[k] = table.get(k, 0) + v
    return Agreement(sum(a.agreed for a in agreements), sum(a.observed for a in agreements),
                     sum(a.unobserved for a in agreements), table)


def table_markdown(agreement: Agreement) -> str:
    """The confusion table as Markdown: rows ground truth, columns perception."""
    rows = sorted({t for t, _ in agreement.table})
    cols = sorted({p for _, p in agreement.table}, key=lambda c: (c == UNOBSERVED, c))
    lines = ["| truth \\ perceived | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for r in rows:
        lines.append(f"| {r} | " + " | ".join(str(agreement.table.get((r, c), 0)) for c in cols) + " |")
    return "\n".join(lines)
