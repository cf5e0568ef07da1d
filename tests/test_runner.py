"""The runner: atomic JSONL, resume after a kill, infrastructure errors apart, bad replies
never crash a run, reports from the results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chat_server import completion, serve

from robograph.cli import main
from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import DIGEST_FILE, benchmark_digest
from robograph.events import EventSpec
from robograph.gym_env import demo_instance_path
from robograph.harness.runner import RunConfigError, RunSpec, run
from robograph.harness.store import ERRORS, LOG, RESULTS, append_atomic, read_jsonl, recover_log
from robograph.instance import load_instance

EVENTS = {
    "baseline": [],
    "I1": [EventSpec("i1", "I1", 2)],
    "I2": [EventSpec("i2", "I2", 2)],
    "I3": [EventSpec("i3", "I3", 2, {"staging": ["desk"]})],
    "I5": [EventSpec("i5", "I5", 2, {"pairs": [["book", "eraser"]]})],
}


@pytest.fixture(scope="module")
def instances(tmp_path_factory) -> Path:
    """Demo desk in five conditions x two scene copies (10 instance files)."""
    out = tmp_path_factory.mktemp("instances")
    demo = load_instance(demo_instance_path())
    for scene in ("A", "B"):
        for cond, events in EVENTS.items():
            inst = demo.with_events(events, condition=cond, scene_id=f"Demo-{scene}")
            inst = type(inst)(**{**inst.__dict__, "id": f"demo{scene}__{cond}"})
            inst.save(out / f"demo{scene}__{cond}.json")
    return out


def spec(instances: Path, out: Path, agent: str = "explorer", **kw) -> RunSpec:
    kw.setdefault("workers", 1)
    return RunSpec(str(instances), agent, str(out), progress=False, durable=False, **kw)


def test_store_trims_torn_and_unfinished_tails(tmp_path):
    log = tmp_path / LOG
    append_atomic(log, ['{"type":"step","key":"a"}', '{"type":"rollout","key":"a"}'])
    good = log.read_bytes()
    with open(log, "ab") as fh:
        fh.write(b'{"type":"step","key":"b"}\n{"type":"rollo')  # killed mid-rollout
    assert recover_log(log) == {"a"}
    assert log.read_bytes() == good


def test_run_writes_steps_and_rollouts_and_resume_skips(instances, tmp_path):
    summary = run(spec(instances, tmp_path / "r", workers=2))
    assert summary.completed == 10 and summary.errors == 0
    rows = list(read_jsonl(tmp_path / "r" / RESULTS))
    rollouts = [r for r in rows if r["type"] == "rollout"]
    steps = [r for r in rows if r["type"] == "step"]
    assert len(rollouts) == 10 and len(steps) == sum(r["metrics"]["steps"] for r in rollouts)
    assert {r["condition"] for r in rollouts} == set(EVENTS)
    again = run(spec(instances, tmp_path / "r", workers=2))
    assert again.completed == 0 and again.skipped == 10
    with pytest.raises(RunConfigError):
        run(spec(instances, tmp_path / "r", agent="random"))


def test_oracle_succeeds_everywhere(instances, tmp_path):
    run(spec(instances, tmp_path / "o", agent="oracle"))
    rollouts = [r for r in read_jsonl(tmp_path / "o" / RESULTS) if r["type"] == "rollout"]
    assert all(r["metrics"]["success"] for r in rollouts)


def _run_cmd(instances: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "robograph.cli", "run", "--instances", str(instances), "--out", str(out),
            "--agent", "explorer", "--agent-opt", "memory=false", "--workers", "2", "--no-progress"]


def test_killed_run_resumes_to_the_same_results(instances, tmp_path):
    ref = tmp_path / "ref"
    assert subprocess.run(_run_cmd(instances, ref), capture_output=True).returncode == 0
    out = tmp_path / "killed"
    proc = subprocess.Popen(_run_cmd(instances, out), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = out / LOG
    deadline = time.time() + 60
    while time.time() < deadline:
        if log.exists() and log.read_bytes().count(b'"type":"rollout"') >= 3:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = recover_log(log)
    assert 3 <= len(done) < 10, "the kill must land mid-run"
    assert not (out / RESULTS).exists()
    assert subprocess.run(_run_cmd(instances, out), capture_output=True).returncode == 0
    assert (out / RESULTS).read_bytes() == (ref / RESULTS).read_bytes()


def test_infrastructure_errors_are_recorded_apart_and_retried(instances, tmp_path):
    opts = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "max_retries": 0, "api_key": "sk-secret"}
    s = run(spec(instances, tmp_path / "down", agent="openai", limit=2, agent_options=opts))
    assert s.errors == 2 and s.completed == 0
    errs = list(read_jsonl(tmp_path / "down" / ERRORS))
    assert [e["kind"] for e in errs] == ["agent_unavailable"] * 2
    assert recover_log(tmp_path / "down" / LOG) == set()
    again = run(spec(instances, tmp_path / "down", agent="openai", limit=2, agent_options=opts))
    assert again.skipped == 0 and again.errors == 2  # retried, not skipped
    for f in (tmp_path / "down").iterdir():
        assert "sk-secret" not in f.read_text(), f  # credentials never reach the disk


def test_malformed_model_replies_never_crash_a_run(instances, tmp_path):
    gen = serve()
    server = next(gen)
    server.script = [completion(t) for t in ["", "no json here", "{\"action\": 5}", "```json\n{oops\n```"]] * 50
    inst_dir = tmp_path / "one"
    inst_dir.mkdir()
    data = json.loads((instances / "demoA__baseline.json").read_text())
    data["step_budget"] = 6
    (inst_dir / "x.json").write_text(json.dumps(data))
    try:
        s = run(spec(inst_dir, tmp_path / "m", agent="openai",
                     agent_options={"base_url": server.base_url, "model": "m", "max_retries": 0}))
    finally:
        gen.close()
    assert s.errors == 0 and s.completed == 1
    (r,) = [r for r in read_jsonl(tmp_path / "m" / RESULTS) if r["type"] == "rollout"]
    assert r["metrics"]["parse_errors"] == 6 and r["metrics"]["termination"] == "budget"
    assert r["metrics"]["AER"] == 0.0


def test_report_json_and_tables(instances, tmp_path, capsys):
    run(spec(instances, tmp_path / "e"))
    assert main(["report", str(tmp_path / "e"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    metrics = data["explorer"]["tabletop"]
    assert set(metrics) == {"SR", "SSAL", "NGP", "AER", "RAR", "SEG", "ADR", "IRR", "F1_RD", "Acc_RG",
                            "premature", "attributed_maintenance", "attributed_exploration", "attributed_updating"}
    assert metrics["SR"] == 100.0 and metrics["premature"] == 0.0
    assert metrics["attributed_updating"] is None  # no failure to attribute
    assert main(["report", str(tmp_path / "e")]) == 0
    out = capsys.readouterr().out
    assert "Table 1" in out and "Table 2" in out and "Per scene" in out
    rep = tmp_path / "e" / "report"
    for name in ("table1", "table2", "families", "scenes", "between_scene", "within_scene", "attribution", "figure5"):
        assert (rep / f"{name}.csv").exists()
    assert "Failure attribution" in out and "Figure 5" in out
    for plot in ("figure4.png", "attribution.png"):
        assert (rep / plot).stat().st_size > 1000


@pytest.mark.slow
def test_ray_executor(instances, tmp_path):
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'robograph[ray]')")
    ray.init(num_cpus=1, include_dashboard=False)
    try:
        s = run(spec(instances, tmp_path / "ray", executor="ray", limit=2))
    finally:
        ray.shutdown()
    assert s.completed == 2


def test_benchmark_command_reuses_compiled_episodes(instances, tmp_path, capsys):
    bench = tmp_path / "bench"
    (bench / "episodes").mkdir(parents=True)
    for f in sorted(instances.glob("*.json"))[:3]:
        (bench / "episodes" / f.name).write_bytes(f.read_bytes())
    (bench / "stats.json").write_text("{}")
    # digest.json is written last by a complete compile; with the current code's digest the
    # directory counts as current and is reused as it is
    (bench / DIGEST_FILE).write_text(json.dumps({"digest": benchmark_digest(load_assets())}))
    code = main(["benchmark", "--out", str(tmp_path / "runs"), "--bench", str(bench), "--agent", "oracle",
                 "--workers", "1", "--no-progress"])
    assert code == 0
    assert "Table 1" in capsys.readouterr().out
    assert len([r for r in read_jsonl(tmp_path / "runs" / "oracle" / RESULTS) if r["type"] == "rollout"]) == 3
