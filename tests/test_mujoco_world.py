"""MuJoCo kitchen: graph -> world -> graph is the identity, realized interventions reconcile to
the rewritten graph, renders are non-trivial and agree with visibility, and physical misses
become typed failures (real MuJoCo, real rendering)."""

from __future__ import annotations

import numpy as np
import pytest

from robograph.actions import Action, effects
from robograph.failures import FailureType
from robograph.graph import OCCLUDES, Edge, Node
from robograph.rewrite import AddEdge, AddNode, MoveNode, SetAttr, apply_all, diff

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]


def _samples():
    from robograph_backends.mujoco_kitchen.samples import indoor_samples, skills_playground

    return [*indoor_samples(), skills_playground()]


@pytest.mark.parametrize("idx", range(4))
def test_build_then_reconcile_is_identity(idx: int) -> None:
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    inst = _samples()[idx]
    be = MujocoKitchenBackend()
    be.reset(inst.graph, seed=0)
    be.world.step(500)  # the scene settles and stays put
    assert be.reconcile(inst.graph) is inst.graph
    for node, item in be.world.plan.items.items():
        assert be.world.body_velocity(item.body) < 0.02, f"{node} still moving"
    be.close()


def test_indoor_benchmark_scenes_build_then_reconcile_is_identity(indoor_benchmark) -> None:
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    assert len(indoor_benchmark.instances) == 27, f"indoor episodes not compiled: {indoor_benchmark.failed}"
    bad = {}
    be = MujocoKitchenBackend()
    for inst in indoor_benchmark.instances:
        be.reset(inst.graph, seed=0)
        be.world.step(250)
        observed = be.reconcile(inst.graph)
        if observed is not inst.graph:
            bad[inst.id] = diff(inst.graph, observed)
    be.close()
    assert not bad, bad


def _realize_check(be, graph, rewrites):
    new = apply_all(graph, rewrites)
    be.realize(new, rewrites)
    observed = be.reconcile(new)
    assert observed == new, diff(new, observed)
    return new


def test_interventions_reconcile_to_the_rewritten_graph() -> None:
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.samples import buffet_tray

    inst = buffet_tray()
    be = MujocoKitchenBackend()
    be.reset(inst.graph, seed=0)
    g = inst.graph
    g = _realize_check(be, g, [MoveNode("muffin", "ON", "serving_tray")])  # I3/I4 relocation
    g = _realize_check(be, g, [SetAttr("sideboard_drawer", "open", True)])  # regression: opened
    g = _realize_check(be, g, [MoveNode("croissant", "INSIDE", "sideboard_drawer")])
    g = _realize_check(be, g, [SetAttr("sideboard_drawer", "open", False)])  # closed, contents ride along
    assert be.world.body_pos("n_croissant")[0] > be.world.body_pos("n_sideboard")[0] - 0.3
    apple = Node("apple", "apple", "apple", "object", frozenset({"GRABBABLE", "MOVABLE"}))
    g = _realize_check(be, g, [AddNode(apple), MoveNode("apple", "ON", "buffet_counter")])  # I6
    g = _realize_check(be, g, [MoveNode("apple", "HELD", "left")])
    g = _realize_check(be, g, [MoveNode("apple", "ON", "serving_tray")])
    g = _realize_check(be, g, [MoveNode("bread_roll", "ON", "serving_tray"),
                               AddEdge(Edge("muffin", OCCLUDES, "bread_roll"))])  # I5
    blocker, target = be.world.body_pos("n_muffin"), be.world.body_pos("n_bread_roll")
    assert blocker[0] < target[0] and abs(blocker[1] - target[1]) < 0.02  # in front, camera side
    be.close()


def test_head_view_shows_visible_targets_and_hides_contents_of_closed_containers() -> None:
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.samples import food_packing

    inst = food_packing()
    be = MujocoKitchenBackend()
    be.reset(inst.graph, seed=0)
    w = be.world
    cams = be.cameras_renderer()
    frames = be.render()
    assert [f.camera for f in frames] == ["head", "left", "right"]
    for f in frames:
        assert f.image.shape == (240, 320, 3) and f.image.dtype == np.uint8
        assert f.image.std() > 10  # not a blank frame
    x, y, _ = w.plan.stations["kitchen_counter"]
    w.set_qpos("base_x", x)
    w.set_qpos("base_y", y)
    w.hold_ctrl()
    w.step(50)
    seen = cams.visible_nodes("head")
    assert {"sandwich", "apple", "lunch_box"} <= set(seen)
    # granola bar inside the closed pantry cabinet: absent; after opening it: visible
    x, y, _ = w.plan.stations["pantry_cabinet"]
    w.set_qpos("base_x", x - 0.3)
    w.set_qpos("base_y", y)
    w.hold_ctrl()
    w.step(50)
    assert "granola_bar" not in cams.visible_nodes("head", min_pixels=1)
    g = apply_all(inst.graph, [SetAttr("robot", "room", "pantry"), SetAttr("pantry_cabinet", "open", True)])
    be.realize(g, [])
    w.set_qpos("base_x", x - 0.3)
    w.set_qpos("base_y", y)
    w.hold_ctrl()
    w.step(50)
    assert "granola_bar" in cams.visible_nodes("head")
    be.close()


def test_jammed_drawer_and_unstable_simulation_are_typed_failures() -> None:
    from robograph.runtime import Episode
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.samples import buffet_tray

    inst = buffet_tray()
    be = MujocoKitchenBackend(mode="assisted")
    ep = Episode(inst, be)
    ep.reset(0)
    w = be.world
    art = w.plan.articulations["sideboard_drawer"][0]
    w.model.jnt_range[w.model.joint(art.joint).id] = (0.0, 0.04)  # something blocks the drawer
    rec = ep.step(Action.parse("open sideboard_drawer"))
    assert rec.failure is not None and rec.failure.type == FailureType.EXECUTION_FAILED
    assert not ep.graph.is_open("sideboard_drawer")  # the graph follows the world
    be.world.data.qvel[:] = np.nan  # blow the simulation up
    rec = ep.step(Action.parse("grab muffin"))
    assert rec.failure is not None and rec.failure.type == FailureType.SIMULATION_UNSTABLE
    assert ep.graph.hand_of("muffin") is None
    rec = ep.step(Action.parse("grab muffin"))  # the rebuilt world keeps going
    assert rec.ok and ep.graph.hand_of("muffin") == "left"
    be.close()


def test_failed_grab_keeps_occlusion_edges() -> None:
    """Reconcile of a grab that did not happen restores what the symbolic effect removed."""
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.samples import fridge_condiments

    inst = fridge_condiments()
    be = MujocoKitchenBackend()
    be.reset(inst.graph, seed=0)
    g = apply_all(inst.graph, [SetAttr("robot", "room", "dining_room")])
    be.realize(g, [])
    g = be.reconcile(g)
    act = Action.parse("grab cereal_box")
    expected = apply_all(g, effects(g, act))
    be._before = g  # as execute() would, without moving the robot
    observed = be.reconcile(expected)
    assert observed.hand_of("cereal_box") is None
    assert observed.edges_from("cereal_box", OCCLUDES) == g.edges_from("cereal_box", OCCLUDES)
    be.close()
