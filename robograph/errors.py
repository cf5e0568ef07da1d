"""Exception hierarchy. One root (`RoboGraphError`); every message names what was wrong and what
would have been valid, so a user can fix the input without reading the source."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class RoboGraphError(Exception):
    """Root of every error this package raises on purpose."""


class UnknownNodeError(RoboGraphError, KeyError):
    def __init__(self, node_id: str, known: Sequence[str]) -> None:
        self.node_id = node_id
        self.known = list(known)
        shown = ", ".join(self.known[:20]) + (" ..." if len(self.known) > 20 else "")
        super().__init__(f"unknown node {node_id!r}; known nodes: {shown}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class RewriteError(RoboGraphError):
    """A rewrite that cannot apply to the graph it was given (missing node, bad relation)."""


class FactSyntaxError(RoboGraphError, ValueError):
    """A fact or goal string that does not parse, e.g. 'INSIDE(pen' or 'FLYING(pen)'."""


@dataclass(frozen=True)
class Problem:
    """One problem found in an instance file, located by a JSON path like `$.graph.edges[3].to`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class InstanceError(RoboGraphError):
    """An instance file that is unreadable or inconsistent. Carries every problem found."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = list(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{source}: {len(self.problems)} problem(s)\n{lines}")


class EpisodeError(RoboGraphError):
    """Misuse of the episode runtime (step before reset, step after the episode ended)."""


class BackendError(RoboGraphError):
    """A backend could not do what it was asked (simulator crashed, robot disconnected)."""


class DependencyNotInstalled(RoboGraphError, ImportError):
    """An optional dependency is missing; the message names the extra that provides it."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"{package} is not installed; install it with: pip install 'robograph[{extra}]'"
        )
