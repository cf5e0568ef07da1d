"""Figure 5: recovery detection (F1@RD) and grounding (Acc@RG) by action type and domain.

The ground truth and the prediction are exactly those of `recovery_counts` (the previous task
action failed and this one retries or repairs it; the reply's `recovery` fields); the only
difference is that each step pair is counted under the type of the previous action, the one
whose failure is to be detected. Counts are pooled per (domain, action type), as F1@RD and
Acc@RG are pooled in Table 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from robograph.metrics.rollout import _same_nodes, needs_recovery
from robograph.metrics.trace import StepState

# per action type: [tp, fp, fn, grounded, positives]
Counts = dict[str, list[int]]


def recovery_by_action(states: Sequence[StepState]) -> Counts:
    out: Counts = {}
    for prev, cur in zip(states, states[1:], strict=False):
        p = prev.action
        if not p.name:
            continue
        truth = needs_recovery(prev, cur)
        rec = cur.parsed.recovery if cur.parsed is not None else None
        said = bool(rec and rec.required)
        if not (truth or said):
            continue
        c = out.setdefault(p.name, [0, 0, 0, 0, 0])
        c[0] += truth and said
        c[1] += said and not truth
        c[2] += truth and not said
        if truth:
            c[4] += 1
            if rec and said and rec.failed_action == p.name and _same_nodes(p.name, rec.failed_node_ids, p.args):
                c[3] += 1
    return out


def pooled(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], list[int]]:
    """(agent, domain, action type) -> pooled counts over the records that carry them."""
    out: dict[tuple[str, str, str], list[int]] = {}
    for r in records:
        for action, c in (r["metrics"].get("recovery_by_action") or {}).items():
            key = (str(r.get("agent")), str(r.get("domain")), action)
            acc = out.setdefault(key, [0, 0, 0, 0, 0])
            for i, v in enumerate(c):
                acc[i] += int(v)
    return dict(sorted(out.items()))


def f1_acc(c: Sequence[int]) -> tuple[float | None, float | None]:
    tp, fp, fn, grounded, positives = c
    den = 2 * tp + fp + fn
    return (100.0 * 2 * tp / den if den else None, 100.0 * grounded / positives if positives else None)
