"""SAPIEN tabletop foundations: the Vulkan probe's typed error, the pure layout, and a real
headless build + render of a compiled tabletop scene."""

from __future__ import annotations

import json
import os
from functools import lru_cache

import numpy as np
import pytest

from backends.sapien_tabletop.errors import UnsupportedScene, VulkanUnavailable
from backends.sapien_tabletop.layout import solve
from robograph.compiler.assets import load_assets
from robograph.compiler.benchmark import compile_entry
from robograph.graph import INSIDE, ON
from robograph.gym_env import demo_instance_path
from robograph.instance import TaskInstance, load_instance


@lru_cache(maxsize=4)
def _scene(scene_id: str) -> TaskInstance:
    assets = load_assets()
    entry = next(e for e in assets.scenes if e.id == scene_id)
    return TaskInstance.from_json(json.loads(compile_entry(assets, entry).files["baseline"]))


def test_missing_vulkan_device_is_a_typed_error_naming_the_fix():
    pytest.importorskip("sapien")
    from backends.sapien_tabletop.deps import probe_vulkan

    env = dict(os.environ, VK_ICD_FILENAMES="/nonexistent/icd.json", VK_DRIVER_FILES="/nonexistent/icd.json")
    with pytest.raises(VulkanUnavailable) as err:
        probe_vulkan(env)
    assert "bookworm-backports" in str(err.value) and "mesa-vulkan-drivers" in str(err.value)


def test_unknown_categories_are_refused_by_name():
    graph = load_instance(demo_instance_path()).graph  # the demo desk uses categories not in the catalog
    with pytest.raises(UnsupportedScene) as err:
        solve(graph)
    assert "cabinet" in str(err.value) and "drawer_tier" in str(err.value)


@pytest.mark.parametrize("scene_id", ["Dining-3", "Fridge-T1"])
def test_layout_puts_children_in_or_on_their_parent(scene_id):
    """INSIDE: the child's box lies within its parent's box. ON: it stands on the parent's top,
    its centre over the parent's footprint."""
    graph = _scene(scene_id).graph
    lay = solve(graph)
    checked = 0
    for node, edge in graph.location.items():
        if node not in lay.placements:
            continue
        child, parent = lay.placements[node], lay.placements[edge.dst]
        c, h = np.asarray(child.centre), np.asarray(child.size) / 2
        p, ph = np.asarray(parent.centre), np.asarray(parent.size) / 2
        if edge.rel == INSIDE:
            assert np.all(c - h >= p - ph - 1e-6) and np.all(c[2] - h[2] <= p[2] + ph[2]), node
        elif edge.rel == ON:
            assert abs((c[2] - h[2]) - (p[2] + ph[2])) < 1e-6, node
            assert np.all(np.abs(c[:2] - p[:2]) <= ph[:2] + 1e-6), node
        checked += 1
    assert checked >= 5


@pytest.mark.slow
def test_world_builds_and_renders_three_cameras_headless():
    pytest.importorskip("sapien")
    from backends.sapien_tabletop.world import HEIGHT, WIDTH, World

    graph = _scene("Dining-3").graph
    lay = solve(graph)
    world = World.build(graph, lay)
    world.step(100)
    images = world.render()
    assert set(images) == {"head", "left", "right"}
    for img in images.values():
        assert img.shape == (HEIGHT, WIDTH, 3) and img.dtype == np.uint8
        assert img.std() > 5  # not a blank frame
    seen = {world.entity_node.get(int(i)) for i in np.unique(world.segmentation("head"))}
    assert lay.table in seen
    model = world.camera_model("head")
    table = np.asarray(lay.placements[lay.table].centre) + [0, 0, lay.placements[lay.table].size[2] / 2]
    px, depth = model.project(table[None, :])
    assert depth[0] > 0 and 0 <= px[0, 0] < WIDTH and 0 <= px[0, 1] < HEIGHT
