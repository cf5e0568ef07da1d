"""rclpy behind one lazy door: import checks with a clear error, and a node spun on its own thread.

Each `SpunNode` owns its rclpy Context, so a backend and a robot side (or two backends) can live
in one process without sharing global init state, and `close()` tears down only its own.
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

from robograph_ros_bridge.errors import Ros2NotInstalled


def require_rclpy() -> ModuleType:
    try:
        import rclpy
    except ImportError:
        raise Ros2NotInstalled("rclpy") from None
    return rclpy


def interfaces() -> tuple[ModuleType, ModuleType, ModuleType]:
    """(msg, srv, action) modules of robograph_interfaces."""
    require_rclpy()
    try:
        from robograph_interfaces import action, msg, srv
    except ImportError:
        raise Ros2NotInstalled("robograph_interfaces (built by scripts/setup_ros2.sh)") from None
    return msg, srv, action


class SpunNode:
    """An rclpy node in a private context, spun by a multi-threaded executor on a daemon thread
    (so action goals, cancels, e-stop and heartbeat callbacks run while a skill is executing)."""

    def __init__(self, name: str, *, threads: int = 4) -> None:
        rclpy = require_rclpy()
        from rclpy.executors import MultiThreadedExecutor

        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node: Any = rclpy.create_node(name, context=self.context)
        self.executor = MultiThreadedExecutor(num_threads=threads, context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, name=f"spin-{name}", daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except Exception:  # noqa: BLE001 - the context was shut down under the executor
            if self.context.ok():
                raise

    def now_s(self) -> float:
        return self.node.get_clock().now().nanoseconds * 1e-9

    def close(self) -> None:
        if not self.context.ok():
            return
        self.executor.shutdown(timeout_sec=2.0)
        self._thread.join(timeout=2.0)  # no callback may run on the node once it is destroyed
        self.node.destroy_node()
        self.context.try_shutdown()
