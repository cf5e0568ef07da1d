"""The closed-loop request of Appendix B (Figures 10-12), built from a running episode.

Field names, order and fixed strings follow the paper verbatim so results are comparable with
its evaluation; only `current_observation` changes in visual mode (camera references).

The fixed parts are read-only module constants; every payload gets its own fresh copies, so an
agent (or a client that annotates what it sends) can never change what the next rollout sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from robograph.actions import CATALOG
from robograph.errors import RoboGraphError
from robograph.instance import HISTORY_WINDOW
from robograph.runtime import Episode
from robograph.view import observation

SYSTEM_PROMPT = (
    "You are a policy for high-level embodied task evaluation.\n"
    "Choose exactly one semantic action using the action catalog and the provided observation.\n"
    "Output strict JSON only."
)

PROTOCOLS = ("standard", "assisted")

NO_CANDIDATES = "Do not assume that a candidate action list is available."
RECOVER_CONSTRAINT = "Treat recover as an internal transition, not as a second physical action."
# assisted protocol (the paper's RoboTwin validation, Table 9): a candidate list is available
ASSISTED_CONSTRAINTS: tuple[str, ...] = (
    "Choose exactly one action from valid_actions; it lists the grounded actions valid in the current view.",
    RECOVER_CONSTRAINT,
)

ACTION_CONSTRAINTS: tuple[str, ...] = (
    "Choose exactly one action using action_catalog and the provided observation.",
    "Ground object, target, and node_ids in the visual observation and task context.",
    NO_CANDIDATES,
    "Treat success_criterion as the authoritative task goal; task is only a high-level title.",
    "The current observation was captured after the previous task action and before the current action.",
    "Use the current observation to assess the most recent task action in recent_history; do not use "
    "that decision\u2019s prior recovery value as its outcome.",
    "Set recovery.required=true when the current observation shows that the most recent task action "
    "failed and the selected current action corrects that failure\u2019s consequences or retries the "
    "failed action.",
    "Set recovery.required=false when the current observation shows that it succeeded.",
)

OBSERVATION_TIMING: Mapping[str, str] = MappingProxyType({
    "current_observation": "after the previous task action, before the selected current action",
    "recovery_assessment": "judge the previous task action from the current observation",
})

def _read_only(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType({k: _read_only(v) if isinstance(v, Mapping) else v for k, v in data.items()})


def _fresh(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _fresh(v) if isinstance(v, Mapping) else v for k, v in data.items()}


OUTPUT_SCHEMA: Mapping[str, Any] = _read_only({
    "reason": "short rationale that assesses the previous action outcome from the current "
    "observation, then explains the selected current action",
    "recovery": {
        "required": "true when the current observation shows the previous task action failed and "
        "this action corrects its consequences or retries it",
        "failed_action": "previous task action name when required, otherwise null",
        "failed_node_ids": "node_ids of the previous failed action when required, otherwise []; "
        "order is ignored for attach and preserved for directional actions",
    },
    "action": {
        "name": "one semantic action name from action_catalog",
        "object": "observed object identifier when applicable",
        "target": "observed target identifier when applicable",
        "node_ids": "ordered observed object and target identifiers when applicable",
    },
})


def recent_history(episode: Episode, window: int = HISTORY_WINDOW) -> list[dict[str, Any]]:
    out = []
    for rec in episode.trace.steps[-window:]:
        out.append(
            {
                "step": rec.step,
                "action": rec.action.to_json(),
                "event": {"status": rec.status, "failure_type": rec.failure_type},
            }
        )
    return out


def action_constraints(protocol: str = "standard") -> list[str]:
    """The standard protocol never offers `recover` (it does not exist there) nor a candidate
    list; the assisted one offers both, so only it explains them."""
    if protocol == "standard":
        return list(ACTION_CONSTRAINTS)
    out = [c for c in ACTION_CONSTRAINTS if c != NO_CANDIDATES]
    return out[:2] + list(ASSISTED_CONSTRAINTS) + out[2:]


def build_payload(
    episode: Episode,
    current_observation: dict[str, Any] | None = None,
    *,
    protocol: str = "standard",
    valid_actions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The user payload for the coming step. Pass `current_observation` to replace the symbolic
    view (visual mode: camera references). The assisted protocol adds `valid_actions` right
    after `action_catalog`; every other field is the same in every mode and protocol."""
    if protocol not in PROTOCOLS:
        raise RoboGraphError(f"unknown protocol {protocol!r}; valid: {', '.join(PROTOCOLS)}")
    inst = episode.instance
    if current_observation is None:
        current_observation = observation(episode.graph, episode.view)
    payload = {
        "task": inst.task,
        "task_type": inst.task_type,
        "settings": list(inst.settings),
        "success_criterion": episode.goal.to_json(),
        "step": episode.t + 1,
        "action_catalog": {name: CATALOG[name].to_record() for name in inst.actions},
        **({"valid_actions": list(valid_actions or [])} if protocol == "assisted" else {}),
        "action_constraints": action_constraints(protocol),
        "observation_timing": _fresh(OBSERVATION_TIMING),
        "recent_history": recent_history(episode),
        "current_observation": current_observation,
        "output_schema": _fresh(OUTPUT_SCHEMA),
    }
    return payload
