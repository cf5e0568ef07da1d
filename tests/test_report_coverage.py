"""`report` never prints headline figures over an incomplete run without being asked, and a
compiled benchmark is reused only while the code and assets that made it are unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from robograph.cli import main
from robograph.compiler.assets import default_assets_dir
from robograph.compiler.benchmark import DIGEST_FILE
from robograph.gym_env import demo_instance_path
from robograph.harness.benchmark import ensure_benchmark
from robograph.harness.report import run_coverage
from robograph.harness.runner import RunSpec, run
from robograph.harness.store import LOG, RESULTS
from robograph.instance import load_instance


@pytest.fixture
def instances(tmp_path) -> Path:
    out = tmp_path / "instances"
    out.mkdir()
    demo = load_instance(demo_instance_path())
    for name in ("a", "b", "c", "d"):
        type(demo)(**{**demo.__dict__, "id": name}).save(out / f"{name}.json")
    return out


def _run(instances: Path, out: Path) -> None:
    run(RunSpec(str(instances), "explorer", str(out), workers=1, progress=False, durable=False))


def _report(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["report", *argv])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_complete_run_reports_its_coverage(instances, tmp_path, capsys):
    _run(instances, tmp_path / "r")
    cov = run_coverage(tmp_path / "r")
    assert (cov.planned, cov.done, cov.errored, cov.missing, cov.complete) == (4, 4, (), (), True)
    code, out, err = _report(capsys, str(tmp_path / "r"))
    assert code == 0 and "Table 1" in out and "4 of 4 rollouts done" in err and "PARTIAL" not in out


def test_errored_and_missing_rollouts_block_headline_figures(instances, tmp_path, capsys):
    (instances / "b.json").write_text('{"graph": ')  # breaks in the worker: an errored rollout
    out = tmp_path / "r"
    _run(instances, out)
    # a run killed after its third rollout: the log ends there and no results file was written
    lines = (out / LOG).read_text().splitlines(keepends=True)
    last_rollout = max(i for i, line in enumerate(lines) if '"type":"rollout"' in line)
    before = max(i for i, line in enumerate(lines[:last_rollout]) if '"type":"rollout"' in line)
    (out / LOG).write_text("".join(lines[: before + 1]))
    assert not (out / RESULTS).exists()

    cov = run_coverage(out)
    assert (cov.planned, cov.done, cov.errored, cov.missing) == (4, 2, ("b#0",), ("d#0",))
    code, stdout, err = _report(capsys, str(out))
    assert code == 2 and stdout == ""
    assert "incomplete run" in err and "2 of 4 rollouts done; 1 errored (b#0); 1 missing (d#0)" in err
    assert "--allow-partial" in err
    assert not (out / "report").exists()
    code, _, err = _report(capsys, str(out), "--json")
    assert code == 2 and "incomplete run" in err

    code, stdout, err = _report(capsys, str(out), "--allow-partial")
    assert code == 0 and stdout.startswith("**PARTIAL RUN") and "1 missing (d#0)" in stdout
    assert "Table 1" in stdout and "PARTIAL" in err
    assert "PARTIAL RUN" in (out / "report" / "report.md").read_text()
    code, stdout, _ = _report(capsys, str(out), "--json", "--allow-partial")
    assert code == 0 and json.loads(stdout)["explorer"]


def test_a_benchmark_is_reused_only_while_code_and_assets_match(tmp_path):
    assets = tmp_path / "assets"
    shutil.copytree(default_assets_dir(), assets)
    bench, scenes = tmp_path / "bench", ["Buffet-T5"]
    episodes = ensure_benchmark(bench, progress=False, assets_root=assets, scenes=scenes)
    files = sorted(episodes.glob("*.json"))
    assert len(files) == 7 and (bench / DIGEST_FILE).is_file()
    compiled = {f.name: f.read_text() for f in files}
    stale = files[0]

    # current: reused as it is (even a file edited by hand stays, proving nothing was rewritten)
    stale.write_text("{}")
    ensure_benchmark(bench, progress=False, assets_root=assets, scenes=scenes)
    assert stale.read_text() == "{}"

    # the assets changed (here by one comment byte): the directory is stale and is recompiled
    with open(assets / "objects.yaml", "a", encoding="utf-8") as fh:
        fh.write("# edited\n")
    ensure_benchmark(bench, progress=False, assets_root=assets, scenes=scenes)
    assert {f.name: f.read_text() for f in sorted(episodes.glob("*.json"))} == compiled

    # an interrupted compile leaves no digest, so the directory is not taken as complete
    stale.write_text("{}")
    (bench / DIGEST_FILE).unlink()
    ensure_benchmark(bench, progress=False, assets_root=assets, scenes=scenes)
    assert stale.read_text() == compiled[stale.name]
    assert not [p for p in bench.rglob("*.tmp")]
