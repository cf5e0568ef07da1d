"""The built-in visual agent: the explorer policy acting on what the cameras show.

Each step a perception step turns the rendered frames into the agent's view: a node enters the
view only when a camera shows it with at least `MIN_PIXELS` pixels (identities from the
simulator's segmentation: "segmentation perception"), nodes no camera can show (rooms) and the
objects in the robot's hands stay, and relations are kept only between perceived nodes. The
explorer (memory, search, re-checks) then acts on that perceived view exactly as it acts on the
symbolic one, so the gap between this agent's visual and symbolic metrics measures what camera
visibility changes and nothing else.

Needs `--observation both` (the node records the perceived view is cut from) and frames with
node-labelled segmentation (`--backend mujoco --backend-opt segmentation=true`).

Not done here (issue 14 item 4, second half): relations re-derived from depth back-projected
through each camera's model (robograph_calibration.relations on RGB-D clouds). The relations kept are the
symbolic view's among perceived nodes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from robograph.agents.base import AgentError, Reply, Request
from robograph.agents.explorer import ExplorerAgent
from robograph.agents.sight import MIN_PIXELS, frames_by_camera, labelled_nodes, seen_nodes

NEEDS = ("the visual explorer needs camera frames with node-labelled segmentation and the node records of "
         "--observation both; run with --observation both --backend mujoco --backend-opt segmentation=true")


def perceived_observation(observation: Mapping[str, Any], frames: Any, min_pixels: int = MIN_PIXELS) -> dict[str, Any]:
    """The part of a `current_observation` the cameras support (see the module docstring)."""
    frames = frames_by_camera(frames)
    held = {h["id"] for h in observation.get("held_objects") or ()}
    showable = labelled_nodes(frames)
    keep = seen_nodes(frames, min_pixels) | held | {
        n["id"] for n in observation.get("visible_nodes") or () if n["id"] not in showable
    }
    nodes = [n for n in observation.get("visible_nodes") or () if n["id"] in keep]
    edges = [e for e in observation.get("visible_edges") or () if e["from"] in keep and e["to"] in keep]
    rest = {k: v for k, v in observation.items() if k not in ("visible_nodes", "visible_edges")}
    return {**rest, "visible_nodes": nodes, "visible_edges": edges}


class VisualExplorerAgent:
    name = "visual_explorer"
    privileged = False

    def __init__(self, min_pixels: int = MIN_PIXELS, seed: int = 0) -> None:
        if isinstance(min_pixels, bool) or not isinstance(min_pixels, int) or min_pixels < 1:
            raise AgentError(f"option min_pixels must be a positive integer, got {min_pixels!r}")
        self.min_pixels = min_pixels
        self.policy = ExplorerAgent(seed=seed)

    def reset(self, seed: int) -> None:
        self.policy.reset(seed)

    def act(self, request: Request) -> Reply:
        frames = getattr(request, "frames", None)
        current = request.payload.get("current_observation") or {}
        if not frames or "visible_nodes" not in current:
            raise AgentError(NEEDS)
        perceived = perceived_observation(current, frames, self.min_pixels)
        payload = {**request.payload, "current_observation": perceived}
        return self.policy.act(dataclasses.replace(request, payload=payload))
