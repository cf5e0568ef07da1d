"""The robot side, driven by a simulator: `python -m robograph_ros_bridge.robot_sim` / `robograph-robot-sim`.

A ROS 2 node that serves the robot contract (docs/ros2.md) by driving a RoboGraph backend
(symbolic for fast tests, `--backend mujoco` for the MuJoCo kitchen, which setup_ros2.sh installs):

- `ExecuteSkill` action: one task-level action per goal, feedback phases, typed result; each
  request id runs at most once (a `Ledger` on disk survives restarts);
- `GetWorldState` service and a latched `world_state` topic: the world read back as a graph;
- `ResetWorld` service (simulation only: a real robot does not offer it);
- `heartbeat` at 10 Hz, `estop` (std_msgs/Bool: true stops and refuses goals, false releases);
- per camera `image_raw` (or JPEG/PNG `image_raw/compressed`, `--image-format`) + `camera_info`;
  `/tf` (moving frames) and `/tf_static` (camera mounts); `joint_states` when the backend has
  joints (sensors.py publishes them from a `SimWorld` snapshot);
- optionally a simulated operator that carries out `OperatorRequest`s (interventions).

It is also the template a lab copies for a real robot: replace `SimWorld` (sim_world.py) by calls
to the robot's own skill controllers and perception, keep the wire contract.
"""

from __future__ import annotations

import argparse
import json
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robograph.actions import Action
from robograph.failures import FailureType
from robograph.graph import SceneGraph
from robograph_ros_bridge.ledger import Ledger
from robograph_ros_bridge.names import DEFAULT_CAMERAS, DEFAULT_ROBOT, HEARTBEAT_HZ, RobotNames
from robograph_ros_bridge.ros import SpunNode, interfaces
from robograph_ros_bridge.sensors import IMAGE_FORMATS, SensorPublisher
from robograph_ros_bridge.sim_world import SimWorld, schematic_image

FEEDBACK_PHASES = ("accepted", "planning", "executing", "verifying")


@dataclass(frozen=True)
class SimConfig:
    robot: str = DEFAULT_ROBOT
    backend: str = "symbolic"
    instance: Path | None = None
    seed: int = 0
    skill_seconds: float = 0.0  # how long each skill takes (feedback and cancel points in between)
    abort_actions: tuple[str, ...] = ()  # "press" or "press:button_1": the robot aborts these
    slip_actions: tuple[str, ...] = ()  # these report success but change nothing (a grasp that slipped)
    state_dir: Path | None = None  # ledger + world, for at-most-once across restarts
    cameras: tuple[str, ...] = DEFAULT_CAMERAS
    width: int = 320
    height: int = 240
    fovy_deg: float = 60.0
    image_hz: float = 10.0
    simulate_operator: bool = False
    image_formats: dict[str, str] = field(default_factory=dict)  # camera -> raw | jpeg | png
    jpeg_quality: int = 90
    state_hz: float = 10.0  # /tf and joint_states when no image timer carries them
    backend_options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Probe:
    """A cancel token (`is_set()`) over a condition: the backend polls it between physics steps."""

    condition: Any

    def is_set(self) -> bool:
        return bool(self.condition())


def _matches(action: Action, patterns: Sequence[str]) -> bool:
    """`press` matches every press; `press:button_1` only that grounding."""
    keys = {action.name, f"{action.name}:{':'.join(action.args)}"}
    return any(p in keys for p in patterns)


