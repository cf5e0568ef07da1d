"""Metric validity: switch each deficit of the explorer on and show that every metric moves the
way its definition claims.

  no memory       -> RAR up, AER down          (state maintenance)
  no exploration  -> SEG and ADR down, more premature stops (exploration)
  no re-checking  -> IRR down                  (state updating)

Usage: python scripts/metric_validity.py [--instances DIR] [--limit N] [--workers 2] [--json]
Without --instances it uses a compiled benchmark at runs/bench if present, else the demo desk in
all seven conditions. Exit code 1 when a claim does not hold.
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
        for name, opts in VARIANTS.items():
            out = Path(tmp) / name
            run(RunSpec(instances, "explorer", str(out), workers=args.workers, limit=args.limit,
                        agent_options=opts, durable=False, progress=False))
            s = summarize(rollout_records(out))
            figures[name] = {**{k: s[k] for k in SHOWN if k in s}, "premature": s["termination"]["premature"]}
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
    if args.json:
        print(json.dumps({"figures": figures, "claims_hold": ok}, sort_keys=True))
    return 0 if ok else 1


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


if __name__ == "__main__":
    sys.exit(main())
