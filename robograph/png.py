"""Minimal PNG writer (8-bit RGB/greyscale) so the core can save rendered views without an image
library; backends return numpy arrays and this turns them into files."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(image: np.ndarray) -> bytes:
    """image: HxW (grey) or HxWx3 (RGB), uint8."""
    arr = np.ascontiguousarray(image)
    if arr.dtype != np.uint8:
        raise ValueError(f"PNG needs uint8 pixels, got {arr.dtype}")
    if arr.ndim == 2:
        colour = 0
        channels = 1
    elif arr.ndim == 3 and arr.shape[2] == 3:
        colour = 2
        channels = 3
    else:
        raise ValueError(f"PNG needs HxW or HxWx3, got shape {arr.shape}")
    height, width = arr.shape[:2]
    rows = arr.reshape(height, width * channels)
    raw = b"".join(b"\x00" + rows[y].tobytes() for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")


def write_png(path: str | Path, image: np.ndarray) -> None:
    Path(path).write_bytes(encode_png(image))
