import struct
import zlib

import numpy as np
import pytest

from robograph.png import encode_png


def _decode(data: bytes) -> tuple[int, int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    return header[0], header[1], header[3], zlib.decompress(idat)


def test_rgb_round_trip_pixels():
    img = (np.arange(4 * 3 * 3) % 256).astype(np.uint8).reshape(4, 3, 3)
    width, height, colour, raw = _decode(encode_png(img))
    assert (width, height, colour) == (3, 4, 2)
    rows = [raw[y * 10 + 1 : (y + 1) * 10] for y in range(4)]  # filter byte + 9 bytes per row
    assert b"".join(rows) == img.tobytes()


def test_rejects_float_images():
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2, 3), dtype=np.float32))
