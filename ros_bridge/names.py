"""The wire contract's names, shared by the robot side and the client (one place, no drift).

Every name lives under a robot namespace (default `robograph`), so two robots can share a
ROS domain. Cameras publish `<ns>/cameras/<name>/image_raw` (sensor_msgs/Image) and
`<ns>/cameras/<name>/camera_info` (sensor_msgs/CameraInfo), the image_transport layout (JPEG/PNG
on `.../image_raw/compressed`, sensor_msgs/CompressedImage), and `<ns>/cameras/<name>/pose`
(geometry_msgs/PoseStamped, T_world_cam). Frames go on the global `/tf` and `/tf_static`
(tf2_msgs/TFMessage), named `<ns>/<frame>` under the common `world` frame.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_ROBOT = "robograph"
DEFAULT_CAMERAS = ("head", "left", "right")
# The heartbeat rate and how long silence may last before the robot counts as lost: 30 missed
# beats. 1 s (10 beats) read a busy but live robot as lost on a loaded 2-core machine, right after
# a restarted robot node was rediscovered.
HEARTBEAT_HZ = 10.0
HEARTBEAT_TIMEOUT_S = 3.0


@dataclass(frozen=True, slots=True)
class RobotNames:
    robot: str = DEFAULT_ROBOT

    def _n(self, suffix: str) -> str:
        return f"/{self.robot}/{suffix}"

    @property
    def execute_skill(self) -> str:
        return self._n("execute_skill")

    @property
    def get_world_state(self) -> str:
        return self._n("get_world_state")

    @property
    def world_state(self) -> str:
        return self._n("world_state")

    @property
    def reset_world(self) -> str:
        return self._n("reset_world")

    @property
    def heartbeat(self) -> str:
        return self._n("heartbeat")

    @property
    def estop(self) -> str:
        return self._n("estop")

    @property
    def operator_request(self) -> str:
        return self._n("operator/request")

    @property
    def operator_confirm(self) -> str:
        return self._n("operator/confirm")

    @property
    def joint_states(self) -> str:
        return self._n("joint_states")

    def image(self, camera: str) -> str:
        return self._n(f"cameras/{camera}/image_raw")

    def compressed_image(self, camera: str) -> str:
        """sensor_msgs/CompressedImage (JPEG or PNG), image_transport's `compressed` sub-topic."""
        return self._n(f"cameras/{camera}/image_raw/compressed")

    def frame(self, name: str) -> str:
        """A TF frame of this robot, e.g. `robograph/base_link`."""
        return f"{self.robot}/{name}"

    def optical_frame(self, camera: str) -> str:
        """The camera's optical frame (OpenCV axes: x right, y down, z forward); images carry it."""
        return self.frame(f"{camera}_optical")

    def camera_info(self, camera: str) -> str:
        return self._n(f"cameras/{camera}/camera_info")

    def camera_pose(self, camera: str) -> str:
        """geometry_msgs/PoseStamped T_world_cam (OpenCV axes), latched: the same pose as the TF chain
        world -> optical frame, for tools without TF (kept beside /tf)."""
        return self._n(f"cameras/{camera}/pose")
