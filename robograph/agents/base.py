"""The agent protocol shared by scripted agents and model clients.

An agent sees what a model would see: the Appendix B request (system prompt, user payload and,
in visual mode, camera images). It answers with raw reply text in the Figure 12 output schema;
the harness parses that text exactly as it parses a model's, so scripted agents exercise the
same path. Only agents that declare `privileged = True` (the oracle upper bound) also receive
the latent `Episode`; the runner never hands it to anyone else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from robograph.actions import Action
from robograph.errors import RoboGraphError

if TYPE_CHECKING:
    from robograph.runtime import Episode


class AgentError(RoboGraphError):
    """An agent was misconfigured (unknown name, bad option)."""


class AgentUnavailable(RoboGraphError):
    """Infrastructure failure behind an agent (API down, retries exhausted, timeout). The runner
    records it apart from agent failures and retries the rollout on resume."""


@dataclass(frozen=True)
class Request:
    """One decision request. `images` maps camera name -> encoded PNG or JPEG bytes, in the
    order the payload lists the cameras (visual and both modes). `frames` holds the backend's
    rendered `Frame`s themselves (camera model, and depth and segmentation when the
    backend gives them) for built-in perception agents that should not decode what was encoded
    for a model. `latent` is the running episode, set only for privileged agents."""

    system: str
    payload: Mapping[str, Any]
    images: Mapping[str, bytes] = field(default_factory=dict)
    latent: Episode | None = None
    frames: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """Raw reply text plus accounting: tokens, the latency of the successful call and the
    retries before it (zero for scripted agents)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0


@runtime_checkable
class Agent(Protocol):
    name: str
    privileged: bool

    def reset(self, seed: int) -> None:
        """Start a new rollout; `seed` drives any randomness of the agent."""

    def act(self, request: Request) -> Reply:
        """Choose one action for the current step."""


def reply_text(
    action: Action,
    reason: str = "",
    failed: Action | None = None,
) -> str:
    """Serialize a scripted decision in the Figure 12 schema. `failed` is the previous action
    when this one retries or repairs it (recovery.required=true)."""
    args = list(action.args)
    data = {
        "reason": reason,
        "recovery": {
            "required": failed is not None,
            "failed_action": failed.name if failed is not None else None,
            "failed_node_ids": list(failed.args) if failed is not None else [],
        },
        "action": {
            "name": action.name,
            "object": args[0] if args else None,
            "target": args[1] if len(args) > 1 else None,
            "node_ids": args,
        },
    }
    return json.dumps(data, sort_keys=False)


def last_step(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
    history: Sequence[Mapping[str, Any]] = payload.get("recent_history") or []
    return history[-1] if history else None


def history_action(entry: Mapping[str, Any]) -> Action:
    act = entry.get("action") or {}
    return Action(str(act.get("name", "")), tuple(str(n) for n in act.get("node_ids", ())))


def previous_failure(payload: Mapping[str, Any]) -> tuple[Action, str] | None:
    """(previous action, failure type) when the most recent task action failed."""
    entry = last_step(payload)
    if entry is None:
        return None
    event = entry.get("event") or {}
    if event.get("status") != "failure":
        return None
    action = history_action(entry)
    if not action.name:
        return None
    return action, str(event.get("failure_type") or "")
