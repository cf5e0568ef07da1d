"""The shared object appearance (`robograph_backends.appearance`) as MuJoCo geoms: visual-only
parts on the existing bodies, label pictures as textures.

Why visual-only: the kitchen's physics, reconcile and skills were tuned on the collision geoms
(boxes, cylinders, spheres) and their outcomes change with sub-millimetre differences. The parts
added here have contype = conaffinity = 0, no mass of their own (every dressed body has an
explicit inertia) and come after the body's collision geoms, so `body_geomadr` still names the
collision geom. A dressed body's collision geom moves to HIDDEN_GROUP (not rendered); the parts
are in VISUAL_GROUP. Segmentation maps geom -> body -> node, so the parts carry their node's
label like the collision geom did.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robograph_backends.appearance import Visual
from robograph_backends.mujoco_kitchen.deps import mujoco_module

VISUAL_GROUP = 2  # rendered: the parts a camera sees
HIDDEN_GROUP = 3  # not rendered: collision geoms a dressed body's parts stand in for
RENDERED_GROUPS = (1, 2)  # the kitchen's own geoms (1) and the parts (2); 0 = robosuite collision meshes


def geom_groups() -> list[int]:
    """MjvOption.geomgroup flags for every camera render (1: drawn)."""
    return [1 if g in RENDERED_GROUPS else 0 for g in range(6)]


def add_visual(spec: Any, body: Any, visual: Visual, prefix: str) -> None:
    """Append `visual`'s parts to the spec body `body` (names `{prefix}_v_{part}`), its label as a
    2-D texture + material on the label plate."""
    mj = mujoco_module()
    material = None
    if visual.label is not None:
        img = np.ascontiguousarray(visual.label.image)  # row 0 at the plate's local +y edge
        tex = spec.add_texture(name=f"{prefix}_label", type=mj.mjtTexture.mjTEXTURE_2D,
                               width=int(img.shape[1]), height=int(img.shape[0]), nchannel=3)
        tex.data = img.tobytes()
        mat = spec.add_material(name=f"{prefix}_label")
        mat.textures[mj.mjtTextureRole.mjTEXROLE_RGB] = f"{prefix}_label"
        material = mat.name
    for p in visual.parts:
        if p.shape == "box":
            size = list(p.half)
        elif p.shape in ("cylinder", "capsule"):
            size = [p.half[0], p.half[2], 0.0]
        else:
            size = [p.half[0], 0.0, 0.0]
        geom = body.add_geom(name=f"{prefix}_v_{p.name}", type=getattr(mj.mjtGeom, f"mjGEOM_{p.shape.upper()}"),
                             pos=list(p.pos), quat=list(p.quat), size=size, rgba=list(p.rgba), group=VISUAL_GROUP,
                             contype=0, conaffinity=0, mass=0.0)
        geom.density = 0.0
        if p.label and material is not None:
            geom.material = material
            geom.rgba = [1.0, 1.0, 1.0, 1.0]


def collision_geoms(model: Any, body_id: int) -> list[int]:
    """A body's own geoms that are not visual parts (its collision shapes)."""
    start, n = int(model.body_geomadr[body_id]), int(model.body_geomnum[body_id])
    return [g for g in range(start, start + n) if not is_part(model, g)]


def is_part(model: Any, g: int) -> bool:
    """A visual part: in VISUAL_GROUP, or hidden by `undress` (then it never collides)."""
    group = int(model.geom_group[g])
    return group == VISUAL_GROUP or (group == HIDDEN_GROUP and not model.geom_contype[g] and not model.geom_conaffinity[g])


def undress(model: Any, body_id: int) -> None:
    """Show a body's collision geoms and hide its parts (idempotent): for a body whose collision
    shape was changed at run time (a blocker grown to hide its target), so the cameras see what
    the physics and the occlusion measurement use."""
    start, n = int(model.body_geomadr[body_id]), int(model.body_geomnum[body_id])
    for g in range(start, start + n):
        if is_part(model, g):
            model.geom_group[g] = HIDDEN_GROUP
        elif int(model.geom_group[g]) == HIDDEN_GROUP:
            model.geom_group[g] = 1
