"""MuJoCo kitchen backend: procedural RoboCasa-style kitchens built from a scene graph, a
two-armed mobile robot from robosuite's models, skills via mink IK, reconcile/realize by geometry.

Importing this package does not import MuJoCo; constructing the backend does (and raises
`DependencyNotInstalled` naming the `mujoco` extra when it is missing).
"""

from robograph_backends.mujoco_kitchen.backend import MujocoKitchenBackend

__all__ = ["MujocoKitchenBackend"]
