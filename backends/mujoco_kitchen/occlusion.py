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
from dataclasses import dataclass

import numpy as np

from backends.mujoco_kitchen.deps import mujoco_module
from backends.mujoco_kitchen.world import World

COVER_FRACTION = 0.6  # a blocker covering more than this share of the target's visible surface hides it
VIEW_LIFT = 0.0  # torso lift of the viewpoint (m): the robot's neutral posture
FACE_GRID = 5  # sample points per face side
FACE_INSET = 0.85  # samples span this fraction of each face (edges graze neighbouring geometry)
SURFACE_OFFSET = 1e-3  # samples sit this far outside the target's faces (m)


@dataclass(frozen=True, slots=True)
class Surface:
    """Sample points (N, 3) on a target's camera-facing faces and their weights (N,), for one camera."""

    points: np.ndarray
    weights: np.ndarray


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
    pos, rot = world.body_pos(body), world.body_mat(body)
    ticks = np.linspace(-FACE_INSET, FACE_INSET, FACE_GRID)
    geoms = body_geoms(world, body)
    points, weights = [], []
    for axis in range(3):
        u, v = [k for k in range(3) if k != axis]
        for sign in (-1.0, 1.0):
            normal = sign * rot[:, axis]
            centre = pos + normal * half[axis]
            to_cam = cam - centre
            dist = float(np.linalg.norm(to_cam))
            cos = float(normal @ to_cam) / dist
            if cos <= 1e-3:
                continue  # the face looks away from the camera
            w = 4.0 * half[u] * half[v] * cos / dist**2 / FACE_GRID**2
            for a in ticks:
                for b in ticks:
                    p = centre + rot[:, u] * a * half[u] + rot[:, v] * b * half[v]
                    hit = _first_hit(world, geoms, cam, p)
                    if hit is not None:
                        points.append(hit)
                        weights.append(w)
    pts = np.array(points).reshape(-1, 3)
    wts = np.array(weights)
    keep = ~_hidden_by_static(world, cam, pts) if len(pts) else np.zeros(0, dtype=bool)
    return Surface(pts[keep], wts[keep])


def _first_hit(world: World, geoms: Sequence[int], cam: np.ndarray, toward: np.ndarray) -> np.ndarray | None:
    """Where the sight line from `cam` through `toward` first meets one of `geoms` (None: misses)."""
    mj = mujoco_module()
    m, d = world.model, world.data
    vec = toward - cam
    unit = vec / float(np.linalg.norm(vec))
    best = -1.0
    for g in geoms:
        hit = mj.mju_rayGeom(d.geom_xpos[g], d.geom_xmat[g], m.geom_size[g], cam, unit, int(m.geom_type[g]))
        if hit >= 0.0 and (best < 0.0 or hit < best):
            best = hit
    return None if best < 0.0 else cam + unit * (best - SURFACE_OFFSET)


def _hidden_by_static(world: World, cam: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Per point: does a static geom (welded to the world) lie on the sight line before it."""
    mj = mujoco_module()
    m, d = world.model, world.data
    hidden = np.zeros(len(points), dtype=bool)
    geomid = np.zeros(1, dtype=np.int32)
    for i, p in enumerate(points):
        vec = p - cam
        dist = float(np.linalg.norm(vec))
        hit = mj.mj_ray(m, d, cam, vec / dist, None, 1, -1, geomid)
        if 0.0 <= hit < dist - SURFACE_OFFSET and geomid[0] >= 0:
            hidden[i] = int(m.body_weldid[m.geom_bodyid[geomid[0]]]) == 0
    return hidden


def coverage(world: World, blocker_geoms: Sequence[int], cam: np.ndarray, target: Surface) -> float:
    """Share (0..1) of the target's visible surface weight whose sight line crosses a blocker geom."""
    total = float(target.weights.sum())
    if total <= 0.0:
        return 0.0
    mj = mujoco_module()
    m, d = world.model, world.data
    covered = 0.0
    for p, w in zip(target.points, target.weights, strict=True):
        vec = p - cam
        dist = float(np.linalg.norm(vec))
        unit = vec / dist
        for g in blocker_geoms:
            hit = mj.mju_rayGeom(d.geom_xpos[g], d.geom_xmat[g], m.geom_size[g], cam, unit, int(m.geom_type[g]))
            if 0.0 <= hit < dist:
                covered += float(w)
                break
    return covered / total


def body_geoms(world: World, body: str) -> list[int]:
    """Collision-or-visual primitive geoms of a body and its descendants (a vessel's walls, a lid)."""
    m = world.model
    sub = np.fromiter(world.subtree(body), dtype=int)
    mask = np.isin(m.geom_bodyid, sub) & np.isin(m.geom_type, _PRIMITIVES)
    return [int(g) for g in np.flatnonzero(mask)]


_PRIMITIVES = (2, 3, 4, 5, 6)  # sphere, capsule, ellipsoid, cylinder, box (mjtGeom)


def may_cover(cam: np.ndarray, blocker: np.ndarray, r_blocker: float, target: np.ndarray, r_target: float) -> bool:
    """Cheap pre-test: the blocker's bounding sphere comes near the sight line to the target's
    centre, between camera and target."""
    seg = target - cam
    length = float(np.linalg.norm(seg))
    along = float((blocker - cam) @ seg) / length
    if along <= 0.0 or along >= length:
        return False  # behind the camera, or its centre behind the target's
    perp = float(np.linalg.norm(blocker - cam - seg / length * along))
    return perp < r_blocker + r_target


def covered_pairs(world: World, cams: Mapping[str, np.ndarray], halves: Mapping[str, np.ndarray],
                  bodies: Mapping[str, str], blockers: Iterable[str],
                  unrelated: Mapping[str, frozenset[str]]) -> dict[tuple[str, str], float]:
    """(blocker, target) -> coverage for every pair whose coverage exceeds COVER_FRACTION.
    `cams`: target -> its viewpoint; `unrelated`: target -> nodes that cannot block it (its
    containers and contents: a bowl's walls around its contents are not an occlusion)."""
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
            share = coverage(world, body_geoms(world, bodies[b]), cam, surf)
            if share > COVER_FRACTION:
                out[(b, target)] = share
    return out
