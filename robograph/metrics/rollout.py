"""Per-rollout metrics (paper, Metrics paragraph and Appendix C; docs/metrics.md has the formulas
and the decisions DESIGN.md fixes where the paper is vague).

Everything is computed on the latent graph captured during the rollout (or replayed): success,
C_distance and visibility never come from the agent. Rates are in percent, SSAL and NGP in
[0, 1] and [0, 100] as the paper reports them; a metric with nothing to measure (no
view-expanding action, no hidden relevant fact, no fired intervention) is None and is left out
of averages rather than counted as 0 or 100.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from robograph.actions import Action
from robograph.events import FiredEvent
from robograph.facts import Fact, Goal, holds
from robograph.graph import OCCLUDES, PART_OF, SceneGraph
from robograph.metrics.trace import RolloutTrace, StepState
from robograph.rewrite import AddEdge
from robograph.view import compute_view

Distance = Callable[[SceneGraph, Goal, Sequence[str]], int]
VIEW_EXPANDING = frozenset({"open", "move_aside", "walk"})
# failures raised after preconditions held (the action was executable)
EXECUTION_FAILURES = frozenset({"execution_failed", "simulation_unstable", "robot_disconnected",
                                "deadline_exceeded", "cancelled"})


def default_distance() -> Distance:
    from robograph.oracle import action_distance

    return action_distance


class DistanceCache:
    """C_distance(G, g) memoized on (graph, goal): graphs are hashable and immutable."""

    def __init__(self, distance: Distance, actions: Sequence[str]) -> None:
        self.distance = distance
        self.actions = tuple(actions)
        self.cache: dict[tuple[SceneGraph, Goal], int] = {}

    def __call__(self, graph: SceneGraph, goal: Goal) -> int:
        key = (graph, goal)
        if key not in self.cache:
            self.cache[key] = int(self.distance(graph, goal, self.actions))
        return self.cache[key]


@dataclass(frozen=True)
class Ratio:
    num: float
    den: float

    @property
    def value(self) -> float | None:
        return 100.0 * self.num / self.den if self.den else None


def termination(trace: RolloutTrace) -> str:
    """'correct' (stop with the goal satisfied), 'premature' (stop without it) or 'budget'."""
    if not trace.states:
        return "budget"
    last = trace.states[-1]
    if last.action.name == "stop" and last.record.ok:
        return "correct" if last.record.success else "premature"
    return "budget"


def non_stop_steps(states: Sequence[StepState]) -> int:
    """N_s of Eq. 13: steps whose action is not stop (parse errors count: they used a step)."""
    return sum(1 for s in states if s.action.name != "stop")


def ssal(success: bool, oracle_length: int, n_s: int) -> float:
    """Eq. 14: S * L_o / max(L_o, N_s)."""
    if not success:
        return 0.0
    return oracle_length / max(oracle_length, n_s) if max(oracle_length, n_s) > 0 else 1.0


def ngp(initial: SceneGraph, final: SceneGraph, goal: Goal) -> float:
    """Normalized goal progress in %: (facts satisfied at the end - facts satisfied at the start)
    over (goal size - facts satisfied at the start), on the final active goal, clipped to
    [0, 100]. Breaking a fact that held at the start costs progress."""
    start = sum(1 for f in goal if _holds_safe(initial, f))
    todo = len(goal) - start
    if todo <= 0:
        return 100.0 if all(_holds_safe(final, f) for f in goal) else 0.0
    end = sum(1 for f in goal if _holds_safe(final, f))
    return max(0.0, min(100.0, 100.0 * (end - start) / todo))


def _holds_safe(graph: SceneGraph, fact: Fact) -> bool:
    return all(a in graph.nodes for a in fact.args) and holds(graph, fact)


def aer(states: Sequence[StepState]) -> Ratio:
    """Executable non-stop actions (preconditions held on the latent state) over non-stop steps.
    Injected/physical execution failures were executable; parse errors were not."""
    steps = [s for s in states if s.action.name != "stop"]
    ok = sum(1 for s in steps if s.record.ok or s.record.failure_type in EXECUTION_FAILURES)
    return Ratio(ok, len(steps))


def rar(states: Sequence[StepState], dist: DistanceCache) -> Ratio:
    """Redundant non-stop actions: the same grounded action was attempted before and this attempt
    did not reduce C_distance. Parse errors are not actions and are left out."""
    seen: set[Action] = set()
    redundant = total = 0
    for s in states:
        a = s.action
        if a.name in ("stop", ""):
            continue
        total += 1
        if a in seen and dist(s.after, s.goal) >= dist(s.before, s.goal):
            redundant += 1
        seen.add(a)
    return Ratio(redundant, total)


def adr(states: Sequence[StepState], dist: DistanceCache) -> Ratio:
    """Mean over view-expanding actions (open, move_aside, walk; failed ones included, they
    reduce nothing) of (C(G_t) - C(G_t+1)) / C(G_t), in %. Steps with C(G_t) = 0 are skipped."""
    total = 0.0
    n = 0
    for s in states:
        if s.action.name not in VIEW_EXPANDING:
            continue
        c0 = dist(s.before, s.goal)
        if c0 <= 0:
            continue
        total += (c0 - dist(s.after, s.goal)) / c0
        n += 1
    return Ratio(total, n)


def relevant_nodes(graph: SceneGraph, goal: Goal) -> set[str]:
    """Goal arguments plus the parts of goal assemblies (what the task needs to see)."""
    nodes = {a for f in goal for a in f.args if a in graph.nodes}
    nodes |= {e.src for e in graph.edges if e.rel == PART_OF and e.dst in nodes}
    return nodes


def events_of(states: Sequence[StepState]) -> list[FiredEvent]:
    return [ev for s in states for ev in s.record.events]


def seg(trace: RolloutTrace) -> Ratio:
    """Task-relevant hidden facts revealed by the agent's successful actions, in %.
    Items: relevant nodes hidden at the start, plus relevant nodes an intervention hides (one
    item per hiding). An item is revealed when a successful agent action makes it visible."""
    states = trace.states
    if not states:
        return Ratio(0, 0)
    open_items: set[str] = set()
    items = revealed = 0
    first = states[0]
    for nid in relevant_nodes(first.before, first.goal) - first.visible_before:
        open_items.add(nid)
        items += 1
    prev_graph, prev_visible = first.before, first.visible_before
    for i, s in enumerate(states):
        if i > 0 and any(ev.kind != "I1" for ev in s.record.events):
            for nid in relevant_nodes(s.before, s.goal):
                was_seen = nid in prev_visible or nid not in prev_graph.nodes
                if was_seen and nid not in s.visible_before and nid not in open_items:
                    open_items.add(nid)
                    items += 1
        if s.record.ok and open_items:
            newly = {n for n in open_items if n in s.visible_after and n not in s.visible_before}
            revealed += len(newly)
            open_items -= newly
        prev_graph, prev_visible = s.after, s.visible_after
    return Ratio(revealed, items)


@dataclass(frozen=True)
class Recovery:
    event: str
    kind: str
    fired: int
    restored: int | None

    @property
    def latency(self) -> int | None:
        """Agent steps from firing to restoration: I1 fires during step s (its action is lost), so
        actions s+1..t count; I2-I6 fire before step s's action, so actions s..t count."""
        if self.restored is None:
            return None
        return self.restored - self.fired + (0 if self.kind == "I1" else 1)


