"""`robograph compare`: do symbolic and visual runs of the same agents tell the same story?

Runs are paired by position (the i-th symbolic run with the i-th visual run: the same agent,
observed two ways) and, inside a pair, rollouts by key (instance and seed); a key missing on
either side is an error, never a silent drop. Reported per metric: Spearman's rho between the
symbolic and the visual value across agents x episodes (the paper: 0.37 for NGP, 0.75 for ADR)
and per scene, with percentile bootstrap confidence intervals over the paired rollouts; the mean
maximum rank violation (MMRV, as SIMPLER reports for sim-vs-real) of the agents' ranking by
their mean; and the SR drop per family. Writes compare.md, compare.csv and one scatter PNG per
metric.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from robograph.errors import DependencyNotInstalled, RoboGraphError
from robograph.harness.store import CONFIG, rollout_records

METRICS = ("SR", "SSAL", "NGP", "AER", "RAR", "SEG", "ADR")
BOOTSTRAP = 1000
CONFIDENCE = 0.95


class CompareError(RoboGraphError):
    """The runs given to `compare` cannot be paired."""


@dataclass(frozen=True)
class Pair:
    """One episode run by one agent, observed symbolically and visually."""

    agent: str
    key: str
    scene: str
    family: str
    symbolic: Mapping[str, Any]
    visual: Mapping[str, Any]


@dataclass(frozen=True)
class Correlation:
    metric: str
    scope: str  # "all" or a scene id
    n: int
    rho: float | None
    low: float | None
    high: float | None


def agent_label(run: Path, records: Sequence[Mapping[str, Any]]) -> str:
    """The agent and its options, e.g. `explorer(memory=false)`, from the run file."""
    config = json.loads((run / CONFIG).read_text(encoding="utf-8")) if (run / CONFIG).is_file() else {}
    agent = str(config.get("agent") or records[0].get("agent", run.name))
    opts = config.get("agent_options") or {}
    return agent + (f"({','.join(f'{k}={json.dumps(v)}' for k, v in sorted(opts.items()))})" if opts else "")


def load_pairs(symbolic_runs: Sequence[str | Path], visual_runs: Sequence[str | Path]) -> list[Pair]:
    if not symbolic_runs or len(symbolic_runs) != len(visual_runs):
        raise CompareError(
            f"give one visual run per symbolic run, in the same order (got {len(symbolic_runs)} symbolic, "
            f"{len(visual_runs)} visual)"
        )
    pairs: list[Pair] = []
    for s_run, v_run in zip(symbolic_runs, visual_runs, strict=True):
        s_recs, v_recs = _records(Path(s_run)), _records(Path(v_run))
        s_by, v_by = {r["key"]: r for r in s_recs}, {r["key"]: r for r in v_recs}
        if set(s_by) != set(v_by):
            only_s, only_v = sorted(set(s_by) - set(v_by)), sorted(set(v_by) - set(s_by))
            raise CompareError(
                f"{s_run} and {v_run} hold different rollouts: only in the symbolic run {only_s[:5]}, "
                f"only in the visual run {only_v[:5]}; compare runs over the same instances and seeds"
            )
        label = agent_label(Path(s_run), s_recs)
        for key in sorted(s_by):
            s, v = s_by[key], v_by[key]
            pairs.append(Pair(label, key, str(s.get("scene", key)), str(s.get("family", "")), s["metrics"], v["metrics"]))
    return pairs


def _records(run: Path) -> list[dict[str, Any]]:
    records = rollout_records(run) if run.is_dir() else []
    if not records:
        raise CompareError(f"{run}: no rollout records (is it a run directory from `robograph run`?)")
    return records


# statistics ------------------------------------------------------------------------------------
def _rankdata() -> Any:
    try:
        from scipy.stats import rankdata
    except ImportError:
        raise DependencyNotInstalled("scipy", "media") from None
    return rankdata


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho with average ranks for ties; None when either side is constant (or n < 3),
    where the coefficient is undefined."""
    if len(x) < 3:
        return None
    rank = _rankdata()
    rx, ry = rank(x), rank(y)
    if np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def bootstrap_ci(x: Sequence[float], y: Sequence[float], seed: int = 0,
                 resamples: int = BOOTSTRAP) -> tuple[float | None, float | None]:
    """Percentile interval of rho over paired resamples, all ranked at once (resamples where rho
    is undefined are left out; None when fewer than a tenth remain)."""
    if len(x) < 3:
        return None, None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), (resamples, len(x)))
    rank = _rankdata()
    rx = rank(np.asarray(x, float)[idx], axis=1)
    ry = rank(np.asarray(y, float)[idx], axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    ok = den > 0
    values = (rx * ry).sum(axis=1)[ok] / den[ok]
    if len(values) < resamples // 10:
        return None, None
    alpha = (1 - CONFIDENCE) / 2
    return float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha))


