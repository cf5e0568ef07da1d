"""The symbolic backend: the world *is* the graph, so execution always matches the symbolic
effect and reconciliation is the identity. It has no cameras, realizes every rewrite kind, and
honours deadlines and cancellation the only way an instant action can: one already expired or
cancelled when execute() is called fails (typed) and leaves the world unchanged."""

from __future__ import annotations

from collections.abc import Sequence

from robograph.actions import Action
from robograph.backend import (
    ALL_REWRITE_KINDS,
    OK,
    Cancel,
    Capabilities,
    Execution,
    Frame,
    interruption,
)
from robograph.graph import SceneGraph
from robograph.rewrite import Rewrite

CAPABILITIES = Capabilities(cameras=(), realizes=ALL_REWRITE_KINDS, modes=("physics",), mode="physics",
                            deadlines=True)


class SymbolicBackend:
    name = "symbolic"
    capabilities = CAPABILITIES

    def __init__(self) -> None:
        self.graph: SceneGraph | None = None
        self._unchanged: SceneGraph | None = None  # the world after an interrupted action

    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        self.graph = graph
        self._unchanged = None

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        self.graph = graph

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph, *,
                deadline: float | None = None, cancel: Cancel | None = None) -> Execution:
        failure = interruption(deadline, cancel)
        if failure is not None:
            self._unchanged = graph
            return Execution(failure=failure)
        return OK

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        observed = expected if self._unchanged is None else self._unchanged
        self._unchanged = None
        self.graph = observed
        return observed

    def render(self, cameras: Sequence[str] | None = None) -> list[Frame]:
        return []

    def close(self) -> None:
        self.graph = None
