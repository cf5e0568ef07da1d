"""The shared object appearance (`robograph_backends.appearance`) as SAPIEN visual shapes: the
call the tabletop builder makes to draw an object as its category with its name's label.

Usage in a body builder (after its collision shapes, in place of the plain visual):

    visual = describe(node.category, node.name, shape, half, rgba)
    add_visual(builder, visual)

Only visual shapes are added (`add_*_visual`): collisions, masses and hence physics stay as the
builder made them. SAPIEN's cylinders and capsules lie along their local x, the parts' along
their local z: each such part is turned by `Z_TO_X` first. The label picture becomes an RGBA
texture (`RenderTexture2D`, as PLATFORM.md measured) on a plane over the plate's printed face: a
textured SAPIEN box spreads one picture over all its faces.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robograph_backends.appearance import Part, Quat, Visual, rotation
from robograph_backends.sapien_tabletop.deps import sapien_module

Z_TO_X: Quat = (0.7071067811865476, 0.0, 0.7071067811865476, 0.0)  # SAPIEN's cylinder axis x -> z
PLANE_IN_PLATE: Quat = (0.5, -0.5, -0.5, -0.5)  # plane x -> plate z, plane y -> plate x, plane z -> plate y


def quat_mul(a: Quat, b: Quat) -> Quat:
    """Hamilton product a * b of (w, x, y, z) quaternions."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def part_pose(part: Part) -> tuple[tuple[float, float, float], Quat]:
    """(position, quaternion) of a part's SAPIEN visual shape in the actor's frame."""
    quat = quat_mul(part.quat, Z_TO_X) if part.shape in ("cylinder", "capsule") else part.quat
    return part.pos, quat


def add_visual(builder: Any, visual: Visual) -> None:
    """Add `visual`'s parts to a SAPIEN actor or link builder as visual shapes; the label plate
    becomes a textured plane on the plate's printed face."""
    sapien = sapien_module()
    for part in visual.parts:
        if part.label and visual.label is not None:
            pos, quat, image = label_plane(part, visual.label.image)
            rgba = np.concatenate([image, np.full((*image.shape[:2], 1), 255, np.uint8)], axis=2)
            material = sapien.render.RenderMaterial(base_color=[1.0, 1.0, 1.0, 1.0])
            material.base_color_texture = sapien.render.RenderTexture2D(np.ascontiguousarray(rgba), "R8G8B8A8Unorm",
                                                                        srgb=True)
            builder.add_plane_visual(sapien.Pose(list(pos), list(quat)), scale=(1.0, part.half[0], part.half[1]),
                                     material=material)
            continue
        pos, quat = part_pose(part)
        pose = sapien.Pose(list(pos), list(quat))
        material = sapien.render.RenderMaterial(base_color=list(part.rgba))
        if part.shape == "box":
            builder.add_box_visual(pose, half_size=list(part.half), material=material)
        elif part.shape == "cylinder":
            builder.add_cylinder_visual(pose, radius=part.half[0], half_length=part.half[2], material=material)
        elif part.shape == "capsule":
            builder.add_capsule_visual(pose, radius=part.half[0], half_length=part.half[2], material=material)
        else:
            builder.add_sphere_visual(pose, radius=part.half[0], material=material)


def label_plane(part: Part, image: np.ndarray) -> tuple[tuple[float, float, float], Quat, np.ndarray]:
    """Pose and texture of the plane that shows a label plate's printed face in SAPIEN. A SAPIEN
    plane faces its local +x and lays a texture's columns down its -z and rows along its +y
    (measured on a render): `PLANE_IN_PLATE` turns it onto the plate's +z face with the text's
    right along the plate's +x, and the picture is transposed to match."""
    quat = quat_mul(part.quat, PLANE_IN_PLATE)
    normal = rotation(part.quat)[:, 2]
    pos = tuple(float(v) for v in np.asarray(part.pos) + normal * part.half[2])
    return (pos[0], pos[1], pos[2]), quat, np.ascontiguousarray(image.transpose(1, 0, 2))
