"""RGB-D to relations on a compiled indoor scene rendered by MuJoCo: the clouds' INSIDE/ON/OPEN
facts agree with the simulator's reconcile (closed and opened furniture), objects hidden in closed
containers are reported unobserved rather than guessed, and node boxes project onto the node's
own pixels (set-of-marks)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow
pytest.importorskip("open3d")
from robograph.errors import DependencyNotInstalled  # noqa: E402
from robograph_backends.mujoco_kitchen.deps import mujoco_module  # noqa: E402

try:
    mujoco_module()
except DependencyNotInstalled:
    pytest.skip("mujoco extra not installed", allow_module_level=True)

from robograph_backends.mujoco_kitchen.episodes import compile_baseline  # noqa: E402
from robograph_backends.mujoco_kitchen.perception import Perception, agreement, ground_truth, open_everything  # noqa: E402
from robograph_backends.mujoco_kitchen.sense import half_of, node_bodies  # noqa: E402
from robograph_backends.mujoco_kitchen.world import World  # noqa: E402
from robograph_calibration.marks import Box, marks_for, project_box  # noqa: E402


@pytest.fixture(scope="module")
def scene():
    inst = compile_baseline("Fridge-I1")
    world = World.build(inst.graph)
    perception = Perception(world)
    yield inst, world, perception
    perception.close()


def test_relations_from_clouds_agree_with_reconcile(scene) -> None:
    inst, world, perception = scene
    closed, rel = agreement(world, inst.graph, perception)
    truth_loc, truth_open = ground_truth(world, inst.graph)
    assert closed.observed >= 8 and closed.rate >= 0.95
    # what the cameras cannot see (inside the closed fridge) is unobserved, never invented
    hidden = [n for n in truth_loc if n not in rel.locations]
    assert hidden and closed.unobserved == len(hidden)
    assert all(not o for o in truth_open.values()) and rel.open == truth_open
    open_everything(world)
    opened, rel = agreement(world, inst.graph, perception)
    _, truth_open = ground_truth(world, inst.graph)
    assert any(truth_open.values()) and rel.open == truth_open
    assert opened.unobserved < closed.unobserved and opened.rate >= 0.95


def test_moving_an_object_behind_the_graphs_back_is_seen(scene) -> None:
    inst, world, perception = scene
    truth_before, _ = ground_truth(world, inst.graph)
    seen = agreement(world, inst.graph, perception)[1].locations
    node = next(n for n, loc in sorted(seen.items()) if loc[0] == "ON" and loc[1] == "dining_table")
    body = node_bodies(world)[node]
    region = world.plan.support_region("counter", "ON")
    assert region is not None and not region.inside
    top = world.to_world(region.body, np.asarray(region.center)) if region.body != "world" else np.asarray(region.center)
    world.set_free_pose(body, top + [0, 0, float(half_of(world, node)[2]) + 0.002])
    world.step(200)
    truth_after, _ = ground_truth(world, inst.graph)
    assert truth_after[node] != truth_before[node]
    assert agreement(world, inst.graph, perception)[1].locations.get(node) == truth_after[node]


def test_node_boxes_project_onto_their_pixels(scene) -> None:
    _, world, perception = scene
    view = perception.view("head")
    bodies = node_bodies(world)
    boxes = {n: Box(world.body_pos(bodies[n]), world.body_mat(bodies[n]), half_of(world, n))
             for n in perception.movable if n in world.plan.items}
    marks = marks_for(view.camera, boxes, {n: n.replace("_", " ") for n in boxes}, segmentation=view.labels,
                      seg_ids=perception.names)
    assert len(marks) >= 2
    for mark in marks:
        rows, cols = np.nonzero(view.labels == perception.names.index(mark.node))
        u0, v0, u1, v1 = project_box(view.camera, boxes[mark.node]).bbox
        inside = (cols + 0.5 >= u0 - 1) & (cols + 0.5 <= u1 + 1) & (rows + 0.5 >= v0 - 1) & (rows + 0.5 <= v1 + 1)
        assert inside.mean() > 0.97, mark.node
