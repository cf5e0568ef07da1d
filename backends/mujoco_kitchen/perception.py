"""RGB-D perception of the kitchen world through `calibration/`: depth and segmentation rendered
from the robot's cameras at every station, fused into per-object clouds, read back as
INSIDE/ON/IN_ROOM/OPEN facts and compared with the simulator's own reconcile (`sense.read`).

What the simulator gives besides pixels (named beside every figure): the cameras' poses (a real
robot gets them from TF + the rig's hand-eye mount), the segmentation masks (a detector's on a real
robot), the static structure (furniture regions, articulation kinematics, from the scene model).
Object positions and extents and the parts' opening come from the clouds only.

Own `mujoco.Renderer` (not the backend's camera code), so it reads the world without changing how
the backend renders.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from robograph.graph import FURNITURE, ROOM, SceneGraph
from robograph.rewrite import DETACHED, HELD
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.dress import geom_groups
from robograph_backends.mujoco_kitchen.placement import contains, local, supports
from robograph_backends.mujoco_kitchen.plan import Region
from robograph_backends.mujoco_kitchen.robot import CAMERA_NAMES
from robograph_backends.mujoco_kitchen.sense import node_bodies, read
from robograph_backends.mujoco_kitchen.world import World
from robograph_backends.reading import TOL
from robograph_calibration.camera import CameraModel
from robograph_calibration.cloud import ObjectCloud, RGBDView, fuse
from robograph_calibration.relations import Agreement, Relations, compare, infer_relations, openings
from robograph_calibration.transforms import make_T, rotvec_to_R

PART_PREFIX = "part:"
VIEW_CAMERAS = ("head", "left", "right")
PART_TOL = 0.012  # a point within this of a part's geometry counts as explained by it (m)
OPEN_STEPS = 11  # opening fractions tried when fitting a part to its points


@dataclass(frozen=True, slots=True, eq=False)
class WorldRegion:
    """`robograph_calibration.relations.SupportRegion` over a plan region, with the reconcile's predicates."""

    world: World
    region: Region
    node: str

    @property
    def inside(self) -> bool:
        return self.region.inside

    @property
    def volume(self) -> float:
        return self.region.half[0] * self.region.half[1] * self.region.height

    def contains(self, centre: np.ndarray, half_z: float) -> bool:
        return contains(self.world, self.region, centre, half_z)

    def supports(self, centre: np.ndarray, half_z: float) -> bool:
        return supports(self.world, self.region, centre, half_z)

    def floor_gap(self, centre: np.ndarray, half_z: float) -> float | None:
        p = local(self.world, self.region, centre)
        if abs(p[0]) > self.region.half[0] + TOL or abs(p[1]) > self.region.half[1] + TOL:
            return None
        return float(p[2] - half_z)


class WorldPart:
    """`robograph_calibration.relations.PartModel` for an articulated node: the opening whose geometry
    (the part's visible geoms posed by the articulation kinematics) explains most of the points."""

    def __init__(self, world: World, node: str) -> None:
        self.world, self.node = world, node
        self.arts = world.plan.articulations[node]
        m = world.model
        bodies = set().union(*(world.subtree(a.body) for a in self.arts))
        self.geoms = [g for g in range(m.ngeom) if int(m.geom_bodyid[g]) in bodies and int(m.geom_group[g]) != 0]

    def _inliers(self, points: np.ndarray) -> int:
        m, d = self.world.model, self.world.data
        hit = np.zeros(len(points), dtype=bool)
        for g in self.geoms:
            centre = d.geom_xpos[g] + d.geom_xmat[g].reshape(3, 3) @ m.geom_aabb[g, :3]
            p = (points - centre) @ d.geom_xmat[g].reshape(3, 3)
            hit |= np.all(np.abs(p) <= m.geom_aabb[g, 3:] + PART_TOL, axis=1)
        return int(hit.sum())

    def open_fraction(self, points: np.ndarray) -> float:
        w = self.world
        saved = {a.joint: w.qpos(a.joint) for a in self.arts}
        scores = []
        try:
            for f in np.linspace(0.0, 1.0, OPEN_STEPS):
                for a in self.arts:
                    w.set_qpos(a.joint, a.closed + f * (a.open - a.closed))
                w.forward()
                scores.append(self._inliers(points))
        finally:
            for joint, q in saved.items():
                w.set_qpos(joint, q)
            w.forward()
        best = np.flatnonzero(np.asarray(scores) == max(scores))
        return float(np.mean(best)) / (OPEN_STEPS - 1)


