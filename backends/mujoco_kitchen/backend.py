"""`MujocoKitchenBackend`: the Backend protocol over a procedurally built MuJoCo kitchen.

reset builds the world from G0 (layout solver -> MJCF -> robot -> compile); execute runs the
action's motion primitive (skills/) on the robot; reconcile reads the world back into a graph;
realize makes exogenous rewrites physical; render returns the robot's camera frames. Physical
misses become typed failures (EXECUTION_FAILED), simulation blow-ups SIMULATION_UNSTABLE (the
world is then rebuilt from the last graph so the episode continues), an expired deadline or a
cancel DEADLINE_EXCEEDED / CANCELLED (checked between physics steps; the world stays where the
motion stopped and is reconciled as it is), never an exception.
"""

from __future__ import annotations

import dataclasses
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
from robograph_backends.mujoco_kitchen.deps import mujoco_module

DEFAULT_CAMERAS = ("head", "left", "right")



def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BackendOptionError(f"option {name} must be a positive integer, got {value!r}")
    return value


class MujocoKitchenBackend:
    """Options: mode = "physics" (default) | "assisted" (the skills may servo joints and weld
    grasps; each help is listed in Execution.info["assists"]); width/height of rendered images
    (px); cameras rendered by default (any of head, left, right, left_wrist, right_wrist);
    spares = bodies reserved for nodes that events add; segmentation = render() also returns
    depth and segmentation labelled with node ids (for the built-in visual agent and coverage);
    relations = render() also reads INSIDE/ON/IN_ROOM/OPEN from that depth (`Frame.percept`,
    see seen.py; implies segmentation); dress = objects look like their category with a label of
    their name (visual-only parts, dress.py; false: the plain collision primitives); gaze = the
    head looks at the furniture the robot works at and the side cameras over the room on their
    side (gaze.py; false: fixed mounts)."""

    name = "mujoco"

    def __init__(self, mode: str = "physics", width: int = 320, height: int = 240,
                 cameras: Sequence[str] = DEFAULT_CAMERAS, spares: int = 3, segmentation: bool = False,
                 relations: bool = False, dress: bool = True, gaze: bool = True) -> None:
        from robograph_backends.mujoco_kitchen.robot import CAMERA_NAMES

        if mode not in EXECUTION_MODES:
            raise BackendOptionError(f"option mode must be one of {', '.join(EXECUTION_MODES)}, got {mode!r}")
        if isinstance(cameras, str):
            cameras = (cameras,)
        bad = [c for c in cameras if c not in CAMERA_NAMES]
        if bad or not cameras:
            raise BackendOptionError(f"option cameras: unknown {bad or 'empty list'}; valid: {', '.join(CAMERA_NAMES)}")
        mujoco_module()  # fail early, naming the extra, when MuJoCo is missing
        self.mode = mode
        self.width, self.height = _positive_int("width", width), _positive_int("height", height)
        self.cameras = tuple(cameras)
        self.spares = int(spares)
        if not isinstance(segmentation, bool):
            raise BackendOptionError(f"option segmentation must be true or false, got {segmentation!r}")
        for name, flag in (("relations", relations), ("dress", dress), ("gaze", gaze)):
            if not isinstance(flag, bool):
                raise BackendOptionError(f"option {name} must be true or false, got {flag!r}")
        if relations:
            from robograph_calibration.deps import open3d_module

            open3d_module()  # fail early, naming the extra (calibration), when Open3D is missing
        self.relations = relations
        self.segmentation = segmentation or relations
        self.dress, self.gaze = dress, gaze
        self.world: Any = None
        self.robot: Any = None
        self.scene: Any = None
        self._cams: Any = None
        self._reader: Any = None
        self.last_info: dict[str, Any] = {}

    @property
    def capabilities(self) -> Capabilities:
        """A simulator realizes every rewrite (teleport, spawn into spare bodies); camera models
        are those of the current state once a world exists (the head moves with the base)."""
        cams = self.cameras_renderer() if self.world is not None else None
        specs = tuple(CameraSpec(c, self.width, self.height, cams.model_of(c) if cams is not None else None)
                      for c in self.cameras)
        return Capabilities(cameras=specs, realizes=ALL_REWRITE_KINDS, modes=EXECUTION_MODES,
                            mode=self.mode, deadlines=True)

    # lifecycle -------------------------------------------------------------------------------------
    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        self._build(graph)

    def _build(self, graph: SceneGraph) -> None:
        from robograph_backends.mujoco_kitchen.embodiment import KitchenScene, MujocoRobot
        from robograph_backends.mujoco_kitchen.world import World

        self.close()
        self.world = World.build(graph, spares=self.spares, offwidth=max(640, self.width),
                                 offheight=max(480, self.height), dress=self.dress)
        self.robot = MujocoRobot(self.world)
        self.scene = KitchenScene(self.world, assisted=self.mode == "assisted")
        self.scene.graph = graph

    def close(self) -> None:
        if self._cams is not None:
            self._cams.close()
            self._cams = None
        self._reader = None
        self.world = None

    # graph <-> world -------------------------------------------------------------------------------
    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        from robograph_backends.mujoco_kitchen.realize import sync
        from robograph_backends.mujoco_kitchen.world import SimulationUnstable

        try:
            sync(self.world, graph)
        except SimulationUnstable:
            self._build(graph)
        self.scene.graph = graph
        if self._cams is not None:
            self._cams.refresh_nodes()
        if self._reader is not None:
            self._reader.refresh_labels()

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        from robograph_backends.mujoco_kitchen.sense import reconcile

        observed = reconcile(self.world, expected)
        self.scene.graph = observed
        return observed

    # actions ---------------------------------------------------------------------------------------
    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph, *,
                deadline: float | None = None, cancel: Cancel | None = None) -> Execution:
        """`deadline`: absolute time.monotonic() seconds; `cancel`: polled with the deadline
        every few physics steps (world.INTERRUPT_EVERY)."""
        from robograph_backends.mujoco_kitchen.world import SimulationUnstable
        from robograph_skills.interface import SkillResult

        self.scene.graph = graph
        self.robot.failures.clear()
        timers = self.world.timers
        p0, r0, s0 = timers.physics_s, timers.render_s, timers.steps
        t0 = time.perf_counter()
        failure = interruption(deadline, cancel)
        result = SkillResult(False, "not started")
        if failure is None:
            self.world.interrupt = interrupt_hook(deadline, cancel)
            try:
                result = self._dispatch(graph, action, expected)
                if not result.ok:
                    failure = ActionFailure(FailureType.EXECUTION_FAILED, f"{action}: {result.message}")
            except ExecutionInterrupted as exc:
                failure = ActionFailure(exc.failure.type, f"{action}: {exc.failure.message}")
            except SimulationUnstable as exc:
                failure = ActionFailure(FailureType.SIMULATION_UNSTABLE, f"{action}: {exc}")
                self._build(graph)  # continue from the last consistent graph
            finally:
                if self.world is not None:
                    self.world.interrupt = None
        self.scene.graph = expected
        self.last_info = {
            "wall_s": time.perf_counter() - t0,
            "physics_s": timers.physics_s - p0,
            "render_s": timers.render_s - r0,
            "steps": timers.steps - s0,
            "mode": self.mode,
            "assists": list(result.assists),
            "retries": int(result.retries),
            "ik_misses": list(self.robot.failures),
        }
        return Execution(failure=failure, info=dict(self.last_info))

    def _dispatch(self, graph: SceneGraph, action: Action, expected: SceneGraph) -> Any:
        from robograph_skills.dispatch import run_action

        return run_action(self.robot, self.scene, graph, action, expected)

    # cameras ---------------------------------------------------------------------------------------
    def render(self, cameras: Sequence[str] | None = None) -> list[Frame]:
        """RGB frames of `cameras` (default: the declared ones), stamped with simulation time; with
        the `segmentation` option also depth and node-labelled segmentation; with `relations`
        also the relations read from that depth (`Frame.percept`, the same on every frame)."""
        seg = self.segmentation
        if not self.relations:
            return self.cameras_renderer().frames(cameras or self.cameras, depth=seg, segmentation=seg)
        from robograph_backends.mujoco_kitchen.perception import CloudReader
        from robograph_backends.mujoco_kitchen.seen import percept

        frames, bodies = self.cameras_renderer().frames_and_bodies(cameras or self.cameras, depth=True, segmentation=True)
        if self._reader is None or self._reader.world is not self.world:
            self._reader = CloudReader(self.world)
        seen = percept(self._reader, self.scene.graph, frames, bodies)
        return [dataclasses.replace(f, percept=seen) for f in frames]

    # the robot's kinematic state (what a robot driver publishes as JointState and TF) ---------------
    def joint_state(self) -> tuple[list[str], list[float]]:
        """(names, positions) of the robot's joints in the compiled model's order: base_x, base_y
        (m), base_yaw (rad), torso_lift (m), each arm's joint1..7 (rad), finger joints (m)."""
        ik = self.robot.ik_model
        names = [ik.joint(j).name for j in range(ik.njnt)]
        return names, [self.world.qpos(n) for n in names]

    def robot_frames(self) -> tuple[list[tuple[str, str, Any]], list[tuple[str, str, Any]]]:
        """(moving, fixed) transforms `(parent, child, T_parent_child 4x4)` of the robot, frames
        named without a robot prefix under "world": moving = world -> base_link (base joints) ->
        torso (lift); fixed = each declared camera's mount, link -> `<camera>_optical` (OpenCV
        axes). A camera behind a joint that is not one of those links (a wrist camera) is moving:
        world -> `<camera>_optical`. With `gaze` on, the cameras are aimed per picture (a pan-tilt
        head): their pose is the aimed one and their transform is moving (link -> optical on /tf,
        not /tf_static), so a TF chain gives the pose the picture is taken with."""
        import numpy as np

        from robograph_calibration.camera import CameraModel

        w = self.world
        links = {w.body_id("robot_base"): "base_link", w.body_id("torso"): "torso"}

        def T_world(body: int) -> np.ndarray:
            T = np.eye(4)
            T[:3, :3] = np.asarray(w.data.xmat[body]).reshape(3, 3)
            T[:3, 3] = w.data.xpos[body]
            return T

        base, torso = w.body_id("robot_base"), w.body_id("torso")
        moving = [("world", "base_link", T_world(base)),
                  ("base_link", "torso", np.linalg.inv(T_world(base)) @ T_world(torso))]
        fixed = []
        from robograph_backends.mujoco_kitchen.robot import CAMERA_NAMES

        renderer = self.cameras_renderer()
        for cam in self.cameras:
            c = w.model.camera(CAMERA_NAMES[cam])
            if self.gaze:
                T_world_cam = renderer.model_of(cam).T_world_cam  # aimed as for a picture now
            else:
                T_world_cam = CameraModel.from_convention(self.width, self.height, float(w.model.cam_fovy[c.id]),
                                                          w.data.cam_xpos[c.id], w.data.cam_xmat[c.id].reshape(3, 3),
                                                          "mujoco").T_world_cam
            body = int(w.model.cam_bodyid[c.id])
            while body not in links and body != 0 and w.model.body_jntnum[body] == 0:
                body = int(w.model.body_parentid[body])  # up through rigid attachments
            if body in links:
                T_link_cam = np.linalg.inv(T_world(body)) @ T_world_cam
                (moving if self.gaze else fixed).append((links[body], f"{cam}_optical", T_link_cam))
            else:
                moving.append(("world", f"{cam}_optical", np.asarray(T_world_cam)))
        return moving, fixed

    def cameras_renderer(self) -> Any:
        from robograph_backends.mujoco_kitchen.render import Cameras

        if self._cams is None:
            self._cams = Cameras(self.world, self.width, self.height, gaze=self.gaze)
        return self._cams

