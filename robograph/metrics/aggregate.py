"""Aggregation of rollout records the way the paper reports them (Tables 1, 2, 7, 8; Figure 4).

SR, NGP and the state metrics are means over the rollouts of all seven conditions (undefined
per-rollout values are left out); SSAL is the mean over baseline rollouts only (Appendix C); IRR
and latency are over rollouts where an intervention fired (latency over recovered ones);
F1@RD and Acc@RG pool their counts over all steps. Delta-SR pairs each intervention rollout with
the baseline rollout of the same scene (and seed) and averages the differences, in points.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Record = Mapping[str, Any]
STATE_METRICS = ("AER", "RAR", "SEG", "ADR", "IRR")
TABLE1 = ("N_s", "SR", "SSAL", "NGP", "AER", "RAR", "SEG", "ADR", "IRR", "F1_RD", "Acc_RG")
TERMINATIONS = ("correct", "premature", "budget")


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _m(rec: Record, key: str) -> Any:
    return rec["metrics"].get(key)


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    """Aggregate figures for one group of rollout records."""
    base = [r for r in records if r.get("condition") == "baseline"]
    tp = fp = fn = grounded = positives = 0
    for r in records:
        c = r["metrics"]["counts"]
        tp, fp, fn = tp + c["rd"][0], fp + c["rd"][1], fn + c["rd"][2]
        grounded, positives = grounded + c["rg"][0], positives + c["rg"][1]
    fired = [r for r in records if _m(r, "IRR") is not None]
    n = len(records)
    term = {t: (100.0 * sum(1 for r in records if _m(r, "termination") == t) / n if n else None) for t in TERMINATIONS}
    return {
        "rollouts": n,
        "N_s": _mean(_m(r, "non_stop_steps") for r in records),
        "steps": _mean(_m(r, "steps") for r in records),
        "SR": _mean(_m(r, "SR") for r in records),
        "SSAL": _mean(_m(r, "SSAL") for r in base),
        "NGP": _mean(_m(r, "NGP") for r in records),
        **{k: _mean(_m(r, k) for r in records) for k in ("AER", "RAR", "SEG", "ADR")},
        "IRR": _mean(_m(r, "IRR") for r in fired),
        "latency": _mean(_m(r, "latency") for r in fired),
        "triggered": len(fired),
        "F1_RD": 100.0 * 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else None,
        "Acc_RG": 100.0 * grounded / positives if positives else None,
        "termination": term,
    }


def group_by(records: Iterable[Record], *keys: str) -> dict[tuple[Any, ...], list[Record]]:
    out: dict[tuple[Any, ...], list[Record]] = defaultdict(list)
    for r in records:
        out[tuple(r.get(k) for k in keys)].append(r)
    return dict(sorted(out.items(), key=lambda kv: tuple(str(x) for x in kv[0])))


def table(records: Iterable[Record], keys: Sequence[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {k: summarize(v) for k, v in group_by(records, *keys).items()}


def delta_sr(records: Sequence[Record]) -> float | None:
    """Mean over paired (scene, seed) of SR(intervention) - SR(baseline), in points."""
    base = {(r["scene"], r["seed"]): _m(r, "SR") for r in records if r["condition"] == "baseline"}
    diffs = [
        _m(r, "SR") - base[(r["scene"], r["seed"])]
        for r in records
        if r["condition"] != "baseline" and (r["scene"], r["seed"]) in base
    ]
    return _mean(diffs)


def intervention_table(records: Sequence[Record]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Table 2: per agent, intervention and domain: Delta-SR, IRR, latency, triggered rollouts."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for (agent, domain), group in group_by(records, "agent", "domain").items():
        base = [r for r in group if r["condition"] == "baseline"]
        for (cond,), rows in group_by([r for r in group if r["condition"] != "baseline"], "condition").items():
            s = summarize(rows)
            out[(agent, cond, domain)] = {
                "delta_SR": delta_sr(base + rows),
                "IRR": s["IRR"],
                "latency": s["latency"],
                "triggered": s["triggered"],
                "rollouts": s["rollouts"],
            }
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson correlation of average ranks (ties share their mean rank).
    None when fewer than three pairs or either side is constant."""
    import numpy as np

    if len(x) != len(y) or len(x) < 3:
        return None
    rx, ry = _ranks(np.asarray(x, dtype=float)), _ranks(np.asarray(y, dtype=float))
    sx, sy = rx.std(), ry.std()
    if sx == 0 or sy == 0:
        return None
    return float(((rx - rx.mean()) * (ry - ry.mean())).mean() / (sx * sy))


