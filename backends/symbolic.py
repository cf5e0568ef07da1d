"""The symbolic backend: the world *is* the graph, so execution always matches the symbolic
effect and reconciliation is the identity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robograph.actions import Action
from robograph.backend import OK, Execution
from robograph.graph import SceneGraph
from robograph.rewrite import Rewrite


class SymbolicBackend:
    name = "symbolic"

    def __init__(self) -> None:
        self.graph: SceneGraph | None = None

    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        self.graph = graph

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        self.graph = graph

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph) -> Execution:
        return OK

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        self.graph = expected
        return expected

    def render(self, cameras: Sequence[str] | None = None) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        self.graph = None
