"""The robot side, driven by a simulator: `python -m robograph_ros_bridge.robot_sim` / `robograph-robot-sim`.

A ROS 2 node that serves the robot contract (docs/ros2.md) by driving a RoboGraph backend
(symbolic for fast tests, MuJoCo kitchen where its extra is installed in the ROS venv):

- `ExecuteSkill` action: one task-level action per goal, feedback phases, typed result; each
  request id runs at most once (a `Ledger` on disk survives restarts);
- `GetWorldState` service and a latched `world_state` topic: the world read back as a graph;
- `ResetWorld` service (simulation only: a real robot does not offer it);
- `heartbeat` at 10 Hz, `estop` (std_msgs/Bool: true stops and refuses goals, false releases);
- camera `image_raw` + `camera_info` per camera, `joint_states` when the backend has joints;
- optionally a simulated operator that carries out `OperatorRequest`s (interventions).

It is also the template a lab copies for a real robot: replace `SimWorld` by calls to the robot's
own skill controllers and perception, keep the wire contract.
"""

from __future__ import annotations

import argparse
import json
import math
import threading
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from robograph.actions import Action, check, effects
from robograph.failures import FailureType
from robograph.graph import SceneGraph
from robograph.rewrite import apply_all
from robograph.rewrite import from_json as rewrite_from_json
from robograph.view import compute_view
from robograph_ros_bridge.images import fill_camera_info, fill_image, fill_pose, pinhole_k
from robograph_ros_bridge.ledger import Ledger
from robograph_ros_bridge.names import DEFAULT_CAMERAS, DEFAULT_ROBOT, HEARTBEAT_HZ, RobotNames
from robograph_ros_bridge.ros import SpunNode, interfaces

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


