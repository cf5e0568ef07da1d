"""Occlusion geometry shared by the physical backends (pure numpy: no simulator).

How much of a target a blocker hides from a camera: points on the target's camera-facing faces
(a grid on each face of its box, weighted by the face's projected solid angle) are joined to the
camera, and the blocker covers the share of that weight whose sight line meets one of its
primitives first. Each backend only supplies its shapes (MuJoCo geoms, SAPIEN collision shapes)
as arrays; the sampling, the ray tests and the threshold live here once, so both backends call
an occlusion the same thing. The graph logic on top (OCCLUDES, `moved_aside`) is
`robograph_backends.reading.occlusion_rewrites`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COVER_FRACTION = 0.6  # share of a target's camera-facing surface weight a blocker must cover to
# hide it (OCCLUDES); above half, so two blockers never both hide one target by halves; set by hand
FACE_GRID = 5  # sample points per side of each camera-facing face (25 per face); set by hand
FACE_INSET = 0.85  # samples span this fraction of each face: points on the edges graze
# neighbouring geometry (the support under the target) and read as covered
SURFACE_OFFSET = 1e-3  # m samples sit outside the target's faces, so a ray to a sample does not
# hit the target itself


@dataclass(frozen=True, slots=True)
class Surface:
    """Sample points (N, 3) on a target's camera-facing faces and their weights (N,), for one camera."""

    points: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True, slots=True)
class Primitives:
    """Collision primitives in the world frame. Boxes: centres (M, 3), rotations (M, 3, 3) whose
    columns are the box axes, half extents (M, 3). Cylinders: centres (K, 3), unit axes (K, 3),
    radii (K,), half lengths (K,)."""

    box_centres: np.ndarray
    box_mats: np.ndarray
    box_halves: np.ndarray
    cyl_centres: np.ndarray
    cyl_axes: np.ndarray
    cyl_radii: np.ndarray
    cyl_halves: np.ndarray

    @classmethod
    def of(cls, boxes: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
           cylinders: list[tuple[np.ndarray, np.ndarray, float, float]]) -> Primitives:
        """From (centre, rotation, half) boxes and (centre, axis, radius, half length) cylinders."""
        return cls(np.asarray([b[0] for b in boxes], dtype=float).reshape(-1, 3),
                   np.asarray([b[1] for b in boxes], dtype=float).reshape(-1, 3, 3),
                   np.asarray([b[2] for b in boxes], dtype=float).reshape(-1, 3),
                   np.asarray([c[0] for c in cylinders], dtype=float).reshape(-1, 3),
                   np.asarray([c[1] for c in cylinders], dtype=float).reshape(-1, 3),
                   np.asarray([c[2] for c in cylinders], dtype=float).reshape(-1),
                   np.asarray([c[3] for c in cylinders], dtype=float).reshape(-1))

    def __len__(self) -> int:
        return len(self.box_centres) + len(self.cyl_centres)


