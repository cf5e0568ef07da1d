"""`SapienTabletopBackend`: the Backend protocol over a SAPIEN tabletop built from the graph.

reset builds the world from G0; execute runs the action's motion primitive (the shared
`robograph_skills`, through `embodiment.SapienRobot` / `TabletopScene`) on the two Pandas;
reconcile reads the world back through the shared predicates; realize makes exogenous rewrites
physical; render returns head/left/right frames. Physical misses become EXECUTION_FAILED, a
physics blow-up SIMULATION_UNSTABLE (the world is rebuilt from the last graph), an expired
deadline or a cancel DEADLINE_EXCEEDED / CANCELLED (checked between physics chunks), never an
exception.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from robograph.actions import Action
from robograph.backend import (
    ALL_REWRITE_KINDS,
    EXECUTION_MODES,
    CameraSpec,
    Cancel,
    Capabilities,
    Execution,
    ExecutionInterrupted,
    Frame,
    interrupt_hook,
    interruption,
)
from robograph.failures import ActionFailure, FailureType
from robograph.graph import SceneGraph
from robograph.registry import BackendOptionError
from robograph.rewrite import Rewrite
from robograph_backends.sapien_tabletop.cameras import CAMERAS, HEIGHT, WIDTH
from robograph_backends.sapien_tabletop.errors import SapienBackendError
from robograph_backends.sapien_tabletop.hiding import solve_hiding

SETTLE_STEPS = 100  # physics steps after building, so bodies rest on what holds them



class SapienTabletopBackend:
    """Options: mode = "physics" (default: grasps by finger friction, joints moved by the hand)
    | "assisted" (the skills may servo joints and weld grasps; each help is listed in
    Execution.info["assists"]); dress = objects look like their category with a label of their
    name (default true; visual shapes only, dress.py; false: the plain collision primitives)."""

    name = "sapien"

    def __init__(self, mode: str = "physics", dress: bool = True) -> None:
        if mode not in EXECUTION_MODES:
            raise BackendOptionError(f"option mode must be one of {', '.join(EXECUTION_MODES)}, got {mode!r}")
        if not isinstance(dress, bool):
            raise BackendOptionError(f"option dress must be true or false, got {dress!r}")
        self.mode = mode
        self.dress = dress
        self._world: Any = None
        self.robot: Any = None
        self.scene: Any = None
        self.last_info: dict[str, Any] = {}
        self.capabilities = Capabilities(
            cameras=tuple(CameraSpec(c, WIDTH, HEIGHT) for c in CAMERAS),  # poses known once a world is built (on the base)
            realizes=ALL_REWRITE_KINDS, modes=EXECUTION_MODES, mode=mode, deadlines=True)

    @property
    def world(self) -> Any:
        if self._world is None:
            raise SapienBackendError("no world: call reset(graph, seed=...) first")
        return self._world

    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        """Build the world for G0: the layout as laid for seed 0, every loose object nudged by
        at most `jitter.SEED_JITTER` for any other seed (the same nudges for the same seed)."""
        self._build(graph, seed)

    def _build(self, graph: SceneGraph, seed: int = 0) -> None:
        from robograph_backends.sapien_tabletop.embodiment import SapienRobot, TabletopScene
        from robograph_backends.sapien_tabletop.jitter import jittered
        from robograph_backends.sapien_tabletop.world import World

        layout = jittered(graph, solve_hiding(graph), seed)
        # build before dropping the old world: while one scene lives, SAPIEN keeps its renderer
        # warm and a new scene's first pictures cost ~0.3 s instead of ~20 s
        world = World.build(graph, layout, dress=self.dress)
        world.step(SETTLE_STEPS)
        self._world = world
        self.robot = SapienRobot(world)
        self.scene = TabletopScene(world, assisted=self.mode == "assisted")
        self.scene.graph = graph

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        """Make the world agree with `graph` (the state after `rewrites`): see `realize.sync`."""
        from robograph_backends.sapien_tabletop.realize import sync
        from robograph_backends.sapien_tabletop.world import SimulationUnstable

        try:
            sync(self.world, graph)
        except SimulationUnstable:
            self._build(graph)
        self.scene.graph = graph

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph, *,
                deadline: float | None = None, cancel: Cancel | None = None) -> Execution:
        """`deadline`: absolute time.monotonic() seconds; `cancel`: polled with it every physics chunk."""
        from robograph_backends.sapien_tabletop.world import SimulationUnstable
        from robograph_skills.dispatch import run_action
        from robograph_skills.interface import SkillResult

        world = self.world
        self.scene.graph = graph
        self.robot.clear_failures()
        t0, sim0, phys0 = time.perf_counter(), world.time, world.physics_s
        failure = interruption(deadline, cancel)
        result = SkillResult(False, "not started")
        if failure is None:
            world.interrupt = interrupt_hook(deadline, cancel)
            try:
                result = run_action(self.robot, self.scene, graph, action, expected)
                if not result.ok:
                    failure = ActionFailure(FailureType.EXECUTION_FAILED, f"{action}: {result.message}")
            except ExecutionInterrupted as exc:
                failure = ActionFailure(exc.failure.type, f"{action}: {exc.failure.message}")
            except SimulationUnstable as exc:
                failure = ActionFailure(FailureType.SIMULATION_UNSTABLE, f"{action}: {exc}")
                self._build(graph)  # continue from the last consistent graph
            finally:
                world.interrupt = None
        self.scene.graph = expected
        self.last_info = {
            "wall_s": time.perf_counter() - t0,
            "physics_s": world.physics_s - phys0,
            "sim_s": world.time - sim0,
            "mode": self.mode,
            "assists": list(result.assists),
            "retries": int(result.retries),
            "ik_misses": list(self.robot.failures),
        }
        return Execution(failure=failure, info=dict(self.last_info))

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        from robograph_backends.sapien_tabletop.sense import reconcile

        observed = reconcile(self.world, expected)
        self.scene.graph = observed
        return observed

    def render(self, cameras: Sequence[str] | None = None) -> list[Frame]:
        return self.world.frames(list(cameras) if cameras else None)

    def close(self) -> None:
        self._world = None
        self.robot = self.scene = None

