"""The SAPIEN tabletop backend (foundations): reset builds the world from G0, reconcile reads it
back through the shared predicates, render returns head/left/right RGB.

Not yet: `execute` (skills through the portable robot interface) and `realize` (interventions):
both raise `SapienBackendError` naming what is missing rather than pretending to succeed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robograph.actions import Action
from robograph.backend import ALL_REWRITE_KINDS, CameraSpec, Cancel, Capabilities, Execution, Frame
from robograph.graph import SceneGraph
from robograph.rewrite import Rewrite
from robograph_backends.sapien_tabletop.cameras import CAMERAS, HEIGHT, WIDTH, head_model
from robograph_backends.sapien_tabletop.errors import SapienBackendError
from robograph_backends.sapien_tabletop.layout import solve


class SapienTabletopBackend:
    """Declares no realizable rewrites yet (realize is not built) and physics mode only."""

    name = "sapien"

    def __init__(self) -> None:
        self._world: Any = None
        self.capabilities = Capabilities(
            cameras=tuple(CameraSpec(c, WIDTH, HEIGHT, head_model() if c == "head" else None) for c in CAMERAS),
            realizes=ALL_REWRITE_KINDS, modes=("physics",), mode="physics", deadlines=False)

    @property
    def world(self) -> Any:
        if self._world is None:
            raise SapienBackendError("no world: call reset(graph, seed=...) first")
        return self._world

    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        """Build the world for G0. The layout is deterministic; `seed` is kept for the protocol."""
        from robograph_backends.sapien_tabletop.world import World

        layout = solve(graph)
        # build before dropping the old world: while one scene lives, SAPIEN keeps its renderer
        # warm and a new scene's first pictures cost ~0.3 s instead of ~20 s
        world = World.build(graph, layout)
        world.step(SETTLE_STEPS)
        self._world = world

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        """Make the world agree with `graph` (the state after `rewrites`): see `realize.sync`."""
        from robograph_backends.sapien_tabletop.realize import sync

        sync(self.world, graph)

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph, *,
                deadline: float | None = None, cancel: Cancel | None = None) -> Execution:
        raise SapienBackendError(f"execute is not implemented yet in the SAPIEN backend (asked: {action!r}); "
                                 "skills arrive with the portable robot interface")

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        from robograph_backends.sapien_tabletop.sense import reconcile

        return reconcile(self.world, expected)

    def render(self, cameras: Sequence[str] | None = None) -> list[Frame]:
        return self.world.frames(list(cameras) if cameras else None)

    def close(self) -> None:
        self._world = None


SETTLE_STEPS = 100  # physics steps after building, so bodies rest on what holds them
