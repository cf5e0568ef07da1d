"""Per-scene statistics (what counts: docs/benchmark.md) and the paper-vs-ours table.

nodes           scene entities: every node except the robot (rooms, furniture, objects, parts)
edges           every directed relation in G0 (location, OCCLUDES, PART_OF, ADJACENT)
occluded_nodes  nodes hidden in G0 by containment or occlusion: not visible even with the robot
                standing in their own room (room boundaries alone do not count as occlusion)
subgoals        goal facts (N_g), including facts already true in G0 that must stay or be restored
oracle_length   exact shortest plan length L_o
action_distance ordered action distance C_distance(G0) of Appendix A
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from robograph.facts import Goal
from robograph.graph import ROBOT, ROBOT_ID, ROOM, SceneGraph
from robograph.rewrite import SetAttr, apply
from robograph.view import compute_view

# Paper figures (Section 4 "Data analysis" and Appendix A): mean, std per scene
PAPER: Mapping[str, tuple[float, float]] = {
    "nodes": (18.4, 3.3),
    "edges": (21.8, 6.1),
    "occluded_nodes": (6.1, 1.8),
    "subgoals": (14.3, 4.1),
    "oracle_length": (21.7, 5.4),
    "action_distance": (24.3, 5.6),
}
METRICS = tuple(PAPER)


def occluded_nodes(graph: SceneGraph) -> list[str]:
    """Non-room nodes not visible from their own room in G0 (whole graph on a tabletop)."""
    rooms = graph.rooms()
    if not rooms or graph.robot_room() is None:
        visible = set(compute_view(graph).visible)
    else:
        visible = set()
        for room in rooms:
            visible |= compute_view(apply(graph, SetAttr(ROBOT_ID, "room", room))).visible
    return sorted(n for n, node in graph.nodes.items() if node.kind not in (ROBOT, ROOM) and n not in visible)


def scene_stats(graph: SceneGraph, goal: Goal, oracle_length: int, distance: int) -> dict[str, int]:
    return {
        "nodes": sum(1 for n in graph.nodes.values() if n.kind != ROBOT),
        "edges": len(graph.edges),
        "occluded_nodes": len(occluded_nodes(graph)),
        "subgoals": len(goal),
        "oracle_length": oracle_length,
        "action_distance": distance,
    }


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for m in METRICS:
        vals = [float(r[m]) for r in rows]
        out[m] = {
            "mean": round(statistics.fmean(vals), 3) if vals else 0.0,
            "std": round(statistics.pstdev(vals), 3) if vals else 0.0,
            "min": min(vals) if vals else 0.0,
            "max": max(vals) if vals else 0.0,
        }
    return out


def format_table(per_scene: Mapping[str, Mapping[str, float]], families: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """Readable side-by-side table: paper mean +- std, ours, relative difference of the means."""
    lines = [f"{'per scene':<18}{'paper':>16}{'ours':>16}{'diff':>9}", "-" * 59]
    for m in METRICS:
        pm, ps = PAPER[m]
        om, os_ = per_scene[m]["mean"], per_scene[m]["std"]
        diff = (om - pm) / pm * 100
        lines.append(f"{m:<18}{pm:>9.1f} +- {ps:<4.1f}{om:>9.1f} +- {os_:<4.1f}{diff:>+8.1f}%")
    if families:
        lines += ["", f"{'family/domain':<24}{'scenes':>7}{'N_g':>10}{'L_o':>10}", "-" * 51]
        for key in sorted(families):
            f = families[key]
            ng = "-".join(str(v) for v in sorted(set(f["subgoals"])))
            lo = "-".join(str(v) for v in sorted(set(f["oracle_length"])))
            lines.append(f"{key:<24}{f['scenes']:>7}{ng:>10}{lo:>10}")
    return "\n".join(lines)
