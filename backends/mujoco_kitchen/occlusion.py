"""Occlusion measured from the head camera: which blockers cover which targets as the camera sees them.

Viewpoint: the head camera (torso lift 0) of the robot standing at its work pose (`plan.stations`)
in front of the target's furniture, not wherever the robot happens to be. An OCCLUDES fact is
about the scene, and the robot looks at a piece of furniture's contents from that pose; measuring
from the current pose would make the graph change every time the robot walks.

Coverage of a target by a blocker: points on the target's camera-facing faces (a grid on each
face of its box, weighted by the face's projected solid angle) are joined to the camera; the
blocker covers the fraction of that weight whose sight line passes through one of the blocker's
geoms. Points the static kitchen (carcasses, shelves, walls) hides are left out, so a shelf roof
over a target does not count against or for any blocker; articulated parts (doors, lids, drawer
fronts) are not static and hide nothing here, so occlusion inside a closed fridge is measured as
it will be seen when the door opens. The robot is ignored (it stands elsewhere or is in the way
only transiently).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from robograph_backends.coverage import (
    COVER_FRACTION,
    SURFACE_OFFSET,
    Surface,
    face_aims,
    may_cover,
    slab_distances,
)
from robograph_backends.coverage import units as _units
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.dress import is_part
from robograph_backends.mujoco_kitchen.tuning import VIEW_LIFT
from robograph_backends.mujoco_kitchen.world import World


def head_camera_offset(world: World) -> np.ndarray:
    """Head camera position in the base frame at torso lift VIEW_LIFT (m, shape (3,)), from the
    model's body and camera offsets (the same numbers the robot was built with)."""
    m = world.model
    torso = np.asarray(m.body("torso").pos)
    head = np.asarray(m.body("head").pos)
    cam = np.asarray(m.cam("head_cam").pos)
    return torso + head + cam + np.array([0.0, 0.0, VIEW_LIFT])


def viewpoint(world: World, station: tuple[float, float, float], y: float) -> np.ndarray:
    """World position of the head camera with the base on the furniture's station line
    (`station` = (x, y, yaw); the station's own y is replaced by `y`, the target's: the robot
    works straight in front of what it handles)."""
    x, _, yaw = station
    off = head_camera_offset(world)
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([x + c * off[0] - s * off[1], y + s * off[0] + c * off[1], off[2]])


def surface(world: World, body: str, half: np.ndarray, cam: np.ndarray) -> Surface:
    """Points of a body's own surface that face `cam`, minus those the static kitchen hides.

    A grid on each camera-facing face of the body's box (half extents `half`, in its frame)
    gives the sight lines; each is followed to where it first meets one of the body's geoms (a
    sphere or a bowl fills less than its box: sight lines that miss it are dropped). Weights are
    the projected solid angle of each face's patch."""
    aims, weights = face_aims(world.body_pos(body), world.body_mat(body), half, cam)
    if len(aims) == 0:
        return Surface(np.zeros((0, 3)), np.zeros(0))
    unit = _units(aims - cam)
    hit = ray_distances(world, body_geoms(world, body), cam, unit)
    seen = np.isfinite(hit)
    points = cam + unit[seen] * (hit[seen] - SURFACE_OFFSET)[:, None]
    wts = weights[seen]
    static = _static_boxes(world)
    blocked = ray_distances(world, static, cam, unit[seen]) < hit[seen] - 2 * SURFACE_OFFSET
    return Surface(points[~blocked], wts[~blocked])


def coverage(world: World, blocker_geoms: Sequence[int], cam: np.ndarray, target: Surface) -> float:
    """Share (0..1) of the target's visible surface weight whose sight line crosses a blocker geom."""
    total = float(target.weights.sum())
    if total <= 0.0:
        return 0.0
    vec = target.points - cam
    dist = np.linalg.norm(vec, axis=1)
    covered = ray_distances(world, blocker_geoms, cam, vec / dist[:, None]) < dist
    return float(target.weights[covered].sum()) / total