def _ranks(values: Any) -> Any:
    import numpy as np

    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values), dtype=float)
    sorted_vals = values[order]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


CORRELATES = ("L_o", "N_g", *STATE_METRICS)


def _scene_figure(rows: Sequence[Record], key: str) -> float | None:
    if key == "L_o":
        return _mean(_m(r, "oracle_length") for r in rows if r["condition"] == "baseline") or _mean(
            _m(r, "oracle_length") for r in rows
        )
    if key == "N_g":
        return _mean(_m(r, "goal_size") for r in rows if r["condition"] == "baseline") or _mean(
            _m(r, "goal_size") for r in rows
        )
    return summarize(rows)[key]


def between_scene(records: Sequence[Record]) -> dict[str, dict[str, float | None]]:
    """Figure 6: per domain, scene-level averages (over agents and conditions) correlated with SR."""
    out: dict[str, dict[str, float | None]] = {}
    for (domain,), rows in group_by(records, "domain").items():
        scenes = group_by(rows, "scene")
        out[domain] = {}
        for key in CORRELATES:
            pairs = [(_scene_figure(v, key), summarize(v)["SR"]) for v in scenes.values()]
            pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
            out[domain][key] = spearman([a for a, _ in pairs], [b for _, b in pairs])
    return out


def within_scene(records: Sequence[Record]) -> dict[str, dict[str, float | None]]:
    """Figure 7: per scene, correlation across agents of each state metric with SR; the median
    over scenes per domain (None when fewer than three agents ran a scene)."""
    out: dict[str, dict[str, float | None]] = {}
    for (domain,), rows in group_by(records, "domain").items():
        per_metric: dict[str, list[float]] = {k: [] for k in STATE_METRICS}
        for _scene, srows in group_by(rows, "scene").items():
            agents = group_by(srows, "agent")
            if len(agents) < 3:
                continue
            sums = [summarize(v) for v in agents.values()]
            for key in STATE_METRICS:
                pairs = [(s[key], s["SR"]) for s in sums if s[key] is not None and s["SR"] is not None]
                rho = spearman([a for a, _ in pairs], [b for _, b in pairs])
                if rho is not None:
                    per_metric[key].append(rho)
        out[domain] = {k: _median(v) for k, v in per_metric.items()}
    return out


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def json_summary(records: Sequence[Record]) -> dict[str, dict[str, dict[str, float | None]]]:
    """`robograph report --json`: agent -> domain -> the paper's aggregate metrics, the share of
    premature stops and the attribution shares of the unsuccessful rollouts (all in %)."""
    keys = ("SR", "SSAL", "NGP", "AER", "RAR", "SEG", "ADR", "IRR", "F1_RD", "Acc_RG")
    from robograph.metrics.attribution import CAUSES, shares

    out: dict[str, dict[str, dict[str, float | None]]] = {}
    groups = group_by(records, "agent", "domain")
    for (agent, domain), s in table(records, ("agent", "domain")).items():
        blame = shares(groups[(agent, domain)])
        out.setdefault(str(agent), {})[str(domain)] = {
            **{k: _round(s[k]) for k in keys},
            "premature": _round(s["termination"]["premature"]),
            **{f"attributed_{c}": _round(blame[c]) for c in CAUSES},
        }
    return out


def _round(v: float | None, nd: int = 4) -> float | None:
    return None if v is None else round(float(v), nd)

