"""`robograph validate-robot INSTANCE --backend ros2`: does the robot's world follow the graph?

Executes the oracle plan for the instance's G0 (or a given plan) on a backend, one action at a
time, and after each compares the graph the action should produce with the graph the robot reads
back. The report (Markdown and/or JSON) lists, per step, the robot's result, the expected and the
reconciled graph and their difference. The run stops at the first disagreement (later steps would
start from a world the plan did not foresee). Exit status: 0 when every step agrees and the goal
holds at the end, 1 otherwise. Exogenous events of the instance are not fired: this validates the
robot's skills and perception against the graph, not an agent.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robograph.actions import Action


@dataclass
class StepCheck:
    step: int
    action: Action
    status: str  # "ok", or the failure type
    message: str
    diff: list[dict[str, Any]]
    expected: dict[str, Any]
    reconciled: dict[str, Any]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return self.status == "ok" and not self.diff

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "action": self.action.to_json(), "status": self.status, "message": self.message,
                "agrees": self.agrees, "diff": self.diff, "expected_graph": self.expected,
                "reconciled_graph": self.reconciled, "info": self.info}


@dataclass
class ValidationReport:
    instance: str
    backend: str
    seed: int
    planned: int
    steps: list[StepCheck]
    goal_satisfied: bool

    @property
    def ok(self) -> bool:
        return len(self.steps) == self.planned and all(s.agrees for s in self.steps) and self.goal_satisfied

    def to_json(self) -> dict[str, Any]:
        return {"instance": self.instance, "backend": self.backend, "seed": self.seed, "ok": self.ok,
                "planned_steps": self.planned, "executed_steps": len(self.steps),
                "goal_satisfied": self.goal_satisfied, "steps": [s.to_json() for s in self.steps]}

    def to_markdown(self) -> str:
        lines = [f"# validate-robot: {self.instance} on {self.backend} (seed {self.seed})", "",
                 f"**{'AGREES' if self.ok else 'DISAGREES'}**: {sum(s.agrees for s in self.steps)} of "
                 f"{self.planned} planned steps agree; goal {'holds' if self.goal_satisfied else 'does not hold'} "
                 "on the reconciled graph.", "",
                 "| step | action | robot | agrees | expected vs reconciled |",
                 "| ---: | --- | --- | :---: | --- |"]
        for s in self.steps:
            d = "; ".join(json.dumps(r, sort_keys=True) for r in s.diff) or "—"
            robot = s.status if s.status == "ok" else f"{s.status}: {s.message}"
            lines.append(f"| {s.step} | `{s.action}` | {robot.replace('|', '/')} | {'yes' if s.agrees else '**no**'} "
                         f"| {d.replace('|', '/')} |")
        if len(self.steps) < self.planned:
            lines += ["", f"Stopped after step {len(self.steps)}: the remaining "
                          f"{self.planned - len(self.steps)} steps were not sent."]
        return "\n".join(lines) + "\n"


def validate_robot(instance: Any, backend: Any, *, seed: int = 0, plan: Sequence[Action] | None = None,
                   step_timeout_s: float | None = None) -> ValidationReport:
    from robograph.actions import check, effects
    from robograph.backend import deadline_in
    from robograph.oracle import solve
    from robograph.rewrite import apply_all, diff
    from robograph.view import compute_view

    graph = instance.graph
    actions = [a for a in (plan if plan is not None else solve(graph, instance.goal, instance.actions).actions)
               if a.name != "stop"]
    backend.reset(graph, seed=seed)
    steps: list[StepCheck] = []
    for k, action in enumerate(actions, 1):
        failure = check(graph, compute_view(graph), action, instance.actions)
        if failure is not None:  # the plan no longer applies to the robot's world
            steps.append(StepCheck(k, action, f"precondition:{failure.type.value}", failure.message, [],
                                   graph.to_json(), graph.to_json()))
            break
        expected = apply_all(graph, effects(graph, action))
        deadline = deadline_in(step_timeout_s) if step_timeout_s else None
        result = backend.execute(graph, action, expected, deadline=deadline)
        observed = backend.reconcile(expected)
        status = "ok" if result.failure is None else result.failure.type.value
        message = "" if result.failure is None else result.failure.message
        info = {k: v for k, v in (result.info or {}).items() if isinstance(v, str | int | float | bool)}
        step = StepCheck(k, action, status, message, [r.to_json() for r in diff(expected, observed)],
                         expected.to_json(), observed.to_json(), info)
        steps.append(step)
        graph = observed
        if not step.agrees:
            break
    return ValidationReport(instance.id, backend.name, seed, len(actions), steps, instance.goal.satisfied(graph))


def _read_plan(path: Path) -> list[Action]:
    """One action per line: `open drawer_1` or a JSON object with `name` and `node_ids` (or a step
    record whose `action` is one)."""
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            data = json.loads(line)
            data = data.get("action", data)
            out.append(Action(str(data["name"]), tuple(data.get("node_ids", ()))))
        else:
            out.append(Action.parse(line))
    return out


def _cmd_validate_robot(args: argparse.Namespace) -> int:
    from robograph.instance import load_instance
    from robograph.registry import make_backend, parse_backend_opts

    inst = load_instance(args.instance)
    plan = _read_plan(args.plan) if args.plan else None
    backend = make_backend(args.backend, **parse_backend_opts(args.backend_opt))
    try:
        report = validate_robot(inst, backend, seed=args.seed, plan=plan, step_timeout_s=args.step_timeout)
    finally:
        backend.close()
    text = report.to_markdown()
    if args.out:
        args.out.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(report.to_json(), indent=1, sort_keys=True) + "\n")
    if not args.out:
        sys.stdout.write(text)
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from robograph.registry import add_backend_arguments

    p = sub.add_parser("validate-robot", help="run the oracle plan on a robot (ros2) and diff expected vs "
                                              "reconciled graphs per step; exit 1 on disagreement")
    p.add_argument("instance", type=Path, metavar="INSTANCE")
    add_backend_arguments(p, default="ros2")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plan", type=Path, help="actions to run instead of the oracle plan (one per line, or JSONL)")
    p.add_argument("--step-timeout", type=float, default=None, metavar="S",
                   help="deadline per action in seconds (the goal is cancelled past it)")
    p.add_argument("--out", type=Path, help="write the Markdown report here (default: stdout)")
    p.add_argument("--json", type=Path, help="write the JSON report here")
    p.set_defaults(handler=_cmd_validate_robot)
