"""Bridge overhead over real DDS on loopback: run with the ROS venv's Python,
`.venv-ros2/bin/python scripts/bench_ros2.py --json`.

- `startup_seconds`: from launching `robograph-robot-sim` to the `ros2` backend's `reset` done
  (process start, node start-up, discovery, the ResetWorld call).
- `overhead_ms_per_step`: mean per-step time of execute + reconcile + three fresh 320x240 views
  through the bridge, minus the same steps in-process (symbolic backend, the same synthetic
  images). Both sides use the symbolic world: the figure is the bridge's cost, not a simulator's.
- `image_fps`: 320x240 frames received per second per camera, three cameras, the robot side
  publishing at `--image-hz`.
- `--image-format jpeg|png`: the robot side publishes CompressedImage and the bridge decodes it
  (the codec's cost is then part of the bridge's overhead); `image_bytes_mean` is the size on the wire.
The last line with `--json` is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def in_process_step_ms(instance, actions, cameras, width, height) -> float:  # type: ignore[no-untyped-def]
    from robograph.actions import effects
    from robograph.registry import make_backend
    from robograph.rewrite import apply_all
    from robograph_ros_bridge.sim_world import schematic_image

    be = make_backend("symbolic")
    be.reset(instance.graph, seed=0)
    graph, times = instance.graph, []
    for k, action in enumerate(actions):
        t0 = time.perf_counter()
        expected = apply_all(graph, effects(graph, action))
        be.execute(graph, action, expected)
        graph = be.reconcile(expected)
        for cam in cameras:
            schematic_image(graph, cam, width, height, k)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.mean(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--image-hz", type=float, default=30.0)
    p.add_argument("--fps-seconds", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=3, help="episodes of the demo plan to time")
    p.add_argument("--image-format", choices=("raw", "jpeg", "png"), default="raw")
    args = p.parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    os.environ["ROS_DOMAIN_ID"] = str(random.randint(1, 200))

    from robograph.actions import effects
    from robograph.gym_env import demo_instance_path
    from robograph.instance import load_instance
    from robograph.oracle import solve
    from robograph.rewrite import apply_all
    from robograph_ros_bridge.backend import Ros2Backend

    inst = load_instance(demo_instance_path())
    actions = [a for a in solve(inst.graph, inst.goal, inst.actions).actions if a.name != "stop"]
    cams, width, height = ("head", "left", "right"), 320, 240
    robot = f"bench{os.getpid()}"
    t0 = time.perf_counter()
    compressed = args.image_format != "raw"
    proc = subprocess.Popen([sys.executable, "-m", "robograph_ros_bridge.robot_sim", "--robot", robot, "--image-hz",
                             str(args.image_hz), "--width", str(width), "--height", str(height),
                             *(["--image-format", args.image_format] if compressed else [])],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        b = Ros2Backend(robot=robot, width=width, height=height, compressed="all" if compressed else ())
        b.reset(inst.graph, seed=0)
        startup = time.perf_counter() - t0
        step_ms: list[float] = []
        resent = 0
        goal_ms: list[float] = []
        for rep in range(args.repeats):
            if rep:
                b.reset(inst.graph, seed=0)
            graph = inst.graph
            for action in actions:
                expected = apply_all(graph, effects(graph, action))
                s0 = time.perf_counter()
                before = b.now_s()
                res = b.execute(graph, action, expected)
                g1 = time.perf_counter()
                graph = b.reconcile(expected)
                frames = b.render(newer_than=before)
                step_ms.append(1000 * (time.perf_counter() - s0))
                goal_ms.append(1000 * (g1 - s0))
                assert res.ok and len(frames) == 3, res
                resent += int((res.info or {}).get("resent", 0))
        inproc = in_process_step_ms(inst, actions, cams, width, height)
        counts = {c: 0 for c in cams}
        sizes: list[int] = []

        def count(cam: str):  # type: ignore[no-untyped-def]
            def cb(msg) -> None:  # type: ignore[no-untyped-def]
                counts[cam] += 1
                sizes.append(len(msg.data))
            return cb

        from rclpy.qos import qos_profile_sensor_data
        from sensor_msgs.msg import CompressedImage, Image

        msg_type, topic = (CompressedImage, b.names.compressed_image) if compressed else (Image, b.names.image)
        subs = [b.spun.node.create_subscription(msg_type, topic(c), count(c), qos_profile_sensor_data)
                for c in cams]
        time.sleep(0.5)
        counts = dict.fromkeys(cams, 0)
        time.sleep(args.fps_seconds)
        fps = min(counts.values()) / args.fps_seconds
        del subs
        b.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    figures = {
        "startup_seconds": round(startup, 3),
        "overhead_ms_per_step": round(statistics.mean(step_ms) - inproc, 2),
        "bridge_ms_per_step_mean": round(statistics.mean(step_ms), 2),
        "bridge_ms_per_step_median": round(statistics.median(step_ms), 2),
        "bridge_ms_per_step_max": round(max(step_ms), 2),
        "goals_resent": resent,
        "goal_round_trip_ms_median": round(statistics.median(goal_ms), 2),
        "in_process_ms_per_step": round(inproc, 3),
        "steps": len(step_ms),
        "image_fps": round(fps, 1),
        "image_format": args.image_format,
        "image_bytes_mean": round(statistics.mean(sizes)) if sizes else 0,
        "image_hz_published": args.image_hz,
        "cameras": len(cams),
        "image_size": [width, height],
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for k, v in figures.items():
            print(f"{k:28s} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
