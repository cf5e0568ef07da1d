"""The backend contract (robograph.backend, registry, backend_check) on the symbolic backend and on
small deliberately broken backends: each broken rule is reported by name."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from builders import act, event_scene, run

from robograph.backend import (
    OK,
    Backend,
    CameraSpec,
    Capabilities,
    Execution,
    Frame,
    InfoTotals,
    UnsupportedRewrite,
    deadline_in,
    interruption,
)
from robograph.backend_check import (
    RULES,
    ConformanceError,
    check_backend,
    conformance_instances,
    probe_rewrites,
)
from robograph.cli import main
from robograph.errors import BackendError
from robograph.events import EventSpec
from robograph.failures import INFRASTRUCTURE_FAILURES, FailureType
from robograph.gym_env import demo_instance_path
from robograph.registry import BackendOptionError, make_backend, parse_backend_opts
from robograph.rewrite import SetAttr, apply
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend


@pytest.fixture(scope="module")
def scenes():
    return conformance_instances(2, "indoor") + conformance_instances(1, "tabletop")


# options -------------------------------------------------------------------------------------------
def test_backend_options_are_yaml_scalars():
    opts = parse_backend_opts(["mode=assisted", "width=640", "scale=0.5", "fast=true", "cams=[head, left]",
                               "name=", "mode=physics"])
    assert opts == {"mode": "physics", "width": 640, "scale": 0.5, "fast": True, "cams": ["head", "left"], "name": ""}


@pytest.mark.parametrize("pair", ["mode", "=3", "two words=1", "x=[unclosed"])
def test_malformed_backend_option_is_a_typed_error(pair):
    with pytest.raises(BackendOptionError, match="backend option"):
        parse_backend_opts([pair])


def test_unknown_backend_option_names_the_valid_ones():
    with pytest.raises(BackendOptionError, match=r"unknown option\(s\) 'grasp' for backend 'symbolic'; valid: none"):
        make_backend("symbolic", grasp="physics")


def test_cli_commands_reject_unknown_backend_options_once(capsys, tmp_path):
    demo = str(demo_instance_path())
    assert main(["run", "--instances", demo, "--out", str(tmp_path / "r"), "--backend-opt", "speed=3"]) == 2
    assert "unknown option(s) 'speed' for backend 'symbolic'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()  # failed before the run directory was made
    assert main(["check-backend", "symbolic", "--backend-opt", "speed=3"]) == 2
    assert "'speed'" in capsys.readouterr().err


# capabilities ----------------------------------------------------------------------------------------
def test_capabilities_reject_unknown_kinds_and_modes():
    with pytest.raises(BackendError, match="unknown rewrite kind"):
        Capabilities(realizes=frozenset({"teleport"}))
    with pytest.raises(BackendError, match="physics, assisted"):
        Capabilities(modes=("physics",), mode="assisted")


class NoTeleport(SymbolicBackend):
    """A robot-like backend: it can open things (set_attr) but cannot move or spawn objects."""

    capabilities = Capabilities(realizes=frozenset({"set_attr"}), deadlines=True)


def test_runtime_refuses_an_event_the_backend_cannot_realize():
    spec = EventSpec("r", "I3", 0, {"staging": ["side_table"]})
    ep = Episode(event_scene().instance(["INSIDE(book, case)"], [spec]), NoTeleport())
    ep.reset(0)
    with pytest.raises(UnsupportedRewrite, match="cannot realize move_node rewrites; it realizes: set_attr"):
        run(ep, "grab book", "putin book case")


# deadlines, cancel, info -----------------------------------------------------------------------------
def test_interruption_is_typed_and_cancel_wins():
    ev = threading.Event()
    assert interruption(deadline_in(60), ev) is None
    assert interruption(deadline_in(-1), None).type is FailureType.DEADLINE_EXCEEDED
    ev.set()
    assert interruption(deadline_in(-1), ev).type is FailureType.CANCELLED
    assert {FailureType.DEADLINE_EXCEEDED, FailureType.CANCELLED} <= INFRASTRUCTURE_FAILURES


def test_cancelled_action_fails_typed_and_leaves_the_graph(demo):
    ep = Episode(demo, SymbolicBackend())
    ep.reset(0)
    ep.cancel = threading.Event()
    ep.cancel.set()
    before = ep.graph
    rec = ep.step(act("open pencil_case"))
    assert rec.failure_type == "cancelled" and rec.rewrites == [] and ep.graph is before
    ep.cancel.clear()
    assert ep.step(act("open pencil_case")).ok


def test_action_timeout_becomes_a_deadline_on_the_backend(demo):
    class Slow(SymbolicBackend):
        def execute(self, graph, action, expected, *, deadline=None, cancel=None):
            self.seen = deadline
            return super().execute(graph, action, expected, deadline=deadline - 10.0, cancel=cancel)

    be = Slow()
    ep = Episode(demo, be, action_timeout=5.0)
    ep.reset(0)
    rec = ep.step(act("open pencil_case"))
    assert be.seen is not None and rec.failure_type == "deadline_exceeded"


class Assisted(SymbolicBackend):
    def execute(self, graph, action, expected, *, deadline=None, cancel=None):
        return Execution(info={"wall_s": 0.25, "physics_s": np.float64(0.125),
                               "assists": (f"servo {action.args[0]}",), "retries": 1})


def test_execution_info_is_kept_in_records_and_traces(demo):
    ep = Episode(demo, Assisted())
    ep.reset(0)
    rec = ep.step(act("open pencil_case"))
    assert rec.info == {"wall_s": 0.25, "physics_s": 0.125, "assists": ["servo pencil_case"], "retries": 1}
    assert ep.step(act("fly")).info is None  # refused before the backend
    lines = [json.loads(line) for line in ep.trace.to_jsonl().splitlines()]
    assert lines[1]["info"]["assists"] == ["servo pencil_case"] and "info" not in lines[2]
    totals = InfoTotals()
    for r in ep.trace.steps:
        totals.add(r.info)
    assert (totals.assist_count, totals.assists, totals.retries, totals.steps) == (1, {"servo": 1}, 1, 2)


# the conformance check -----------------------------------------------------------------------------
def test_symbolic_backend_passes_every_rule(scenes):
    report = check_backend(SymbolicBackend, scenes)
    assert report.passed == list(RULES) and report.skipped == []
    assert isinstance(SymbolicBackend(), Backend)


def test_probes_cover_every_rewrite_kind_on_compiled_scenes(scenes):
    kinds = set()
    for inst in scenes:
        probes = probe_rewrites(inst.graph)
        kinds |= set(probes)
        for rewrites in probes.values():
            g = inst.graph
            for r in rewrites:
                g = apply(g, r)  # each probe is a valid rewrite of its scene
    assert kinds == {"set_attr", "move_node", "add_node", "add_edge", "remove_edge"}


class NoDeadlineArgs(SymbolicBackend):
    def execute(self, graph, action, expected):  # the pre-contract signature
        return OK


class IgnoresCancel(SymbolicBackend):
    def execute(self, graph, action, expected, *, deadline=None, cancel=None):
        return OK


class BadCamera(SymbolicBackend):
    capabilities = Capabilities(cameras=(CameraSpec("head", 4, 3),))

    def render(self, cameras=None):
        model = type("M", (), {"width": 4, "height": 3, "fx": 2.0, "fy": 2.0, "cx": 2.0, "cy": 1.5,
                               "T_world_cam": np.eye(4)})()
        return [Frame("head", np.zeros((3, 4, 3), dtype=np.float32), model, 0.0)]


class Flaky(SymbolicBackend):
    runs = 0

    def reset(self, graph, *, seed):
        Flaky.runs += 1
        super().reset(graph, seed=seed)

    def execute(self, graph, action, expected, *, deadline=None, cancel=None):
        done = super().execute(graph, action, expected, deadline=deadline, cancel=cancel)
        return done if not done.ok else Execution(info={"retries": Flaky.runs})


@pytest.mark.parametrize(("backend", "rule"), [
    (NoDeadlineArgs, "protocol"),
    (IgnoresCancel, "typed_failures"),
    (BadCamera, "render"),
    (Flaky, "determinism"),
])
def test_a_broken_backend_fails_the_rule_it_breaks(scenes, backend, rule):
    with pytest.raises(ConformanceError, match=f"breaks rule '{rule}'") as err:
        check_backend(backend, scenes[:1], steps=2)
    assert err.value.rule == rule


def test_a_backend_that_misreads_the_world_fails_reset_reconcile(scenes):
    class Misreads(SymbolicBackend):
        def reconcile(self, expected):
            closed = next(n for n in sorted(expected.nodes) if expected.attr(n, "open") is False)
            return super().reconcile(apply(expected, SetAttr(closed, "open", True)))

    with pytest.raises(ConformanceError, match="breaks rule 'reset_reconcile'.*differs from the graph"):
        check_backend(Misreads, scenes[:1])


def test_check_backend_cli_reports_the_rules(capsys):
    assert main(["check-backend", "symbolic", "--scenes", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["passed"] == list(RULES) and report["backend"] == "symbolic"
