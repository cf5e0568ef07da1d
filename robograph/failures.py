"""Typed failure feedback. Every way an action can fail maps to exactly one `FailureType`; the
agent sees the type (and a one-line message) in `recent_history`, metrics count them, and
physical backends report their failures with the same types. `docs/failures.md` lists them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FailureType(StrEnum):
    # harness-level
    PARSE_ERROR = "parse_error"
    UNKNOWN_ACTION = "unknown_action"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_NODE = "unknown_node"
    # grounding / access
    NOT_VISIBLE = "not_visible"
    NOT_REACHABLE = "not_reachable"
    NAVIGATION_DISABLED = "navigation_disabled"
    INVALID_TARGET = "invalid_target"
    ALREADY_THERE = "already_there"
    # affordances
    NOT_OPENABLE = "not_openable"
    NOT_PRESSABLE = "not_pressable"
    NOT_GRABBABLE = "not_grabbable"
    NOT_MOVABLE = "not_movable"
    NOT_A_SURFACE = "not_a_surface"
    NOT_A_CONTAINER = "not_a_container"
    NOT_A_PART = "not_a_part"
    # hands
    HANDS_FULL = "hands_full"
    NOTHING_HELD = "nothing_held"
    ALREADY_HELD = "already_held"
    # state
    ALREADY_OPEN = "already_open"
    ALREADY_CLOSED = "already_closed"
    ALREADY_PRESSED = "already_pressed"
    ALREADY_ASSEMBLED = "already_assembled"
    ALREADY_MOVED_ASIDE = "already_moved_aside"
    CONTAINER_CLOSED = "container_closed"
    CYCLE = "cycle"
    CAPACITY = "capacity"
    INCOMPATIBLE_PARTS = "incompatible_parts"
    LOADED_CARRIER = "loaded_carrier"
    # execution (I1 injected failures and physical backends)
    EXECUTION_FAILED = "execution_failed"
    SIMULATION_UNSTABLE = "simulation_unstable"
    ROBOT_DISCONNECTED = "robot_disconnected"
    # execution stopped from outside (Backend.execute's deadline / cancel): infrastructure
    DEADLINE_EXCEEDED = "deadline_exceeded"
    CANCELLED = "cancelled"
    # episode
    EPISODE_OVER = "episode_over"


# Failures caused by the infrastructure, not by the agent's choice of action: the harness's time
# budget, an operator's cancel, a simulator that diverged, a robot that went away. Reports count
# them apart from agent failures (they still cost the step).
INFRASTRUCTURE_FAILURES = frozenset({
    FailureType.SIMULATION_UNSTABLE, FailureType.ROBOT_DISCONNECTED,
    FailureType.DEADLINE_EXCEEDED, FailureType.CANCELLED,
})


@dataclass(frozen=True, slots=True)
class ActionFailure:
    type: FailureType
    message: str

    def __str__(self) -> str:
        return f"{self.type.value}: {self.message}"
