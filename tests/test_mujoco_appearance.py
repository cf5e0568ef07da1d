"""MuJoCo kitchen views: dressed objects (category shapes and name labels, visual-only) change no
physics and keep their node's segmentation label; the head and side cameras turn to their gaze
points for a picture and return to their mounts (real MuJoCo, real rendering)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]


def _worlds():
    from robograph_backends.mujoco_kitchen.samples import food_packing
    from robograph_backends.mujoco_kitchen.world import World

    graph = food_packing().graph
    return World.build(graph, dress=False), World.build(graph, dress=True)


def test_dressing_adds_visual_only_parts_and_changes_no_physics():
    from robograph_backends.mujoco_kitchen.dress import HIDDEN_GROUP, VISUAL_GROUP, collision_geoms

    plain, dressed = _worlds()
    m = dressed.model
    parts = np.flatnonzero(np.asarray(m.geom_group) == VISUAL_GROUP)
    assert len(parts) > 0 and m.ngeom == plain.model.ngeom + len(parts)
    assert not np.any(m.geom_contype[parts]) and not np.any(m.geom_conaffinity[parts])
    assert m.ntex > plain.model.ntex  # the labels
    for node, item in dressed.plan.items.items():
        bid = dressed.body_id(item.body)
        own = collision_geoms(m, bid)
        # the collision geoms are those of the plain world, first in the body, as they were
        assert own == list(range(int(m.body_geomadr[bid]), int(m.body_geomadr[bid]) + len(own))), node
        pid = plain.body_id(item.body)
        np.testing.assert_array_equal(m.geom_size[own], plain.model.geom_size[collision_geoms(plain.model, pid)])
        assert m.body_mass[bid] == plain.model.body_mass[pid]
        if not item.hollow:  # a solid item's parts stand in for its collision shape in the cameras
            assert all(int(m.geom_group[g]) == HIDDEN_GROUP for g in own), node
    for w in (plain, dressed):  # the robot drives into the counter's reach: contacts and motion
        w.set_qpos("base_x", w.qpos("base_x") + 0.3)
        w.hold_ctrl()
        w.step(400)
    np.testing.assert_array_equal(plain.data.qpos, dressed.data.qpos)
    np.testing.assert_array_equal(plain.data.qvel, dressed.data.qvel)


def test_segmentation_labels_the_parts_with_their_node_and_the_head_faces_the_work():
    from robograph_backends.mujoco_kitchen.backend import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.gaze import work_furniture
    from robograph_backends.mujoco_kitchen.robot import CAMERA_NAMES
    from robograph_backends.mujoco_kitchen.samples import food_packing

    be = MujocoKitchenBackend(segmentation=True)
    try:
        be.reset(food_packing().graph, seed=0)
        w = be.world
        x, y, _ = w.plan.stations["kitchen_counter"]
        w.set_qpos("base_x", x)
        w.set_qpos("base_y", y)
        w.hold_ctrl()
        w.step(50)
        cid = w.model.camera(CAMERA_NAMES["head"]).id
        mount = (w.model.cam_quat[cid].copy(), float(w.model.cam_fovy[cid]))
        frames = {f.camera: f for f in be.render()}
        head = frames["head"]
        # every part pixel is labelled with its node: the products on the counter are seen
        seen = {head.labels[i] for i in np.unique(head.segmentation[head.segmentation >= 0])}
        assert {"sandwich", "apple", "lunch_box"} <= seen
        # the picture was taken aimed at the counter (its centre near the image's centre column),
        # and the frame's camera model is the aimed one
        assert work_furniture(w) == "kitchen_counter"
        top = w.body_pos(w.plan.node_body["kitchen_counter"])
        uv, _ = head.model.project(np.array([[top[0] + 0.3, y, 0.9]]))
        assert abs(float(uv[0, 0]) - 160) < 60
        assert head.model.fovy_deg < mount[1]
        # ... and the mount is restored afterwards (other readers see the fixed mount)
        np.testing.assert_array_equal(w.model.cam_quat[cid], mount[0])
        assert float(w.model.cam_fovy[cid]) == mount[1]
        # the aimed camera model projects a product onto its own pixels
        k = head.labels.index("lunch_box")
        centre = w.body_pos(w.plan.node_body["lunch_box"])
        uv, _ = head.model.project(centre[None])
        rows, cols = np.nonzero(head.segmentation == k)
        assert np.min(np.hypot(cols + 0.5 - uv[0, 0], rows + 0.5 - uv[0, 1])) < 3.0
    finally:
        be.close()


def test_fixed_mounts_and_plain_objects_remain_options():
    from robograph.registry import BackendOptionError
    from robograph_backends.mujoco_kitchen.backend import MujocoKitchenBackend

    with pytest.raises(BackendOptionError, match="gaze"):
        MujocoKitchenBackend(gaze="yes")
    with pytest.raises(BackendOptionError, match="dress"):
        MujocoKitchenBackend(dress=1)
