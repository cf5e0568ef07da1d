"""`robograph report RUN [RUN ...]`: the paper's tables, correlations and Figure 4 plots.

Writes Markdown and CSV next to the first run (`report/`): Table 1 (agent x domain), Table 2
(per intervention), per-family and per-scene tables, between- and within-scene Spearman
correlations (Figures 6-7), and PNG plots of NGP, termination distribution and average steps
(Figure 4; needs the `viz` extra), and the analysis tables and plots of `report_analysis`
(failure attribution per agent x domain, Figure 5's recovery figures by action type). `--json`
prints one JSON object instead: agent -> domain -> {SR, SSAL, NGP, AER, RAR, SEG, ADR, IRR, F1_RD,
Acc_RG, premature, attributed_maintenance, attributed_exploration, attributed_updating}.

Figures over an incomplete run are biased (the rollouts that crash or time out are rarely a random
sample), so the report first checks each run's coverage against the rollouts its run file
planned: missing and errored rollouts are counted and listed, and the headline figures are refused
unless `--allow-partial` is given, in which case the report says how much is missing.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robograph.errors import RoboGraphError
from robograph.harness.report_analysis import analysis_tables, plot_analysis
from robograph.harness.store import error_keys, expected_rollouts, rollout_records
from robograph.metrics import aggregate as agg

Row = Mapping[str, Any]


def _fmt(v: Any, column: str = "") -> str:
    """Percentages and step counts with one decimal; SSAL and correlations with three."""
    if v is None:
        return "-"
    if isinstance(v, float):
        three = column == "SSAL" or column in agg.CORRELATES
        return f"{v:.3f}" if three else f"{v:.1f}"
    return str(v)


class Table:
    def __init__(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.title, self.columns, self.rows = title, list(columns), [list(r) for r in rows]

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |",
                 "|" + "|".join("---" for _ in self.columns) + "|"]
        corr = self.title.startswith(("Between", "Within"))
        lines += ["| " + " | ".join(_fmt(v, c if corr or c == "SSAL" else "") for v, c in zip(row, self.columns, strict=True))
                  + " |" for row in self.rows]
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow(["" if v is None else (round(v, 6) if isinstance(v, float) else v) for v in row])
        return buf.getvalue()


SHOWN_KEYS = 10


@dataclass(frozen=True)
class Coverage:
    """How much of a run is there. `planned` is None for a run file that predates the list."""

    run: str
    planned: int | None
    done: int
    errored: tuple[str, ...]  # planned rollouts whose last attempt was an infrastructure error
    missing: tuple[str, ...]  # planned rollouts never finished (killed, interrupted, not reached)

    @property
    def complete(self) -> bool:
        return not self.errored and not self.missing

    def describe(self) -> str:
        planned = "?" if self.planned is None else str(self.planned)
        text = f"{self.run}: {self.done} of {planned} rollouts done"
        for label, keys in (("errored", self.errored), ("missing", self.missing)):
            if keys:
                shown = ", ".join(keys[:SHOWN_KEYS]) + (" ..." if len(keys) > SHOWN_KEYS else "")
                text += f"; {len(keys)} {label} ({shown})"
        return text


def run_coverage(run: str | Path) -> Coverage:
    path = Path(run)
    done = {str(r["key"]) for r in rollout_records(path)}
    planned = expected_rollouts(path)
    failed = error_keys(path) - done
    if planned is None:
        return Coverage(str(run), None, len(done), tuple(sorted(failed)), ())
    errored = tuple(k for k in planned if k in failed)
    missing = tuple(k for k in planned if k not in done and k not in failed)
    return Coverage(str(run), len(planned), len(done & set(planned)), errored, missing)


def check_coverage(runs: Sequence[str | Path], allow_partial: bool = False) -> list[Coverage]:
    """Coverage of each run; raises unless every run is complete or `allow_partial`."""
    cov = [run_coverage(r) for r in runs]
    partial = [c for c in cov if not c.complete]
    if partial and not allow_partial:
        raise RoboGraphError(
            "incomplete run, no headline figures: " + "; ".join(c.describe() for c in partial)
            + ". Rerun `robograph run` with the same arguments to finish it, or pass --allow-partial"
        )
    return cov


def coverage_text(cov: Sequence[Coverage]) -> str:
    partial = [c for c in cov if not c.complete]
    if not partial:
        return ""
    return "**PARTIAL RUN: figures cover only the rollouts done.** " + "; ".join(c.describe() for c in partial) + "\n"


def load_records(runs: Sequence[str | Path]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for run in runs:
        rows = rollout_records(Path(run))
        if not rows:
            raise RoboGraphError(f"{run}: no rollout records (is it a run directory from `robograph run`?)")
        records += rows
    return records


def build_tables(records: Sequence[dict[str, Any]]) -> dict[str, Table]:
    tables: dict[str, Table] = {}
    t1 = agg.table(records, ("agent", "domain"))
    cols = ["agent", "domain", "rollouts", *agg.TABLE1, "latency", "correct %", "premature %", "budget %", "steps"]
    tables["table1"] = Table(
        "Table 1: agent x domain (SR and state metrics over all conditions; SSAL baseline only)",
        cols,
        [[a, d, s["rollouts"], *(s[k] for k in agg.TABLE1), s["latency"],
          *(s["termination"][t] for t in agg.TERMINATIONS), s["steps"]] for (a, d), s in t1.items()],
    )
    t2 = agg.intervention_table(records)
    tables["table2"] = Table(
        "Table 2: recovery by intervention (Delta-SR vs paired baseline, pp)",
        ["agent", "intervention", "domain", "delta_SR", "IRR", "latency", "triggered", "rollouts"],
        [[a, c, d, s["delta_SR"], s["IRR"], s["latency"], s["triggered"], s["rollouts"]] for (a, c, d), s in t2.items()],
    )
    fam = agg.table(records, ("agent", "domain", "family"))
    tables["families"] = Table(
        "Per task family", ["agent", "domain", "family", "rollouts", "SR", "NGP", "RAR"],
        [[a, d, f, s["rollouts"], s["SR"], s["NGP"], s["RAR"]] for (a, d, f), s in fam.items()],
    )
    sc = agg.table(records, ("agent", "domain", "scene"))
    keys = ("SR", "NGP", "SSAL", "AER", "RAR", "SEG", "ADR", "IRR")
    groups = agg.group_by(records, "agent", "domain", "scene")
    tables["scenes"] = Table(
        "Per scene", ["agent", "domain", "scene", *keys, "L_o", "N_g"],
        [[a, d, c, *(s[k] for k in keys), agg._scene_figure(groups[(a, d, c)], "L_o"),
          agg._scene_figure(groups[(a, d, c)], "N_g")] for (a, d, c), s in sc.items()],
    )
    between = agg.between_scene(records)
    tables["between_scene"] = Table(
        "Between-scene Spearman rho with SR (Figure 6)", ["domain", *agg.CORRELATES],
        [[d, *(v[k] for k in agg.CORRELATES)] for d, v in between.items()],
    )
    within = agg.within_scene(records)
    tables["within_scene"] = Table(
        "Within-scene Spearman rho with SR, median over scenes (Figure 7; needs >= 3 agents)",
        ["domain", *agg.STATE_METRICS],
        [[d, *(v[k] for k in agg.STATE_METRICS)] for d, v in within.items()],
    )
    for name, (title, columns, rows) in analysis_tables(records).items():
        tables[name] = Table(title, columns, rows)
    return tables


def plot_figure4(records: Sequence[dict[str, Any]], out: Path) -> list[Path]:
    """NGP, termination distribution and average steps per agent and domain (Figure 4)."""
    try:  # an explicit Agg canvas: no pyplot, no global backend switched under the caller
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return []

    t1 = agg.table(records, ("agent", "domain"))
    domains = sorted({d for _, d in t1})
    agents = sorted({a for a, _ in t1})
    paths = []
    fig = Figure(figsize=(13, 3.2 * len(domains)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(domains), 3, squeeze=False)
    for i, dom in enumerate(domains):
        rows = [(a, t1[(a, dom)]) for a in agents if (a, dom) in t1]
        names = [a for a, _ in rows]
        axes[i][0].bar(names, [s["NGP"] or 0 for _, s in rows], color="#4c72b0")
        axes[i][0].set_title(f"{dom}: NGP (%)")
        bottom = [0.0] * len(rows)
        for term, color in zip(agg.TERMINATIONS, ("#55a868", "#dd8452", "#c44e52"), strict=True):
            vals = [s["termination"][term] or 0 for _, s in rows]
            axes[i][1].bar(names, vals, bottom=bottom, label=term, color=color)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        axes[i][1].set_title(f"{dom}: termination (%)")
        axes[i][1].legend(fontsize=7)
        axes[i][2].bar(names, [s["steps"] or 0 for _, s in rows], color="#8172b3")
        axes[i][2].set_title(f"{dom}: average steps")
        for ax in axes[i]:
            ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.tight_layout()
    path = out / "figure4.png"
    fig.savefig(path, dpi=110)
    paths.append(path)
    return paths


def write_report(
    records: Sequence[dict[str, Any]], out: Path, coverage: Sequence[Coverage] = ()
) -> tuple[str, list[Path]]:
    out.mkdir(parents=True, exist_ok=True)
    tables = build_tables(records)
    text = coverage_text(coverage) + "\n".join(t.markdown() for t in tables.values())
    (out / "report.md").write_text(text, encoding="utf-8")
    for name, t in tables.items():
        (out / f"{name}.csv").write_text(t.csv(), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(agg.json_summary(records), indent=1, sort_keys=True) + "\n")
    return text, plot_figure4(records, out) + plot_analysis(records, out)


def _cmd_report(args: argparse.Namespace) -> int:
    cov = check_coverage(args.runs, args.allow_partial)
    records = load_records(args.runs)
    for c in cov:
        print(("" if c.complete else "PARTIAL: ") + c.describe(), file=sys.stderr)
    if args.json:
        print(json.dumps(agg.json_summary(records), sort_keys=True))
        return 0
    out = Path(args.out) if args.out else Path(args.runs[0]) / "report"
    text, plots = write_report(records, out, cov)
    print(text)
    print(f"tables (Markdown, CSV) written to {out}" + (f"; plots: {', '.join(map(str, plots))}" if plots else ""),
          file=sys.stderr)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("report", help="tables, correlations and plots of one or more runs")
    p.add_argument("runs", nargs="+", metavar="RUN")
    p.add_argument("--json", action="store_true", help="print one JSON object of the aggregate metrics")
    p.add_argument("--out", default=None, help="report directory (default: RUN/report)")
    p.add_argument("--allow-partial", action="store_true",
                   help="report a run with missing or errored rollouts (the report says how much is missing)")
    p.set_defaults(handler=_cmd_report)
