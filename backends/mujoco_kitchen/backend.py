"""`MujocoKitchenBackend`: the Backend protocol over a procedurally built MuJoCo kitchen.

reset builds the world from G0 (layout solver -> MJCF -> robot -> compile); execute runs the
action's motion primitive (skills/) on the robot; reconcile reads the world back into a graph;
realize makes exogenous rewrites physical; render returns the robot's camera images. Physical
misses become typed failures (EXECUTION_FAILED), simulation blow-ups SIMULATION_UNSTABLE (the
world is then rebuilt from the last graph so the episode continues), never an exception.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from backends.mujoco_kitchen.deps import mujoco_module
from robograph.actions import Action
from robograph.backend import Execution
from robograph.errors import RoboGraphError
from robograph.failures import ActionFailure, FailureType
from robograph.graph import HANDS, SceneGraph
from robograph.rewrite import Rewrite

GRASP_MODES = ("physics", "assisted")


class BackendOptionError(RoboGraphError, ValueError):
    pass


class MujocoKitchenBackend:
    """Options: grasp = "physics" (default) | "assisted" (attach on contact); width/height of
    rendered images (px); cameras rendered by default; spares = bodies reserved for added nodes."""

    name = "mujoco"

    def __init__(self, grasp: str = "physics", width: int = 320, height: int = 240,
                 cameras: Sequence[str] = ("head", "left", "right"), spares: int = 3) -> None:
        if grasp not in GRASP_MODES:
            raise BackendOptionError(f"grasp must be one of {', '.join(GRASP_MODES)}, got {grasp!r}")
        mujoco_module()  # fail early, naming the extra, when MuJoCo is missing
        self.grasp_mode = grasp
        self.width, self.height = int(width), int(height)
        self.cameras = tuple(cameras)
        self.spares = int(spares)
        self.world: Any = None
        self.robot: Any = None
        self.scene: Any = None
        self._cams: Any = None
        self._before: SceneGraph | None = None
        self.last_info: dict[str, Any] = {}

    # lifecycle -------------------------------------------------------------------------------------
    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        self._build(graph)

    def _build(self, graph: SceneGraph) -> None:
        from backends.mujoco_kitchen.embodiment import KitchenScene, MujocoRobot
        from backends.mujoco_kitchen.world import World

        self.close()
        self.world = World.build(graph, spares=self.spares, offwidth=max(640, self.width),
                                 offheight=max(480, self.height))
        self.robot = MujocoRobot(self.world)
        self.scene = KitchenScene(self.world, assisted=self.grasp_mode == "assisted")
        self.scene.graph = graph
        self._before = None

    def close(self) -> None:
        if self._cams is not None:
            self._cams.close()
            self._cams = None
        self.world = None

    # graph <-> world -------------------------------------------------------------------------------
    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        from backends.mujoco_kitchen.realize import sync
        from backends.mujoco_kitchen.world import SimulationUnstable

        try:
            sync(self.world, graph)
        except SimulationUnstable:
            self._build(graph)
        self.scene.graph = graph
        if self._cams is not None:
            self._cams.refresh_nodes()

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        from backends.mujoco_kitchen.sense import reconcile

        observed = reconcile(self.world, expected, before=self._before)
        self.scene.graph = observed
        self._before = None
        return observed

    # actions ---------------------------------------------------------------------------------------
    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph) -> Execution:
        from backends.mujoco_kitchen.world import SimulationUnstable

        self._before = graph
        self.scene.graph = graph
        self.robot.failures.clear()
        timers = self.world.timers
        p0, r0, s0 = timers.physics_s, timers.render_s, timers.steps
        t0 = time.perf_counter()
        failure: ActionFailure | None = None
        result = None
        try:
            result = self._dispatch(graph, action, expected)
            if not result.ok:
                failure = ActionFailure(FailureType.EXECUTION_FAILED, f"{action}: {result.message}")
        except SimulationUnstable as exc:
            failure = ActionFailure(FailureType.SIMULATION_UNSTABLE, f"{action}: {exc}")
            self._build(graph)  # continue from the last consistent graph
            self._before = graph
        self.scene.graph = expected
        self.last_info = {
            "wall_s": time.perf_counter() - t0,
            "physics_s": timers.physics_s - p0,
            "render_s": timers.render_s - r0,
            "steps": timers.steps - s0,
            "ik_misses": list(self.robot.failures),
            "assists": list(result.assists) if result is not None else [],
            "retries": result.retries if result is not None else 0,
        }
        return Execution(failure=failure, info=dict(self.last_info))

    def _dispatch(self, graph: SceneGraph, action: Action, expected: SceneGraph) -> Any:
        from skills import primitives as sk

        name, args = action.name, action.args
        robot, scene = self.robot, self.scene

        def free_hand() -> str:
            for hand in HANDS:
                if not graph.attr("robot", hand):
                    return hand
            return HANDS[0]

        if name in ("observe", "stop"):
            return sk.observe(robot, scene)
        if name == "walk":
            return sk.walk(robot, scene, args[0])
        if name in ("open", "close"):
            return sk.articulate(robot, scene, args[0], opening=name == "open")
        if name == "grab":
            return sk.grab(robot, scene, args[0], expected.hand_of(args[0]) or free_hand())
        if name in ("puton", "putin"):
            hand = graph.hand_of(args[0]) or free_hand()
            return sk.place(robot, scene, args[0], args[1], "ON" if name == "puton" else "INSIDE", hand)
        if name == "move_aside":
            return sk.move_aside(robot, scene, args[0], free_hand())
        if name == "press":
            return sk.press(robot, scene, args[0], free_hand())
        if name == "attach":
            part, target = args
            keep = graph.hand_of(target) is None and graph.hand_of(part) is not None
            return sk.attach(robot, scene, part, target, graph.hand_of, free_hand, keep)
        from skills.interface import SkillResult

        return SkillResult(False, f"no motion primitive for {name!r}")

    # cameras ---------------------------------------------------------------------------------------
    def render(self, cameras: Sequence[str] | None = None) -> dict[str, Any]:
        return self.cameras_renderer().render(cameras or self.cameras)

    def cameras_renderer(self) -> Any:
        from backends.mujoco_kitchen.render import Cameras

        if self._cams is None:
            self._cams = Cameras(self.world, self.width, self.height)
        return self._cams
