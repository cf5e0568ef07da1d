"""The Backend protocol: how the runtime talks to a world (symbolic, simulated or real).

The graph stays canonical. The runtime asks a backend to `execute` an action whose preconditions
held, then `reconcile`s: the backend reads its world back into a graph and the runtime turns any
difference into rewrites. Exogenous events go the other way through `realize`. A backend never
decides task success.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from robograph.actions import Action
from robograph.failures import ActionFailure
from robograph.graph import SceneGraph
from robograph.rewrite import Rewrite


@dataclass(frozen=True, slots=True)
class Execution:
    """What a backend reports for one action: `failure` is None when it ran as commanded.
    `info` carries backend figures (physics seconds, render seconds, contacts...)."""

    failure: ActionFailure | None = None
    info: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


OK = Execution()


@runtime_checkable
class Backend(Protocol):
    name: str

    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        """Build the world for G0 (graph -> world)."""

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        """Apply exogenous rewrites physically; `graph` is the state after them."""

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph) -> Execution:
        """Run an action whose preconditions hold on `graph`; `expected` is its symbolic outcome."""

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        """Read the world back into a graph (world -> graph). Returning `expected` itself (the same
        object) tells the runtime nothing differs, which keeps the symbolic path cheap."""

    def render(self, cameras: Sequence[str] | None = None) -> dict[str, Any]:
        """Images keyed by camera name (RGB arrays HxWx3 uint8); empty for the symbolic backend."""

    def close(self) -> None: ...
