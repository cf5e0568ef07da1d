"""Transforms as TF carries them: `tf2_msgs/TFMessage` on `/tf` (moving frames) and `/tf_static`
(fixed mounts, latched), and a small buffer that keeps the latest transform of every frame.

Why not tf2_ros: it is not among the ROS 2 wheels on the package index (setup_ros2.sh builds only
the TFMessage type). The buffer needs no interpolation: the bridge asks for the state after a
skill, so the latest transform of each frame is the one that matters, as in a tf2 lookup at time 0.

Frames form a tree (each child has one parent, as in tf2); matrices are 4x4 homogeneous
`T_parent_child` (A2B, pytransform3d's convention: maps child coordinates to parent ones), metres.
Pure numpy; message classes are passed in, so the module imports without rclpy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from robograph_ros_bridge.errors import RosBridgeError

WORLD_FRAME = "world"
TF_TOPIC = "/tf"
TF_STATIC_TOPIC = "/tf_static"
# stamps within this many seconds are the same moment (builtin_interfaces/Time is exact to 1 ns;
# the float seconds the buffer keeps are not)
STAMP_TOLERANCE_S = 1e-6


class TransformNotFound(RosBridgeError):
    """No chain of known transforms joins the two frames."""


@dataclass(frozen=True, slots=True)
class Transform:
    parent: str
    child: str
    matrix: np.ndarray  # (4, 4) T_parent_child
    stamp_s: float = 0.0
    static: bool = False


class TransformBuffer:
    """Recent transforms of every child frame; thread-safe (subscription callbacks write it from the
    executor's threads while render reads it).

    A lookup `at` a time (an image's stamp) uses, per moving frame, the latest transform stamped at
    or before it, and only once a transform stamped at or after it has arrived: /tf and an image
    travel on different topics, so the newest transform may still describe the moment before the
    image (the torso mid-lift) or be in flight. Static transforms hold at every time."""

    def __init__(self, history: int = 64) -> None:
        self._by_child: dict[str, list[Transform]] = {}  # each list sorted by stamp, newest last
        self._history = history
        self._lock = threading.Lock()

    def set(self, tf: Transform) -> None:
        if tf.parent == tf.child:
            raise RosBridgeError(f"transform from {tf.parent!r} to itself")
        with self._lock:
            entries = self._by_child.setdefault(tf.child, [])
            if tf.static or (entries and entries[-1].static):
                entries[:] = [tf]
                return
            i = len(entries)
            while i > 0 and entries[i - 1].stamp_s > tf.stamp_s:
                i -= 1
            entries.insert(i, tf)
            del entries[:-self._history]

    def update(self, transforms: Iterable[Transform]) -> None:
        for tf in transforms:
            self.set(tf)

    def frames(self) -> list[str]:
        with self._lock:
            return sorted({f for es in self._by_child.values() for t in es for f in (t.parent, t.child)})

    def get(self, child: str) -> Transform | None:
        """The newest transform of `child` (None when it is a root or unknown)."""
        with self._lock:
            entries = self._by_child.get(child)
            return entries[-1] if entries else None

    def knows(self, frame: str) -> bool:
        with self._lock:
            return frame in self._by_child

    def _at(self, child: str, at: float | None) -> Transform | None:
        entries = self._by_child.get(child)
        if not entries:
            return None
        if at is None or entries[-1].static:
            return entries[-1]
        if entries[-1].stamp_s < at - STAMP_TOLERANCE_S:
            raise TransformNotFound(f"no transform of {child!r} at or after t={at:.6f} s yet "
                                    f"(newest t={entries[-1].stamp_s:.6f} s)")
        before = [t for t in entries if t.stamp_s <= at + STAMP_TOLERANCE_S]
        if not before:
            raise TransformNotFound(f"transforms of {child!r} before t={at:.6f} s are no longer kept")
        return before[-1]

    def _to_root(self, frame: str, at: float | None) -> tuple[str, np.ndarray]:
        """(root frame, T_root_frame) following parents; a cycle is an error."""
        T = np.eye(4)
        seen = {frame}
        while (tf := self._at(frame, at)) is not None:
            T = tf.matrix @ T
            frame = tf.parent
            if frame in seen:
                raise RosBridgeError(f"transform cycle through {frame!r}")
            seen.add(frame)
        return frame, T

    def lookup(self, target: str, source: str, at: float | None = None) -> np.ndarray:
        """T_target_source: maps points in `source` to `target` (tf2's lookupTransform(target,
        source, time)); `at` None = the newest transforms."""
        with self._lock:
            root_s, T_root_source = self._to_root(source, at)
            root_t, T_root_target = self._to_root(target, at)
        if root_s != root_t:
            known = ", ".join(self.frames()) or "none"
            raise TransformNotFound(f"no transform chain from {source!r} to {target!r} (their trees end in "
                                    f"{root_s!r} and {root_t!r}); known frames: {known}")
        return np.linalg.inv(T_root_target) @ T_root_source

    def can_transform(self, target: str, source: str, at: float | None = None) -> bool:
        try:
            self.lookup(target, source, at)
        except TransformNotFound:
            return False
        return True


def fill_transform_stamped(msg: Any, tf: Transform, *, stamp: Any) -> Any:
    """Transform -> geometry_msgs/TransformStamped (quaternion x, y, z, w as ROS orders it)."""
    from robograph.rotations import quat_from_mat

    T = np.asarray(tf.matrix, dtype=float)
    if T.shape != (4, 4) or not np.all(np.isfinite(T)):
        raise RosBridgeError(f"transform {tf.parent}->{tf.child} must be a finite 4x4 matrix; got shape {T.shape}")
    w, x, y, z = quat_from_mat(T[:3, :3])
    msg.header.frame_id, msg.header.stamp, msg.child_frame_id = tf.parent, stamp, tf.child
    t, q = msg.transform.translation, msg.transform.rotation
    t.x, t.y, t.z = (float(v) for v in T[:3, 3])
    q.x, q.y, q.z, q.w = float(x), float(y), float(z), float(w)
    return msg


def from_transform_stamped(msg: Any, *, static: bool) -> Transform:
    """geometry_msgs/TransformStamped -> Transform."""
    from robograph.rotations import mat_from_quat

    t, q = msg.transform.translation, msg.transform.rotation
    T = np.eye(4)
    T[:3, :3] = mat_from_quat((q.w, q.x, q.y, q.z))
    T[:3, 3] = (t.x, t.y, t.z)
    stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
    return Transform(msg.header.frame_id, msg.child_frame_id, T, stamp, static)


def tf_message(msg_cls: Any, stamped_cls: Any, transforms: Iterable[Transform], *, stamp: Any) -> Any:
    """A tf2_msgs/TFMessage holding `transforms`."""
    msg = msg_cls()
    msg.transforms = [fill_transform_stamped(stamped_cls(), tf, stamp=stamp) for tf in transforms]
    return msg