def ray_distances(world: World, geoms: Sequence[int], cam: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Distance (N,) along each unit sight line (N, 3) from `cam` to the nearest of `geoms`
    (inf: misses them all). Boxes in one vectorised slab test, other primitives one by one."""
    m, d = world.model, world.data
    out = np.full(len(unit), np.inf)
    geoms = np.asarray(geoms, dtype=int)
    if len(unit) == 0 or len(geoms) == 0:
        return out
    is_box = np.asarray(m.geom_type)[geoms] == _BOX
    boxes = geoms[is_box]
    if len(boxes):
        out = np.minimum(out, slab_distances(cam, unit, np.asarray(d.geom_xpos)[boxes],
                                              np.asarray(d.geom_xmat)[boxes].reshape(-1, 3, 3),
                                              np.asarray(m.geom_size)[boxes]))
    mj = mujoco_module()
    for g in geoms[~is_box]:
        for i, u in enumerate(unit):
            hit = mj.mju_rayGeom(d.geom_xpos[g], d.geom_xmat[g], m.geom_size[g], cam, u, int(m.geom_type[g]))
            if 0.0 <= hit < out[i]:
                out[i] = hit
    return out


def _static_boxes(world: World) -> np.ndarray:
    """Box geoms of bodies welded to the world: the kitchen's carcasses, shelves and walls."""
    m = world.model
    return np.flatnonzero((np.asarray(m.body_weldid)[np.asarray(m.geom_bodyid)] == 0)
                          & (np.asarray(m.geom_type) == _BOX))


def body_geoms(world: World, body: str, *, moving_parts: bool = True) -> list[int]:
    """Primitive collision geoms of a body and its descendants (a vessel's walls, its lid). Without
    `moving_parts`, descendants on a joint of their own (a lid, a cover) and what hangs on them
    are left out: the rigid body alone."""
    m = world.model
    sub = world.subtree(body)
    if not moving_parts:
        root = world.body_id(body)
        hinged: set[int] = set()
        for b in sorted(sub):  # parents come before their children
            if b != root and (int(m.body_jntnum[b]) > 0 or int(m.body_parentid[b]) in hinged):
                hinged.add(b)
        sub -= hinged
    mask = np.isin(m.geom_bodyid, np.fromiter(sub, dtype=int)) & np.isin(m.geom_type, _PRIMITIVES)
    # measured on the collision shapes: a dressed object's visual parts (dress.py) lie inside them
    return [int(g) for g in np.flatnonzero(mask) if not is_part(m, int(g))]


_PRIMITIVES = (2, 3, 4, 5, 6)  # sphere, capsule, ellipsoid, cylinder, box (mjtGeom)
_BOX = 6


def covered_pairs(world: World, cams: Mapping[str, np.ndarray], halves: Mapping[str, np.ndarray],
                  bodies: Mapping[str, str], blockers: Iterable[str],
                  unrelated: Mapping[str, frozenset[str]],
                  with_parts: frozenset[tuple[str, str]] = frozenset()) -> dict[tuple[str, str], float]:
    """(blocker, target) -> coverage for every pair whose coverage exceeds COVER_FRACTION.
    `cams`: target -> its viewpoint; `unrelated`: target -> nodes that cannot block it (its
    containers and contents: a bowl's walls around its contents are not an occlusion). A
    blocker's moving parts (an open lid) count only for the pairs in `with_parts` (the scene's
    attribute-conditioned edges, "occludes when open"): elsewhere a lid raised for a moment is
    not an occlusion the graph has a fact for."""
    out: dict[tuple[str, str], float] = {}
    blockers = sorted(blockers)
    for target, cam in sorted(cams.items()):
        tpos = world.body_pos(bodies[target])
        t_r = float(np.linalg.norm(halves[target]))
        near = [b for b in blockers if b != target and b not in unrelated.get(target, frozenset())
                and may_cover(cam, world.body_pos(bodies[b]), float(np.linalg.norm(halves[b])), tpos, t_r)]
        if not near:
            continue
        surf = surface(world, bodies[target], halves[target], cam)
        for b in near:
            geoms = body_geoms(world, bodies[b], moving_parts=(b, target) in with_parts)
            share = coverage(world, geoms, cam, surf)
            if share > COVER_FRACTION:
                out[(b, target)] = share
    return out
