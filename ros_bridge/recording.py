"""Episode recording as MCAP (rosbag2's default storage; Foxglove and `ros2 bag play` open it).

Messages are stored exactly as they crossed the wire (CDR, serialized by rclpy) with `ros2msg`
schemas built from the installed `.msg` definitions (nested types appended after a line of 80
`=`, as rosbag2 writes them), so any ROS 2 MCAP reader decodes them without this package.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

from robograph_ros_bridge.errors import RosBridgeError

PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
              "uint32", "int64", "uint64", "string", "wstring"}
_FIELD = re.compile(r"^\s*([A-Za-z0-9_/]+)(\[[^\]]*\])?\s+\w+")


def _msg_text(full_type: str) -> str:
    """`pkg/msg/Type` -> the text of its .msg file from the package's share directory (the ROS
    venv's prefix, where the wheels and setup_ros2.sh install them, then AMENT_PREFIX_PATH)."""
    pkg, _, name = full_type.split("/")
    prefixes = [sys.prefix, *filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep))]
    for prefix in prefixes:
        path = Path(prefix) / "share" / pkg / "msg" / f"{name}.msg"
        if path.exists():
            return path.read_text()
    raise RosBridgeError(f"no message definition share/{pkg}/msg/{name}.msg under {', '.join(prefixes)}")


def _deps(pkg: str, text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        m = _FIELD.match(line)
        if not m:
            continue
        base = m.group(1)
        if base in PRIMITIVES:  # constants (`uint8 FOO=1`) are always primitives too
            continue
        if base == "Header":
            out.append("std_msgs/msg/Header")
        elif "/" in base:
            p, n = base.split("/")[0], base.split("/")[-1]
            out.append(f"{p}/msg/{n}")
        else:
            out.append(f"{pkg}/msg/{base}")
    return out


def message_definition(full_type: str) -> str:
    """The concatenated ros2msg definition of `pkg/msg/Type` and every type it nests."""
    top = _msg_text(full_type)
    parts, seen = [top], {full_type}
    queue = _deps(full_type.split("/")[0], top)
    while queue:
        dep = queue.pop(0)
        if dep in seen:
            continue
        seen.add(dep)
        text = _msg_text(dep)
        pkg, _, name = dep.split("/")
        parts.append("=" * 80 + f"\nMSG: {pkg}/{name}\n" + text)
        queue += _deps(pkg, text)
    return "\n".join(parts)


def type_name(msg: Any) -> str:
    """rclpy message instance or class -> `pkg/msg/Type`."""
    cls = msg if isinstance(msg, type) else type(msg)
    module = cls.__module__.split(".")  # e.g. sensor_msgs.msg._image
    return f"{module[0]}/msg/{cls.__name__}"


class McapRecorder:
    """Thread-safe: callbacks from the executor's threads write through one lock."""

    def __init__(self, path: str | Path) -> None:
        from mcap.writer import Writer

        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("wb")
        self._writer = Writer(self._file)
        self._writer.start(profile="ros2", library="robograph ros_bridge")
        self._schemas: dict[str, int] = {}
        self._channels: dict[str, int] = {}
        self._lock = threading.Lock()
        self._closed = False
        self.count = 0

    def write(self, topic: str, msg: Any, stamp_ns: int) -> None:
        from rclpy.serialization import serialize_message

        data = serialize_message(msg)
        with self._lock:
            if self._closed:
                return
            channel = self._channels.get(topic)
            if channel is None:
                tname = type_name(msg)
                schema = self._schemas.get(tname)
                if schema is None:
                    schema = self._writer.register_schema(name=tname, encoding="ros2msg",
                                                          data=message_definition(tname).encode())
                    self._schemas[tname] = schema
                channel = self._writer.register_channel(topic=topic, message_encoding="cdr", schema_id=schema)
                self._channels[topic] = channel
            self._writer.add_message(channel_id=channel, log_time=stamp_ns, data=data, publish_time=stamp_ns)
            self.count += 1

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._writer.finish()
            self._file.close()
