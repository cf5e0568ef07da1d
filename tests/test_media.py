"""Rollout media from frames whose content is known: tile order, colours and labels of the
contact sheet, the MP4 container, the optional Rerun recording."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from robograph.harness.media import (
    BORDER_COLOURS,
    BORDER_PX,
    contact_sheet,
    tile_label,
    write_mp4,
    write_rerun,
)
from robograph.harness.rollout import MediaFrame


def _png(value: int, size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.full((size[1], size[0], 3), value, np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


FRAMES = [
    MediaFrame(0, _png(10)),
    MediaFrame(1, _png(60), "open(fridge_door)", "success"),
    MediaFrame(2, _png(110), "grab(ketchup)", "failure"),
    MediaFrame(3, _png(160), "grab(ketchup)", "success"),
    MediaFrame(4, _png(210), "stop()", "success"),
]


def test_contact_sheet_tiles_in_order_with_outcome_borders():
    sheet = contact_sheet(FRAMES, columns=3, tile_width=90)
    cell_w, cell_h = sheet.width // 3, sheet.height // 2
    for i, (frame, value) in enumerate(zip(FRAMES, (10, 60, 110, 160, 210), strict=True)):
        x, y = (i % 3) * cell_w, (i // 3) * cell_h
        assert sheet.getpixel((x + 1, y + 1)) == BORDER_COLOURS[frame.status]
        assert sheet.getpixel((x + BORDER_PX + 20, y + BORDER_PX + 20)) == (value,) * 3  # its own frame
    assert sheet.getpixel((2 * cell_w + 1, cell_h + 1)) == (255, 255, 255)  # sixth cell is empty
    assert [tile_label(f) for f in FRAMES[:3]] == ["initial", "step 1: open(fridge_door)", "step 2: grab(ketchup)"]


def test_mp4_holds_every_frame(tmp_path):
    import imageio.v3 as iio

    path = write_mp4(FRAMES, tmp_path / "r.mp4")
    frames = iio.imread(path, plugin="FFMPEG")
    assert len(frames) == len(FRAMES)
    assert abs(int(frames[-1].mean()) - 210) < 8  # lossy, but the last frame is the last state


def test_rerun_recording(tmp_path):
    pytest.importorskip("rerun")
    path = write_rerun(FRAMES, tmp_path / "r.rrd", views=[["fridge"], ["fridge", "ketchup"]])
    assert path.stat().st_size > 1000 and path.read_bytes()[:4] == b"RRF2"
