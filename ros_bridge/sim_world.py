"""The simulated robot behind `robot_sim`: a RoboGraph backend, the graph it last read back, and
what its sensors see (camera images with their models, the robot's frames and joints).

A backend that renders (declares cameras: the MuJoCo kitchen) is called from one worker thread
only. Why: its renderer's EGL context belongs to the thread that made it, and a skill holds the
simulator for seconds while ROS callbacks arrive on the executor's threads. Its sensor timer uses
`snapshot(blocking=False)`, which skips a frame while a skill runs instead of queueing executor
threads behind it. A backend without cameras (symbolic) is called inline under a lock, its frames
never skipped: the worker hand-off and skipped frames cost the symbolic robot side about half its
image rate on a loaded 2-core machine (bench_ros2: 8-14 instead of 21-26 frames/s per camera).

A lab replacing the simulator keeps this shape: `reset`, `precheck`, `execute`, `graph`, and a
sensor snapshot from its own drivers.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import numpy as np

from robograph.actions import Action, check, effects
from robograph.failures import FailureType
from robograph.graph import SceneGraph
from robograph.rewrite import apply_all
from robograph.rewrite import from_json as rewrite_from_json
from robograph.view import compute_view
from robograph_ros_bridge.tf import WORLD_FRAME, Transform

T = TypeVar("T")


@dataclass(frozen=True)
class SensorSnapshot:
    """What the robot's sensors give at one moment. `cameras`: name -> (RGB (H, W, 3) uint8,
    CameraModel with K and T_world_cam in OpenCV axes). Transforms are named without the robot
    prefix (`base_link`, `head_optical`) under `world`; `joints` is (names, positions) or None
    for a robot without joints."""

    cameras: dict[str, tuple[np.ndarray, Any]]
    moving: list[Transform] = field(default_factory=list)
    joints: tuple[list[str], list[float]] | None = None


class SimWorld:
    """A backend plus the graph it last read back; thread-safe through one worker thread."""

    def __init__(self, backend_name: str, **backend_options: Any) -> None:
        from robograph.registry import make_backend

        self._busy = threading.Lock()  # held by whoever has a call running (or queued for the worker)
        self.backend = make_backend(backend_name, **backend_options)  # no GL context before render
        self._pool = (ThreadPoolExecutor(max_workers=1, thread_name_prefix="sim-world")
                      if self.backend.capabilities.cameras else None)
        self.graph: SceneGraph | None = None
        self._pristine: tuple[SceneGraph, int] | None = None  # what the last reset built, until anything moves

    def _run(self, fn: Callable[[], T]) -> T:
        with self._busy:
            return fn() if self._pool is None else self._pool.submit(fn).result()

    def close(self) -> None:
        close = getattr(self.backend, "close", None)
        if callable(close):
            self._run(close)
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def reset(self, graph: SceneGraph, seed: int) -> None:
        """Build the world for `graph`. A reset to what the last reset built, with nothing run
        since, keeps it: building a MuJoCo kitchen takes seconds, and a client resets a robot
        that was started on the same instance."""
        if self._pristine == (graph, seed):
            return
        self._run(lambda: self.backend.reset(graph, seed=seed))
        self.graph = graph
        self._pristine = (graph, seed)

    def realize(self, rewrites_json: Sequence[dict[str, Any]]) -> None:
        def job() -> None:
            self._pristine = None
            graph = self._graph()
            rewrites = [rewrite_from_json(r) for r in rewrites_json]
            after = apply_all(graph, rewrites)
            self.backend.realize(after, rewrites)
            self.graph = self.backend.reconcile(after)

        self._run(job)

    def _graph(self) -> SceneGraph:
        if self.graph is None:
            raise RuntimeError("the robot has no world yet: start it with --instance or call reset_world")
        return self.graph

    def precheck(self, action: Action) -> tuple[str, str] | None:
        graph = self._graph()
        failure = check(graph, compute_view(graph), action)
        return None if failure is None else (failure.type.value, failure.message)

    def execute(self, action: Action, cancel: Any = None) -> tuple[str, str]:
        """Run the action; ("", "") on success else (failure type, message). `cancel` (anything
        with is_set()) is polled by backends that honour it between physics steps."""

        def job() -> tuple[Any, SceneGraph]:
            self._pristine = None
            graph = self._graph()
            expected = apply_all(graph, effects(graph, action))
            result = self.backend.execute(graph, action, expected, cancel=cancel)
            self.graph = self.backend.reconcile(expected)
            return result, expected

        result, expected = self._run(job)
        if result.failure is not None:
            return result.failure.type.value, result.failure.message
        if self.graph != expected:
            return FailureType.EXECUTION_FAILED.value, f"{action} did not produce its expected outcome"
        return "", ""

    # sensors -------------------------------------------------------------------------------------
    def snapshot(self, cameras: Sequence[str], width: int, height: int, fovy_deg: float, tick: int, *,
                 blocking: bool = True) -> SensorSnapshot | None:
        """Camera frames, moving transforms and joints; None when not `blocking` and a skill holds
        a rendering simulator. Backends without cameras (symbolic) give `schematic_image`s from a
        camera at the world origin (a synthetic picture has no real viewpoint)."""
        job = partial(self._snapshot, tuple(cameras), width, height, fovy_deg, tick)
        if self._pool is None:
            return self._run(job)
        if not self._busy.acquire(blocking=blocking):
            return None
        try:
            return self._pool.submit(job).result()
        finally:
            self._busy.release()

    def _snapshot(self, cameras: tuple[str, ...], width: int, height: int, fovy_deg: float,
                  tick: int) -> SensorSnapshot:
        from robograph_calibration.camera import CameraModel

        be = self.backend
        has_world = self.graph is not None
        rendered = be.render(list(cameras)) if cameras and has_world and be.capabilities.cameras else []
        out = {f.camera: (np.asarray(f.image), f.model) for f in rendered}
        if not out:
            model = CameraModel.from_fovy(width, height, fovy_deg, np.eye(4))
            out = {c: (schematic_image(self.graph, c, width, height, tick), model) for c in cameras}
        moving: list[Transform] = []
        joints = None
        if has_world and callable(getattr(be, "robot_frames", None)):
            moving = [Transform(p, c, np.asarray(m)) for p, c, m in be.robot_frames()[0]]
        if has_world and callable(getattr(be, "joint_state", None)):
            names, positions = be.joint_state()
            joints = (list(names), [float(p) for p in positions])
        return SensorSnapshot(out, moving, joints)

    def fixed_frames(self, cameras: Sequence[str]) -> list[Transform]:
        """Mounts that never move (for /tf_static): the backend's camera mounts, or for a backend
        without robot frames each camera's optical frame at the world origin, as its images say."""
        def job() -> list[Transform]:
            be = self.backend
            if self.graph is not None and callable(getattr(be, "robot_frames", None)):
                return [Transform(p, c, np.asarray(m), static=True) for p, c, m in be.robot_frames()[1]]
            return [Transform(WORLD_FRAME, f"{c}_optical", np.eye(4), static=True) for c in cameras]

        return self._run(job)


def schematic_image(graph: SceneGraph | None, camera: str, width: int, height: int, tick: int) -> np.ndarray:
    """A synthetic picture for backends without cameras (symbolic): one coloured column per node
    visible to the robot, colours from the node ids, a bright row that moves every frame. It shows
    that images flow and change with the world; it is not a view of the scene."""
    img = np.zeros((height, width, 3), dtype=np.uint8)
    img[:] = tuple((zlib.crc32(camera.encode()) & 0x3F3F3F).to_bytes(3, "big"))
    if graph is not None:
        visible = sorted(compute_view(graph).visible)
        if visible:
            col = max(1, width // len(visible))
            for i, nid in enumerate(visible):
                rgb = zlib.crc32(nid.encode()).to_bytes(4, "big")[1:]
                img[height // 4: 3 * height // 4, i * col:(i + 1) * col] = tuple(rgb)
    img[tick % height, :] = 255
    return img
