"""The robot side's sensor topics: camera images (raw `sensor_msgs/Image` or JPEG/PNG
`CompressedImage`, per camera), `CameraInfo`, camera poses, TF (`/tf` for moving frames,
`/tf_static` latched for camera mounts) and `JointState`.

One publisher object owned by the robot node; it turns a `SensorSnapshot` into messages. Frame
names get the robot's prefix (`<robot>/base_link`), except the shared `world`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robograph_ros_bridge.images import (
    COMPRESSED_FORMATS,
    fill_camera_info,
    fill_compressed_image,
    fill_image,
    fill_pose,
)
from robograph_ros_bridge.names import RobotNames
from robograph_ros_bridge.sim_world import SensorSnapshot
from robograph_ros_bridge.tf import TF_STATIC_TOPIC, TF_TOPIC, WORLD_FRAME, Transform, tf_message

IMAGE_FORMATS = ("raw", *COMPRESSED_FORMATS)


def tf_qos(*, static: bool) -> Any:
    """tf2's QoS: /tf reliable and volatile (depth 100), /tf_static reliable and transient-local
    (depth 1: every static transform in one message, kept for late subscribers)."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    if static:
        return QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
    return QoSProfile(depth=100, durability=DurabilityPolicy.VOLATILE, reliability=ReliabilityPolicy.RELIABLE)


class SensorPublisher:
    """`formats`: camera -> "raw" | "jpeg" | "png" (cameras not named publish raw)."""

    def __init__(self, node: Any, names: RobotNames, cameras: Sequence[str], formats: Mapping[str, str],
                 *, jpeg_quality: int = 90) -> None:
        from geometry_msgs.msg import PoseStamped, TransformStamped
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from sensor_msgs.msg import CameraInfo, CompressedImage, Image, JointState
        from tf2_msgs.msg import TFMessage

        bad = {c: f for c, f in formats.items() if f not in IMAGE_FORMATS or c not in cameras}
        if bad:
            from robograph_ros_bridge.errors import RosBridgeError

            raise RosBridgeError(f"image formats {bad}: cameras must be among {list(cameras)} and formats "
                                 f"among {', '.join(IMAGE_FORMATS)}")
        self.node, self.names = node, names
        self.formats = {c: formats.get(c, "raw") for c in cameras}
        self.jpeg_quality = jpeg_quality
        self._types = {"Image": Image, "CompressedImage": CompressedImage, "CameraInfo": CameraInfo,
                       "PoseStamped": PoseStamped, "JointState": JointState, "TFMessage": TFMessage,
                       "TransformStamped": TransformStamped}
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
        self._img = {c: (node.create_publisher(Image, names.image(c), 2) if f == "raw"
                         else node.create_publisher(CompressedImage, names.compressed_image(c), 2))
                     for c, f in self.formats.items()}
        self._info = {c: node.create_publisher(CameraInfo, names.camera_info(c), latched) for c in cameras}
        self._pose = {c: node.create_publisher(PoseStamped, names.camera_pose(c), latched) for c in cameras}
        self._joints = node.create_publisher(JointState, names.joint_states, 10)
        self._tf = node.create_publisher(TFMessage, TF_TOPIC, tf_qos(static=False))
        self._tf_static = node.create_publisher(TFMessage, TF_STATIC_TOPIC, tf_qos(static=True))

    def _frame(self, name: str) -> str:
        return name if name == WORLD_FRAME else self.names.frame(name)

    def _prefixed(self, transforms: Sequence[Transform]) -> list[Transform]:
        return [Transform(self._frame(t.parent), self._frame(t.child), t.matrix, t.stamp_s, t.static)
                for t in transforms]

    def publish_static(self, fixed: Sequence[Transform], stamp: Any) -> None:
        """All static transforms in one latched message (a later call replaces them, as tf2's
        static broadcaster does)."""
        if not fixed:  # a robot without cameras or mounts has nothing static to say
            return
        t = self._types
        self._tf_static.publish(tf_message(t["TFMessage"], t["TransformStamped"], self._prefixed(fixed), stamp=stamp))

    def publish(self, snap: SensorSnapshot, stamp: Any) -> None:
        t = self._types
        for cam, (img, model) in snap.cameras.items():
            fmt = self.formats.get(cam)
            if fmt is None:
                continue
            frame_id = self.names.optical_frame(cam)
            if fmt == "raw":
                msg = fill_image(t["Image"](), img, frame_id=frame_id, stamp=stamp)
            else:
                msg = fill_compressed_image(t["CompressedImage"](), img, fmt=fmt, frame_id=frame_id, stamp=stamp,
                                            quality=self.jpeg_quality)
            self._img[cam].publish(msg)
            self._pose[cam].publish(fill_pose(t["PoseStamped"](), model.T_world_cam, stamp=stamp))
            K = model.K_opencv
            h, w = img.shape[:2]
            self._info[cam].publish(fill_camera_info(t["CameraInfo"](), width=w, height=h, fx=K[0, 0], fy=K[1, 1],
                                                     cx=K[0, 2], cy=K[1, 2], frame_id=frame_id, stamp=stamp,
                                                     d=model.dist))
        if snap.moving:
            self._tf.publish(tf_message(t["TFMessage"], t["TransformStamped"], self._prefixed(snap.moving),
                                        stamp=stamp))
        if snap.joints is not None:
            js = t["JointState"]()
            js.header.stamp = stamp
            js.header.frame_id = self.names.frame("base_link")
            js.name, js.position = list(snap.joints[0]), list(snap.joints[1])
            self._joints.publish(js)