class RobotSimServer:
    """The ROS 2 node. `close()` stops it; `run()` blocks until interrupted."""

    def __init__(self, config: SimConfig, world: SimWorld | None = None) -> None:
        from rclpy.action import ActionServer, CancelResponse, GoalResponse
        from rclpy.callback_groups import ReentrantCallbackGroup
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import Bool

        self.config = config
        self.names = RobotNames(config.robot)
        self.msg, self.srv, self.action = interfaces()
        self.world = world or SimWorld(config.backend, **config.backend_options)
        ledger_path = None
        if config.state_dir is not None:
            config.state_dir.mkdir(parents=True, exist_ok=True)
            ledger_path = config.state_dir / "ledger.jsonl"
        self.ledger = Ledger.open(ledger_path)
        self._estopped = threading.Event()
        self._running: dict[str, threading.Event] = {}  # request ids executing in this process
        self._active = ""
        self._lock = threading.Lock()
        self._tick = 0
        self._seq = 0
        self._start_world()

        self.spun = SpunNode(f"{config.robot}_robot_sim", threads=6)
        node = self.spun.node
        group = ReentrantCallbackGroup()
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self._action_server = ActionServer(
            node, self.action.ExecuteSkill, self.names.execute_skill, self._execute,
            goal_callback=lambda _goal: GoalResponse.ACCEPT,
            cancel_callback=lambda _handle: CancelResponse.ACCEPT,
            callback_group=group)
        node.create_service(self.srv.GetWorldState, self.names.get_world_state, self._get_world_state,
                            callback_group=group)
        node.create_service(self.srv.ResetWorld, self.names.reset_world, self._reset_world, callback_group=group)
        node.create_subscription(Bool, self.names.estop, self._on_estop, 10, callback_group=group)
        self._hb_pub = node.create_publisher(self.msg.Heartbeat, self.names.heartbeat, 10)
        self._ws_pub = node.create_publisher(self.msg.WorldState, self.names.world_state, latched)
        self.sensors = SensorPublisher(node, self.names, config.cameras, config.image_formats,
                                       jpeg_quality=config.jpeg_quality)
        node.create_timer(1.0 / HEARTBEAT_HZ, self._heartbeat, callback_group=group)
        # one sensor timer: images (when there are cameras), /tf and joint states
        rate = config.image_hz if config.cameras else config.state_hz
        if rate > 0:
            node.create_timer(1.0 / rate, lambda: self._publish_sensors(blocking=False), callback_group=group)
        if config.simulate_operator:
            node.create_subscription(self.msg.OperatorRequest, self.names.operator_request,
                                     self._operate, 10, callback_group=group)
            self._confirm = node.create_client(self.srv.OperatorConfirm, self.names.operator_confirm,
                                               callback_group=group)
        self._publish_static()
        self._publish_world()

    # world ---------------------------------------------------------------------------------------
    def _start_world(self) -> None:
        from robograph.instance import load_instance

        if self.ledger.world is not None:  # a restart: the world as the last finished request left it
            self.world.reset(SceneGraph.from_json(self.ledger.world), self.config.seed)
        elif self.config.instance is not None:
            graph = load_instance(self.config.instance).graph
            self.world.reset(graph, self.config.seed)
            self.ledger.reset(graph.to_json())

    def _world_msg(self) -> Any:
        graph = self.world.graph
        state = self.msg.WorldState()
        state.stamp = self.spun.node.get_clock().now().to_msg()
        with self._lock:
            self._seq += 1
            state.seq = self._seq
        state.graph_json = json.dumps(graph.to_json(), sort_keys=True) if graph is not None else ""
        if graph is not None:
            for e in sorted(graph.edges):
                state.facts.append(self.msg.Fact(kind="edge", relation=e.rel, subject=e.src, object=e.dst, value=""))
            for nid in sorted(graph.attrs):
                for key, value in sorted(graph.attrs[nid].items()):
                    if value is not None:
                        state.facts.append(self.msg.Fact(kind="attr", relation=key, subject=nid, object="",
                                                         value=json.dumps(value)))
        return state

    def _publish_world(self) -> None:
        self._ws_pub.publish(self._world_msg())

    def _get_world_state(self, _request: Any, response: Any) -> Any:
        response.state = self._world_msg()
        return response

    def _reset_world(self, request: Any, response: Any) -> Any:
        try:
            graph = SceneGraph.from_json(json.loads(request.graph_json))
            self.world.reset(graph, int(request.seed))
            self.ledger.reset(graph.to_json())
            response.ok, response.message = True, f"world reset ({len(graph.nodes)} nodes)"
        except Exception as exc:  # noqa: BLE001 - reported to the caller, the server stays up
            response.ok, response.message = False, f"{type(exc).__name__}: {exc}"
        self._publish_world()
        self._publish_static()
        return response

    # safety --------------------------------------------------------------------------------------
    def _on_estop(self, msg: Any) -> None:
        if msg.data:
            self._estopped.set()
        else:
            self._estopped.clear()

    def _heartbeat(self) -> None:
        hb = self.msg.Heartbeat()
        hb.stamp = self.spun.node.get_clock().now().to_msg()
        hb.robot_name = self.config.robot
        hb.estopped = self._estopped.is_set()
        hb.active_request_id = self._active
        self._hb_pub.publish(hb)

    # skills --------------------------------------------------------------------------------------
    def _result(self, status: str, failure_type: str = "", message: str = "", duration: float = 0.0,
                duplicate: bool = False) -> Any:
        res = self.action.ExecuteSkill.Result()
        res.status, res.failure_type, res.message = status, failure_type, message
        res.duplicate, res.duration_s = duplicate, duration
        return res

    def _finish(self, handle: Any, rid: str, res: Any, *, record: bool = True) -> Any:
        if record:
            graph = self.world.graph
            self.ledger.finish(rid, {"status": res.status, "failure_type": res.failure_type,
                                     "message": res.message, "duration_s": res.duration_s},
                               graph.to_json() if graph is not None else None)
            self._publish_world()
            # what the sensors see right after the skill, beside the result
            threading.Thread(target=self._publish_sensors, daemon=True).start()
        if res.status == "succeeded":
            handle.succeed()
        elif res.status == "canceled":
            handle.canceled()
        else:
            handle.abort()
        return res

    def _execute(self, handle: Any) -> Any:
        goal = handle.request
        rid = goal.request_id
        if not rid:
            return self._finish(handle, rid, self._result("aborted", FailureType.INVALID_ARGUMENTS.value,
                                                          "goal without request_id"), record=False)
        with self._lock:
            known = self.ledger.lookup(rid)
            running = self._running.get(rid)
            if known is None:
                self.ledger.start(rid)
                self._running[rid] = threading.Event()
        if running is not None:  # the client re-sent a goal still executing here: wait for its end
            running.wait()
            known = self.ledger.lookup(rid)
        if known is not None:  # at most once: answer from the ledger, move nothing
            if known["state"] == "finished":
                r = known["result"]
                res = self._result(r["status"], r["failure_type"], r["message"], r["duration_s"], duplicate=True)
            else:
                res = self._result("aborted", FailureType.ROBOT_DISCONNECTED.value,
                                   f"request {rid} was interrupted when the robot side stopped; not repeated",
                                   duplicate=True)
            return self._finish(handle, rid, res, record=False)
        action = Action(goal.action, tuple(goal.node_ids))
        t0 = time.monotonic()
        self._active = rid
        try:
            res = self._run_skill(handle, action, t0)
            return self._finish(handle, rid, res)
        finally:
            self._active = ""
            with self._lock:
                self._running.pop(rid).set()

    def _run_skill(self, handle: Any, action: Action, t0: float) -> Any:
        feedback = self.action.ExecuteSkill.Feedback()

        def phase(name: str, progress: float) -> None:
            feedback.phase, feedback.progress = name, progress
            handle.publish_feedback(feedback)

        if self._estopped.is_set():
            return self._result("aborted", "estop", "the robot is e-stopped; release it before sending goals")
        phase("accepted", 0.0)
        bad = self.world.precheck(action)
        if bad is not None:
            return self._result("failed", bad[0], bad[1], time.monotonic() - t0)
        if _matches(action, self.config.abort_actions):
            return self._result("aborted", FailureType.EXECUTION_FAILED.value,
                                f"the robot aborted {action} (configured to abort it)", time.monotonic() - t0)
        phase("planning", 0.1)
        end = t0 + self.config.skill_seconds
        while time.monotonic() < end:  # the skill's motion: cancel and e-stop points in between
            if handle.is_cancel_requested:
                return self._result("canceled", FailureType.CANCELLED.value, "cancelled by the client",
                                    time.monotonic() - t0)
            if self._estopped.is_set():
                return self._result("aborted", "estop", "e-stop during the skill", time.monotonic() - t0)
            phase("executing", 0.1 + 0.8 * (1 - (end - time.monotonic()) / max(self.config.skill_seconds, 1e-9)))
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))
        phase("executing", 0.9)
        if _matches(action, self.config.slip_actions):  # fault injection: perception will disagree
            phase("verifying", 1.0)
            return self._result("succeeded", "", f"{action} done", time.monotonic() - t0)
        failure_type, message = self.world.execute(action, cancel=_Probe(
            lambda: handle.is_cancel_requested or self._estopped.is_set()))
        phase("verifying", 1.0)
        if failure_type == FailureType.CANCELLED.value:  # the simulator stopped mid-motion
            if self._estopped.is_set():
                return self._result("aborted", "estop", "e-stop during the skill", time.monotonic() - t0)
            return self._result("canceled", failure_type, "cancelled by the client", time.monotonic() - t0)
        status = "succeeded" if not failure_type else "failed"
        return self._result(status, failure_type, message or f"{action} done", time.monotonic() - t0)

    # sensors -------------------------------------------------------------------------------------
    def _publish_static(self) -> None:
        self.sensors.publish_static(self.world.fixed_frames(self.config.cameras), self.spun.node.get_clock().now().to_msg())

    def _publish_sensors(self, *, blocking: bool = True) -> None:
        """Images, /tf and joint states; a timer call (not blocking) skips while a skill holds the
        simulator, the call after a skill waits for it."""
        cfg = self.config
        with self._lock:
            self._tick += 1
            tick = self._tick
        snap = self.world.snapshot(cfg.cameras, cfg.width, cfg.height, cfg.fovy_deg, tick, blocking=blocking)
        if snap is not None:
            self.sensors.publish(snap, self.spun.node.get_clock().now().to_msg())

    # simulated operator --------------------------------------------------------------------------
    def _operate(self, request: Any) -> None:
        try:
            self.world.realize(json.loads(request.rewrites_json))
            done, message = True, "done by the simulated operator"
        except Exception as exc:  # noqa: BLE001 - refused, with the reason, to the bridge
            done, message = False, f"{type(exc).__name__}: {exc}"
        self._publish_world()
        if self._confirm.wait_for_service(timeout_sec=2.0):
            self._confirm.call_async(self.srv.OperatorConfirm.Request(request_id=request.request_id, done=done,
                                                                      message=message))

    def close(self) -> None:
        self.spun.close()


