"""The random baseline: uniform over all grounded actions on the visible nodes (and adjacent
rooms for walk), seeded. It reads only the payload, like a model would."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

from robograph.actions import CATALOG, Action
from robograph.agents.base import Reply, Request, reply_text


def grounded_actions(payload: Mapping[str, Any]) -> list[Action]:
    """Every catalog action applied to every ordered tuple of distinct observed ids."""
    obs = payload.get("current_observation") or {}
    ids = sorted({str(n["id"]) for n in obs.get("visible_nodes", [])} | {str(h["id"]) for h in obs.get("held_objects", [])})
    rooms = sorted(str(r) for r in (obs.get("robot") or {}).get("adjacent_rooms", []) or [])
    out: list[Action] = []
    for name in payload.get("action_catalog", {}):
        arity = len(CATALOG[name].parameters) if name in CATALOG else 0
        if name == "walk":
            out += [Action(name, (r,)) for r in rooms]
        elif arity == 0:
            out.append(Action(name))
        else:
            out += [Action(name, combo) for combo in itertools.permutations(ids, arity)]
    return out


class RandomAgent:
    name = "random"
    privileged = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, request: Request) -> Reply:
        choices = grounded_actions(request.payload)
        action = self.rng.choice(choices) if choices else Action("stop")
        return Reply(reply_text(action, "uniformly random grounded action"))
