"""Shared fixtures for the core tests; graph construction itself lives in `builders.py`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from robograph.gym_env import demo_instance_path
from robograph.instance import TaskInstance, load_instance
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend


@pytest.fixture
def demo() -> TaskInstance:
    return load_instance(demo_instance_path())


@pytest.fixture
def episode_of() -> Callable[..., Episode]:
    """Build and reset an Episode on the real symbolic backend."""

    def make(instance: TaskInstance, seed: int = 0, **kwargs: object) -> Episode:
        ep = Episode(instance, SymbolicBackend(), **kwargs)  # type: ignore[arg-type]
        ep.reset(seed)
        return ep

    return make


@pytest.fixture(scope="module")
def requires_mujoco() -> None:
    """Skip a MuJoCo test module when the `mujoco` extra is not installed."""
    from robograph.errors import DependencyNotInstalled
    from robograph_backends.mujoco_kitchen.deps import mujoco_module

    try:
        mujoco_module()
    except DependencyNotInstalled:
        pytest.skip("mujoco extra not installed")


@pytest.fixture(scope="module")
def sapien_backend():
    """One SAPIEN tabletop backend (physics mode) for a whole test module: its renderer stays
    warm between tests, and it is closed when the module ends."""
    pytest.importorskip("sapien")
    from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend

    backend = SapienTabletopBackend()
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def indoor_benchmark(tmp_path_factory):
    """All 27 indoor baselines: from $ROBOGRAPH_BENCH_DIR or the repository's bench/
    (`robograph compile --benchmark --out bench`), else compiled in-process (~20 s)."""
    from robograph_backends.mujoco_kitchen.episodes import episode_path, indoor_scene_ids, load_indoor

    ids = indoor_scene_ids()
    assert len(ids) == 27
    directory = os.environ.get("ROBOGRAPH_BENCH_DIR") or Path(__file__).resolve().parents[1] / "bench"
    if all(episode_path(directory, i).is_file() for i in ids):
        return load_indoor(directory, ids, compile_missing=False)
    return load_indoor(tmp_path_factory.mktemp("bench"), ids)