def _i5_target(ev: FiredEvent) -> str | None:
    for rw in ev.rewrites:
        if isinstance(rw, AddEdge) and rw.edge.rel == OCCLUDES:
            return rw.edge.dst
    return None


def recoveries(trace: RolloutTrace) -> list[Recovery]:
    """For each fired intervention, the first step whose post-action state restores it.
    Restoration targets: the invalidated facts that are goal facts plus added goal facts; for
    I5 also the hidden target must be visible again (or held); if that leaves nothing, all
    invalidated facts.
    A successful episode restores every event by its stop at the latest. Events with nothing to
    restore are not counted."""
    states = trace.states
    out: list[Recovery] = []
    for idx, s in enumerate(states):
        for ev in s.record.events:
            goal_facts = set(states[idx].goal)
            targets = [f for f in ev.invalidated if f in goal_facts] + list(ev.goal_added)
            hidden = _i5_target(ev) if ev.kind == "I5" else None
            if not targets and hidden is None:
                targets = list(ev.invalidated)
            if not targets and hidden is None:
                continue
            start = idx + 1 if ev.kind == "I1" else idx
            restored: int | None = None
            for later in states[start:]:
                g = later.after
                if all(_holds_safe(g, f) for f in targets) and (
                    hidden is None or hidden in later.visible_after
                ):
                    restored = later.record.step
                    break
            if restored is None and trace.success:
                restored = states[-1].record.step
            out.append(Recovery(ev.event_id, ev.kind, ev.step, restored))
    return out


