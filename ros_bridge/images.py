"""Camera images and models on the wire: numpy RGB arrays <-> sensor_msgs/Image fields, and a
pinhole CameraInfo from a vertical field of view. Pure numpy; the message classes are passed in."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robograph_ros_bridge.errors import RosBridgeError

ENCODINGS = {"rgb8": 3, "bgr8": 3, "mono8": 1}


def fill_image(msg: Any, image: np.ndarray, *, frame_id: str, stamp: Any) -> Any:
    """image: (H, W, 3) uint8 RGB -> an `rgb8` sensor_msgs/Image (row-major, no padding)."""
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise RosBridgeError(f"camera image must be (H, W, 3) uint8 RGB; got {image.shape} {image.dtype}")
    h, w = image.shape[:2]
    msg.header.frame_id = frame_id
    msg.header.stamp = stamp
    msg.height, msg.width = h, w
    msg.encoding = "rgb8"
    msg.is_bigendian = 0
    msg.step = w * 3
    msg.data = np.ascontiguousarray(image).tobytes()
    return msg


def image_array(msg: Any) -> np.ndarray:
    """sensor_msgs/Image -> (H, W, 3) uint8 RGB (rgb8, bgr8 or mono8 in; row padding removed)."""
    channels = ENCODINGS.get(msg.encoding)
    if channels is None:
        raise RosBridgeError(f"image encoding {msg.encoding!r} is not supported; valid: {', '.join(ENCODINGS)}")
    raw = np.frombuffer(bytes(msg.data), dtype=np.uint8)
    rows = raw.reshape(msg.height, msg.step)[:, : msg.width * channels]
    img = rows.reshape(msg.height, msg.width, channels)
    if msg.encoding == "bgr8":
        img = img[:, :, ::-1]
    elif channels == 1:
        img = np.repeat(img, 3, axis=2)
    return np.ascontiguousarray(img)


def pinhole_k(width: int, height: int, fovy_deg: float) -> tuple[float, float, float, float]:
    """(fx, fy, cx, cy) in pixels of an ideal pinhole with vertical field of view `fovy_deg`."""
    f = 0.5 * height / math.tan(math.radians(fovy_deg) / 2.0)
    return f, f, (width - 1) / 2.0, (height - 1) / 2.0


def fill_camera_info(msg: Any, *, width: int, height: int, fx: float, fy: float, cx: float, cy: float,
                     frame_id: str, stamp: Any, d: Any = (0.0,) * 5) -> Any:
    """K in ROS's (OpenCV's) pixel convention: pixel centres at integers, so a centred principal
    point is ((W-1)/2, (H-1)/2). `d`: plumb_bob (k1, k2, p1, p2, k3)."""
    msg.header.frame_id = frame_id
    msg.header.stamp = stamp
    msg.width, msg.height = width, height
    msg.distortion_model = "plumb_bob"
    msg.d = [float(v) for v in d]
    msg.k = [float(fx), 0.0, float(cx), 0.0, float(fy), float(cy), 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [float(fx), 0.0, float(cx), 0.0, 0.0, float(fy), float(cy), 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def fill_pose(msg: Any, T_world_cam: np.ndarray, *, stamp: Any, frame_id: str = "world") -> Any:
    """A 4x4 `T_world_cam` (OpenCV camera axes) -> geometry_msgs/PoseStamped (ROS quaternion x, y, z, w)."""
    from robograph.rotations import quat_from_mat

    T = np.asarray(T_world_cam, dtype=float)
    w, x, y, z = quat_from_mat(T[:3, :3])
    msg.header.frame_id, msg.header.stamp = frame_id, stamp
    p, q = msg.pose.position, msg.pose.orientation
    p.x, p.y, p.z = (float(v) for v in T[:3, 3])
    q.x, q.y, q.z, q.w = float(x), float(y), float(z), float(w)
    return msg


def pose_matrix(msg: Any) -> np.ndarray:
    """geometry_msgs/PoseStamped -> 4x4 T_world_cam."""
    from robograph.rotations import mat_from_quat

    q, p = msg.pose.orientation, msg.pose.position
    T = np.eye(4)
    T[:3, :3] = mat_from_quat((q.w, q.x, q.y, q.z))
    T[:3, 3] = (p.x, p.y, p.z)
    return T


# CompressedImage (image_transport's `compressed` transport): JPEG or PNG bytes, with a `format`
# string that names what was compressed, e.g. "rgb8; jpeg compressed bgr8". Pillow does the coding
# (PNG is lossless; JPEG trades exactness for ~10x fewer bytes).
COMPRESSED_FORMATS = ("jpeg", "png")


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError:
        from robograph.errors import DependencyNotInstalled

        raise DependencyNotInstalled("pillow", "viz") from None
    return Image


def fill_compressed_image(msg: Any, image: np.ndarray, *, fmt: str, frame_id: str, stamp: Any,
                          quality: int = 90) -> Any:
    """image: (H, W, 3) uint8 RGB -> sensor_msgs/CompressedImage in `fmt` ("jpeg" | "png");
    `quality` (1-95) applies to JPEG."""
    import io

    if fmt not in COMPRESSED_FORMATS:
        raise RosBridgeError(f"compressed image format {fmt!r}; valid: {', '.join(COMPRESSED_FORMATS)}")
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise RosBridgeError(f"camera image must be (H, W, 3) uint8 RGB; got {image.shape} {image.dtype}")
    if not 1 <= int(quality) <= 95:
        raise RosBridgeError(f"JPEG quality must be in 1..95, got {quality!r}")
    buf = io.BytesIO()
    pil = _pil().fromarray(np.ascontiguousarray(image), "RGB")
    if fmt == "jpeg":
        pil.save(buf, format="JPEG", quality=int(quality))
    else:
        pil.save(buf, format="PNG", compress_level=1)  # fast: images stream at camera rate
    msg.header.frame_id = frame_id
    msg.header.stamp = stamp
    msg.format = f"rgb8; {fmt} compressed rgb8"
    msg.data = buf.getvalue()
    return msg


def compressed_array(msg: Any) -> np.ndarray:
    """sensor_msgs/CompressedImage (JPEG or PNG, colour or grey) -> (H, W, 3) uint8 RGB. The
    codec is read from the bytes themselves; `format` only has to name jpeg or png."""
    import io

    fmt = str(msg.format).lower()
    if not any(f in fmt for f in COMPRESSED_FORMATS):
        raise RosBridgeError(f"compressed image format {msg.format!r} is not supported; valid: jpeg, png")
    try:
        pil = _pil().open(io.BytesIO(bytes(msg.data)))
        return np.ascontiguousarray(np.asarray(pil.convert("RGB"), dtype=np.uint8))
    except OSError as exc:
        raise RosBridgeError(f"compressed image ({msg.format!r}, {len(msg.data)} bytes) does not decode: {exc}") from exc
