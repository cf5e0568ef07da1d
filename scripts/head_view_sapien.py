"""What the SAPIEN tabletop's head camera shows: the share of the visible objects in its image.

For each instance at G0: the objects the symbolic view calls visible that the head camera shows
with at least MIN_PIXELS pixels (the visual evaluation's `camera_coverage` rule, head only),
(a) with the base where it starts and (b) with the base straight in front of each object in
turn, as it stands when the arms work there and as OCCLUDES is judged. For (b) the base is set
there, not driven (no physics steps: this measures the view, not the rail). Also the head's
self-occlusion with the base where it starts (the share of its pixels the arms take).

Why: visual closed-loop agents see these pictures. Until session 30 the head stood fixed at the
rail's start, pitched for a desk; a play mat on the floor and the ends of wide tables lay outside
its image (docs/sapien_backend.md, "Robot and cameras"). Instances as bench_sapien.py selects
them (--bench DIR, --heldout N --seed S, --scenes, --instances).

With --oracle-path, also after every action of the oracle's plan (physics): the head's
self-occlusion and its coverage of what is visible then, per family.

Usage: python scripts/head_view_sapien.py [--bench DIR] [--scenes ID...] [--oracle-path] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np
from bench_sapien import add_selection, select
from tqdm import tqdm

from robograph.agents.sight import MIN_PIXELS, camera_coverage, labelled_nodes, seen_nodes, self_occlusion
from robograph.graph import OBJECT, SceneGraph
from robograph.instance import TaskInstance
from robograph.view import compute_view


def family(scene_id: str) -> str:
    """Desk-12 -> Desk, Fridge-T3 -> Fridge-T (a held-out id keeps its letters too)."""
    head, _, tail = scene_id.partition("-")
    return head + ("-" + "".join(c for c in tail if c.isalpha()) if any(c.isalpha() for c in tail) else "")


def visible_objects(graph: SceneGraph) -> set[str]:
    """The objects (no furniture) the symbolic view calls visible."""
    return {n for n in compute_view(graph).visible if graph.nodes[n].kind == OBJECT}


def measure(backend, inst: TaskInstance) -> tuple[int, int, int, float]:
    """(shown from the start, shown with the base in front, visible objects, the head's
    self-occlusion from the start) of one instance."""
    from robograph_backends.sapien_tabletop.deps import sapien_module

    sapien = sapien_module()
    backend.reset(inst.graph, seed=0)
    world = backend.world
    graph = inst.graph
    head = backend.render(["head"])
    visible = sorted(visible_objects(graph) & labelled_nodes(head))
    at_start = len(seen_nodes(head) & set(visible))
    roots = {h: np.asarray(r.get_root_pose().p, dtype=float) for h, r in world.robots.items()}
    base_y = float(world.base()[1])
    in_front = 0
    for node in visible:
        dy = float(world.position(node)[1]) - base_y
        for hand, robot in world.robots.items():
            robot.set_root_pose(sapien.Pose(list(roots[hand] + [0.0, dy, 0.0]), [1, 0, 0, 0]))
        in_front += int(node in seen_nodes(backend.render(["head"])))
    return at_start, in_front, len(visible), self_occlusion(head[0])


def along_path(backend, inst: TaskInstance) -> tuple[list[float], list[float]]:
    """The head's self-occlusion and its coverage of the visible objects at G0 and after each
    action of the oracle's plan (physics mode, as bench_sapien.py runs it; failed actions too)."""
    from robograph.actions import effects
    from robograph.rewrite import apply_all
    from robograph_backends.mujoco_kitchen.episodes import oracle_actions

    graph = inst.graph
    backend.reset(graph, seed=0)
    occlusion, coverage = [], []
    for k, action in enumerate([None, *oracle_actions(inst)]):
        if k:
            expected = apply_all(graph, effects(graph, action))
            backend.execute(graph, action, expected)
            graph = backend.reconcile(expected)
        head = backend.render(["head"])
        occlusion.append(self_occlusion(head[0]))
        shown = camera_coverage(visible_objects(graph), head)
        if shown is not None:
            coverage.append(shown)
    return occlusion, coverage


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_selection(ap)
    ap.add_argument("--oracle-path", action="store_true",
                    help="also after every action of the oracle's plan (runs physics: ~30 s per episode)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend

    pool, failed = select(args)
    backend = SapienTabletopBackend()
    per_family: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0, 0])
    path: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    try:
        for inst in tqdm(pool, desc="head view", unit="scene"):
            name = family(inst.id.split("__")[0])
            for k, v in enumerate((*measure(backend, inst), 1)):
                per_family[name][k] += v
            if args.oracle_path:
                occlusion, coverage = along_path(backend, inst)
                path[name][0].extend(occlusion)
                path[name][1].extend(coverage)
    finally:
        backend.close()
    total = [sum(f[k] for f in per_family.values()) for k in range(5)]
    keys = ("at_start", "in_front", "visible", "self_occlusion", "scenes")
    figs = {"families": {k: dict(zip(keys, v, strict=True)) for k, v in sorted(per_family.items())},
            "at_start": total[0] / max(1, total[2]), "in_front": total[1] / max(1, total[2]),
            "visible": total[2], "self_occlusion": total[3] / max(1, total[4]), "scenes": total[4],
            "not_compiled": failed, "min_pixels": MIN_PIXELS}
    if args.oracle_path:
        every = ([x for o, _ in path.values() for x in o], [x for _, c in path.values() for x in c])
        figs["oracle_path"] = {name: {"states": len(o), "self_occlusion": float(np.mean(o)), "self_occlusion_max": max(o),
                                      "coverage": float(np.mean(c)) if c else None}
                               for name, (o, c) in sorted({**path, "all": every}.items())}
    if args.json:
        print(json.dumps(figs, sort_keys=True))
        return 0
    print(f"{'family':<12} {'visible':>8} {'base at start':>14} {'base in front':>14} {'self-occlusion':>15}")
    for name, (start, front, vis, occ, n) in sorted(per_family.items()):
        print(f"{name:<12} {vis:>8} {start / max(1, vis):>13.1%} {front / max(1, vis):>14.1%} {occ / max(1, n):>15.1%}")
    print(f"{'all':<12} {total[2]:>8} {figs['at_start']:>13.1%} {figs['in_front']:>14.1%} {figs['self_occlusion']:>15.1%}")
    if args.oracle_path:
        print(f"\nafter each action of the oracle's plan\n{'family':<12} {'states':>7} {'self-occlusion (max)':>21} {'coverage':>9}")
        for name, f in figs["oracle_path"].items():
            cov = "-" if f["coverage"] is None else f"{f['coverage']:.1%}"
            print(f"{name:<12} {f['states']:>7} {f['self_occlusion']:>12.1%} ({f['self_occlusion_max']:.0%}) {cov:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
