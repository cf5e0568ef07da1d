"""The assisted-execution protocol of the paper's RoboTwin validation (Table 9).

The harness offers `valid_actions`, the grounded actions whose preconditions hold in the current
view (judged by the harness on the task state: that is the assistance). After a failed execution
the only choices are `recover` and `stop`; `recover` is an internal transition (no step, no
physics) after which the list holds only the failed action, so the agent retries it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robograph.actions import Action, check
from robograph.agents.random_agent import grounded_actions
from robograph.failures import FailureType
from robograph.runtime import Episode

RECOVER = "recover"
STOP = "stop"


class AssistedProtocol:
    """Tracks one rollout's place in the recover-then-retry cycle."""

    def __init__(self) -> None:
        self.retry: Action | None = None

    def failed_action(self, episode: Episode) -> Action | None:
        """The previous step's action when its execution failed (injected I1 or physical)."""
        steps = episode.trace.steps
        last = steps[-1] if steps else None
        if last is not None and last.failure_type == FailureType.EXECUTION_FAILED.value:
            return last.action
        return None

    def valid_actions(self, episode: Episode, symbolic: Mapping[str, Any]) -> list[dict[str, Any]]:
        if self.retry is not None:
            return [self.retry.to_json()]
        if self.failed_action(episode) is not None:
            return [Action(RECOVER).to_json(), Action(STOP).to_json()]
        available: Sequence[str] = episode.instance.actions
        candidates = grounded_actions({"current_observation": symbolic, "action_catalog": list(available)})
        return [a.to_json() for a in candidates if check(episode.graph, episode.view, a, available) is None]

    def offers_recover(self, episode: Episode) -> bool:
        return self.retry is None and self.failed_action(episode) is not None

    def recover(self, episode: Episode) -> None:
        self.retry = self.failed_action(episode)

    def stepped(self) -> None:
        self.retry = None
