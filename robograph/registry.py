"""Named plug-ins (backends, agents) discovered through package entry points.

The core never imports a backend module by path: `pyproject.toml` registers each under the
`robograph.backends` group, and the CLI's `--backend` choices come from here. Backend options
(`--backend-opt KEY=VALUE`) are the factory's keyword parameters: their names are read from its
signature, so an unknown key fails before anything is built, naming the valid ones.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any

import yaml

from robograph.backend import Backend
from robograph.errors import RoboGraphError

BACKEND_GROUP = "robograph.backends"


class BackendOptionError(RoboGraphError, ValueError):
    """A backend option that is malformed, unknown to the backend, or has an invalid value."""


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


def backend_options(factory: Callable[..., Any]) -> dict[str, Any]:
    """The options a backend factory accepts, with their defaults (inspect.Parameter.empty when
    required)."""
    params = inspect.signature(factory).parameters.values()
    return {p.name: p.default for p in params
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"}


def check_options(name: str, factory: Callable[..., Any], options: Mapping[str, Any]) -> None:
    valid = backend_options(factory)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        shown = ", ".join(f"{k} (default {v!r})" for k, v in valid.items()) or "none"
        raise BackendOptionError(f"unknown option(s) {', '.join(map(repr, unknown))} for backend "
                                 f"{name!r}; valid: {shown}")


def make_backend(name: str, **options: Any) -> Backend:
    factory = backend_factory(name)
    check_options(name, factory, options)
    return factory(**options)


def parse_backend_opts(pairs: Sequence[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings -> options; each value is read as a YAML scalar (`3` -> 3, `0.5`,
    `true`, `assisted` -> "assisted", `[head, left]` -> a list). A repeated key keeps the last."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise BackendOptionError(f"backend option {pair!r} is not KEY=VALUE (e.g. mode=assisted)")
        try:
            out[key] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            raise BackendOptionError(f"backend option {key}: cannot read {text!r} ({exc.__class__.__name__})") from None
    return out


def add_backend_arguments(parser: Any, *, default: str = "symbolic") -> None:
    """`--backend NAME` and repeatable `--backend-opt KEY=VALUE`, shared by every command that
    builds a backend (run, render, check-backend, benches)."""
    parser.add_argument("--backend", default=default, choices=backend_names() or [default])
    parser.add_argument("--backend-opt", action="append", default=[], metavar="KEY=VALUE",
                        help="backend option, e.g. mode=assisted or width=640 (repeatable; YAML scalars)")
