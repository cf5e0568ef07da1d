"""`robograph validate / play / --help` through robograph.cli.main: clear messages, exit codes,
never a traceback."""

from __future__ import annotations

import io
import json

import pytest
from builders import DEMO_SOLUTION, desk_scene

from robograph.cli import main
from robograph.gym_env import demo_instance_path
from robograph.instance import load_instance
from robograph.play import play
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend


def test_help_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "validate" in out and "play" in out


def test_unknown_subcommand_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["fly"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


# validate -------------------------------------------------------------------------------------------
def test_validate_ok(capsys, tmp_path):
    yaml_path = tmp_path / "desk.yaml"
    yaml_path.write_text(json.dumps(desk_scene().instance(["PRESSED(lamp)"]).to_json()))  # JSON is YAML
    assert main(["validate", str(demo_instance_path()), str(yaml_path)]) == 0
    out = capsys.readouterr().out
    assert out.count(": ok (") == 2 and "16 nodes" in out


def test_validate_reports_every_problem_with_its_json_path(capsys, tmp_path):
    data = json.loads(demo_instance_path().read_text())
    data["graph"]["edges"].append({"from": "ghost", "relation": "ON", "to": "desk"})
    data["graph"]["edges"].append({"from": "book", "relation": "HOVERS", "to": "desk"})
    data["graph"]["nodes"][2]["affordances"].append("EDIBLE")
    data["goal"].append("FLYING(book)")
    data["events"] = [{"kind": "I9"}, {"kind": "I3", "params": {"staging": ["nowhere"]}}]
    data["step_budget"] = 0
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    for where in ("$.graph.edges[17].from", "$.graph.edges[18].relation", "$.graph.nodes[2].affordances[4]",
                  "$.goal[9]", "$.events[0].kind", "$.events[1].params.staging[0]", "$.step_budget"):
        assert where in err, where
    assert "7 problem(s)" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("text, message", [
    ('{"graph": ', "invalid JSON at line 1 column 11"),
    ("[1, 2]", "expected an object at the top level"),
])
def test_validate_malformed_files(capsys, tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert main(["validate", str(path)]) == 1
    assert message in capsys.readouterr().err


def test_validate_missing_file_and_bad_yaml(capsys, tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("graph: [unclosed\n")
    assert main(["validate", str(tmp_path / "nope.json"), str(bad_yaml)]) == 1
    err = capsys.readouterr().err
    assert "cannot read file" in err and "invalid YAML at line" in err


# play -----------------------------------------------------------------------------------------------
def test_play_solves_the_demo_from_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(DEMO_SOLUTION) + "\n"))
    assert main(["play"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("SUCCESS")
    assert "stop(): ok" in out


def test_play_reports_bad_input_as_typed_failures(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("fly away\ngrab ghost\ngrab red_pen\n\nopen\nquit\n"))
    assert main(["play", str(demo_instance_path())]) == 1
    out = capsys.readouterr().out
    assert "FAILED unknown_action" in out
    assert "FAILED unknown_node: no node with id 'ghost'" in out
    assert "FAILED not_visible: red_pen is not in the current view" in out
    assert "FAILED invalid_arguments" in out
    assert "Traceback" not in out


def test_play_broken_instance_is_an_error_message(capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{}")
    assert main(["play", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "$.graph" in err and "$.goal" in err


def test_play_function_with_injected_io():
    lines = iter(["open pencil_case", "stop"])
    shown: list[str] = []
    ep = Episode(load_instance(demo_instance_path()), SymbolicBackend())
    assert play(ep, read=lambda prompt: next(lines), write=shown.append) is False
    assert "open(pencil_case): ok" in shown
    assert shown[-1] == "episode over: goal not met"
    assert ep.terminated


def test_play_stops_at_end_of_input():
    def eof(prompt: str) -> str:
        raise EOFError

    shown: list[str] = []
    ep = Episode(load_instance(demo_instance_path()), SymbolicBackend())
    assert play(ep, read=eof, write=shown.append) is False
    assert not ep.done and shown[0].startswith("step 0")
