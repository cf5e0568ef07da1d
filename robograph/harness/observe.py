"""What an agent observes each step: the symbolic view, the camera images, or both.

The paper's visual protocol changes one thing: `current_observation` becomes references to the
camera views and the images travel beside the payload; the system prompt and every other field
stay as they are. This module owns that switch so the rollout loop does not care which mode runs,
and so a built-in perception agent (which needs the raw frames with depth and segmentation, not
the encoded bytes a model gets) plugs in through `Request.frames` without another code path.
"""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robograph.backend import Backend
from robograph.errors import DependencyNotInstalled, RoboGraphError
from robograph.graph import SceneGraph
from robograph.view import View, observation

OBSERVATION_MODES = ("symbolic", "visual", "both")
IMAGE_FORMATS = ("png", "jpeg")
IMAGES_NOTE = (
    "The camera images follow this message in the order of `cameras`, each preceded by a text "
    "part naming its camera; name objects by their id or by their visible name."
)


class ObservationError(RoboGraphError):
    """An observation mode cannot run as configured (no cameras, bad image settings)."""


@dataclass(frozen=True)
class ObservationSpec:
    """How observations are made. `image_size` caps the longer side of each sent image in pixels
    (None: as rendered); `cameras` None means every camera the backend renders by default."""

    mode: str = "symbolic"
    image_format: str = "png"
    image_size: int | None = None
    jpeg_quality: int = 85
    cameras: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.mode not in OBSERVATION_MODES:
            raise ObservationError(f"unknown observation mode {self.mode!r}; valid: {', '.join(OBSERVATION_MODES)}")
        if self.image_format not in IMAGE_FORMATS:
            raise ObservationError(f"unknown image format {self.image_format!r}; valid: {', '.join(IMAGE_FORMATS)}")
        if self.image_size is not None and self.image_size < 8:
            raise ObservationError(f"image size {self.image_size} px is too small; give at least 8")
        if not 1 <= self.jpeg_quality <= 100:
            raise ObservationError(f"JPEG quality {self.jpeg_quality} is outside 1..100")

    @property
    def visual(self) -> bool:
        return self.mode != "symbolic"


@dataclass(frozen=True)
class Observation:
    """One step's observation. `symbolic` is always computed (the harness grounds replies and
    scores with it); `current_observation` is what the payload carries in this mode."""

    symbolic: dict[str, Any]
    current_observation: dict[str, Any]
    images: dict[str, bytes] = field(default_factory=dict)
    frames: dict[str, Any] = field(default_factory=dict)
    render_s: float = 0.0
    encode_s: float = 0.0


def frame_image(frame: Any) -> Any:
    """The RGB array of a rendered Frame (or of a bare array)."""
    return getattr(frame, "image", frame)


def encode_image(rgb: Any, image_format: str = "png", max_side: int | None = None, quality: int = 85) -> bytes:
    """HxWx3 uint8 -> PNG or JPEG bytes, downscaled so the longer side is at most `max_side`."""
    try:
        from PIL import Image
    except ImportError:
        raise DependencyNotInstalled("pillow", "mujoco") from None
    img = Image.fromarray(rgb)
    if max_side is not None and max(img.size) > max_side:
        scale = max_side / max(img.size)
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), Image.BILINEAR)
    buf = io.BytesIO()
    if image_format == "jpeg":
        img.convert("RGB").save(buf, format="JPEG", quality=quality)
    else:
        img.save(buf, format="PNG", compress_level=1)  # fast; size matters less than latency here
    return buf.getvalue()


def camera_references(cameras: Sequence[str]) -> dict[str, Any]:
    """The visual `current_observation`: which images show the scene now, and in what order."""
    return {
        "cameras": [{"camera": name, "image_index": i} for i, name in enumerate(cameras)],
        "note": IMAGES_NOTE,
    }


def backend_cameras(backend: Backend) -> tuple[str, ...]:
    """The cameras a backend declares (empty for backends without images)."""
    return tuple(backend.capabilities.camera_names)


def render_frames(backend: Backend, cameras: Sequence[str]) -> dict[str, Any]:
    """The backend's Frames for `cameras`, by camera name."""
    return {frame.camera: frame for frame in backend.render(list(cameras))}


def require_cameras(spec: ObservationSpec, backend: Backend) -> None:
    """Fail before a rollout starts when a visual mode meets a backend without cameras."""
    if spec.visual and not backend_cameras(backend):
        raise ObservationError(
            f"--observation {spec.mode} needs a backend that renders camera images; backend "
            f"{getattr(backend, 'name', type(backend).__name__)!r} renders none (use e.g. --backend mujoco)"
        )


class Observer:
    """Makes each step's `Observation` for one rollout, in the configured mode."""

    def __init__(self, spec: ObservationSpec, backend: Backend) -> None:
        require_cameras(spec, backend)
        self.spec = spec
        self.backend = backend
        self.cameras = spec.cameras or backend_cameras(backend)

    def render(self) -> tuple[dict[str, Any], float]:
        """The current frames by camera (also used for rollout media in symbolic mode)."""
        t0 = time.perf_counter()
        frames = render_frames(self.backend, self.cameras)
        if not frames:
            raise ObservationError(f"backend {self.backend.name!r} rendered no images for cameras {self.cameras}")
        return frames, time.perf_counter() - t0

    def observe(self, graph: SceneGraph, view: View) -> Observation:
        symbolic = observation(graph, view)
        if not self.spec.visual:
            return Observation(symbolic, symbolic)
        frames, render_s = self.render()
        t0 = time.perf_counter()
        images = {
            name: encode_image(frame_image(frames[name]), self.spec.image_format, self.spec.image_size,
                               self.spec.jpeg_quality)
            for name in self.cameras if name in frames
        }
        encode_s = time.perf_counter() - t0
        refs = camera_references(list(images))
        current = refs if self.spec.mode == "visual" else {**symbolic, "camera_views": refs}
        return Observation(symbolic, current, images, frames, render_s, encode_s)

