"""PDDL export: the CLI writes plain STRIPS; Fast Downward's optimal search agrees with L_o and its
plan replays to success in our runtime (that catches an export drifting from the semantics)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from oracle_cases import CASES

from robograph.actions import Action
from robograph.cli import main
from robograph.facts import parse_fact
from robograph.gym_env import demo_instance_path
from robograph.instance import load_instance
from robograph.oracle import solve
from robograph.oracle.pddl import ExportError, export_instance, fast_downward_driver, run_fast_downward
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend

needs_fd = pytest.mark.skipif(
    fast_downward_driver() is None,
    reason="up-fast-downward is not installed (pip install 'robograph[dev]'); the cross-check needs its planner")


def fast_downward(domain: Path, problem: Path, workdir: Path, timeout: float = 240) -> str | None:
    """Run the optimal alias; return the plan text, None when FD proves the task unsolvable."""
    run = run_fast_downward(domain, problem, workdir, timeout)
    if run.status == "timeout":
        pytest.fail(f"Fast Downward ran over {timeout} s")
    assert run.status in ("solved", "unsolvable"), run.log[-2000:]
    return run.plan


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
    assert "(:goal (and" in problem and "(inside-red_pen-pencil_case)" in problem
    assert "domain.pddl" in capsys.readouterr().out


def test_unsupported_goals_are_refused():
    inst = CASES["house_move"][0]()
    bad = replace(inst, goal=inst.goal.extended([parse_fact("IN_ROOM(mug, bedroom)")]))
    with pytest.raises(ExportError, match="IN_ROOM"):
        export_instance(bad)


def _goal_and_achievable(exported) -> tuple[set[str], set[str]]:
    """Goal atoms, and atoms true at the start or added by some operator."""
    goal = set(re.findall(r"\(([^()\s]+)\)", exported.problem.split("(:goal", 1)[1]))
    init = set(re.findall(r"\(([^()\s]+)\)", exported.problem.split("(:init", 1)[1].split("(:goal", 1)[0]))
    added = set()
    for line in exported.domain.splitlines():
        if ":effect" in line:
            added |= set(re.findall(r"\(([^()\s]+)\)", re.sub(r"\(not \([^()]*\)\)", "", line)))
    return goal, init | added


def test_goal_on_a_node_that_never_moves_holds_without_an_atom():
    """A placement goal on furniture that already holds (Cosmetics-11: ON(organizer, vanity)) once
    became an atom no operator adds, so Fast Downward proved the export unsolvable."""
    inst = load_instance(demo_instance_path())
    fixed = [e for e in inst.graph.edges if e.rel in ("ON", "INSIDE")
             and "GRABBABLE" not in inst.graph.nodes[e.src].affordances]
    assert fixed, "the demo has furniture on or in something"
    fact = parse_fact(f"{fixed[0].rel}({fixed[0].src}, {fixed[0].dst})")
    exported = export_instance(replace(inst, goal=inst.goal.extended([fact])))
    goal, achievable = _goal_and_achievable(exported)
    assert goal and goal <= achievable
    assert f"{fixed[0].rel.lower()}-{fixed[0].src}" not in " ".join(goal)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_goal_atom_can_be_made_true(name):
    goal, achievable = _goal_and_achievable(export_instance(CASES[name][0]()))
    assert goal <= achievable


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