class CloudReader:
    """Relations from labelled RGB-D views of a world, without a renderer of its own: the label
    scheme (movable objects, then articulated parts), the regions and the part models. The
    backend's own frames (`relations=true`) and `Perception`'s survey views both go through it."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.refresh_labels()

    def refresh_labels(self) -> None:
        """body -> label: movable objects, then articulated parts (their moving bodies)."""
        w = self.world
        bodies = node_bodies(w)
        self.movable = sorted(n for n in bodies if n in w.graph0.nodes or n in w.spare_of)
        arts = sorted(n for n in w.plan.articulations if n in w.graph0.nodes)
        self.names = self.movable + [PART_PREFIX + n for n in arts]
        table = np.full(w.model.nbody, -1, dtype=np.int64)
        for k, node in enumerate(self.movable):
            for b in w.subtree(bodies[node]):
                table[b] = k
        for k, node in enumerate(arts, start=len(self.movable)):
            for a in w.plan.articulations[node]:
                for b in w.subtree(a.body):
                    table[b] = k
        self._label_of_body = table
        self.parts = [WorldPart(w, n) for n in arts]

    def labels_of_bodies(self, bodies: np.ndarray) -> np.ndarray:
        """Per-pixel body ids (-1 = none) -> this reader's labels (index into `names`, -1 = none)."""
        bodies = np.asarray(bodies)
        out = np.full(bodies.shape, -1, dtype=np.int64)
        hit = bodies >= 0
        out[hit] = self._label_of_body[bodies[hit]]
        return out

    def room_at(self, centre: np.ndarray) -> str | None:
        return self.world.plan.room_at(float(centre[0]), float(centre[1]))

    def regions(self, graph: SceneGraph) -> list[WorldRegion]:
        """The reconcile's candidate regions: container interiors, then support surfaces."""
        plan = self.world.plan
        out = [WorldRegion(self.world, r, n) for n, r in sorted(plan.regions.items()) if r.inside and n in graph.nodes]
        for n in sorted(set(plan.regions) | set(plan.tops)):
            r = plan.support_region(n, "ON")
            if n in graph.nodes and r is not None and not r.inside:
                out.append(WorldRegion(self.world, r, n))
        return out

    @contextmanager
    def articulations_at(self, fractions: dict[str, float]) -> Iterator[None]:
        """Pose the articulated parts (kinematics only) at the perceived openings, so drawer and
        door regions sit where the clouds say, not where the simulator has them; then back."""
        w = self.world
        arts = [a for n, f in fractions.items() for a in w.plan.articulations[n]]
        saved = {a.joint: w.qpos(a.joint) for a in arts}
        try:
            for n, f in fractions.items():
                for a in w.plan.articulations[n]:
                    w.set_qpos(a.joint, a.closed + f * (a.open - a.closed))
            w.forward()
            yield
        finally:
            for joint, q in saved.items():
                w.set_qpos(joint, q)
            w.forward()

    def movable_in(self, graph: SceneGraph) -> list[str]:
        """The nodes whose location the clouds decide (objects of `graph` with a body)."""
        return [n for n in self.movable if graph.nodes.get(n) is not None
                and graph.nodes[n].kind not in (FURNITURE, ROOM)]

    def relations(self, graph: SceneGraph, views: Sequence[RGBDView]) -> Relations:
        """Facts from the clouds. Parts first: their perceived opening poses the regions inside
        them; a part no camera saw keeps the simulator's pose (named in the docs as help)."""
        return self.read(graph, views)[0]

    def read(self, graph: SceneGraph, views: Sequence[RGBDView]) -> tuple[Relations, dict[str, ObjectCloud]]:
        """`relations` and the fused clouds they came from (keyed by `names`; parts prefixed)."""
        clouds = fuse(views, self.names)
        parts = {p.node: clouds[PART_PREFIX + p.node] for p in self.parts if PART_PREFIX + p.node in clouds}
        movable = self.movable_in(graph)
        fractions = openings(self.parts, parts)
        with self.articulations_at(fractions):
            return infer_relations(clouds, movable, self.regions(graph), self.room_at, fractions), clouds


