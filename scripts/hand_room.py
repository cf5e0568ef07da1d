"""How much room the Panda hand has in the tabletop layouts' containers: figures, per kind.

A top-down grip on an object standing on a container's floor puts the palm PALM_CLEARANCE
above the grip (the object's middle); where that is below the rim, the hand itself goes down
between the walls, and it fits there only one way round: HAND_HALF along and across its
closing axis, HAND_ROOM from each wall. For each container kind that holds something at the
start or in the goal, over the pure layouts (`hiding.solve_hiding`, no simulator):

- `palm below rim`: how far (m) the palm goes below the rim for the lowest object it holds;
- `grip share`: where the palm goes below the rim, the share of the floor a grip point may
  lie in with the hand between the walls (1.0 where the palm stays above the rim).

Why: the episodes that still fail in physics mode stop where a grab or a seat needs the hand
down in a bag, a case or a bin whose contents lie outside that share (docs/sapien_backend.md,
session 24). Instances as bench_sapien.py selects them (--bench DIR, --heldout N --seed S,
--scenes, --instances).

Usage: python scripts/hand_room.py [--bench DIR] [--heldout N --seed S] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from bench_sapien import add_selection, select

from robograph.graph import INSIDE
from robograph_backends.sapien_tabletop.embodiment import HAND_HALF, HAND_ROOM, PALM_CLEARANCE
from robograph_backends.sapien_tabletop.hiding import solve_hiding
from robograph_backends.sapien_tabletop.layout import WALL


def grip_share(inner: tuple[float, float]) -> float:
    """Share of a floor `inner` (x, y, m) where a grip point keeps the whole hand between the
    walls, the better way round."""
    best = 0.0
    for along, across in (HAND_HALF, HAND_HALF[::-1]):
        free_x = max(0.0, inner[0] - 2 * (along + HAND_ROOM))
        free_y = max(0.0, inner[1] - 2 * (across + HAND_ROOM))
        best = max(best, free_x * free_y)
    return best / (inner[0] * inner[1])


def containers(inst) -> list[dict[str, object]]:
    """One row per non-drawer container of `inst`'s layout that holds something."""
    graph, lay = inst.graph, solve_hiding(inst.graph)
    rows = []
    for node, pl in lay.placements.items():
        if not pl.container or pl.app.articulation == "drawer" or node not in graph.nodes:
            continue
        held = {c for c, e in graph.location.items() if e.dst == node and e.rel == INSIDE}
        held |= {f.args[0] for f in inst.goal if f.pred == INSIDE and f.args[1] == node}
        heights = [lay.placements[c].size[2] for c in held if c in lay.placements]
        if not heights:
            continue
        inner = (pl.size[0] - 2 * WALL, pl.size[1] - 2 * WALL)
        below = (pl.size[2] - WALL) - (min(heights) / 2 + PALM_CLEARANCE)
        rows.append({"kind": graph.nodes[node].category, "walls": pl.size[2] - WALL, "inner": inner,
                     "below": below, "share": grip_share(inner) if below > 0 else 1.0})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_selection(ap)
    ap.add_argument("--json", action="store_true", help="also print the rows per kind as one JSON line")
    args = ap.parse_args()
    pool, _failed = select(args)
    pool = pool[: args.episodes or None]
    by_kind: dict[str, list[dict[str, object]]] = defaultdict(list)
    for inst in pool:
        for row in containers(inst):
            by_kind[str(row["kind"])].append(row)
    print(f"{len(pool)} scenes")
    print(f"{'container':20s} {'n':>3s} {'walls m':>8s} {'inner m (min)':>14s} {'palm below rim m':>17s} {'grip share':>11s}")
    summary = {}
    for kind, rows in sorted(by_kind.items()):
        below = [float(r["below"]) for r in rows]
        share = [float(r["share"]) for r in rows]
        inner_x = min(float(r["inner"][0]) for r in rows)  # type: ignore[index]
        inner_y = min(float(r["inner"][1]) for r in rows)  # type: ignore[index]
        summary[kind] = {"n": len(rows), "palm_below_rim_m": [min(below), max(below)], "grip_share": [min(share), max(share)]}
        print(f"{kind:20s} {len(rows):3d} {min(float(r['walls']) for r in rows):8.2f} {inner_x:6.2f} x {inner_y:5.2f} "
              f"{min(below):7.3f} .. {max(below):6.3f} {min(share):5.2f}..{max(share):4.2f}")
    if args.json:
        print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