@dataclass(frozen=True)
class RecoveryCounts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    grounded: int = 0
    positives: int = 0

    @property
    def f1(self) -> float | None:
        den = 2 * self.tp + self.fp + self.fn
        return 100.0 * 2 * self.tp / den if den else None

    @property
    def acc(self) -> float | None:
        return 100.0 * self.grounded / self.positives if self.positives else None


def needs_recovery(prev: StepState, cur: StepState) -> bool:
    """Ground truth: the previous task action failed and this action retries it or repairs it
    (acts on one of its nodes). Stop and parse errors neither retry nor repair."""
    p, a = prev.action, cur.action
    if prev.record.ok or not p.name or a.name in ("stop", ""):
        return False
    return a == p or bool(set(a.args) & set(p.args))


def _same_nodes(name: str, predicted: Sequence[str], actual: Sequence[str]) -> bool:
    if name == "attach":
        return sorted(predicted) == sorted(actual)
    return list(predicted) == list(actual)


def recovery_counts(states: Sequence[StepState]) -> RecoveryCounts:
    """F1@RD counts over steps 2..T (prediction = recovery.required) and Acc@RG over the
    ground-truth positives (failed_action and failed_node_ids must name the previous action)."""
    tp = fp = fn = grounded = positives = 0
    for prev, cur in zip(states, states[1:], strict=False):
        truth = needs_recovery(prev, cur)
        rec = cur.parsed.recovery if cur.parsed is not None else None
        said = bool(rec and rec.required)
        tp += truth and said
        fp += said and not truth
        fn += truth and not said
        if truth:
            positives += 1
            p = prev.action
            if rec and said and rec.failed_action == p.name and _same_nodes(p.name, rec.failed_node_ids, p.args):
                grounded += 1
    return RecoveryCounts(tp, fp, fn, grounded, positives)


def rollout_metrics(
    trace: RolloutTrace,
    distance: Distance | None = None,
    oracle_length: int | None = None,
) -> dict[str, Any]:
    """All per-rollout figures as one JSON-ready dict (stored in the rollout record)."""
    from robograph.metrics.attribution import attribute
    from robograph.metrics.recovery_by_action import recovery_by_action

    inst = trace.instance
    states = trace.states
    dist = DistanceCache(distance or default_distance(), inst.actions)
    meta: Mapping[str, Any] = inst.metadata
    if oracle_length is None:
        oracle_length = meta.get("oracle_length")
    if oracle_length is None:
        oracle_length = dist(inst.graph, inst.goal)
    final = states[-1].after if states else inst.graph
    final_goal = states[-1].goal if states else inst.goal
    success = trace.success
    n_s = non_stop_steps(states)
    r_aer, r_rar, r_adr, r_seg = aer(states), rar(states, dist), adr(states, dist), seg(trace)
    recs = recoveries(trace)
    restored = [r for r in recs if r.restored is not None]
    latencies = [r.latency for r in restored if r.latency is not None]
    rc = recovery_counts(states)
    return {
        "success": success,
        "termination": termination(trace),
        "steps": len(states),
        "non_stop_steps": n_s,
        "oracle_length": int(oracle_length),
        "goal_size": len(final_goal),
        "SR": 100.0 if success else 0.0,
        "SSAL": ssal(success, int(oracle_length), n_s),
        "NGP": ngp(inst.graph, final, final_goal),
        "AER": r_aer.value,
        "RAR": r_rar.value,
        "ADR": r_adr.value if r_adr.den else 0.0,  # never expanded the view: resolved nothing
        "SEG": r_seg.value,
        "IRR": 100.0 * len(restored) / len(recs) if recs else None,
        "latency": sum(latencies) / len(latencies) if latencies else None,
        "events": [
            {"id": r.event, "kind": r.kind, "fired": r.fired, "restored": r.restored, "latency": r.latency}
            for r in recs
        ],
        "parse_errors": sum(1 for s in states if s.record.failure_type == "parse_error"),
        "counts": {
            "aer": [r_aer.num, r_aer.den],
            "rar": [r_rar.num, r_rar.den],
            "adr": [r_adr.num, r_adr.den],
            "seg": [r_seg.num, r_seg.den],
            "rd": [rc.tp, rc.fp, rc.fn],
            "rg": [rc.grounded, rc.positives],
        },
        "F1_RD": rc.f1,
        "Acc_RG": rc.acc,
        "recovery_by_action": recovery_by_action(states),
        "attribution": blame.to_json() if (blame := attribute(trace)) is not None else None,
    }


def initial_hidden(graph: SceneGraph, goal: Goal) -> set[str]:
    """Relevant nodes not visible in `graph` (exposed for tests and docs)."""
    return relevant_nodes(graph, goal) - compute_view(graph).visible