class Perception(CloudReader):
    """Renders labelled depth from the robot's cameras and reads relations from the clouds."""

    def __init__(self, world: World, width: int = 320, height: int = 240, *, depth_noise: float = 0.0,
                 pose_error: tuple[float, float] = (0.0, 0.0), seed: int = 0) -> None:
        """`depth_noise` k: depth gets Gaussian noise of std k * z^2 (a stereo/structured-light
        sensor's law; k = 0.005 is 5 mm at 1 m). `pose_error` (metres, degrees): every view's camera
        pose is off by a random rotation and translation of these sizes (a calibration error)."""
        mj = mujoco_module()
        super().__init__(world)
        self.width, self.height = width, height
        self.depth_noise, self.pose_error = depth_noise, pose_error
        self.rng = np.random.default_rng(seed)
        self.renderer = mj.Renderer(world.model, height, width)
        self.renderer.scene.flags[mj.mjtRndFlag.mjRND_SHADOW] = 0
        opt = mj.MjvOption()
        opt.geomgroup[:] = geom_groups()  # what the cameras show (render.py): dressed objects' parts
        opt.sitegroup[:] = 0
        self.option = opt

    def camera(self, name: str) -> CameraModel:
        w = self.world
        cid = w.model.camera(CAMERA_NAMES[name]).id
        return CameraModel.from_convention(self.width, self.height, float(w.model.cam_fovy[cid]), w.data.cam_xpos[cid],
                                           w.data.cam_xmat[cid].reshape(3, 3), "mujoco")

    def view(self, name: str) -> RGBDView:
        mj = mujoco_module()
        r = self.renderer
        r.enable_depth_rendering()
        r.update_scene(self.world.data, camera=CAMERA_NAMES[name], scene_option=self.option)
        depth = r.render().astype(np.float64)
        r.disable_depth_rendering()
        r.enable_segmentation_rendering()
        r.update_scene(self.world.data, camera=CAMERA_NAMES[name], scene_option=self.option)
        seg = r.render()
        r.disable_segmentation_rendering()
        ids, types = seg[..., 0], seg[..., 1]
        bodies = np.full(ids.shape, -1, dtype=np.int64)
        geom = (types == mj.mjtObj.mjOBJ_GEOM) & (ids >= 0)
        bodies[geom] = self.world.model.geom_bodyid[ids[geom]]
        labels = self.labels_of_bodies(bodies)
        camera = self.camera(name)
        if self.depth_noise:
            depth = depth + self.rng.normal(0.0, 1.0, depth.shape) * self.depth_noise * depth ** 2
        if any(self.pose_error):
            t_err, r_err = self.pose_error
            axis, direction = self.rng.normal(size=3), self.rng.normal(size=3)
            off = make_T(rotvec_to_R(axis / np.linalg.norm(axis) * np.radians(r_err)),
                         direction / np.linalg.norm(direction) * t_err)
            camera = camera.with_pose(camera.T_world_cam @ off)
        return RGBDView(camera, depth, labels)

    @contextmanager
    def base_at(self, x: float, y: float, yaw: float) -> Iterator[None]:
        """Put the robot's base (kinematics only, no physics step) at a pose, then back."""
        w = self.world
        saved = (w.qpos("base_x"), w.qpos("base_y"), w.qpos("base_yaw"))
        try:
            for j, v in zip(("base_x", "base_y", "base_yaw"), (x, y, yaw), strict=True):
                w.set_qpos(j, v)
            w.forward()
            yield
        finally:
            for j, v in zip(("base_x", "base_y", "base_yaw"), saved, strict=True):
                w.set_qpos(j, v)
            w.forward()

    def survey(self, cameras: Sequence[str] = VIEW_CAMERAS) -> list[RGBDView]:
        """Views from every station (the robot looks at each piece of furniture in turn)."""
        views = []
        for station in sorted(self.world.plan.stations):
            x, y, yaw = self.world.plan.stations[station]
            with self.base_at(x, y, yaw):
                views += [self.view(c) for c in cameras]
        return views

    def close(self) -> None:
        self.renderer.close()


def ground_truth(world: World, graph: SceneGraph) -> tuple[dict[str, tuple[str, str]], dict[str, bool]]:
    """The simulator's reconcile of the same state: locations (held and detached left out: not
    a relation a cloud can show) and open attributes."""
    reading = read(world, graph)
    locations = {n: loc for n, loc in reading.locations.items() if loc[0] not in (HELD, DETACHED)}
    opened = {n: bool(v) for (n, key), v in reading.attrs.items() if key == "open"}
    return locations, opened


def agreement(world: World, graph: SceneGraph, perception: Perception) -> tuple[Agreement, Relations]:
    views = perception.survey()
    perceived = perception.relations(graph, views)
    truth_loc, truth_open = ground_truth(world, graph)
    return compare(truth_loc, truth_open, perceived), perceived


def open_everything(world: World, steps: int = 600) -> None:
    """Drive every articulation open (servos, real physics: contents ride along or stay), so
    a second state with visible interiors and OPEN facts can be read."""
    for arts in world.plan.articulations.values():
        for a in arts:
            world.drive_joint(a.joint, a.open)
    world.step(steps)
    for arts in world.plan.articulations.values():
        for a in arts:
            world.release_joint(a.joint)
