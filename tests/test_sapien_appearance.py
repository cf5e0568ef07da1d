"""The shared appearance generator drawn by SAPIEN (backends/sapien_tabletop/dress.py): a real
headless render shows the category shape and an upright, readable label; no collision is added."""

from __future__ import annotations

import numpy as np
import pytest

from robograph_backends.appearance import describe


@pytest.mark.slow
def test_sapien_draws_the_parts_and_the_label_without_adding_collisions():
    pytest.importorskip("sapien")
    from robograph_backends.sapien_tabletop.deps import require_vulkan, sapien_module
    from robograph_backends.sapien_tabletop.dress import add_visual

    require_vulkan()
    sapien = sapien_module()
    scene = sapien.Scene()
    scene.set_ambient_light([0.9, 0.9, 0.9])
    half = (0.035, 0.095, 0.14)
    actors = {}
    for y, label in ((0.12, True), (-0.12, False)):
        b = scene.create_actor_builder()
        b.add_box_collision(sapien.Pose(), half_size=list(half))
        vis = describe("cereal_box", "corn flakes", "box", half, (0.95, 0.75, 0.2, 1.0))
        if not label:
            vis = type(vis)(vis.category, vis.name, vis.family, tuple(p for p in vis.parts if not p.label), None)
        add_visual(b, vis)
        b.set_initial_pose(sapien.Pose([0.0, y, half[2]]))
        actors[label] = b.build_kinematic(name=f"box_{label}")
    cam = scene.add_camera("front", 320, 240, np.deg2rad(45), 0.01, 10.0)
    cam.entity.set_pose(sapien.Pose([-0.8, 0.0, half[2]], [1.0, 0.0, 0.0, 0.0]))  # looking along +x
    scene.update_render()
    cam.take_picture()
    rgb = (np.clip(cam.get_picture("Color")[..., :3], 0, 1) * 255).astype(np.uint8)
    seg = cam.get_picture("Segmentation")[..., 1]
    for label, actor in actors.items():
        body = actor.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent)
        assert len(body.collision_shapes) == 1  # the dress added visuals only
        mask = seg == actor.per_scene_id
        assert mask.sum() > 2000
        dark = (rgb[mask].max(axis=1) < 60).mean()  # the printed name's letters
        light = (rgb[mask].min(axis=1) > 200).mean()  # the label's paper
        if label:
            assert dark > 0.01 and light > 0.2
        else:
            assert dark < 0.002 and light < 0.05
    # upright: the label's colour stripes run across the top and bottom of the printed area
    rows = np.nonzero((seg == actors[True].per_scene_id).any(axis=1))[0]
    cols = np.nonzero((seg == actors[True].per_scene_id).any(axis=0))[0]
    band = rgb[rows.min():rows.max(), cols.min() + 5:cols.max() - 5]
    text_rows = np.nonzero((band.max(axis=2) < 60).mean(axis=1) > 0.02)[0]
    assert len(text_rows) > 0
    # the text lies between the stripes (the band's middle), horizontal: it spans many columns
    text_cols = np.nonzero((band.max(axis=2) < 60).any(axis=0))[0]
    assert text_cols.max() - text_cols.min() > 0.6 * band.shape[1]


def _shapes(world) -> dict[str, list[tuple]]:
    """Per node: (kind, size) of every collision shape and the number of visual shapes."""
    import sapien

    out = {}
    for node, body in sorted(world.bodies.items()):
        entities = [lk.entity for lk in body.get_links()] if hasattr(body, "get_links") else [body]
        coll, vis = [], 0
        for e in entities:
            rigid = e.find_component_by_type(sapien.physx.PhysxRigidBaseComponent)
            for sh in rigid.get_collision_shapes():
                size = getattr(sh, "half_size", None)
                coll.append((type(sh).__name__, tuple(np.round(size, 6)) if size is not None else
                             (round(sh.radius, 6), round(sh.half_length, 6))))
            render = e.find_component_by_type(sapien.render.RenderBodyComponent)
            vis += len(render.render_shapes) if render is not None else 0
        out[node] = [tuple(sorted(coll)), vis]
    return out


@pytest.mark.slow
def test_backend_dresses_objects_visual_only_and_dress_false_keeps_the_primitives():
    pytest.importorskip("sapien")
    from compiled_scenes import baseline_graph

    from robograph.registry import BackendOptionError
    from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend

    with pytest.raises(BackendOptionError, match="dress"):
        SapienTabletopBackend(dress="yes")
    g = baseline_graph("Buffet-T1")
    shapes = {}
    for dress in (True, False):
        b = SapienTabletopBackend(dress=dress)
        b.reset(g, seed=0)
        shapes[dress] = _shapes(b.world)
        assert b.reconcile(g) is g  # identity holds either way
        b.close()
    assert {n: s[0] for n, s in shapes[True].items()} == {n: s[0] for n, s in shapes[False].items()}
    objects = [n for n in shapes[True] if g.nodes[n].kind == "object"]
    furniture = [n for n in shapes[True] if g.nodes[n].kind != "object"]
    # furniture stays plain; every object but the one-part "round" family (a bread roll is one
    # capsule either way) gets more parts than its primitive: a label, a cap, a stem...
    from robograph_backends.appearance import family_of

    assert all(shapes[True][n][1] == shapes[False][n][1] for n in furniture)
    shaped = [n for n in objects if family_of(g.nodes[n].category, "box") != "round"]
    assert len(shaped) >= 5
    assert [n for n in shaped if shapes[True][n][1] <= shapes[False][n][1]] == []
