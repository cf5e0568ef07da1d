"""Errors of the ROS 2 bridge: one root, `RosBridgeError`, under the project's `RoboGraphError`."""

from __future__ import annotations

from robograph.errors import RoboGraphError


class RosBridgeError(RoboGraphError):
    """Root of every error the bridge raises on purpose."""


class Ros2NotInstalled(RosBridgeError, ImportError):
    """rclpy or the robograph_interfaces package is missing from this interpreter."""

    def __init__(self, missing: str) -> None:
        super().__init__(
            f"{missing} is not importable here: the ROS 2 bridge runs in its own virtual environment. "
            "Build it with `bash scripts/setup_ros2.sh` and run with `.venv-ros2/bin/python` "
            "(e.g. `.venv-ros2/bin/python -m robograph.cli validate-robot ...`).")


class RobotNotFound(RosBridgeError):
    """No robot answered within the discovery time (wrong ROS_DOMAIN_ID or robot name, or not started)."""


class RobotDisconnected(RosBridgeError):
    """The robot's heartbeat stopped and it did not come back in time (infrastructure, not the agent)."""


class EmergencyStop(RosBridgeError):
    """The e-stop topic fired: the episode stops here and the robot refuses goals until released."""


class InterventionRefused(RosBridgeError):
    """A rewrite the robot cannot make itself (a teleport) with no operator to make it."""
