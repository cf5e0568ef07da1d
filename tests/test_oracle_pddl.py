"""PDDL export: the CLI writes plain STRIPS; Fast Downward's optimal search agrees with L_o and its
plan replays to success in our runtime (that catches an export drifting from the semantics)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from oracle_cases import CASES

from backends.symbolic import SymbolicBackend
from robograph.actions import Action
from robograph.cli import main
from robograph.facts import parse_fact
from robograph.gym_env import demo_instance_path
from robograph.oracle import solve
from robograph.oracle.pddl import ExportError, export_instance
from robograph.runtime import Episode

_SPEC = importlib.util.find_spec("up_fast_downward")
DRIVER = None if _SPEC is None or _SPEC.origin is None else (
    Path(_SPEC.origin).parent / "downward" / "fast-downward.py")
needs_fd = pytest.mark.skipif(
    DRIVER is None or not DRIVER.exists(),
    reason="up-fast-downward is not installed (pip install 'robograph[dev]'); the cross-check needs its planner")


def fast_downward(domain: Path, problem: Path, workdir: Path, timeout: float = 240) -> str | None:
    """Run the optimal alias; return the plan text, None when FD proves the task unsolvable."""
    plan = workdir / "sas_plan"
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), "--alias", "seq-opt-bjolp", "--plan-file", str(plan),
         str(domain), str(problem)],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver forks the search: kill the whole group
        proc.wait()
        pytest.fail(f"Fast Downward ran over {timeout} s")
    if proc.returncode == 12:
        return None
    assert proc.returncode == 0, out.decode(errors="replace")[-2000:]
    return plan.read_text()


def test_cli_writes_strips_domain_and_problem(tmp_path, capsys):
    assert main(["export-pddl", str(demo_instance_path()), "--out", str(tmp_path)]) == 0
    domain = (tmp_path / "domain.pddl").read_text()
    problem = (tmp_path / "problem.pddl").read_text()
    # the demo has an assembly: its attach stages cost 0, the only extension beyond plain STRIPS
    assert "(:requirements :strips :action-costs)" in domain
    assert "(:metric minimize (total-cost))" in problem
    assert ":derived" not in domain and "(when " not in domain and "forall" not in domain
    precondition_lines = [ln for ln in domain.splitlines() if ":precondition" in ln]
    assert precondition_lines and not any("(not " in ln for ln in precondition_lines)
    assert "(:goal (and" in problem and "(at_red_pen_inside_pencil_case)" in problem
    assert "domain.pddl" in capsys.readouterr().out


def test_unsupported_goals_are_refused():
    inst = CASES["house_move"][0]()
    bad = replace(inst, goal=inst.goal.extended([parse_fact("IN_ROOM(mug, bedroom)")]))
    with pytest.raises(ExportError, match="IN_ROOM"):
        export_instance(bad)


def check_against_fast_downward(name: str, tmp_path: Path) -> None:
    inst = CASES[name][0]()
    exported = export_instance(inst)
    domain, problem = exported.write(tmp_path)
    text = fast_downward(domain, problem, tmp_path)
    assert text is not None, "Fast Downward found the exported task unsolvable"
    fd_plan = exported.decode_plan(text)
    assert len(fd_plan) == solve(inst.graph, inst.goal, inst.actions).length
    ep = Episode(inst, SymbolicBackend())
    ep.reset(0)
    for action in fd_plan:
        assert ep.step(action).ok, f"FD's {action} is not executable in the runtime"
    assert ep.step(Action("stop")).success


@needs_fd
def test_fast_downward_agrees_on_the_pencil_case(tmp_path):
    check_against_fast_downward("pencil_case_closed", tmp_path)


@needs_fd
@pytest.mark.slow
@pytest.mark.parametrize("name", ["pencil_case_room", "figure3", "house_move", "house_many",
                                  "hands_juggle", "nested", "capacity_full", "desk_tidy", "drawer_swap",
                                  "basket_run"])
def test_fast_downward_agrees_with_the_oracle(name, tmp_path):
    check_against_fast_downward(name, tmp_path)