class SimWorld:
    """The simulated robot: a backend plus the graph it last read back. Thread-safe."""

    def __init__(self, backend_name: str) -> None:
        from robograph.registry import make_backend

        self.backend = make_backend(backend_name)
        self.graph: SceneGraph | None = None
        self.lock = threading.RLock()

    def reset(self, graph: SceneGraph, seed: int) -> None:
        with self.lock:
            self.backend.reset(graph, seed=seed)
            self.graph = graph

    def realize(self, rewrites_json: Sequence[dict[str, Any]]) -> None:
        with self.lock:
            graph = self._graph()
            rewrites = [rewrite_from_json(r) for r in rewrites_json]
            after = apply_all(graph, rewrites)
            self.backend.realize(after, rewrites)
            self.graph = self.backend.reconcile(after)

    def _graph(self) -> SceneGraph:
        if self.graph is None:
            raise RuntimeError("the robot has no world yet: start it with --instance or call reset_world")
        return self.graph

    def precheck(self, action: Action) -> tuple[str, str] | None:
        with self.lock:
            graph = self._graph()
            failure = check(graph, compute_view(graph), action)
        return None if failure is None else (failure.type.value, failure.message)

    def execute(self, action: Action) -> tuple[str, str]:
        """Run the action; ("", "") on success else (failure type, message)."""
        with self.lock:
            graph = self._graph()
            expected = apply_all(graph, effects(graph, action))
            result = self.backend.execute(graph, action, expected)
            self.graph = self.backend.reconcile(expected)
        if result.failure is not None:
            return result.failure.type.value, result.failure.message
        if self.graph != expected:
            return FailureType.EXECUTION_FAILED.value, f"{action} did not produce its expected outcome"
        return "", ""

    def frames(self, cameras: Sequence[str], width: int, height: int,
               tick: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """camera -> (RGB image, T_world_cam). Backends without cameras get `schematic_image`s
        with an identity pose (a synthetic picture has no real viewpoint)."""
        with self.lock:
            rendered = self.backend.render(list(cameras)) if self.backend.capabilities.cameras else []
            graph = self.graph
        out = {f.camera: (np.asarray(f.image), np.asarray(f.model.T_world_cam)) for f in rendered}
        return out or {c: (schematic_image(graph, c, width, height, tick), np.eye(4)) for c in cameras}


def schematic_image(graph: SceneGraph | None, camera: str, width: int, height: int, tick: int) -> np.ndarray:
    """A synthetic picture for backends without cameras (symbolic): one coloured column per node
    visible to the robot, colours from the node ids, a bright row that moves every frame. It shows
    that images flow and change with the world; it is not a view of the scene."""
    img = np.zeros((height, width, 3), dtype=np.uint8)
    img[:] = tuple((zlib.crc32(camera.encode()) & 0x3F3F3F).to_bytes(3, "big"))
    if graph is not None:
        visible = sorted(compute_view(graph).visible)
        if visible:
            col = max(1, width // len(visible))
            for i, nid in enumerate(visible):
                rgb = zlib.crc32(nid.encode()).to_bytes(4, "big")[1:]
                img[height // 4: 3 * height // 4, i * col:(i + 1) * col] = tuple(rgb)
    img[tick % height, :] = 255
    return img


def _matches(action: Action, patterns: Sequence[str]) -> bool:
    """`press` matches every press; `press:button_1` only that grounding."""
    keys = {action.name, f"{action.name}:{':'.join(action.args)}"}
    return any(p in keys for p in patterns)


class RobotSimServer:
    """The ROS 2 node. `close()` stops it; `run()` blocks until interrupted."""

    def __init__(self, config: SimConfig, world: SimWorld | None = None) -> None:
        from geometry_msgs.msg import PoseStamped
        from rclpy.action import ActionServer, CancelResponse, GoalResponse
        from rclpy.callback_groups import ReentrantCallbackGroup
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from sensor_msgs.msg import CameraInfo, Image, JointState
        from std_msgs.msg import Bool

        self.config = config
        self.names = RobotNames(config.robot)
        self.msg, self.srv, self.action = interfaces()
        self._Image, self._CameraInfo, self._JointState, self._PoseStamped = Image, CameraInfo, JointState, PoseStamped
        self.world = world or SimWorld(config.backend)
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
        self._joint_pub = node.create_publisher(JointState, self.names.joint_states, 10)
        self._img_pubs = {c: node.create_publisher(Image, self.names.image(c), 2) for c in config.cameras}
        self._info_pubs = {c: node.create_publisher(CameraInfo, self.names.camera_info(c), latched)
                           for c in config.cameras}
        self._pose_pubs = {c: node.create_publisher(PoseStamped, self.names.camera_pose(c), latched)
                           for c in config.cameras}
        node.create_timer(1.0 / HEARTBEAT_HZ, self._heartbeat, callback_group=group)
        if config.cameras and config.image_hz > 0:
            node.create_timer(1.0 / config.image_hz, self._publish_images, callback_group=group)
        if config.simulate_operator:
            node.create_subscription(self.msg.OperatorRequest, self.names.operator_request,
                                     self._operate, 10, callback_group=group)
            self._confirm = node.create_client(self.srv.OperatorConfirm, self.names.operator_confirm,
                                               callback_group=group)
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
            if self.config.cameras:  # what the cameras see right after the skill, beside the result
                threading.Thread(target=self._publish_images, daemon=True).start()
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
        failure_type, message = self.world.execute(action)
        phase("verifying", 1.0)
        status = "succeeded" if not failure_type else "failed"
        return self._result(status, failure_type, message or f"{action} done", time.monotonic() - t0)

    # sensors -------------------------------------------------------------------------------------
    def _publish_images(self) -> None:
        cfg = self.config
        with self._lock:
            self._tick += 1
        stamp = self.spun.node.get_clock().now().to_msg()
        images = self.world.frames(cfg.cameras, cfg.width, cfg.height, self._tick)
        fx, fy, cx, cy = pinhole_k(cfg.width, cfg.height, cfg.fovy_deg)
        for cam, (img, T_world_cam) in images.items():
            if cam not in self._img_pubs:
                continue
            frame_id = f"{cfg.robot}/{cam}_optical"
            h, w = img.shape[:2]
            self._img_pubs[cam].publish(fill_image(self._Image(), img, frame_id=frame_id, stamp=stamp))
            self._pose_pubs[cam].publish(fill_pose(self._PoseStamped(), T_world_cam, stamp=stamp))
            self._info_pubs[cam].publish(fill_camera_info(self._CameraInfo(), width=w, height=h, fx=fx, fy=fy,
                                                          cx=cx, cy=cy, frame_id=frame_id, stamp=stamp))
        joints = getattr(self.world.backend, "joint_state", None)
        if callable(joints):
            names, positions = joints()
            js = self._JointState()
            js.header.stamp = stamp
            js.name, js.position = list(names), [float(p) for p in positions]
            self._joint_pub.publish(js)

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


def parse_args(argv: Sequence[str] | None = None) -> SimConfig:
    p = argparse.ArgumentParser(prog="robograph-robot-sim", description=__doc__.splitlines()[0])
    p.add_argument("--robot", default=DEFAULT_ROBOT, help="namespace of every topic/service (default %(default)s)")
    p.add_argument("--backend", default="symbolic", help="robograph backend that simulates the robot")
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
    p.add_argument("--simulate-operator", action="store_true",
                   help="carry out operator requests (interventions) in the simulator")
    a = p.parse_args(argv)
    cams = tuple(c for c in a.cameras.split(",") if c)
    if a.width <= 0 or a.height <= 0 or not math.isfinite(a.image_hz):
        p.error("--width/--height must be positive and --image-hz finite")
    return SimConfig(robot=a.robot, backend=a.backend, instance=a.instance, seed=a.seed,
                     skill_seconds=a.skill_seconds, abort_actions=tuple(a.abort), slip_actions=tuple(a.slip), state_dir=a.state_dir,
                     cameras=cams, width=a.width, height=a.height, image_hz=a.image_hz,
                     simulate_operator=a.simulate_operator)


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
    return 0


__all__ = ["RobotSimServer", "SimConfig", "SimWorld", "main", "schematic_image"]

if __name__ == "__main__":
    raise SystemExit(main())
