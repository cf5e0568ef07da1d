"""The built-in visual agent: the explorer policy acting on what the cameras show.

Each step a perception step (`Perceiver`) turns the rendered frames into the agent's view:

- which nodes: a node enters the view when a camera shows it with at least `MIN_PIXELS` pixels
  (identities from the simulator's segmentation: "segmentation perception") and, with `memory`
  (the default), stays while it is unseen until a camera that looks at its place sees it absent
  (`permanence.ObjectPermanence`); nodes no camera can show (rooms) and the objects in the
  robot's hands stay;
- their relations, with `relations="depth"` (the default): INSIDE/ON/IN_ROOM of every movable
  node and the `open` attribute of articulated ones come from the backend's depth reading
  (`Frame.percept`: depth back-projected through each camera's model, read with the reconcile's
  region predicates), the latest reading of each node kept while it is unseen: "segmentation
  perception + depth relations". The other edges (PART_OF, OCCLUDES, ADJACENT, furniture in its
  room) are the symbolic view's among the perceived nodes (static structure, or occlusion, which
  no depth reading here measures). `relations="view"` keeps all of the symbolic view's edges
  among perceived nodes (the first version of this agent).

The perceived view is always a subset of the symbolic view's nodes (the node records are cut
from it; `--observation both`), so the policy never hears of a node the symbolic view hides.
The explorer (memory, search, re-checks) then acts on it exactly as on the symbolic view, so the
gap between this agent's visual and symbolic metrics measures what the cameras change.

Needs `--observation both` and frames with node-labelled segmentation; memory and depth
relations also need depth and the backend's depth reading (`--backend mujoco --backend-opt
relations=true`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from robograph.agents.base import AgentError, Reply, Request
from robograph.agents.explorer import ExplorerAgent
from robograph.agents.permanence import ObjectPermanence
from robograph.agents.sight import MIN_PIXELS, frames_by_camera, labelled_nodes, seen_nodes

NEEDS = ("the visual explorer needs camera frames with node-labelled segmentation and the node records of "
         "--observation both; run with --observation both --backend mujoco --backend-opt relations=true")
NEEDS_PERCEPT = ("relations=depth needs the backend's depth reading with every frame (Frame.percept); run with "
                 "--backend mujoco --backend-opt relations=true, or use --agent-opt relations=view")
LOCATION_RELATIONS = ("INSIDE", "ON", "IN_ROOM")
RELATION_MODES = ("depth", "view")


def perceived_observation(observation: Mapping[str, Any], frames: Any, min_pixels: int = MIN_PIXELS) -> dict[str, Any]:
    """The per-frame cut with no memory and the symbolic view's relations (`relations="view"`,
    `memory=False`): what this step's frames alone support."""
    return Perceiver(min_pixels, memory=False, relations="view").observe(observation, frames)


@dataclass
class Perceiver:
    """The perception step of one episode (reset between episodes; see the module docstring)."""

    min_pixels: int = MIN_PIXELS
    memory: bool = True
    relations: str = "depth"
    permanence: ObjectPermanence = field(init=False)

    def __post_init__(self) -> None:
        if self.relations not in RELATION_MODES:
            raise AgentError(f"option relations must be one of {', '.join(RELATION_MODES)}, got {self.relations!r}")
        self.permanence = ObjectPermanence(self.min_pixels)

    def reset(self) -> None:
        self.permanence.reset()

    def observe(self, observation: Mapping[str, Any], frames: Any) -> dict[str, Any]:
        frames = frames_by_camera(frames)
        records = list(observation.get("visible_nodes") or ())
        held = {h["id"] for h in observation.get("held_objects") or ()}
        showable = labelled_nodes(frames)
        believed = self.permanence.update(frames, held) if self.memory else seen_nodes(frames, self.min_pixels)
        keep = believed | held | {n["id"] for n in records if n["id"] not in showable}
        edges = [e for e in observation.get("visible_edges") or () if e["from"] in keep and e["to"] in keep]
        nodes = [n for n in records if n["id"] in keep]
        if self.relations == "depth":
            percept = next((f.percept for f in frames if getattr(f, "percept", None) is not None), None)
            if percept is None:
                raise AgentError(NEEDS_PERCEPT)
            nodes, edges = self._depth_relations(nodes, edges, keep - held, percept)
        rest = {k: v for k, v in observation.items() if k not in ("visible_nodes", "visible_edges")}
        return {**rest, "visible_nodes": nodes, "visible_edges": edges}

    def _depth_relations(self, nodes: list[dict[str, Any]], edges: list[dict[str, Any]], placed: set[str],
                         percept: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Location edges of movable nodes and `open` from depth (the latest reading of each,
        this step's or remembered); the rest of the edges as given."""
        movable = set(percept.movable)
        latest: dict[str, tuple[str, str] | None]
        if self.memory:
            latest = {n: self.permanence.location(n) for n in movable & placed}
            opened = dict(self.permanence.opened)
        else:
            latest = {n: percept.locations.get(n) for n in movable & placed}
            opened = dict(percept.open)
        kept_ids = {n["id"] for n in nodes}
        out = [e for e in edges if not (e["relation"] in LOCATION_RELATIONS and e["from"] in movable)]
        out += [{"from": n, "to": loc[1], "relation": loc[0]} for n, loc in sorted(latest.items())
                if loc is not None and loc[1] in kept_ids]
        out.sort(key=lambda e: (e["from"], e["to"], e["relation"]))
        nodes = [{**n, "open": opened[n["id"]]} if "open" in n and n["id"] in opened else n for n in nodes]
        return nodes, out


class VisualExplorerAgent:
    """Options: min_pixels (30), memory (true: object permanence across frames), relations
    ("depth": from the backend's depth reading; "view": the symbolic view's among perceived nodes)."""

    name = "visual_explorer"
    privileged = False

    def __init__(self, min_pixels: int = MIN_PIXELS, seed: int = 0, memory: bool = True, relations: str = "depth") -> None:
        if isinstance(min_pixels, bool) or not isinstance(min_pixels, int) or min_pixels < 1:
            raise AgentError(f"option min_pixels must be a positive integer, got {min_pixels!r}")
        if not isinstance(memory, bool):
            raise AgentError(f"option memory must be true or false, got {memory!r}")
        self.perceiver = Perceiver(min_pixels, memory, relations)
        self.min_pixels = min_pixels
        self.policy = ExplorerAgent(seed=seed)

    def reset(self, seed: int) -> None:
        self.perceiver.reset()
        self.policy.reset(seed)

    def act(self, request: Request) -> Reply:
        frames = getattr(request, "frames", None)
        current = request.payload.get("current_observation") or {}
        if not frames or "visible_nodes" not in current:
            raise AgentError(NEEDS)
        perceived = self.perceiver.observe(current, frames)
        payload = {**request.payload, "current_observation": perceived}
        return self.policy.act(dataclasses.replace(request, payload=payload))
