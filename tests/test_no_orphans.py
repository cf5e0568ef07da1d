"""A runner that dies takes its pool workers with it; Ctrl-C stops a run cleanly, keeping every
rollout written so far. The runner is a real `robograph run` subprocess; workers are found and
checked by PID in /proc, with bounded waits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robograph.gym_env import demo_instance_path
from robograph.harness.store import LOG, RESULTS, TIMING, read_jsonl, recover_log
from robograph.instance import load_instance

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SEEDS = 40  # 200 rollouts: ~1.6 s, time to signal the run mid-way even on a loaded machine


@pytest.fixture(scope="module")
def instances(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("instances")
    demo = load_instance(demo_instance_path())
    for name in "abcde":
        type(demo)(**{**demo.__dict__, "id": name}).save(out / f"{name}.json")
    return out


def _cmd(instances: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "robograph.cli", "run", "--instances", str(instances), "--out", str(out),
            "--agent", "explorer", "--workers", "2", "--seeds", str(SEEDS), "--no-progress"]


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a live process; None once it is gone or only a zombie is left."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = text[text.rindex(")") + 2 :].split()[:2]
    return None if state in ("Z", "X") else (state, int(ppid))


def _children(pid: int) -> set[int]:
    kids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[1] == pid:
                kids.add(int(entry.name))
    return kids


def _as_in_a_terminal() -> None:
    """The runner starts with SIGINT at its default, as a terminal's foreground job does: a
    command put in the background by a non-interactive shell (`cmd &`, as CI scripts and xdist
    workers may run pytest) inherits SIGINT ignored, and Python then never raises
    KeyboardInterrupt, so the run finished and exited 0 under Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_wait_for_rollouts(instances: Path, out: Path, rollouts: int) -> tuple[subprocess.Popen, set[int]]:
    proc = subprocess.Popen(_cmd(instances, out), start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_in_a_terminal)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        workers |= _children(proc.pid)
        log = out / LOG
        if len(workers) >= 2 and log.exists() and log.read_bytes().count(b'"type":"rollout"') >= rollouts:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be stopped"
    assert len(workers) >= 2, "the pool workers never showed up"
    return proc, workers


def _wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    alive = {p for p in pids if _stat(p) is not None}
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = {p for p in alive if _stat(p) is not None}
    return alive


def test_workers_die_with_a_killed_runner(instances, tmp_path):
    proc, workers = _start_and_wait_for_rollouts(instances, tmp_path / "r", 2)
    try:
        os.kill(proc.pid, signal.SIGKILL)  # the runner only, as `kill -9 PID` does: not its group
        proc.wait(timeout=10)
        survivors = _wait_gone(workers, 10.0)
    finally:
        for pid in _wait_gone(workers, 0):
            os.kill(pid, signal.SIGKILL)  # never leave our own orphans behind, even on failure
        proc.communicate()
    assert not survivors, f"pool workers {sorted(survivors)} outlived the killed runner"


def test_ctrl_c_stops_cleanly_and_keeps_what_was_written(instances, tmp_path):
    out = tmp_path / "r"
    proc, workers = _start_and_wait_for_rollouts(instances, out, 3)
    try:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends its foreground group on Ctrl-C
        _, err = proc.communicate(timeout=30)
        survivors = _wait_gone(workers, 10.0)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130
    assert "Traceback" not in err and "rerun the same command to resume" in err
    assert not survivors
    log = out / LOG
    written = log.read_bytes()
    done = recover_log(log)
    assert log.read_bytes() == written, "an interrupted run must leave no torn tail"
    assert 3 <= len(done) < 5 * SEEDS
    timing = json.loads((out / TIMING).read_text())
    assert timing["interrupted"] is True and timing["completed"] == len(done)
    assert not (out / RESULTS).exists()
    # resuming finishes the run: every planned rollout exactly once
    assert subprocess.run(_cmd(instances, out), capture_output=True, timeout=120).returncode == 0
    keys = [r["key"] for r in read_jsonl(out / RESULTS) if r["type"] == "rollout"]
    assert sorted(keys) == sorted(f"{n}#{s}" for n in "abcde" for s in range(SEEDS))
