"""Packaging: a wheel built from the repository installs into a fresh virtual environment and works
there without the repository (assets shipped as package data); a missing catalog is an error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from robograph import resources
from robograph.compiler.assets import load_assets
from robograph.compiler.errors import AssetError
from robograph.resources import AssetsNotFound, assets_dir

REPO = Path(__file__).resolve().parents[1]
# the build must not write into the checkout (other runs may share it): build from a copy, without
# hidden entries (.git, the venvs: .venv-ros2 alone is 2.7 GB and filled CI's disk) or build output
_SKIP_NAMED = shutil.ignore_patterns("runs", "build", "dist", "*.egg-info", "__pycache__", "tests")


def _not_copied(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n.startswith(".")} | set(_SKIP_NAMED(folder, names))


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"  # offline: nothing is downloaded
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv_and_compiles_a_scene(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=_not_copied)
    env = _clean_env()
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"), str(src)],
                   check=True, env=env, cwd=tmp_path, timeout=120)
    wheel = next((tmp_path / "dist").glob("robograph-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, env=env, cwd=tmp_path, timeout=120)
    # dependencies (numpy, pyyaml, jsonschema, ...) come from this interpreter's site-packages,
    # appended after the fresh venv's own, so the installed wheel is what `import robograph` finds
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    out = tmp_path / "scene.json"
    run = subprocess.run([str(venv / "bin" / "robograph"), "compile", "--family", "desk", "--domain", "tabletop",
                          "--seed", "1", "--out", str(out)], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    where = subprocess.run([str(python), "-c", "import robograph.resources as r; print(r.assets_dir())"],
                           env=env, cwd=tmp_path, check=True, capture_output=True, text=True).stdout.strip()
    assert Path(where) == site / "robograph" / "assets", "the installed copy of the assets must be used"
    assert (site / "robograph" / "assets" / "families" / "desk.yaml").is_file()
    episode = json.loads(out.read_text())
    assert episode["metadata"]["family"] == "desk" and episode["metadata"]["oracle_length"] > 0
    check = subprocess.run([str(venv / "bin" / "robograph"), "validate", "--schema", "episode", str(out)],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    # the four repository folders install under namespaced import names, never as generic top-level ones
    for generic in ("backends", "skills", "calibration", "ros_bridge"):
        assert not (site / generic).exists(), f"the wheel put a generic top-level `{generic}` into site-packages"
        assert (site / f"robograph_{generic}" / "__init__.py").is_file()
    assert (site / "robograph_backends" / "mujoco_kitchen" / "__init__.py").is_file(), "subpackages ship too"
    # the symbolic backend is found through its entry point and runs one episode in the wheel install
    run = subprocess.run([str(venv / "bin" / "robograph"), "check-backend", "symbolic", "--instances", str(out)],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_checkout_finds_the_repository_assets():
    assert assets_dir() == REPO / "assets"
    assert {s.family for s in load_assets().scenes} >= {"desk", "toy"}


def test_missing_catalog_is_an_error_naming_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.setattr(resources, "ASSET_DIRS", (tmp_path / "a", tmp_path / "b"))
    with pytest.raises(AssetsNotFound, match=r"objects\.yaml.*/a.*/b"):
        assets_dir()
    with pytest.raises(AssetsNotFound):
        load_assets()
    with pytest.raises(AssetError, match="no objects.yaml"):
        load_assets(tmp_path)


def test_backend_catalog_refuses_a_missing_file(tmp_path):
    from robograph_backends.mujoco_kitchen.catalog import load_catalog

    with pytest.raises(AssetsNotFound, match="no object catalog"):
        load_catalog(str(tmp_path / "objects.yaml"))
    assert load_catalog()["kitchen"]["kind"] == "room"  # the shipped catalog
