"""Low-poly visual meshes (lowpoly.py): clustering keeps a mesh's shape and orientation with far
fewer triangles; the robot's collision meshes and inertias stay exactly as robosuite ships them."""

from __future__ import annotations

import numpy as np
import pytest

from robograph_backends.mujoco_kitchen.lowpoly import cluster, read_obj


def _box_surface(half: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A closed cube surface of side 2*half, each face an n x n grid, triangles wound outward."""
    verts: list[np.ndarray] = []
    faces: list[tuple[int, int, int]] = []
    g = np.linspace(-half, half, n + 1)
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = [a for a in range(3) if a != axis]
            base = len(verts)
            for i in range(n + 1):
                for j in range(n + 1):
                    p = np.zeros(3)
                    p[axis], p[u], p[v] = sign * half, g[i], g[j]
                    verts.append(p)
            for i in range(n):
                for j in range(n):
                    a, b, c, d = (base + i * (n + 1) + j, base + (i + 1) * (n + 1) + j,
                                  base + (i + 1) * (n + 1) + j + 1, base + i * (n + 1) + j + 1)
                    # u x v points along +axis for axes (0: y,z), (1: x,z -> -y), (2: x,y)
                    outward = sign * (1.0 if axis != 1 else -1.0) > 0
                    faces += [(a, b, c), (a, c, d)] if outward else [(a, c, b), (a, d, c)]
    return np.array(verts), np.array(faces)


def _volume(verts: np.ndarray, faces: np.ndarray) -> float:
    """Signed volume (positive when the triangles are wound outward)."""
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    return float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6.0)


def test_clustering_keeps_shape_and_winding_with_far_fewer_triangles() -> None:
    verts, faces = _box_surface(0.05, 50)  # 2 mm grid
    assert _volume(verts, faces) == pytest.approx(0.001, rel=1e-9)
    small_v, small_f = cluster(verts, faces, 0.01)
    assert len(small_f) * 10 < len(faces)
    assert _volume(small_v, small_f) == pytest.approx(0.001, rel=0.1)  # still wound outward
    assert np.all(np.abs(small_v) <= 0.05 + 1e-12)  # means of merged vertices stay inside
    assert np.abs(small_v).max(axis=0) == pytest.approx([0.05] * 3, abs=0.01)
    again_v, again_f = cluster(verts, faces, 0.01)  # deterministic
    assert np.array_equal(again_v, small_v) and np.array_equal(again_f, small_f)


def test_read_obj_fans_polygons_and_resolves_negative_indices(tmp_path) -> None:
    path = tmp_path / "quad.obj"
    path.write_text("mtllib x.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\n"
                    "f 1/1/1 2/2/1 3/3/1 4/4/1\nf -4 -2 -1\n")
    verts, faces = read_obj(str(path))
    assert verts.shape == (4, 3)
    assert faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 2, 3]]


@pytest.mark.slow
@pytest.mark.usefixtures("requires_mujoco")
def test_the_arm_keeps_its_collision_meshes_and_inertias() -> None:
    import os

    from robograph_backends.mujoco_kitchen.robot import _arm_with_gripper, _load_abs, robosuite_assets

    simplified = _arm_with_gripper().compile()
    raw = _load_abs(os.path.join(robosuite_assets(), "robots", "panda", "robot.xml")).compile()
    names = [raw.mesh(i).name for i in range(raw.nmesh)]
    fewer = 0
    for name in names:
        a, b = raw.mesh(name), simplified.mesh(name)
        if name.endswith("_vis") or "_vis_" in name:
            fewer += int(b.facenum[0] < a.facenum[0])
        else:  # collision meshes: the same vertices, the same triangles
            assert b.vertnum[0] == a.vertnum[0] and b.facenum[0] == a.facenum[0], name
    assert fewer >= 8
    for i in range(1, 8):
        body = f"link{i}"
        assert np.array_equal(simplified.body(body).mass, raw.body(body).mass)
        assert np.array_equal(simplified.body(body).inertia, raw.body(body).inertia)
