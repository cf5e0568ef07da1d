"""What the cameras show, read from node-labelled segmentation: which nodes a step's frames
show (at least `MIN_PIXELS` pixels in one camera), camera coverage and self-occlusion.

Pure numpy over `robograph.backend.Frame`-shaped objects (`segmentation` and `labels`), so the
built-in visual agent and the benchmark share one definition and robograph imports no
simulator. The identities come from the simulator's segmentation ("segmentation perception"):
on a real robot a detector would fill the same fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from robograph.errors import RoboGraphError

MIN_PIXELS = 30  # issue 14: a node counts as seen with at least this many pixels in one camera
ROBOT = "robot"


class SightError(RoboGraphError):
    """Frames without node-labelled segmentation were given where it is needed."""


def _segmentation(frame: Any) -> tuple[np.ndarray, tuple[str, ...]]:
    seg = getattr(frame, "segmentation", None)
    labels = tuple(getattr(frame, "labels", ()) or ())
    if seg is None or not labels:
        raise SightError(
            f"camera {getattr(frame, 'camera', '?')!r} has no node-labelled segmentation; render with it "
            "(e.g. --backend mujoco --backend-opt segmentation=true)"
        )
    return np.asarray(seg), labels


def pixel_counts(frames: Iterable[Any]) -> dict[str, int]:
    """Node id -> the most pixels any one camera shows of it (nodes no camera shows are absent)."""
    best: dict[str, int] = {}
    for frame in frames:
        seg, labels = _segmentation(frame)
        idx, counts = np.unique(seg[seg >= 0], return_counts=True)
        for i, c in zip(idx.tolist(), counts.tolist(), strict=True):
            if i >= len(labels):
                raise SightError(f"segmentation label {i} has no node id ({len(labels)} labels)")
            best[labels[i]] = max(best.get(labels[i], 0), int(c))
    return best


def labelled_nodes(frames: Iterable[Any]) -> set[str]:
    """Every node id the cameras could show (rooms and other bodiless nodes are not among them)."""
    return {n for frame in frames for n in _segmentation(frame)[1]}


def seen_nodes(frames: Iterable[Any], min_pixels: int = MIN_PIXELS) -> set[str]:
    return {n for n, c in pixel_counts(frames).items() if c >= min_pixels}


def camera_coverage(symbolic_visible: Iterable[str], frames: Iterable[Any], min_pixels: int = MIN_PIXELS) -> float | None:
    """Fraction of the nodes visible in the symbolic view that at least one camera shows with
    `min_pixels` pixels. Only nodes a camera could show count (rooms have no pixels; the robot
    is not a scene object); None when no such node is visible."""
    frames = list(frames)
    countable = (set(symbolic_visible) & labelled_nodes(frames)) - {ROBOT}
    if not countable:
        return None
    return len(countable & seen_nodes(frames, min_pixels)) / len(countable)


def self_occlusion(frame: Any, robot: str = ROBOT) -> float:
    """Share of a camera's pixels that show the robot itself."""
    seg, labels = _segmentation(frame)
    if robot not in labels:
        raise SightError(f"camera {getattr(frame, 'camera', '?')!r} has no {robot!r} label; labels: {', '.join(labels)}")
    return float(np.count_nonzero(seg == labels.index(robot))) / float(seg.size)


def frames_by_camera(frames: Mapping[str, Any] | Iterable[Any]) -> list[Any]:
    """`Request.frames` is a mapping camera -> frame; the backend returns a list."""
    return list(frames.values()) if isinstance(frames, Mapping) else list(frames)