def face_aims(pos: np.ndarray, rot: np.ndarray, half: np.ndarray, cam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Aim points (N, 3) on the camera-facing faces of a box (centre `pos`, axes the columns of
    `rot`, half extents `half`) and their weights (N,): the projected solid angle of each
    face's patch. Empty when no face looks at `cam`."""
    ticks = np.linspace(-FACE_INSET, FACE_INSET, FACE_GRID)
    grid_a, grid_b = (g.ravel() for g in np.meshgrid(ticks, ticks))
    aims, weights = [], []
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
            aims.append(centre + np.outer(grid_a * half[u], rot[:, u]) + np.outer(grid_b * half[v], rot[:, v]))
            weights.append(np.full(FACE_GRID**2, 4.0 * half[u] * half[v] * cos / dist**2 / FACE_GRID**2))
    if not aims:
        return np.zeros((0, 3)), np.zeros(0)
    return np.concatenate(aims), np.concatenate(weights)


def units(vec: np.ndarray) -> np.ndarray:
    """Each row of `vec` (N, 3) scaled to unit length."""
    return vec / np.linalg.norm(vec, axis=1)[:, None]


def slab_distances(cam: np.ndarray, unit: np.ndarray, centres: np.ndarray, mats: np.ndarray,
                   half: np.ndarray) -> np.ndarray:
    """Nearest entry distance (N,) of N rays from `cam` into M oriented boxes (inf: none hit)."""
    if len(centres) == 0:
        return np.full(len(unit), np.inf)
    origin = np.einsum("mji,mj->mi", mats, cam - centres)  # camera in each box's frame (M, 3)
    direction = np.einsum("mji,nj->nmi", mats, unit)  # (N, M, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (-half - origin) / direction
        t2 = (half - origin) / direction
    # a ray parallel to a slab: inside it never leaves, outside it never enters
    parallel = direction == 0.0
    inside = np.abs(origin) <= half
    near = np.where(parallel, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
    far = np.where(parallel, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
    enter, leave = near.max(axis=2), far.min(axis=2)  # (N, M)
    hit = leave >= np.maximum(enter, 0.0)
    return np.where(hit, np.maximum(enter, 0.0), np.inf).min(axis=1)


def cylinder_distances(cam: np.ndarray, unit: np.ndarray, centres: np.ndarray, axes: np.ndarray,
                       radii: np.ndarray, halves: np.ndarray) -> np.ndarray:
    """Nearest entry distance (N,) of N rays from `cam` into K closed cylinders (inf: none hit):
    the mantle (a quadratic in t, kept where the hit lies between the caps) and the two caps."""
    if len(centres) == 0:
        return np.full(len(unit), np.inf)
    p = cam - centres  # (K, 3)
    pa = np.einsum("kj,kj->k", p, axes)  # (K,)
    da = unit @ axes.T  # (N, K)
    pp = p - pa[:, None] * axes  # (K, 3)
    dp = unit[:, None, :] - da[..., None] * axes[None]  # (N, K, 3)
    a = np.einsum("nkj,nkj->nk", dp, dp)
    b = 2.0 * np.einsum("nkj,kj->nk", dp, pp)
    c = np.einsum("kj,kj->k", pp, pp) - radii**2
    disc = b * b - 4.0 * a * c
    best = np.full(da.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(np.where(disc >= 0.0, disc, np.nan))
        for t in ((-b - root) / (2.0 * a), (-b + root) / (2.0 * a)):
            ok = (t >= 0.0) & (np.abs(pa + t * da) <= halves)
            best = np.where(ok & (t < best), t, best)
        for sign in (-1.0, 1.0):
            t = (sign * halves - pa) / da
            q = pp[None] + t[..., None] * dp
            ok = (t >= 0.0) & (np.einsum("nkj,nkj->nk", q, q) <= radii**2)
            best = np.where(ok & (t < best), t, best)
    return best.min(axis=1)


def ray_distances(prims: Primitives, cam: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Distance (N,) along each unit sight line (N, 3) from `cam` to the nearest primitive (inf: none)."""
    if len(unit) == 0:
        return np.zeros(0)
    return np.minimum(slab_distances(cam, unit, prims.box_centres, prims.box_mats, prims.box_halves),
                      cylinder_distances(cam, unit, prims.cyl_centres, prims.cyl_axes, prims.cyl_radii,
                                         prims.cyl_halves))


def surface(own: Primitives, pos: np.ndarray, rot: np.ndarray, half: np.ndarray, cam: np.ndarray,
            static: Primitives | None = None) -> Surface:
    """Points of a body's own surface (its primitives `own`, inside the box `pos`, `rot`, `half`)
    that face `cam`, minus those `static` hides: the face grid's sight lines are followed to where
    they first meet the body (a cylinder or an open box fills less than its box: sight lines
    that miss it are dropped)."""
    aims, weights = face_aims(pos, rot, half, cam)
    if len(aims) == 0:
        return Surface(np.zeros((0, 3)), np.zeros(0))
    unit = units(aims - cam)
    hit = ray_distances(own, cam, unit)
    seen = np.isfinite(hit)
    points = cam + unit[seen] * (hit[seen] - SURFACE_OFFSET)[:, None]
    wts = weights[seen]
    if static is None or len(static) == 0:
        return Surface(points, wts)
    blocked = ray_distances(static, cam, unit[seen]) < hit[seen] - 2 * SURFACE_OFFSET
    return Surface(points[~blocked], wts[~blocked])


def coverage(blocker: Primitives, cam: np.ndarray, target: Surface, shield: Primitives | None = None) -> float:
    """Share (0..1) of the target's visible surface weight whose sight line crosses the blocker.
    `shield`: panels around the blocker (the walls of a closed drawer it lies in): a sight line
    that meets one of them before the blocker is the panel's, not the blocker's."""
    total = float(target.weights.sum())
    if total <= 0.0:
        return 0.0
    vec = target.points - cam
    dist = np.linalg.norm(vec, axis=1)
    unit = vec / dist[:, None]
    hit = ray_distances(blocker, cam, unit)
    covered = hit < dist
    if shield is not None and len(shield):
        covered &= ray_distances(shield, cam, unit) > hit
    return float(target.weights[covered].sum()) / total


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
