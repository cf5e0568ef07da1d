"""Sensitivity check of the metrics: switch one capability of the explorer off at a time and
check that each metric moves the way its definition claims, and that the failure attribution
blames each deficit mostly on its own gap.

  no memory       -> RAR up, AER down          (state maintenance)
  no exploration  -> SEG and ADR down, more premature stops (exploration)
  no re-checking  -> IRR down                  (state updating)

This shows that the metrics respond to controlled deficits of one scripted agent. It is not a
proof that a metric measures what it claims for other agents (models fail in other ways), nor a
calibration of the metric's scale.

Usage: python scripts/metric_validity.py [--instances DIR] [--limit N] [--workers 2] [--json]
Without --instances it uses a compiled benchmark at runs/bench if present, else the demo desk in
all seven conditions. Prints the figures per variant, the claims and the attribution confusion
table (rows: deficit variant; columns: share of its unsuccessful rollouts blamed on each gap).
Exit code 1 when a metric claim does not hold.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _instances import demo_conditions

from robograph.harness.runner import RunSpec, run
from robograph.harness.store import rollout_records
from robograph.metrics.aggregate import summarize
from robograph.metrics.attribution import CAUSES, shares

VARIANTS = {
    "full": {},
    "no_memory": {"memory": False},
    "no_exploration": {"exploration": False},
    "no_recheck": {"recheck": False},
}
# (variant, metric, direction vs full): +1 must rise, -1 must fall
CLAIMS = [
    ("no_memory", "RAR", +1), ("no_memory", "AER", -1),
    ("no_exploration", "SEG", -1), ("no_exploration", "ADR", -1), ("no_exploration", "premature", +1),
    ("no_recheck", "IRR", -1),
]
SHOWN = ("SR", "NGP", "AER", "RAR", "SEG", "ADR", "IRR", "premature", "steps")


def main() -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--instances", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        instances = args.instances
        if instances is None:
            bench = Path("runs/bench/episodes")
            instances = str(bench) if bench.is_dir() else str(demo_conditions(Path(tmp) / "demo"))
        figures: dict[str, dict[str, float | None]] = {}
        confusion: dict[str, dict[str, float | int | None]] = {}
        for name, opts in VARIANTS.items():
            out = Path(tmp) / name
            run(RunSpec(instances, "explorer", str(out), workers=args.workers, limit=args.limit,
                        agent_options=opts, durable=False, progress=False))
            records = rollout_records(out)
            s = summarize(records)
            figures[name] = {**{k: s[k] for k in SHOWN if k in s}, "premature": s["termination"]["premature"]}
            confusion[name] = shares(records)
    print(f"instances: {instances}")
    print(f"{'variant':16s}" + "".join(f"{k:>10s}" for k in SHOWN))
    for name, f in figures.items():
        print(f"{name:16s}" + "".join(f"{'-' if f[k] is None else format(f[k], '.1f'):>10s}" for k in SHOWN))
    ok = True
    print()
    for variant, metric, sign in CLAIMS:
        base, new = figures["full"][metric], figures[variant][metric]
        holds = base is not None and new is not None and (new - base) * sign > 0
        ok &= holds
        arrow = "up" if sign > 0 else "down"
        print(f"{variant:16s} {metric:10s} {arrow:5s} {_f(base)} -> {_f(new)}  {'OK' if holds else 'FAILED'}")
    print()
    print("attribution of unsuccessful rollouts (% per gap)")
    print(f"{'variant':16s}{'failures':>10s}" + "".join(f"{c:>13s}" for c in CAUSES))
    for name, row in confusion.items():
        print(f"{name:16s}{row['failures']:>10d}" + "".join(f"{_f(row[c]):>13s}" for c in CAUSES))
    if args.json:
        print(json.dumps({"figures": figures, "attribution": confusion, "claims_hold": ok}, sort_keys=True))
    return 0 if ok else 1


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


if __name__ == "__main__":
    sys.exit(main())
