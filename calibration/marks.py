"""Graph nodes in pixels: a node's body (an oriented box, from the backend's geometry) projected
into any camera, and set-of-marks overlays (numbered marks with display names) for VLM agents.

Marks are numbered 1..N in node-id order, so the same scene gives the same numbers every time;
a segmentation mask, when given, places each mark on the node's visible pixels and drops nodes
that are hidden (a projected box says where a node is, not whether it can be seen).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from robograph_calibration.camera import CameraModel
from robograph_calibration.errors import CalibrationError

_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
PALETTE = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 240, 240),
           (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (220, 190, 255), (170, 110, 40))


@dataclass(frozen=True, slots=True, eq=False)
class Box:
    """An oriented box in the world: centre (3,), rotation (3, 3) box-to-world, half extents (3,)."""

    centre: np.ndarray
    rotation: np.ndarray
    half: np.ndarray

    def corners(self) -> np.ndarray:
        """(8, 3) world corners."""
        return (_SIGNS * np.asarray(self.half)) @ np.asarray(self.rotation).T + np.asarray(self.centre)


@dataclass(frozen=True, slots=True, eq=False)
class Projection:
    """A box in an image: its 8 corners (8, 2), the clipped bounding rectangle (u0, v0, u1, v1)
    in pixel-corner coordinates, the centre's pixel and depth (m)."""

    corners: np.ndarray
    bbox: tuple[float, float, float, float]
    centre: tuple[float, float]
    depth: float


def project_box(camera: CameraModel, box: Box, near: float = 0.02) -> Projection | None:
    """The box's footprint in the image, or None when it is behind the camera or out of view.
    A box crossing the near plane is clipped to its corners in front of it."""
    corners = box.corners()
    px, depth = camera.project(corners)
    front = depth > near
    if not front.any():
        return None
    u0, v0 = px[front].min(axis=0)
    u1, v1 = px[front].max(axis=0)
    u0, v0 = max(u0, 0.0), max(v0, 0.0)
    u1, v1 = min(u1, float(camera.width)), min(v1, float(camera.height))
    if u0 >= u1 or v0 >= v1:
        return None
    cpx, cdepth = camera.project(np.asarray(box.centre)[None])
    return Projection(px, (float(u0), float(v0), float(u1), float(v1)), (float(cpx[0, 0]), float(cpx[0, 1])),
                      float(cdepth[0]))


@dataclass(frozen=True, slots=True)
class Mark:
    number: int
    node: str
    label: str  # the node's display name
    anchor: tuple[float, float]  # pixel (u, v) where the number is drawn
    bbox: tuple[float, float, float, float]


def marks_for(camera: CameraModel, boxes: Mapping[str, Box], names: Mapping[str, str], *,
              segmentation: np.ndarray | None = None, seg_ids: Sequence[str] | None = None,
              min_pixels: int = 12) -> list[Mark]:
    """One mark per node in view. With `segmentation` ((H, W) int, index into `seg_ids`, -1 for
    none) a node needs `min_pixels` visible pixels and its mark sits on their median pixel."""
    if (segmentation is None) != (seg_ids is None):
        raise CalibrationError("segmentation and seg_ids go together (seg_ids[k] is the node of label k)")
    if segmentation is not None and segmentation.shape != (camera.height, camera.width):
        raise CalibrationError(f"segmentation is {segmentation.shape}, the camera is {camera.height}x{camera.width}")
    index = {n: k for k, n in enumerate(seg_ids or ())}
    marks: list[Mark] = []
    for node in sorted(boxes):
        proj = project_box(camera, boxes[node])
        if proj is None:
            continue
        anchor = proj.centre
        if segmentation is not None:
            rows, cols = np.nonzero(segmentation == index.get(node, -2))
            if len(rows) < min_pixels:
                continue
            anchor = (float(np.median(cols)) + 0.5, float(np.median(rows)) + 0.5)
        elif not (0 <= anchor[0] < camera.width and 0 <= anchor[1] < camera.height):
            continue
        marks.append(Mark(len(marks) + 1, node, names.get(node, node), anchor, proj.bbox))
    return marks


def draw_marks(image: np.ndarray, marks: Sequence[Mark], *, boxes: bool = True, font_px: int = 11) -> np.ndarray:
    """A copy of `image` ((H, W, 3) uint8) with each mark's box outline and a numbered label
    "N name" on a filled tag (Pillow)."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.fromarray(np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[..., :3]))
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=font_px)
    for mark in marks:
        colour = PALETTE[(mark.number - 1) % len(PALETTE)]
        if boxes:
            u0, v0, u1, v1 = mark.bbox
            draw.rectangle([u0, v0, u1 - 1, v1 - 1], outline=colour, width=1)
        text = f"{mark.number} {mark.label}"
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
        w, h = right - left + 4, bottom - top + 4
        u = min(max(mark.anchor[0] - w / 2, 0), img.width - w)
        v = min(max(mark.anchor[1] - h / 2, 0), img.height - h)
        draw.rectangle([u, v, u + w, v + h], fill=colour)
        luminance = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
        draw.text((u + 2 - left, v + 2 - top), text, fill=(0, 0, 0) if luminance > 140 else (255, 255, 255), font=font)
    return np.asarray(img)


def set_of_marks(image: np.ndarray, camera: CameraModel, boxes: Mapping[str, Box], names: Mapping[str, str], *,
                 segmentation: np.ndarray | None = None, seg_ids: Sequence[str] | None = None,
                 min_pixels: int = 12) -> tuple[np.ndarray, list[Mark]]:
    """The overlay the visual observation mode attaches (off by default there): the image with
    numbered marks, and the marks so a prompt can list "N: display name (node id)"."""
    marks = marks_for(camera, boxes, names, segmentation=segmentation, seg_ids=seg_ids, min_pixels=min_pixels)
    return draw_marks(image, marks), marks
