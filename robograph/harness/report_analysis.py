"""The analysis-section tables and plots of `robograph report`: failure attribution per agent x
domain (which gap made each unsuccessful rollout fail: docs/attribution.md) and Figure 5
(F1@RD and Acc@RG by action type and domain). Kept apart from report.py so the paper's main
tables and these analyses change independently; report.py wraps the rows in its `Table`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robograph.metrics import aggregate as agg
from robograph.metrics.attribution import CAUSES, shares
from robograph.metrics.recovery_by_action import f1_acc, pooled

Record = Mapping[str, Any]
TableRows = tuple[str, list[str], list[list[Any]]]


def attribution_rows(records: Sequence[Record]) -> TableRows:
    rows = []
    for (agent, domain), group in agg.group_by(records, "agent", "domain").items():
        s = shares(group)
        rows.append([agent, domain, len(group), s["failures"], *(s[c] for c in CAUSES), s["median_step"]])
    return (
        "Failure attribution: share of unsuccessful rollouts per gap (%), docs/attribution.md",
        ["agent", "domain", "rollouts", "failures", *(f"{c} %" for c in CAUSES), "median step"],
        rows,
    )


def figure5_rows(records: Sequence[Record]) -> TableRows:
    rows = []
    for (agent, domain, action), c in pooled(records).items():
        f1, acc = f1_acc(c)
        rows.append([agent, domain, action, c[4], c[0] + c[1], f1, acc])
    return (
        "Figure 5: recovery detection (F1@RD) and grounding (Acc@RG) by type of the failed action",
        ["agent", "domain", "action", "failures to recover", "recoveries claimed", "F1_RD", "Acc_RG"],
        rows,
    )


def analysis_tables(records: Sequence[Record]) -> dict[str, TableRows]:
    return {"attribution": attribution_rows(records), "figure5": figure5_rows(records)}


def plot_analysis(records: Sequence[Record], out: Path) -> list[Path]:
    """attribution.png (stacked shares per agent and domain) and figure5.png (grouped bars of
    F1@RD and Acc@RG per action type, one row per domain). Needs the `viz` extra."""
    try:
        import matplotlib
    except ImportError:
        return []
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    _, _, rows = attribution_rows(records)
    if rows:
        fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(rows)), 3.5))
        names = [f"{r[0]}\n{r[1]}" for r in rows]
        bottom = [0.0] * len(rows)
        for i, (cause, color) in enumerate(zip(CAUSES, ("#4c72b0", "#dd8452", "#c44e52"), strict=True)):
            vals = [r[4 + i] or 0.0 for r in rows]
            ax.bar(names, vals, bottom=bottom, label=cause, color=color)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        ax.set_ylabel("% of unsuccessful rollouts")
        ax.set_title("Failure attribution")
        ax.legend(fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        fig.tight_layout()
        paths.append(out / "attribution.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    counts = pooled(records)
    domains = sorted({d for _, d, _ in counts})
    if domains:
        fig, axes = plt.subplots(len(domains), 2, figsize=(12, 3.2 * len(domains)), squeeze=False)
        agents = sorted({a for a, _, _ in counts})
        for i, dom in enumerate(domains):
            actions = sorted({x for _, d, x in counts if d == dom})
            width = 0.8 / max(1, len(agents))
            for j, metric in enumerate(("F1@RD", "Acc@RG")):
                ax = axes[i][j]
                for k, agent in enumerate(agents):
                    vals = [f1_acc(counts[(agent, dom, x)])[j] if (agent, dom, x) in counts else None for x in actions]
                    xs = [n + k * width for n in range(len(actions))]
                    ax.bar(xs, [v or 0.0 for v in vals], width=width, label=agent)
                ax.set_xticks([n + width * (len(agents) - 1) / 2 for n in range(len(actions))], actions, fontsize=7)
                ax.set_ylim(0, 100)
                ax.set_title(f"{dom}: {metric} (%) by action type")
                ax.legend(fontsize=7)
        fig.tight_layout()
        paths.append(out / "figure5.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths
