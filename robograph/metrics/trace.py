"""What metrics need from a rollout: the latent states around every step.

The runner captures a `StepState` per step while the rollout runs (graphs are immutable, so this
costs references only); `robograph.harness.rollout.replay` rebuilds the same list from an instance
and its recorded replies, so metrics can be recomputed from a results file without the live run.
The graph is the only source of truth: nothing here trusts what the agent said except its
recovery fields. Metrics depend on the harness only through the two small protocols below, so the
dependency runs one way (harness -> metrics).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from robograph.actions import Action
from robograph.facts import Goal
from robograph.graph import SceneGraph
from robograph.instance import TaskInstance
from robograph.rewrite import apply_all
from robograph.runtime import StepRecord
from robograph.view import compute_view


class RecoveryClaim(Protocol):
    """The agent's recovery fields (Figure 12), as F1@RD and Acc@RG read them."""

    @property
    def required(self) -> bool: ...
    @property
    def failed_action(self) -> str | None: ...
    @property
    def failed_node_ids(self) -> Sequence[str]: ...


class DecodedReply(Protocol):
    """A reply that parsed (`robograph.harness.parse.ParsedResponse`)."""

    @property
    def recovery(self) -> RecoveryClaim: ...


@dataclass(frozen=True)
class StepState:
    """Step t: `before` is G_t as the agent saw it (events of step t applied), `goal` the active
    goal g_t, `record` the runtime's record, `parsed` the decoded reply (None on parse error).
    `after` is the state right after the action, before the next step's events."""

    before: SceneGraph
    goal: Goal
    visible_before: frozenset[str]
    record: StepRecord
    parsed: DecodedReply | None

    @cached_property
    def after(self) -> SceneGraph:
        return apply_all(self.before, self.record.rewrites) if self.record.rewrites else self.before

    @cached_property
    def visible_after(self) -> frozenset[str]:
        return compute_view(self.after).visible if self.record.rewrites else self.visible_before

    @property
    def action(self) -> Action:
        return self.record.action


@dataclass(frozen=True)
class RolloutTrace:
    instance: TaskInstance
    seed: int
    states: tuple[StepState, ...]

    @property
    def success(self) -> bool:
        return bool(self.states and self.states[-1].record.success)


def actions_of(states: Sequence[StepState]) -> list[Action]:
    return [s.action for s in states]