def _image_formats(text: str, cameras: Sequence[str]) -> dict[str, str]:
    """`jpeg` (every camera) or `head=jpeg,left=png` -> {camera: format}."""
    if not text:
        return {}
    if "=" not in text:
        return dict.fromkeys(cameras, text)
    pairs = [p.partition("=") for p in text.split(",") if p]
    return {cam.strip(): fmt.strip() for cam, _, fmt in pairs}


def _backend_options(backend: str, given: dict[str, Any], cameras: Sequence[str], width: int,
                     height: int) -> dict[str, Any]:
    """--backend-opt values, plus the image size and cameras for a backend that takes them
    (the MuJoCo kitchen renders what the robot publishes)."""
    import inspect

    from robograph.registry import backend_factory

    params = inspect.signature(backend_factory(backend)).parameters
    opts = dict(given)
    for key, value in (("width", width), ("height", height), ("cameras", list(cameras))):
        if key in params and value:
            opts.setdefault(key, value)
    return opts


def parse_args(argv: Sequence[str] | None = None) -> SimConfig:
    from robograph.registry import parse_backend_opts

    p = argparse.ArgumentParser(prog="robograph-robot-sim", description=__doc__.splitlines()[0])
    p.add_argument("--robot", default=DEFAULT_ROBOT, help="namespace of every topic/service (default %(default)s)")
    p.add_argument("--backend", default="symbolic", help="robograph backend that simulates the robot")
    p.add_argument("--backend-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="option of that backend (e.g. mode=assisted); repeatable")
    p.add_argument("--instance", type=Path, help="task instance whose G0 the world starts in")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skill-seconds", type=float, default=0.0, help="duration of every skill (s)")
    p.add_argument("--abort", action="append", default=[], metavar="ACTION[:NODE...]",
                   help="abort this action (e.g. press or open:drawer_1); repeatable")
    p.add_argument("--slip", action="append", default=[], metavar="ACTION[:NODE...]",
                   help="report this action as done without changing the world (fault injection); repeatable")
    p.add_argument("--state-dir", type=Path, help="keep the request ledger and world here (survives restarts)")
    p.add_argument("--cameras", default=",".join(DEFAULT_CAMERAS), help="comma-separated camera names ('' for none)")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--image-hz", type=float, default=10.0)
    p.add_argument("--image-format", default="", metavar="FORMAT|CAM=FORMAT,...",
                   help=f"raw (sensor_msgs/Image) or compressed (CompressedImage on .../image_raw/compressed): "
                        f"one of {', '.join(IMAGE_FORMATS)} for every camera, or per camera (head=jpeg,left=png)")
    p.add_argument("--jpeg-quality", type=int, default=90)
    p.add_argument("--state-hz", type=float, default=10.0, help="/tf and joint_states rate without cameras")
    p.add_argument("--simulate-operator", action="store_true",
                   help="carry out operator requests (interventions) in the simulator")
    a = p.parse_args(argv)
    cams = tuple(c for c in a.cameras.split(",") if c)
    if a.width <= 0 or a.height <= 0 or not math.isfinite(a.image_hz) or not math.isfinite(a.state_hz):
        p.error("--width/--height must be positive and --image-hz/--state-hz finite")
    formats = _image_formats(a.image_format, cams)
    bad = {c: f for c, f in formats.items() if c not in cams or f not in IMAGE_FORMATS}
    if bad:
        p.error(f"--image-format {a.image_format!r}: cameras must be among {list(cams)}, formats among "
                f"{', '.join(IMAGE_FORMATS)}")
    if not 1 <= a.jpeg_quality <= 95:
        p.error("--jpeg-quality must be in 1..95")
    try:
        opts = _backend_options(a.backend, parse_backend_opts(a.backend_opt), cams, a.width, a.height)
    except Exception as exc:  # noqa: BLE001 - an unknown backend or a bad option: a usage error
        p.error(str(exc))
    return SimConfig(robot=a.robot, backend=a.backend, instance=a.instance, seed=a.seed,
                     skill_seconds=a.skill_seconds, abort_actions=tuple(a.abort), slip_actions=tuple(a.slip),
                     state_dir=a.state_dir, cameras=cams, width=a.width, height=a.height, image_hz=a.image_hz,
                     simulate_operator=a.simulate_operator, image_formats=formats, jpeg_quality=a.jpeg_quality,
                     state_hz=a.state_hz, backend_options=opts)


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_args(argv)
    server = RobotSimServer(config)
    print(f"robot-sim {config.robot}: ready (backend {config.backend})", flush=True)
    try:
        while server.spun.context.ok():
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        server.world.close()
    return 0


__all__ = ["RobotSimServer", "SimConfig", "SimWorld", "main", "schematic_image"]

if __name__ == "__main__":
    raise SystemExit(main())
