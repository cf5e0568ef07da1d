"""Named plug-ins (backends, agents) discovered through package entry points.

The core never imports a backend module by path: `pyproject.toml` registers each under the
`robograph.backends` group, and the CLI's `--backend` choices come from here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from robograph.backend import Backend
from robograph.errors import RoboGraphError

BACKEND_GROUP = "robograph.backends"


def backend_names() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=BACKEND_GROUP))


@functools.cache
def backend_factory(name: str) -> Callable[..., Backend]:
    """The registered backend class. The entry-point scan reads every installed distribution's
    metadata (15-25 ms), so it runs once per process and name: the compiler's verification
    rollouts build a backend for each of 588 episodes."""
    matches = [ep for ep in entry_points(group=BACKEND_GROUP) if ep.name == name]
    if not matches:
        valid = ", ".join(backend_names()) or "none installed"
        raise RoboGraphError(f"unknown backend {name!r}; valid: {valid}")
    factory: Callable[..., Backend] = matches[0].load()
    return factory


def make_backend(name: str, **options: Any) -> Backend:
    return backend_factory(name)(**options)
