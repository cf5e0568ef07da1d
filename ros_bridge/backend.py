"""The `ros2` backend: RoboGraph's Backend protocol as a client of a robot over ROS 2.

The robot (or `robot_sim` standing in for it) does the work; this class only speaks the contract:

- `execute`: one `ExecuteSkill` goal per action with a fresh request id; waits until the result,
  the deadline (the goal is then cancelled and the step reports `deadline_exceeded`), the caller's
  cancel, or heartbeat loss (`robot_disconnected`, an infrastructure failure). Feedback phases
  go to `feedback_log` and the `robograph_ros_bridge.backend` logger (Execution.info keeps only what is
  the same from run to run: status, duplicate, seconds).
- `reconcile`: the robot's perceived world (`GetWorldState`), never the graph's own prediction;
  after a disconnect it waits for the robot to come back, else raises `RobotDisconnected`.
- `render`: the latest image of each camera (`sensor_msgs/Image`, or JPEG/PNG `CompressedImage`
  for the cameras named in `compressed`), its `CameraInfo`, and its pose from TF (world ->
  the image's optical frame; `/tf` and `/tf_static` are kept in `tf_buffer`), else from the
  camera's `pose` topic.
- `realize`: a real robot cannot teleport. With `interventions="operator"` each exogenous change is
  sent to an operator (`OperatorRequest`) who makes it and confirms (`OperatorConfirm`); with
  `"refuse"` (default) it raises `InterventionRefused` naming the change.
- An e-stop (the robot's heartbeat says so) raises `EmergencyStop`: the episode stops.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from robograph.actions import Action
from robograph.backend import ALL_REWRITE_KINDS, CameraSpec, Capabilities, Execution, Frame, interruption
from robograph.failures import ActionFailure, FailureType
from robograph.graph import SceneGraph
from robograph.rewrite import Rewrite, diff
from robograph_ros_bridge.errors import (
    EmergencyStop,
    InterventionRefused,
    RobotDisconnected,
    RobotNotFound,
    RosBridgeError,
)
from robograph_ros_bridge.images import compressed_array, image_array, pose_matrix
from robograph_ros_bridge.names import DEFAULT_CAMERAS, DEFAULT_ROBOT, HEARTBEAT_TIMEOUT_S, RobotNames
from robograph_ros_bridge.recording import McapRecorder
from robograph_ros_bridge.ros import SpunNode, interfaces
from robograph_ros_bridge.tf import (
    TF_STATIC_TOPIC,
    TF_TOPIC,
    WORLD_FRAME,
    TransformBuffer,
    TransformNotFound,
    from_transform_stamped,
)

INTERVENTION_MODES = ("refuse", "operator")
_KNOWN_FAILURES = {f.value for f in FailureType}
log = logging.getLogger(__name__)


class Ros2Backend:
    name = "ros2"

    def __init__(self, robot: str = DEFAULT_ROBOT, cameras: Sequence[str] | str = DEFAULT_CAMERAS,
                 goal_timeout_s: float = 60.0, heartbeat_timeout_s: float = HEARTBEAT_TIMEOUT_S,
                 connect_timeout_s: float = 15.0, reconnect_timeout_s: float = 10.0,
                 interventions: str = "refuse", operator_timeout_s: float = 120.0,
                 width: int = 320, height: int = 240, resend_s: float = 1.0, record: str = "",
                 run_id: str | None = None, service_timeout_s: float = 30.0,
                 compressed: Sequence[str] | str = ()) -> None:
        if interventions not in INTERVENTION_MODES:
            raise RosBridgeError(f"interventions={interventions!r}; valid: {', '.join(INTERVENTION_MODES)}")
        for key, value in (("goal_timeout_s", goal_timeout_s), ("heartbeat_timeout_s", heartbeat_timeout_s),
                           ("connect_timeout_s", connect_timeout_s), ("reconnect_timeout_s", reconnect_timeout_s),
                           ("service_timeout_s", service_timeout_s)):
            if not value > 0:
                raise RosBridgeError(f"{key} must be > 0 seconds, got {value!r}")
        self.msg, self.srv, self.action = interfaces()  # first: a clear error where ROS 2 is missing
        from geometry_msgs.msg import PoseStamped
        from rclpy.action import ActionClient
        from rclpy.callback_groups import ReentrantCallbackGroup
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
        from sensor_msgs.msg import CameraInfo, CompressedImage, Image
        from tf2_msgs.msg import TFMessage

        from robograph_ros_bridge.sensors import tf_qos

        self.robot = robot
        self.names = RobotNames(robot)
        self.cameras = _names_list(cameras)
        # cameras whose images come as sensor_msgs/CompressedImage (JPEG/PNG) on .../image_raw/compressed
        self.compressed = self.cameras if compressed in ("all", True) else _names_list(compressed)
        if set(self.compressed) - set(self.cameras):
            raise RosBridgeError(f"compressed={list(self.compressed)}: every camera named must be among "
                                 f"cameras={list(self.cameras)} (or compressed=all)")
        self.goal_timeout_s = float(goal_timeout_s)
        self.heartbeat_timeout_s = float(heartbeat_timeout_s)
        self.connect_timeout_s = float(connect_timeout_s)
        self.reconnect_timeout_s = float(reconnect_timeout_s)
        # reset_world rebuilds a simulated world and get_world_state reads it: seconds on a loaded
        # 2-core machine (10 s timed out in a CI run while the robot side was busy starting up)
        self.service_timeout_s = float(service_timeout_s)
        self.interventions = interventions
        self.resend_s = float(resend_s)
        self.operator_timeout_s = float(operator_timeout_s)
        self.run_id = run_id or uuid.uuid4().hex[:12]
        # Honest declarations: the robot cannot teleport, so rewrites are realizable only through an
        # operator; images come at the size the robot is configured for (render checks it).
        self.capabilities = Capabilities(
            cameras=tuple(CameraSpec(c, int(width), int(height)) for c in self.cameras),
            realizes=ALL_REWRITE_KINDS if interventions == "operator" else frozenset(),
            modes=("physics",), mode="physics", deadlines=True)
        self.feedback_log: deque[dict[str, Any]] = deque(maxlen=10000)  # every feedback message
        self.last_request_id = ""
        # `record`: an MCAP file of what the robot sent (images, camera info and poses, joint
        # states) and the reconciled world after every step
        self.recorder = McapRecorder(record) if record else None
        self._lock = threading.Lock()
        self._last_beat = -1.0  # time.monotonic() of the last heartbeat
        self._estopped = False
        self._images: dict[str, Any] = {}
        self._infos: dict[str, Any] = {}
        self._poses: dict[str, Any] = {}
        self.tf_buffer = TransformBuffer()  # the latest transform of every frame on /tf and /tf_static
        self._confirmations: dict[str, tuple[bool, str]] = {}
        self._confirmed = threading.Condition(self._lock)
        self._step = 0
        self._resets = 0
        self.joint_states: deque[Any] = deque(maxlen=1000)  # the robot's latest JointState messages

        self.spun = SpunNode(f"robograph_bridge_{self.run_id}")
        node = self.spun.node
        group = ReentrantCallbackGroup()
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self._client = ActionClient(node, self.action.ExecuteSkill, self.names.execute_skill, callback_group=group)
        self._world = node.create_client(self.srv.GetWorldState, self.names.get_world_state, callback_group=group)
        self._reset = node.create_client(self.srv.ResetWorld, self.names.reset_world, callback_group=group)
        node.create_subscription(self.msg.Heartbeat, self.names.heartbeat, self._on_heartbeat, 10,
                                 callback_group=group)
        for cam in self.cameras:
            image = ((CompressedImage, self.names.compressed_image(cam)) if cam in self.compressed
                     else (Image, self.names.image(cam)))
            for msg_type, topic, store, qos in (
                    (*image, self._images, qos_profile_sensor_data),
                    (CameraInfo, self.names.camera_info(cam), self._infos, latched),
                    (PoseStamped, self.names.camera_pose(cam), self._poses, latched)):
                node.create_subscription(msg_type, topic, self._on(store, cam, topic), qos, callback_group=group)
        from sensor_msgs.msg import JointState

        node.create_subscription(JointState, self.names.joint_states, self._on_joint_state, 10,
                                 callback_group=group)
        for topic, static in ((TF_TOPIC, False), (TF_STATIC_TOPIC, True)):
            node.create_subscription(TFMessage, topic, self._on_tf(topic, static), tf_qos(static=static),
                                     callback_group=group)
        self._op_pub = node.create_publisher(self.msg.OperatorRequest, self.names.operator_request, 10)
        node.create_service(self.srv.OperatorConfirm, self.names.operator_confirm, self._on_confirm,
                            callback_group=group)

    # subscriptions -------------------------------------------------------------------------------
    def _on(self, store: dict[str, Any], cam: str, topic: str) -> Any:
        def callback(msg: Any) -> None:
            store[cam] = msg
            self._record(topic, msg)
        return callback

    def _record(self, topic: str, msg: Any) -> None:
        if self.recorder is not None:
            self.recorder.write(topic, msg, self.spun.node.get_clock().now().nanoseconds)

    def _on_tf(self, topic: str, static: bool) -> Any:
        def callback(msg: Any) -> None:
            self.tf_buffer.update(from_transform_stamped(t, static=static) for t in msg.transforms)
            self._record(topic, msg)
        return callback

    def _on_joint_state(self, msg: Any) -> None:
        self.joint_states.append(msg)
        self._record(self.names.joint_states, msg)

    def _on_heartbeat(self, msg: Any) -> None:
        with self._lock:
            self._last_beat = time.monotonic()
            self._estopped = bool(msg.estopped)

    def _on_confirm(self, request: Any, response: Any) -> Any:
        with self._confirmed:
            self._confirmations[request.request_id] = (bool(request.done), request.message)
            self._confirmed.notify_all()
        response.accepted = True
        return response

    # connection ----------------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        with self._lock:
            return self._last_beat >= 0 and time.monotonic() - self._last_beat < self.heartbeat_timeout_s

    @property
    def estopped(self) -> bool:
        """What the robot's last heartbeat (or an e-stop result) said."""
        with self._lock:
            return self._estopped

    def _check_estop(self) -> None:
        with self._lock:
            if self._estopped:
                raise EmergencyStop(f"robot {self.robot!r} is e-stopped (its heartbeat says so); the episode "
                                    f"stops here. Release the e-stop (publish false on {self.names.estop}) to go on")

    def wait_for_robot(self, timeout_s: float) -> bool:
        """True once a heartbeat is fresh and the action server and perception service are matched."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.connected and self._client.server_is_ready() and self._world.service_is_ready():
                return True
            time.sleep(0.02)
        return False

    def _call(self, client: Any, request: Any, timeout_s: float) -> Any:
        future = client.call_async(request)
        end = time.monotonic() + timeout_s
        while not future.done():
            if time.monotonic() > end:
                client.remove_pending_request(future)
                raise RobotDisconnected(f"robot {self.robot!r} did not answer {client.srv_name} in {timeout_s:.1f} s")
            time.sleep(0.002)
        return future.result()

    # Backend protocol ----------------------------------------------------------------------------
    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        if not self.wait_for_robot(self.connect_timeout_s):
            raise RobotNotFound(
                f"no robot {self.robot!r} answered in {self.connect_timeout_s:.0f} s (heartbeat on "
                f"{self.names.heartbeat}, action {self.names.execute_skill}); is robograph-robot-sim or the "
                "robot side running with the same ROS_DOMAIN_ID and --robot name?")
        self._check_estop()
        self._resets += 1
        self._step = 0
        self.joint_states.clear()
        if self._reset.wait_for_service(timeout_sec=0.5):  # simulation: rebuild the world for G0
            res = self._call(self._reset, self.srv.ResetWorld.Request(graph_json=json.dumps(graph.to_json()),
                                                                       seed=int(seed)), self.service_timeout_s)
            if not res.ok:
                raise RosBridgeError(f"the robot refused reset_world: {res.message}")
            return
        world = self._read_world()  # a real robot: the operator set the scene up; check it is G0
        if world != graph:
            changes = "; ".join(json.dumps(r.to_json(), sort_keys=True) for r in diff(graph, world)[:10])
            raise RosBridgeError(f"the robot's perceived world does not match the instance's G0: {changes}")

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        if not rewrites:
            return
        text = json.dumps([r.to_json() for r in rewrites], sort_keys=True)
        if self.interventions == "refuse":
            raise InterventionRefused(
                f"the ros2 backend cannot make the change {text} itself (a robot cannot teleport objects); "
                "run with --backend-opt interventions=operator to ask an operator, or without interventions")
        rid = f"{self.run_id}-op{self._resets}-{self._step}-{uuid.uuid4().hex[:6]}"
        end = time.monotonic() + min(self.operator_timeout_s, self.connect_timeout_s)
        while self._op_pub.get_subscription_count() == 0 and time.monotonic() < end:
            time.sleep(0.02)  # a message published before the operator's console matched is lost
        if self._op_pub.get_subscription_count() == 0:
            raise InterventionRefused(f"no operator listens on {self.names.operator_request}; cannot make {text}")
        self._op_pub.publish(self.msg.OperatorRequest(request_id=rid, rewrites_json=text,
                                                      description=f"please make this change: {text}"))
        with self._confirmed:
            ok = self._confirmed.wait_for(lambda: rid in self._confirmations, timeout=self.operator_timeout_s)
            done, message = self._confirmations.pop(rid, (False, "no answer"))
        if not ok or not done:
            raise InterventionRefused(f"the operator did not make the change {text}: {message}")

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph, *,
                deadline: float | None = None, cancel: Any = None) -> Execution:
        self._check_estop()
        t0 = time.monotonic()
        stopped = interruption(deadline, cancel)
        if stopped is not None:  # nothing is sent: the world stays as it was
            return Execution(failure=stopped, info={"status": "not_sent", "duplicate": False, "wall_s": 0.0})
        self._step += 1
        rid = f"{self.run_id}-{self._resets}-{self._step}"
        self.last_request_id = rid
        info: dict[str, Any] = {"status": "", "duplicate": False}
        if not self.connected:
            return self._disconnected(info, t0, "before the goal was sent")
        goal = self.action.ExecuteSkill.Goal(
            request_id=rid, action=action.name, node_ids=list(action.args),
            expected_delta_json=json.dumps([r.to_json() for r in diff(graph, expected)], sort_keys=True))
        limit = t0 + self.goal_timeout_s
        if deadline is not None:
            limit = min(limit, deadline)
        goal.deadline_s = max(0.0, limit - t0)

        def on_feedback(msg: Any) -> None:
            entry = {"request_id": rid, "t": round(time.monotonic() - t0, 4), "phase": msg.feedback.phase,
                     "progress": round(float(msg.feedback.progress), 3)}
            self.feedback_log.append(entry)
            log.debug("goal %s %s: %s %.2f", rid, action, entry["phase"], entry["progress"])

        # A goal request is not durable: one sent while discovery still matches a restarted robot's
        # endpoints is lost. Re-send it (same request id: the robot runs it at most once) until
        # one is accepted.
        sends = [self._client.send_goal_async(goal, feedback_callback=on_feedback)]
        next_send = t0 + self.resend_s
        handle = None
        result_future = None
        while True:
            if handle is None:
                done = [f for f in sends if f.done()]
                if done:
                    handle = done[0].result()
                    if not handle.accepted:
                        return self._failed(info, t0, FailureType.EXECUTION_FAILED, f"the robot rejected goal {rid}")
                    result_future = handle.get_result_async()
                elif time.monotonic() >= next_send:
                    sends.append(self._client.send_goal_async(goal, feedback_callback=on_feedback))
                    next_send = time.monotonic() + self.resend_s
                    info["resent"] = len(sends) - 1
            if result_future is not None and result_future.done():
                return self._from_result(result_future.result().result, info, t0)
            if not self.connected:
                return self._disconnected(info, t0, f"during {action}")
            if cancel is not None and cancel.is_set():
                return self._cancel(handle, info, t0, FailureType.CANCELLED, "cancelled by the caller")
            if time.monotonic() >= limit:
                return self._cancel(handle, info, t0, FailureType.DEADLINE_EXCEEDED,
                                    f"{action} ran past its deadline ({limit - t0:.2f} s); goal {rid} cancelled")
            time.sleep(0.002)

    def _cancel(self, handle: Any, info: dict[str, Any], t0: float, kind: FailureType, message: str) -> Execution:
        if handle is not None:
            future = handle.cancel_goal_async()
            end = time.monotonic() + 2.0
            while not future.done() and time.monotonic() < end:
                time.sleep(0.005)
            info["cancel_acknowledged"] = bool(future.done() and future.result().goals_canceling)
        info["status"] = "cancel_sent" if handle is not None else "not_accepted"
        return self._failed(info, t0, kind, message)

    def _disconnected(self, info: dict[str, Any], t0: float, when: str) -> Execution:
        return self._failed(info, t0, FailureType.ROBOT_DISCONNECTED,
                            f"robot {self.robot!r} heartbeat lost {when} (silent > {self.heartbeat_timeout_s:.1f} s)")

    def _failed(self, info: dict[str, Any], t0: float, kind: FailureType, message: str) -> Execution:
        info["wall_s"] = time.monotonic() - t0
        info.setdefault("status", "")
        return Execution(failure=ActionFailure(kind, message), info=info)

    def _from_result(self, res: Any, info: dict[str, Any], t0: float) -> Execution:
        info.update(status=res.status, duplicate=bool(res.duplicate), robot_s=float(res.duration_s))
        if res.status == "succeeded":
            info["wall_s"] = time.monotonic() - t0
            return Execution(info=info)
        if res.failure_type == "estop":
            with self._lock:
                self._estopped = True
            raise EmergencyStop(f"robot {self.robot!r} stopped: {res.message}")
        kind = FailureType(res.failure_type) if res.failure_type in _KNOWN_FAILURES else FailureType.EXECUTION_FAILED
        return self._failed(info, t0, kind, f"{res.status}: {res.message}")

    def _read_world(self) -> SceneGraph:
        if not self.connected and not self.wait_for_robot(self.reconnect_timeout_s):
            raise RobotDisconnected(f"robot {self.robot!r} is gone (no heartbeat for {self.reconnect_timeout_s:.0f} s); "
                                    "its world cannot be read back. Restart the robot side and resume the run")
        res = self._call(self._world, self.srv.GetWorldState.Request(), self.service_timeout_s)
        self._record(self.names.world_state, res.state)
        if not res.state.graph_json:
            raise RosBridgeError(f"robot {self.robot!r} has no world yet (start it with --instance or reset it)")
        return SceneGraph.from_json(json.loads(res.state.graph_json))

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        world = self._read_world()
        return expected if world == expected else world

    def render(self, cameras: Sequence[str] | None = None, timeout_s: float = 5.0,
               newer_than: float | None = None) -> list[Frame]:
        """The latest image of each camera, with the model its CameraInfo and TF (else pose topic) give
        (timestamp: the image's ROS stamp in seconds). `newer_than` (ROS seconds, e.g. `now_s()`
        before an action) waits for images taken after that moment."""
        from robograph_calibration.camera import CameraModel

        names = list(cameras) if cameras is not None else list(self.cameras)
        unknown = [c for c in names if c not in self.cameras]
        if unknown:
            raise RosBridgeError(f"unknown camera(s) {unknown}; this backend subscribes to: {', '.join(self.cameras)}")
        end = time.monotonic() + timeout_s

        def stale(c: str) -> bool:
            return newer_than is not None and c in self._images and _stamp(self._images[c]) <= newer_than

        def ready(c: str) -> bool:
            return c in self._images and c in self._infos and self._pose_of(c) is not None and not stale(c)

        while not all(ready(c) for c in names) and time.monotonic() < end:
            time.sleep(0.001)
        missing = [c for c in names if not ready(c)]
        if missing:
            raise RosBridgeError(f"no fresh image, camera_info and pose (TF world -> optical frame, or the pose "
                                 f"topic) from camera(s) {missing} in {timeout_s:.0f} s (topics "
                                 f"{', '.join(self.names.image(c) for c in missing)} and siblings)")
        frames = []
        for cam in names:
            msg, info = self._images[cam], self._infos[cam]
            image = compressed_array(msg) if cam in self.compressed else image_array(msg)
            spec = next(s for s in self.capabilities.cameras if s.name == cam)
            if (image.shape[1], image.shape[0]) != (spec.width, spec.height):
                raise RosBridgeError(f"camera {cam} sends {image.shape[1]}x{image.shape[0]} images; this backend was "
                                     f"configured for {spec.width}x{spec.height} (--backend-opt width=/height=)")
            K = np.array(info.k, dtype=float).reshape(3, 3)
            model = CameraModel.from_opencv(info.width, info.height, K, tuple(info.d[:5]) or (0.0,) * 5,
                                            self._pose_of(cam))
            frames.append(Frame(camera=cam, image=image, model=model, timestamp=_stamp(msg)))
        return frames

    def _pose_of(self, camera: str) -> np.ndarray | None:
        """T_world_cam of the camera's latest image: TF (world -> its optical frame at the image's
        stamp) where the robot publishes that frame, else the camera's pose topic; None until the
        transforms of that moment have arrived."""
        msg = self._images.get(camera)
        if msg is not None and self.tf_buffer.knows(msg.header.frame_id):  # the robot speaks TF: wait for it
            try:
                return self.tf_buffer.lookup(WORLD_FRAME, msg.header.frame_id, at=_stamp(msg))
            except TransformNotFound:
                return None
        pose = self._poses.get(camera)
        return None if pose is None else pose_matrix(pose)

    def now_s(self) -> float:
        """ROS time now, seconds (the clock image stamps use)."""
        return self.spun.now_s()

    def camera_info(self, camera: str) -> Any:
        """The latest sensor_msgs/CameraInfo of `camera` (None before the first)."""
        return self._infos.get(camera)

    def close(self) -> None:
        self.spun.close()
        if self.recorder is not None:
            self.recorder.close()


def _names_list(value: Sequence[str] | str) -> tuple[str, ...]:
    """"head,left" or a list -> ("head", "left"), empty names dropped."""
    if isinstance(value, str):
        value = value.split(",")
    return tuple(str(v).strip() for v in value if str(v).strip())


def _stamp(msg: Any) -> float:
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
