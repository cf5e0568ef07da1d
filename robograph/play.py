"""Terminal play: show the view graph as an indented tree and read actions like `open drawer_1`."""

from __future__ import annotations

from collections.abc import Callable

from robograph.actions import Action
from robograph.graph import SceneGraph
from robograph.runtime import Episode
from robograph.view import node_record, observation


def _label(graph: SceneGraph, nid: str) -> str:
    rec = node_record(graph, nid)
    flags = [k if v is True else f"not {k}" for k, v in rec.items() if isinstance(v, bool)]
    extra = f" [{', '.join(flags)}]" if flags else ""
    return f"{nid} ({rec['name']}){extra}"


def format_view(episode: Episode) -> str:
    graph, vis = episode.graph, episode.view.visible
    lines = [f"step {episode.t}  goal: {', '.join(episode.goal.to_json())}"]
    roots = sorted(n for n in vis if graph.parent(n) not in vis)

    def walk(nid: str, depth: int) -> None:
        edge = graph.location.get(nid)
        rel = f"{edge.rel.lower()} " if edge is not None and depth else ""
        lines.append("  " * depth + f"- {rel}{_label(graph, nid)}")
        for child in graph.children(nid):
            if child in vis:
                walk(child, depth + 1)

    for root in roots:
        if graph.hand_of(root) is None:
            walk(root, 0)
    obs = observation(graph, episode.view)
    for edge in obs["visible_edges"]:
        if edge["relation"] in ("OCCLUDES", "PART_OF"):
            lines.append(f"  {edge['from']} {edge['relation']} {edge['to']}")
    robot = obs["robot"]
    lines.append(f"hands: left={robot['hands']['left']} right={robot['hands']['right']}")
    if robot.get("navigation_enabled"):
        lines.append(f"room: {robot['current_room']}  adjacent: {', '.join(robot['adjacent_rooms'])}")
    return "\n".join(lines)


def play(episode: Episode, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> bool:
    """Interactive loop; returns whether the episode succeeded. EOF or `quit` ends it."""
    episode.reset(0)
    write(format_view(episode))
    while not episode.done:
        try:
            line = read("action> ").strip()
        except EOFError:
            write("")
            break
        if line in ("quit", "exit"):
            break
        if not line:
            continue
        rec = episode.step(Action.parse(line))
        status = "ok" if rec.ok else f"FAILED {rec.failure}"
        write(f"{rec.action}: {status}")
        for ev in rec.events:
            write(f"  (event {ev.kind} fired before this step)")
        write(format_view(episode))
    if episode.done:
        write("SUCCESS" if episode.success else ("episode over: goal not met" if episode.terminated else "step budget exhausted"))
    return episode.success
