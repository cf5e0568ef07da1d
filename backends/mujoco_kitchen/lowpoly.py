"""Low-poly visual meshes for the robot's arms: vertex clustering of robosuite's Panda OBJ meshes.

Why: the two Pandas' visual meshes are ~200k of the ~270k triangles the cameras draw, and
llvmpipe's cost grows with the triangle count (docs/PLATFORM: 14-25 FPS at full detail, 39-52
with decimated meshes). At 320x240 a 5 mm cell is below a pixel for everything but a hand right
in front of a camera. Only visual meshes (robosuite's `*_vis` OBJ files) change: the collision
meshes (STL) and every inertia are untouched, so the physics is the same bit for bit.

Vertex clustering (Rossignac-Borrel): vertices are merged per cubic cell of the mesh's own
frame (their mean), triangles that collapse or repeat are dropped. Deterministic, pure numpy,
no extra dependency, milliseconds per mesh.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

CELL = 0.005  # m: edge of the clustering cell; set by hand (the arms look the same at 320x240)


def read_obj(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (N,3) and triangles (M,3, 0-based) of a Wavefront OBJ file; polygons are fanned."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    verts = np.array(" ".join(ln[2:] for ln in lines if ln.startswith("v ")).split(), dtype=float).reshape(-1, 3)
    polys = [ln.split()[1:] for ln in lines if ln.startswith("f ")]
    faces: list[list[int]] = []
    for poly in polys:
        idx = [int(tok.split("/", 1)[0]) for tok in poly]
        idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
        faces.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
    return verts, np.array(faces, dtype=np.int64).reshape(-1, 3)


@lru_cache(maxsize=64)
def clustered_obj(path: str, cell: float = CELL) -> tuple[np.ndarray, np.ndarray]:
    """`cluster(read_obj(path))`, read-only arrays, remembered per file: every world and IK
    model built in a process uses the same two arms (parsing their ~600k OBJ lines took ~1 s)."""
    verts, faces = cluster(*read_obj(path), cell)
    verts.setflags(write=False)
    faces.setflags(write=False)
    return verts, faces


def cluster(verts: np.ndarray, faces: np.ndarray, cell: float = CELL) -> tuple[np.ndarray, np.ndarray]:
    """The mesh with its vertices merged per `cell`-sized cube (m) and the triangles that
    collapsed or duplicate another dropped; the kept triangles keep their winding."""
    keys = np.floor(verts / cell).astype(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(first)  # cells numbered in the order their first vertex appears
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    inverse = rank[inverse]
    counts = np.bincount(inverse, minlength=len(order)).astype(float)
    merged = np.zeros((len(order), 3))
    np.add.at(merged, inverse, verts)
    merged /= counts[:, None]
    tri = inverse[faces]
    keep = (tri[:, 0] != tri[:, 1]) & (tri[:, 1] != tri[:, 2]) & (tri[:, 0] != tri[:, 2])
    tri = tri[keep]
    _, unique = np.unique(np.sort(tri, axis=1), axis=0, return_index=True)
    return merged, tri[np.sort(unique)]


def simplify_visual_meshes(spec: Any, cell: float = CELL) -> None:
    """Replace every OBJ-file mesh of `spec` (robosuite's visual meshes) by its clustered
    version given as vertex data."""
    for mesh in spec.meshes:
        if not mesh.file.lower().endswith(".obj"):
            continue
        small_v, small_f = clustered_obj(mesh.file, cell)
        if len(small_f) < 4:  # too small to cluster (a screw head): keep it as it is
            continue
        mesh.file = ""
        mesh.uservert = small_v.reshape(-1).tolist()
        mesh.userface = small_f.reshape(-1).tolist()