def mmrv(reference: Mapping[str, float], other: Mapping[str, float]) -> float:
    """Mean maximum rank violation (SIMPLER): per agent, the largest reference-metric gap to an
    agent that `other` orders the opposite way; averaged over agents. 0 means the same ranking."""
    agents = sorted(reference)
    if not agents:
        return 0.0
    total = 0.0
    for i in agents:
        worst = 0.0
        for j in agents:
            flipped = (reference[i] < reference[j]) != (other[i] < other[j])
            if i != j and flipped:
                worst = max(worst, abs(reference[i] - reference[j]))
        total += worst
    return total / len(agents)


def _values(pairs: Sequence[Pair], metric: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for p in pairs:
        a, b = p.symbolic.get(metric), p.visual.get(metric)
        if isinstance(a, int | float) and isinstance(b, int | float):
            xs.append(float(a))
            ys.append(float(b))
    return xs, ys


def correlations(pairs: Sequence[Pair], seed: int = 0) -> list[Correlation]:
    out = []
    scopes: list[tuple[str, Sequence[Pair]]] = [("all", pairs)]
    scopes += [(scene, [p for p in pairs if p.scene == scene]) for scene in sorted({p.scene for p in pairs})]
    for metric in METRICS:
        for scope, group in scopes:
            xs, ys = _values(group, metric)
            low, high = bootstrap_ci(xs, ys, seed)
            out.append(Correlation(metric, scope, len(xs), spearman(xs, ys), low, high))
    return out


def agent_means(pairs: Sequence[Pair], metric: str, side: str) -> dict[str, float]:
    by: dict[str, list[float]] = {}
    for p in pairs:
        value = getattr(p, side).get(metric)
        if isinstance(value, int | float):
            by.setdefault(p.agent, []).append(float(value))
    return {a: sum(v) / len(v) for a, v in by.items()}


def ranking_violations(pairs: Sequence[Pair]) -> dict[str, float]:
    out = {}
    for metric in METRICS:
        s, v = agent_means(pairs, metric, "symbolic"), agent_means(pairs, metric, "visual")
        common = {a: s[a] for a in s if a in v}
        out[metric] = mmrv(common, {a: v[a] for a in common})
    return out


def sr_drop(pairs: Sequence[Pair]) -> list[list[Any]]:
    """Rows (family, agent, rollouts, SR symbolic, SR visual, drop in points), agents pooled as
    agent "all" first."""
    rows = []
    for family in sorted({p.family for p in pairs}):
        group = [p for p in pairs if p.family == family]
        for agent in ["all", *sorted({p.agent for p in group})]:
            sub = group if agent == "all" else [p for p in group if p.agent == agent]
            s = sum(float(p.symbolic["SR"]) for p in sub) / len(sub)
            v = sum(float(p.visual["SR"]) for p in sub) / len(sub)
            rows.append([family, agent, len(sub), round(s, 1), round(v, 1), round(s - v, 1)])
    return rows


# output ----------------------------------------------------------------------------------------
def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def scatter_plots(pairs: Sequence[Pair], out: Path) -> list[Path]:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise DependencyNotInstalled("matplotlib", "media") from None
    paths = []
    agents = sorted({p.agent for p in pairs})
    for metric in METRICS:
        fig = Figure(figsize=(4.2, 4.2))
        ax = fig.add_subplot()
        for agent in agents:
            xs, ys = _values([p for p in pairs if p.agent == agent], metric)
            ax.scatter(xs, ys, s=18, alpha=0.7, label=agent)
        ax.plot([0, 100], [0, 100], color="grey", lw=0.8, ls="--")
        ax.set_xlabel(f"{metric} symbolic")
        ax.set_ylabel(f"{metric} visual")
        ax.legend(fontsize=6)
        fig.tight_layout()
        path = out / f"scatter_{metric}.png"
        fig.savefig(path, dpi=110)
        paths.append(path)
    return paths


@dataclass(frozen=True)
class Comparison:
    pairs: list[Pair]
    correlations: list[Correlation]
    mmrv: dict[str, float]
    sr_drop: list[list[Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "rollouts": len(self.pairs),
            "agents": sorted({p.agent for p in self.pairs}),
            "spearman": {c.metric: {"rho": c.rho, "ci": [c.low, c.high], "n": c.n}
                         for c in self.correlations if c.scope == "all"},
            "mmrv": self.mmrv,
            "sr_drop": [dict(zip(SR_DROP_HEADER, r, strict=True)) for r in self.sr_drop],
        }


CORR_HEADER = ["metric", "scope", "n", "spearman_rho", "ci_low", "ci_high"]
SR_DROP_HEADER = ["family", "agent", "rollouts", "SR_symbolic", "SR_visual", "SR_drop"]


def compare(symbolic_runs: Sequence[str | Path], visual_runs: Sequence[str | Path], seed: int = 0) -> Comparison:
    pairs = load_pairs(symbolic_runs, visual_runs)
    return Comparison(pairs, correlations(pairs, seed), ranking_violations(pairs), sr_drop(pairs))


def write_comparison(result: Comparison, out: str | Path) -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    corr_rows = [[c.metric, c.scope, c.n, c.rho, c.low, c.high] for c in result.correlations]
    with (out / "compare.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CORR_HEADER)
        writer.writerows([[_fmt(c) for c in row] for row in corr_rows])
    agents = sorted({p.agent for p in result.pairs})
    text = (
        f"# Symbolic vs visual: {len(result.pairs)} paired rollouts, {len(agents)} agents ({', '.join(agents)})\n\n"
        f"## Spearman rho, all rollouts ({int(100 * CONFIDENCE)}% bootstrap CI, {BOOTSTRAP} resamples)\n\n"
        + _md_table(CORR_HEADER, [r for r in corr_rows if r[1] == "all"])
        + "\n## MMRV of the agents' ranking (symbolic as reference; 0 = same ranking)\n\n"
        + _md_table(["metric", "MMRV"], [[m, v] for m, v in result.mmrv.items()])
        + "\n## SR drop per family (points)\n\n"
        + _md_table(SR_DROP_HEADER, result.sr_drop)
        + "\n## Spearman rho per scene\n\n"
        + _md_table(CORR_HEADER, [r for r in corr_rows if r[1] != "all"])
    )
    (out / "compare.md").write_text(text, encoding="utf-8")
    return [out / "compare.md", out / "compare.csv", *scatter_plots(result.pairs, out)]


def _cmd_compare(args: argparse.Namespace) -> int:
    result = compare(args.symbolic, args.visual, args.seed)
    paths = write_comparison(result, args.out)
    if args.json:
        print(json.dumps(result.to_json(), sort_keys=True))
    else:
        print((Path(args.out) / "compare.md").read_text(encoding="utf-8"))
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("compare", help="symbolic vs visual runs of the same agents: Spearman rho, MMRV, SR drop")
    p.add_argument("symbolic", nargs="+", metavar="SYMBOLIC_RUN")
    p.add_argument("--visual", nargs="+", required=True, metavar="VISUAL_RUN",
                   help="one visual run per symbolic run, same order, same instances and seeds")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument("--json", action="store_true", help="print the headline figures as one JSON line")
    p.set_defaults(handler=_cmd_compare)
