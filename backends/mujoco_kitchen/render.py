"""Headless rendering of the robot's cameras: RGB, depth and segmentation, fast settings.

Fast settings (measured ~9x faster than MuJoCo's defaults on llvmpipe): no shadows, no
reflections, no multisampling (`offsamples=0`, set in the MJCF), collision meshes (group 0), the
collision geoms that dressed objects' visual parts stand in for (dress.HIDDEN_GROUP) and all sites
hidden. Segmentation is mapped geom -> body -> scene-graph node id.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from robograph.backend import Frame
from robograph.errors import BackendError
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.dress import geom_groups
from robograph_backends.mujoco_kitchen.gaze import aimed
from robograph_backends.mujoco_kitchen.robot import CAMERA_NAMES
from robograph_backends.mujoco_kitchen.world import World
from robograph_calibration.camera import CameraModel

DEFAULT_CAMERAS = ("head", "left", "right")
ROBOT_LABEL = "robot"  # the scene graph's robot node; its pixels are the robot's own bodies
ROBOT_BODY = "robot_base"


class UnknownCamera(BackendError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown camera {name!r}; valid: {', '.join(CAMERA_NAMES)}")


class Cameras:
    """One offscreen renderer for a world at a fixed resolution."""

    def __init__(self, world: World, width: int = 320, height: int = 240, *, gaze: bool = True) -> None:
        """`gaze`: the head and side cameras turn to their gaze points for every picture and
        camera model (gaze.py); False: they keep their fixed mounts."""
        mj = mujoco_module()
        self.world = world
        self.gaze = gaze
        self.width, self.height = width, height
        model = world.model
        model.vis.quality.offsamples = 0
        model.vis.quality.shadowsize = 0
        model.light_castshadow[:] = 0
        self.renderer = mj.Renderer(model, height, width)
        self.renderer.scene.flags[mj.mjtRndFlag.mjRND_SHADOW] = 0
        self.renderer.scene.flags[mj.mjtRndFlag.mjRND_REFLECTION] = 0
        opt = mj.MjvOption()
        opt.geomgroup[:] = geom_groups()  # robosuite's collision meshes and dressed bodies' collision geoms hidden
        opt.sitegroup[:] = 0
        self.option = opt
        self._node_of_body = self._body_nodes()

    def _body_nodes(self) -> np.ndarray:
        """body id -> index into self.node_ids (-1 for walls, floor). The robot's own bodies are
        labelled ROBOT_LABEL (last), so self-occlusion can be measured from the same pixels."""
        w = self.world
        names = dict(w.plan.node_body)
        names.update({node: body for node, body in w.spare_of.items()})
        self.node_ids = [*sorted(names), ROBOT_LABEL]
        table = np.full(w.model.nbody, -1, dtype=np.int64)
        for bid in w.subtree(ROBOT_BODY):
            table[bid] = len(self.node_ids) - 1
        for k, node in enumerate(self.node_ids[:-1]):
            for bid in w.subtree(names[node]):
                if table[bid] == -1 or bid == w.body_id(names[node]):
                    table[bid] = k
        return table

    def refresh_nodes(self) -> None:
        self._node_of_body = self._body_nodes()

    def _camera(self, name: str) -> str:
        if name not in CAMERA_NAMES:
            raise UnknownCamera(name)
        return CAMERA_NAMES[name]

    def _aimed(self) -> AbstractContextManager[None]:
        return aimed(self.world) if self.gaze else nullcontext()

    def model_of(self, name: str) -> CameraModel:
        """Intrinsics + T_world_cam (OpenCV) of a camera in the current state (aimed as it is
        for a picture)."""
        with self._aimed():
            return self._model_of(name)

    def _model_of(self, name: str) -> CameraModel:
        w = self.world
        cam = w.model.camera(self._camera(name))
        fovy = float(w.model.cam_fovy[cam.id])
        return CameraModel.from_convention(self.width, self.height, fovy, w.data.cam_xpos[cam.id].copy(),
                                           w.data.cam_xmat[cam.id].reshape(3, 3).copy(), "mujoco")

    def _render(self, cam: str, mode: str) -> np.ndarray:
        r = self.renderer
        r.disable_depth_rendering()
        r.disable_segmentation_rendering()
        if mode == "depth":
            r.enable_depth_rendering()
        elif mode == "seg":
            r.enable_segmentation_rendering()
        r.update_scene(self.world.data, camera=cam, scene_option=self.option)
        return r.render()

    def render(self, cameras: Sequence[str] | None = None, *, depth: bool = False,
               segmentation: bool = False) -> dict[str, Any]:
        """{camera: rgb (H,W,3) uint8} plus `{camera}_depth` (H,W) float32 metres and
        `{camera}_seg` (H,W) int64 node index (see node_ids; -1 = no node) and `{camera}_body`
        (H,W) int64 MuJoCo body id (-1 = none) when asked."""
        return self._shoot(list(cameras or DEFAULT_CAMERAS), depth, segmentation)[0]

    def _shoot(self, cameras: list[str], depth: bool, segmentation: bool) -> tuple[dict[str, Any], dict[str, CameraModel]]:
        """The pictures and, taken with the cameras aimed as they were for them, the models."""
        t0 = time.perf_counter()
        out: dict[str, Any] = {}
        models: dict[str, CameraModel] = {}
        with self._aimed():
            for name in cameras:
                cam = self._camera(name)
                out[name] = self._render(cam, "rgb").copy()
                if depth:
                    out[f"{name}_depth"] = self._render(cam, "depth").astype(np.float32)
                if segmentation:
                    out[f"{name}_body"] = self.bodies(self._render(cam, "seg"))
                    out[f"{name}_seg"] = self.node_labels(out[f"{name}_body"])
                models[name] = self._model_of(name)
        self.world.timers.render_s += time.perf_counter() - t0
        return out, models

    def frames(self, cameras: Sequence[str] | None = None, *, depth: bool = False,
               segmentation: bool = False) -> list[Frame]:
        """The Backend protocol's view of `render`: one Frame per camera with its CameraModel in
        the current state, stamped with simulation time (s)."""
        return self.frames_and_bodies(cameras, depth=depth, segmentation=segmentation)[0]

    def frames_and_bodies(self, cameras: Sequence[str] | None = None, *, depth: bool = False,
                          segmentation: bool = False) -> tuple[list[Frame], dict[str, np.ndarray]]:
        """`frames` plus, with segmentation, each camera's (H,W) MuJoCo body id per pixel (-1 =
        none): finer than the node labels (a fridge's door apart from its carcass), for reading
        relations from depth (`seen.percept`)."""
        cams = list(cameras or DEFAULT_CAMERAS)
        images, models = self._shoot(cams, depth, segmentation)
        stamp = float(self.world.data.time)
        labels = tuple(self.node_ids) if segmentation else ()
        frames = [Frame(name, images[name], models[name], stamp,
                        depth=images.get(f"{name}_depth"), segmentation=images.get(f"{name}_seg"), labels=labels)
                  for name in cams]
        return frames, {name: images[f"{name}_body"] for name in cams if f"{name}_body" in images}

    def bodies(self, seg: np.ndarray) -> np.ndarray:
        """MuJoCo's raw segmentation (H,W,2) -> body id per pixel (-1 = no geom)."""
        mj = mujoco_module()
        ids, types = seg[..., 0], seg[..., 1]
        out = np.full(ids.shape, -1, dtype=np.int64)
        geom = (types == mj.mjtObj.mjOBJ_GEOM) & (ids >= 0)
        out[geom] = self.world.model.geom_bodyid[ids[geom]]
        return out

    def segment(self, seg: np.ndarray) -> np.ndarray:
        """MuJoCo's raw segmentation -> node index per pixel (see node_ids; -1 = no node)."""
        return self.node_labels(self.bodies(seg))

    def node_labels(self, bodies: np.ndarray) -> np.ndarray:
        out = np.full(bodies.shape, -1, dtype=np.int64)
        hit = bodies >= 0
        out[hit] = self._node_of_body[bodies[hit]]
        return out

    def visible_nodes(self, camera: str = "head", min_pixels: int = 4) -> dict[str, int]:
        """Pixel count of every node seen by a camera (segmentation)."""
        seg = self.render([camera], segmentation=True)[f"{camera}_seg"]
        idx, counts = np.unique(seg[seg >= 0], return_counts=True)
        return {self.node_ids[i]: int(c) for i, c in zip(idx, counts, strict=True) if c >= min_pixels}

    def close(self) -> None:
        self.renderer.close()
