"""Shared fixtures for the core tests; graph construction itself lives in `builders.py`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from backends.symbolic import SymbolicBackend
from robograph.gym_env import demo_instance_path
from robograph.instance import TaskInstance, load_instance
from robograph.runtime import Episode


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
