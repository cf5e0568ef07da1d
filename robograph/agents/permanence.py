"""Object permanence for the visual agent's perception step: what was seen stays believed, where
it was, until a camera that should see that place sees it absent.

Per-frame sight (`sight.seen_nodes`: >= 30 px of segmentation in one camera) flickers: a small
object at 28 px this step and 31 the next, an arm passing in front. Dropping a node every time
it flickers tells the policy that it moved. Here a node leaves the belief only on evidence of
absence: its last 3-D box (from the backend's depth reading, `Frame.percept.boxes`) projects
into a camera's image, the camera's line of sight reaches that place (the depth there is not
nearer than the box: nothing in front, no closed door or drawer front, no arm) and the pixels
there show something else (the support behind it, the container's floor). A place behind
something, outside every image or inside a closed container is not looked at, so its belief
stays. Locations and openings are the latest depth reading of each node, kept while the node
is unseen.

Pure numpy over `robograph.backend.Frame`-shaped objects (pinhole projection with the
`CameraIntrinsics` fields; distortion-free renders), so robograph imports no simulator.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robograph.agents.sight import MIN_PIXELS, ROBOT, SightError, pixel_counts

MARGIN_M = 0.02  # a line of sight reaches a place when the depth there is at most this nearer (m)
SAMPLE_SHRINK = 0.5  # probe points sit at half the box's half-extents around its centre
MIN_PROBES = 4  # of the 7 probes, at least this many in one image for it to judge the place
EMPTY_SHARE = 0.75  # ... and this share of those reaching the place without showing the node

Box = tuple[tuple[float, float, float], tuple[float, float, float]]


@dataclass
class Sighting:
    """A believed node: its last box (centre, half extents; world, metres) and location."""

    box: Box | None = None
    location: tuple[str, str] | None = None


def probes(box: Box) -> np.ndarray:
    """(7, 3) world points: the box's centre and one inside each face."""
    c, h = np.asarray(box[0], dtype=float), np.asarray(box[1], dtype=float) * SAMPLE_SHRINK
    offsets = np.vstack([np.zeros(3), np.diag(h), -np.diag(h)])
    return c + offsets


def look(frame: Any, node: str, points: np.ndarray) -> tuple[int, int, int]:
    """(shown, empty, in_image) over `points` for one camera: `shown` probes land on the node's
    own pixels; `empty` ones see past the place (depth there >= the probe's depth - MARGIN_M)
    onto something else; probes behind the camera or outside its image are not counted."""
    seg, depth, model = getattr(frame, "segmentation", None), getattr(frame, "depth", None), getattr(frame, "model", None)
    if seg is None or depth is None or model is None:
        raise SightError(f"camera {getattr(frame, 'camera', '?')!r} needs depth, segmentation and a camera model "
                         "for the memory rule (e.g. --backend mujoco --backend-opt relations=true)")
    labels = tuple(frame.labels)
    own = labels.index(node) if node in labels else -2
    T_cam_world = np.linalg.inv(np.asarray(model.T_world_cam, dtype=float))
    p = points @ T_cam_world[:3, :3].T + T_cam_world[:3, 3]
    front = p[:, 2] > 1e-3
    z = np.where(front, p[:, 2], 1.0)
    u = model.fx * p[:, 0] / z + model.cx
    v = model.fy * p[:, 1] / z + model.cy
    h, w = np.asarray(seg).shape
    ok = front & (u >= 0) & (u < w) & (v >= 0) & (v < h)
    rows, cols = v[ok].astype(int), u[ok].astype(int)
    lab = np.asarray(seg)[rows, cols]
    d = np.asarray(depth, dtype=float)[rows, cols]
    shown = lab == own
    empty = ~shown & (d >= p[ok, 2] - MARGIN_M)
    return int(shown.sum()), int(empty.sum()), int(ok.sum())


def seen_absent(node: str, box: Box, frames: Sequence[Any]) -> bool:
    """True when some camera looks at the node's place and sees something else there, and no
    camera shows the node at any probe."""
    points = probes(box)
    verdict = False
    for frame in frames:
        shown, empty, in_image = look(frame, node, points)
        if shown:
            return False
        if in_image >= MIN_PROBES and empty >= EMPTY_SHARE * in_image:
            verdict = True
    return verdict


@dataclass
class ObjectPermanence:
    """The belief across one episode's steps (reset between episodes)."""

    min_pixels: int = MIN_PIXELS
    believed: dict[str, Sighting] = field(default_factory=dict)
    opened: dict[str, bool] = field(default_factory=dict)

    def reset(self) -> None:
        self.believed.clear()
        self.opened.clear()

    def update(self, frames: Iterable[Any], held: Iterable[str] = ()) -> set[str]:
        """Fold one step's frames in; return the nodes believed present now (seen now, or seen
        before and not seen absent since). `held`: the objects in the robot's hands
        (proprioception): believed, with no box or location until a camera sees them put down
        (their place then is our own doing, not something to check). The robot itself is not a
        scene object."""
        frames = list(frames)
        percept = next((f.percept for f in frames if getattr(f, "percept", None) is not None), None)
        held = set(held)
        seen = {n for n, c in pixel_counts(frames).items() if c >= self.min_pixels} - {ROBOT} - held
        for node in seen:
            old = self.believed.get(node, Sighting())
            box = percept.boxes.get(node) if percept is not None else None
            loc = percept.locations.get(node) if percept is not None else None
            self.believed[node] = Sighting(box if box is not None else old.box, loc if loc is not None else old.location)
        for node in held:
            self.believed[node] = Sighting()
        for node in sorted(set(self.believed) - seen - held):
            box = self.believed[node].box
            if box is not None and seen_absent(node, box, frames):
                del self.believed[node]
        if percept is not None:
            self.opened.update(percept.open)
        return set(self.believed)

    def location(self, node: str) -> tuple[str, str] | None:
        s = self.believed.get(node)
        return s.location if s is not None else None
