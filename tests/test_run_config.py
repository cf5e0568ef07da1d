"""Fail fast on configuration, refuse to resume into a different experiment, write run files
whole. Each bad configuration is one error (exit 2) naming what is valid, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robograph.cli import main
from robograph.errors import RoboGraphError
from robograph.fileio import write_text_atomic
from robograph.gym_env import demo_instance_path
from robograph.harness.runner import RunConfigError, RunSpec, run
from robograph.harness.store import CONFIG, TIMING
from robograph.instance import load_instance


@pytest.fixture
def instances(tmp_path) -> Path:
    out = tmp_path / "instances"
    out.mkdir()
    demo = load_instance(demo_instance_path())
    for name in ("a", "b", "c"):
        type(demo)(**{**demo.__dict__, "id": name}).save(out / f"{name}.json")
    return out


def _cli(capsys, *argv: str) -> tuple[int, list[str]]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if line.strip()]


def _run_args(instances: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--instances", str(instances), "--out", str(out), "--workers", "1", "--no-progress", *extra]


def test_unknown_backend_is_a_usage_error_naming_the_backends(capsys, instances, tmp_path):
    code, err = _cli(capsys, *_run_args(instances, tmp_path / "r", "--backend", "warp"))
    assert code == 2
    assert "invalid choice: 'warp'" in err[-1] and "'symbolic'" in err[-1]
    assert not (tmp_path / "r").exists()


def test_unknown_backend_through_the_python_api_fails_before_writing(instances, tmp_path):
    spec = RunSpec(str(instances), "explorer", str(tmp_path / "r"), backend="warp", progress=False)
    with pytest.raises(RoboGraphError, match=r"unknown backend 'warp'; valid: .*symbolic"):
        run(spec)
    assert not (tmp_path / "r").exists()


def test_openai_without_a_model_names_the_real_flag(capsys, instances, tmp_path, monkeypatch):
    monkeypatch.delenv("ROBOGRAPH_MODEL", raising=False)
    code, err = _cli(capsys, *_run_args(instances, tmp_path / "r", "--agent", "openai"))
    assert code == 2 and len(err) == 1
    assert "--agent-opt model=NAME" in err[0] and "ROBOGRAPH_MODEL" in err[0]
    assert "--model" not in err[0].replace("--agent-opt model", "")
    assert not (tmp_path / "r").exists()


def test_unknown_agent_option_lists_the_valid_ones(capsys, instances, tmp_path):
    code, err = _cli(capsys, *_run_args(instances, tmp_path / "r", "--agent-opt", "memroy=false"))
    assert code == 2 and len(err) == 1
    assert "memroy" in err[0] and "valid: memory, exploration, recheck, seed" in err[0]
    code, err = _cli(capsys, *_run_args(instances, tmp_path / "r", "--agent", "openai", "--agent-opt", "modle=m"))
    assert code == 2 and "modle" in err[0] and "model" in err[0] and "base_url" in err[0]
    code, err = _cli(capsys, *_run_args(instances, tmp_path / "r", "--agent-opt", "memory"))
    assert code == 2 and "KEY=VALUE" in err[0]
    assert not (tmp_path / "r").exists()


def test_missing_instances_path_is_one_line_and_writes_nothing(capsys, tmp_path):
    code, err = _cli(capsys, *_run_args(tmp_path / "nowhere", tmp_path / "r"))
    assert code == 2 and err == [f"error: --instances {tmp_path / 'nowhere'}: no such file or directory"]
    assert not (tmp_path / "r").exists()
    (tmp_path / "empty").mkdir()
    code, err = _cli(capsys, *_run_args(tmp_path / "empty", tmp_path / "r"))
    assert code == 2 and len(err) == 1 and "no instance files" in err[0]
    assert not (tmp_path / "r").exists()


def test_counts_must_be_positive(capsys, instances, tmp_path):
    for flag in ("--seeds", "--limit", "--workers"):
        code, err = _cli(capsys, *_run_args(instances, tmp_path / "r", flag, "0"))
        assert code == 2 and "0 is not at least 1" in err[-1], flag
    assert not (tmp_path / "r").exists()


def _spec(instances: Path, out: Path, **kw) -> RunSpec:
    return RunSpec(str(instances), "explorer", str(out), workers=1, progress=False, durable=False, **kw)


def test_resume_into_a_run_of_other_instances_or_seeds_is_refused(instances, tmp_path):
    out = tmp_path / "r"
    first = run(_spec(instances, out))
    assert first.completed == 3
    record = json.loads((out / CONFIG).read_text())
    assert record["seeds"] == 1 and record["rollouts"] == ["a#0", "b#0", "c#0"]
    with pytest.raises(RunConfigError, match="seeds=1.*seeds=2"):
        run(_spec(instances, out, seeds=2))
    with pytest.raises(RunConfigError, match="instances_digest"):
        run(_spec(instances, out, limit=2))
    # same names, other contents: a recompiled instance set is another experiment
    data = json.loads((instances / "b.json").read_text())
    data["step_budget"] = 7
    (instances / "b.json").write_text(json.dumps(data))
    with pytest.raises(RunConfigError, match="instances_digest"):
        run(_spec(instances, out))
    assert json.loads((out / CONFIG).read_text()) == record  # the refused attempts changed nothing


def test_run_and_timing_files_are_whole_and_leave_no_temporaries(instances, tmp_path):
    out = tmp_path / "r"
    run(_spec(instances, out))
    assert json.loads((out / TIMING).read_text())["completed"] == 3
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "run.json"
    write_text_atomic(path, '{"old": 1}\n')
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(path, '{"new": "\udc80"}')  # fails half-way through encoding
    assert path.read_text() == '{"old": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]
