"""Relations read from the backend's own frames (backend option `relations=true`): the depth of
one `render()` call's views back-projected through each frame's camera model, fused per node and
read with the reconcile's region predicates (`perception.CloudReader`, the same code the issue-11
perception figure uses), handed to the agent as data (`robograph.backend.Percept` on every frame).

So the agent side (robograph/) gets INSIDE/ON/IN_ROOM and OPEN from what the cameras saw without
importing a backend. Simulator help, named beside every figure that uses it: the segmentation
masks (a detector's on a real robot), the camera poses (TF on a robot), the static structure
(furniture regions, articulation kinematics) and the pose of a part no camera saw.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from robograph.backend import Frame, Percept
from robograph.graph import SceneGraph
from robograph_backends.mujoco_kitchen.perception import PART_PREFIX, CloudReader
from robograph_backends.mujoco_kitchen.world import World
from robograph_calibration.cloud import RGBDView


@contextmanager
def state_kept(world: World) -> Iterator[None]:
    """Restore the whole dynamic state afterwards: fitting a part poses joints kinematically
    (and zeroes their velocities), and reading must not change the physics that follows."""
    d = world.data
    saved = (d.qpos.copy(), d.qvel.copy(), d.act.copy(), d.qacc_warmstart.copy())
    try:
        yield
    finally:
        d.qpos[:], d.qvel[:], d.act[:], d.qacc_warmstart[:] = saved
        world.forward()


def percept(reader: CloudReader, graph: SceneGraph, frames: Sequence[Frame],
            bodies: Mapping[str, np.ndarray]) -> Percept:
    """The relations of every node the frames show enough of (fused over all of them).
    `bodies`: camera -> (H, W) MuJoCo body id per pixel, from the same render as `frames`."""
    views = [RGBDView(f.model, np.asarray(f.depth, dtype=np.float64), reader.labels_of_bodies(bodies[f.camera]))
             for f in frames if f.depth is not None and f.camera in bodies]
    movable = frozenset(reader.movable_in(graph))
    if not views:
        return Percept(movable=movable)
    with state_kept(reader.world):
        relations, clouds = reader.read(graph, views)
    boxes = {n: (_triple(c.centre), _triple(c.half)) for n, c in clouds.items() if not n.startswith(PART_PREFIX)}
    return Percept(dict(relations.locations), dict(relations.open), boxes, movable)


def _triple(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))
