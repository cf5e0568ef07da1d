"""Each motion primitive succeeds on generated setups, through the real runtime (Episode), with
the reconciled graph equal to the symbolic expectation (the runtime fails the step otherwise)."""

from __future__ import annotations

import pytest

from robograph.actions import Action

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]


def _run(inst, grasp: str, actions: list[str]):
    from robograph.runtime import Episode
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    be = MujocoKitchenBackend(mode=grasp)
    ep = Episode(inst, be)
    ep.reset(0)
    records = []
    for a in actions:
        rec = ep.step(Action.parse(a))
        records.append(rec)
        assert rec.ok, f"{a}: {rec.failure} (IK/tracking: {be.last_info.get('ik_misses')})"
    be.close()
    return ep, records


def test_buffet_plan_assisted_grab_puton_drawer_walk() -> None:
    from robograph_backends.mujoco_kitchen.samples import buffet_tray

    inst = buffet_tray()
    ep, _ = _run(inst, "assisted", inst.metadata["oracle_plan"])
    assert ep.success


def test_food_plan_assisted_doors_lid_putin() -> None:
    from robograph_backends.mujoco_kitchen.samples import food_packing

    inst = food_packing()
    ep, _ = _run(inst, "assisted", inst.metadata["oracle_plan"])
    assert ep.success


def test_physics_grasp_carries_and_places() -> None:
    from robograph_backends.mujoco_kitchen.samples import buffet_tray

    ep, _ = _run(buffet_tray(), "physics", ["grab muffin", "puton muffin serving_tray", "grab croissant",
                                            "walk kitchen", "walk dining_room", "puton croissant serving_tray"])
    assert ep.graph.location["croissant"].dst == "serving_tray"


def test_walk_move_aside_observe() -> None:
    from robograph_backends.mujoco_kitchen.samples import fridge_condiments

    ep, _ = _run(fridge_condiments(), "assisted", ["walk dining_room", "observe", "move_aside cereal_box",
                                                    "grab jam_jar", "walk kitchen"])
    assert ep.graph.hand_of("jam_jar") is not None
    assert ep.graph.robot_room() == "kitchen"


def test_press() -> None:
    from robograph_backends.mujoco_kitchen.samples import skills_playground

    ep, _ = _run(skills_playground(), "assisted", ["press table_lamp", "grab cup"])
    assert ep.graph.attr("table_lamp", "pressed")  # and it stays pushed (a latch) while time passes


def test_attach() -> None:
    from robograph_backends.mujoco_kitchen.samples import skills_playground

    ep, _ = _run(skills_playground(), "assisted", ["attach rocket_nose rocket_base", "grab toy_rocket",
                                                     "puton toy_rocket kitchen_counter"])
    assert ep.graph.attr("toy_rocket", "assembled")
    assert ep.graph.location["toy_rocket"].dst == "kitchen_counter"


@pytest.mark.parametrize("scene", ["Fridge-I2", "FoodPack-I5", "Buffet-I5"])
def test_benchmark_episode_oracle_plan_succeeds_in_physics_mode(indoor_benchmark, scene: str) -> None:
    """One compiled benchmark episode per indoor family, oracle plan executed in physics mode
    (no servo, no weld): every step's reconciled graph equals the symbolic expectation, and the
    episode succeeds (fridge doors and shelves; pantry cabinet and lunch box lids; chafing dish).
    No step reports an assist."""
    from robograph_backends.mujoco_kitchen.episodes import oracle_actions

    inst = next(i for i in indoor_benchmark.instances if i.id.startswith(f"{scene}__"))
    ep, records = _run(inst, "physics", [str(a) for a in oracle_actions(inst)])
    assert ep.success
    assert not [r.info.get("assists") for r in records if r.info and r.info.get("assists")]


@pytest.mark.parametrize("scene", ["Fridge-I2", "FoodPack-I5", "Buffet-I5"])
def test_benchmark_episode_oracle_plan_succeeds_in_assisted_mode(indoor_benchmark, scene: str) -> None:
    """The same episodes with the assisted controller (servoed joints, welded grasps)."""
    from robograph_backends.mujoco_kitchen.episodes import oracle_actions

    inst = next(i for i in indoor_benchmark.instances if i.id.startswith(f"{scene}__"))
    ep, _ = _run(inst, "assisted", [str(a) for a in oracle_actions(inst)])
    assert ep.success
