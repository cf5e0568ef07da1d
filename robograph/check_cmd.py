"""`robograph check-backend NAME [--backend-opt KEY=VALUE ...] [--scenes N]`: run the backend
conformance check (robograph.backend_check) on N freshly compiled scenes or on instance files;
prints the rules passed and the probes skipped, or the broken rule (exit code 2)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from robograph.registry import backend_names, make_backend, parse_backend_opts


def _cmd_check(args: argparse.Namespace) -> int:
    from robograph.backend_check import check_backend, conformance_instances
    from robograph.instance import load_instance

    options = parse_backend_opts(args.backend_opt)
    make_backend(args.name, **options).close()  # unknown options fail before anything compiles
    if args.instances:
        instances = [load_instance(p) for p in args.instances]
    else:
        instances = conformance_instances(args.scenes, args.domain, args.seed)
    report = check_backend(lambda: make_backend(args.name, **options), instances, steps=args.steps)
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True))
        return 0
    print(f"backend {report.backend!r} conforms on {len(report.instances)} scene(s) "
          f"({', '.join(report.instances)})")
    print(f"  passed: {', '.join(report.passed)}")
    for why in report.skipped:
        print(f"  skipped: {why}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("check-backend", help="check that a backend honours the Backend contract")
    p.add_argument("name", metavar="NAME", choices=backend_names(), help="backend name")
    p.add_argument("--backend-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="backend option, e.g. mode=assisted (repeatable; YAML scalars)")
    p.add_argument("--scenes", type=int, default=2, metavar="N", help="compiled scenes to check on (default 2)")
    p.add_argument("--domain", default="indoor", choices=("indoor", "tabletop"))
    p.add_argument("--seed", type=int, default=101, help="first compile seed (default 101)")
    p.add_argument("--instances", nargs="+", metavar="FILE", help="instance files instead of compiled scenes")
    p.add_argument("--steps", type=int, default=3, help="oracle actions replayed twice for determinism")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(handler=_cmd_check)
