"""The MuJoCo skills playground kitchen (samples.py) with a robot and a scene, as the skill
tests drive it: one place, so each test module does not rebuild the wiring."""

from __future__ import annotations


def playground(assisted: bool = False):
    """(world, robot, scene) of the skills playground, in physics mode unless `assisted`."""
    from robograph_backends.mujoco_kitchen.embodiment import KitchenScene, MujocoRobot
    from robograph_backends.mujoco_kitchen.samples import skills_playground
    from robograph_backends.mujoco_kitchen.world import World

    inst = skills_playground()
    world = World.build(inst.graph)
    robot = MujocoRobot(world)
    scene = KitchenScene(world, assisted=assisted)
    scene.graph = inst.graph
    return world, robot, scene
