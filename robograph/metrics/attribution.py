"""Failure attribution: which state-management gap made an unsuccessful rollout fail, and when.

The paper names three gaps (maintenance, exploration, updating) and claims they explain model
failures; this module makes that claim checkable per rollout. It reads only the latent trace
(docs/attribution.md states the rules with examples):

Each goal fact still unmet at the end (on the final, possibly extended goal) gets one cause, the
first rule that applies:

1. `updating` / `unrecovered_intervention`: an intervention (I1 injected failure included) that
   the agent never recovered from invalidated the fact, added it to the goal, or hid one of its
   nodes. Step: the step the intervention fired.
2. `exploration` / `never_seen`: a node the fact needs (its arguments and, for an assembly, its
   parts) was never in view during the rollout. Step: the last step (the stop, or the step the
   budget ran out).
3. `maintenance` / `undid_goal`: the fact held after one of the agent's own actions and a later
   action of the agent made it false. Step: the undoing step.
4. `maintenance` / `stale_action`: the agent acted on one of the fact's nodes and the action's
   preconditions failed (it acted on a stale or forgotten fact). Step: the first such step.
5. `maintenance` / `forgot`: everything needed was seen and nothing interfered, yet the agent
   stopped or ran out of steps without the fact. Step: the first action that repeats an earlier
   grounded action (repeated work) if any, else the last step.

A rollout that ran out of budget with every goal fact holding (it never stopped) is
`maintenance` / `missed_completion` at the first step where the goal held.

The rollout's attribution is the earliest of its facts' causes; ties on the step go to updating,
then exploration, then maintenance (an intervention explains what follows it; a node never seen
explains why the agent could not act on it). `implicated` lists every gap found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from robograph.facts import Fact, Goal
from robograph.metrics.rollout import (
    EXECUTION_FAILURES,
    _holds_safe,
    _i5_target,
    recoveries,
    relevant_nodes,
)
from robograph.metrics.trace import RolloutTrace, StepState

MAINTENANCE, EXPLORATION, UPDATING = "maintenance", "exploration", "updating"
CAUSES = (MAINTENANCE, EXPLORATION, UPDATING)
_TIE_ORDER = {UPDATING: 0, EXPLORATION: 1, MAINTENANCE: 2}


@dataclass(frozen=True)
class Blame:
    """One unmet fact's cause."""

    cause: str
    rule: str
    step: int
    fact: str

    def key(self) -> tuple[int, int]:
        return self.step, _TIE_ORDER[self.cause]


@dataclass(frozen=True)
class Attribution:
    cause: str
    rule: str
    step: int
    fact: str | None
    implicated: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"cause": self.cause, "rule": self.rule, "step": self.step, "fact": self.fact,
                "implicated": list(self.implicated)}


def attribute(trace: RolloutTrace) -> Attribution | None:
    """The attribution of an unsuccessful rollout; None for a successful (or empty) one."""
    states = trace.states
    if not states or trace.success:
        return None
    last = states[-1]
    goal = last.goal
    final = last.after
    unmet = [f for f in goal if not _holds_safe(final, f)]
    if not unmet:
        step = next((s.record.step for s in states if all(_holds_safe(s.after, f) for f in s.goal)), last.record.step)
        return Attribution(MAINTENANCE, "missed_completion", step, None, (MAINTENANCE,))
    blames = [_blame(trace, f) for f in unmet]
    first = min(blames, key=Blame.key)
    implicated = tuple(c for c in CAUSES if any(b.cause == c for b in blames))
    return Attribution(first.cause, first.rule, first.step, first.fact, implicated)


def _fact_nodes(states: Sequence[StepState], fact: Fact) -> set[str]:
    """The fact's arguments plus, through `relevant_nodes`, the parts of an assembly."""
    return set(fact.args) | relevant_nodes(states[-1].after, Goal((fact,)))


def _blame(trace: RolloutTrace, fact: Fact) -> Blame:
    states = trace.states
    text = str(fact)
    nodes = _fact_nodes(states, fact)
    step = _unrecovered_event(trace, fact, nodes)
    if step is not None:
        return Blame(UPDATING, "unrecovered_intervention", step, text)
    seen: set[str] = set(states[0].visible_before)
    for s in states:
        seen |= s.visible_after
    if nodes - seen:
        return Blame(EXPLORATION, "never_seen", states[-1].record.step, text)
    step = _undone_by_agent(states, fact)
    if step is not None:
        return Blame(MAINTENANCE, "undid_goal", step, text)
    for s in states:
        failure = s.record.failure_type
        if failure and failure not in EXECUTION_FAILURES and failure != "parse_error" and nodes & set(s.action.args):
            return Blame(MAINTENANCE, "stale_action", s.record.step, text)
    return Blame(MAINTENANCE, "forgot", _first_repeat(states), text)


def _unrecovered_event(trace: RolloutTrace, fact: Fact, nodes: set[str]) -> int | None:
    lost = {r.event for r in recoveries(trace) if r.restored is None}
    for s in trace.states:
        for ev in s.record.events:
            if ev.event_id not in lost:
                continue
            hidden = _i5_target(ev) if ev.kind == "I5" else None
            if fact in ev.invalidated or fact in ev.goal_added or (hidden is not None and hidden in nodes):
                return ev.step
    return None


def _undone_by_agent(states: Sequence[StepState], fact: Fact) -> int | None:
    undone: int | None = None
    for s in states:
        if not s.record.ok or not s.record.rewrites:
            continue
        before, after = _holds_safe(s.before, fact), _holds_safe(s.after, fact)
        if before and not after:
            undone = s.record.step
        elif after:
            undone = None
    return undone


def _first_repeat(states: Sequence[StepState]) -> int:
    """First step repeating an earlier grounded action (the agent lost track of what it did)."""
    seen = set()
    for s in states:
        a = s.action
        if a.name in ("stop", ""):
            continue
        if a in seen:
            return s.record.step
        seen.add(a)
    return states[-1].record.step


def shares(records: Sequence[Mapping[str, Any]]) -> dict[str, float | int | None]:
    """Attribution shares (in % of the unsuccessful rollouts) of one group of rollout records."""
    blamed = [r["metrics"].get("attribution") for r in records if not r["metrics"].get("success")]
    blamed = [a for a in blamed if a]
    n = len(blamed)
    out: dict[str, float | int | None] = {"failures": n}
    for cause in CAUSES:
        out[cause] = 100.0 * sum(1 for a in blamed if a["cause"] == cause) / n if n else None
    steps = sorted(int(a["step"]) for a in blamed)
    out["median_step"] = float(steps[len(steps) // 2]) if steps else None
    return out
