"""Rollout media: a contact sheet in the style of the paper's Figure 13, an MP4, a Rerun recording.

Frames arrive as PNG bytes (kept compressed while the rollout runs, `rollout.MediaFrame`). The
contact sheet shows every frame of the media camera with its step and action; its border says
what happened: blue for the initial state, green after a successful action, red after a failed
one. Pillow draws the sheet; imageio with its bundled ffmpeg writes the video; rerun-sdk (optional
extra `rerun`) writes a .rrd with frames, actions, outcomes and the view graph per step.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robograph.errors import DependencyNotInstalled
from robograph.harness.rollout import MediaFrame

BORDER_COLOURS: Mapping[str, tuple[int, int, int]] = {
    "initial": (40, 90, 230),
    "success": (30, 170, 60),
    "failure": (220, 40, 40),
}
BORDER_PX = 6
LABEL_PX = 22
TILE_WIDTH = 240


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise DependencyNotInstalled("pillow", "media") from None
    return Image, ImageDraw


def tile_label(frame: MediaFrame) -> str:
    return "initial" if frame.state == 0 else f"step {frame.state}: {frame.action}"


def contact_sheet(frames: Sequence[MediaFrame], columns: int = 4, tile_width: int = TILE_WIDTH) -> Any:
    """A PIL image: one bordered, labelled tile per frame, row by row."""
    image_mod, draw_mod = _pil()
    if not frames:
        raise ValueError("a contact sheet needs at least one frame")
    tiles = [image_mod.open(io.BytesIO(f.png)).convert("RGB") for f in frames]
    scale = tile_width / tiles[0].width
    inner = (tile_width, max(1, round(tiles[0].height * scale)))
    cell = (inner[0] + 2 * BORDER_PX, inner[1] + 2 * BORDER_PX + LABEL_PX)
    cols = max(1, min(columns, len(frames)))
    rows = math.ceil(len(frames) / cols)
    sheet = image_mod.new("RGB", (cols * cell[0], rows * cell[1]), (255, 255, 255))
    draw = draw_mod.Draw(sheet)
    for i, (frame, tile) in enumerate(zip(frames, tiles, strict=True)):
        x, y = (i % cols) * cell[0], (i // cols) * cell[1]
        colour = BORDER_COLOURS.get(frame.status, BORDER_COLOURS["failure"])
        draw.rectangle([x, y, x + cell[0] - 1, y + inner[1] + 2 * BORDER_PX - 1], fill=colour)
        sheet.paste(tile.resize(inner), (x + BORDER_PX, y + BORDER_PX))
        draw.text((x + BORDER_PX, y + inner[1] + 2 * BORDER_PX + 4), tile_label(frame)[:40], fill=(0, 0, 0))
    return sheet


def write_contact_sheet(frames: Sequence[MediaFrame], path: str | Path, columns: int = 4) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    contact_sheet(frames, columns).save(path)
    return path


def write_mp4(frames: Sequence[MediaFrame], path: str | Path, fps: float = 2.0) -> Path:
    """H.264 video of the frames (even-sized, as libx264 requires)."""
    try:
        import imageio.v3 as iio
        import numpy as np
    except ImportError:
        raise DependencyNotInstalled("imageio", "media") from None
    image_mod, _ = _pil()
    arrays = []
    for f in frames:
        img = image_mod.open(io.BytesIO(f.png)).convert("RGB")
        arrays.append(np.asarray(img.crop((0, 0, img.width - img.width % 2, img.height - img.height % 2))))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    iio.imwrite(path, np.stack(arrays), plugin="FFMPEG", fps=fps, codec="libx264")
    return path


def write_rerun(frames: Sequence[MediaFrame], path: str | Path, views: Sequence[Sequence[str]] = (),
                app: str = "robograph") -> Path:
    """A Rerun recording: per step the camera frame, the action and its outcome, and the ids of
    the nodes in view (`views[k]` for state k, when given)."""
    try:
        import rerun as rr
    except ImportError:
        raise DependencyNotInstalled("rerun-sdk", "rerun") from None
    image_mod, _ = _pil()
    import numpy as np

    rec = rr.RecordingStream(app)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rec.save(str(path))
    for f in frames:
        rec.set_time("step", sequence=f.state)
        rec.log("camera", rr.Image(np.asarray(image_mod.open(io.BytesIO(f.png)).convert("RGB"))))
        rec.log("action", rr.TextLog(f"{tile_label(f)} -> {f.status}"))
        if f.state < len(views) and views[f.state]:
            rec.log("view_graph", rr.GraphNodes(node_ids=list(views[f.state]), labels=list(views[f.state])))
    rec.flush()
    return path


def write_rollout_media(frames: Sequence[MediaFrame], directory: str | Path, rerun: bool = False,
                        views: Sequence[Sequence[str]] = ()) -> list[Path]:
    """Everything for one rollout into `directory`: contact_sheet.png, rollout.mp4 (and
    rollout.rrd when asked)."""
    directory = Path(directory)
    out = [write_contact_sheet(frames, directory / "contact_sheet.png"), write_mp4(frames, directory / "rollout.mp4")]
    if rerun:
        out.append(write_rerun(frames, directory / "rollout.rrd", views))
    return out
