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
from robograph.compiler.assets import load_assets
from robograph.compiler.compile import compile_scene
from robograph.facts import parse_fact
from robograph.gym_env import demo_instance_path
from robograph.instance import load_instance
from robograph.oracle import solve
from robograph.oracle.pddl import (
    DEPTHS,
    ExportError,
    _Exporter,
    export_instance,
    fast_downward_driver,
    run_fast_downward,
)
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


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_goal_atom_can_be_made_true(name, depth):
    goal, achievable = _goal_and_achievable(export_instance(CASES[name][0](), depth=depth))
    assert goal <= achievable


def test_depth_zero_grounds_one_chain_per_place():
    """Through movable receivers the chains multiply (key in box in basket in crate, or any
    other nesting of the three); at depth 0 every place of the key is one chain that ends at the
    focus token, so the export grows with the sum of the places, not their product."""
    inst = CASES["nested_carriers"][0]()
    key = _Exporter(inst, 0).p.index["key"]
    chains = {d: _Exporter(inst, d).reach(key, allow_held=False) for d in DEPTHS}
    places = _Exporter(inst, 0).possible[key]
    assert len(chains[0]) == len(places)
    assert len(chains[1]) > len(places)
    assert len(export_instance(inst, depth=0).operators) < len(export_instance(inst, depth=1).operators)


def test_unknown_depth_is_refused():
    with pytest.raises(ExportError, match="depth"):
        export_instance(CASES["pencil_case"][0](), depth=3)


def check_instance(inst, tmp_path: Path, depth: int | None = None) -> str:
    """FD's optimal plan on the export has the oracle's length and replays to success; returns
    the plan text (with its zero-cost bookkeeping steps)."""
    exported = export_instance(inst, depth=depth)
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
    return text


def check_against_fast_downward(name: str, tmp_path: Path, depth: int | None = None) -> str:
    return check_instance(CASES[name][0](), tmp_path, depth)


@needs_fd
def test_fast_downward_agrees_on_the_pencil_case(tmp_path):
    check_against_fast_downward("pencil_case_closed", tmp_path)


@needs_fd
@pytest.mark.parametrize("depth", DEPTHS)
def test_fast_downward_agrees_through_the_focus_token(depth, tmp_path):
    """The key sits below two (depth 1) or three (depth 0) movable receivers: the plan must take
    the token down to it, and still has the oracle's length and replays."""
    text = check_against_fast_downward("nested_carriers", tmp_path, depth)
    assert "_focus_" in text


@needs_fd
def test_fast_downward_solves_a_compiled_scene(tmp_path):
    """A compiled benchmark-style scene (buffet, tabletop, L_o 10; trays that can hold each
    other), exported as `robograph export-pddl` does: solved, the oracle's length, replays."""
    scene = compile_scene(load_assets(), "buffet", "tabletop", 7, oracle_length=10)
    assert scene.plan.length == 10
    check_instance(scene.instances["baseline"], tmp_path)


@needs_fd
@pytest.mark.slow
@pytest.mark.parametrize("name", ["nested", "basket_run", "demo"])
def test_fast_downward_agrees_at_depth_zero(name, tmp_path):
    check_against_fast_downward(name, tmp_path, 0)


@needs_fd
@pytest.mark.slow
@pytest.mark.parametrize("name", ["pencil_case_room", "figure3", "house_move", "house_many",
                                  "hands_juggle", "nested", "capacity_full", "desk_tidy", "drawer_swap",
                                  "basket_run"])
def test_fast_downward_agrees_with_the_oracle(name, tmp_path):
    check_against_fast_downward(name, tmp_path)
