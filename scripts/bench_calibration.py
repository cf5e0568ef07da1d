"""Calibration and perception-geometry figures on MuJoCo renders with ground truth.

- Intrinsics + hand-eye: ChArUco boards rendered from --views poses (eye-in-hand: camera on a mocap
  hand, board fixed; eye-to-hand: camera fixed, board on the hand), 640x480, known K and mount.
  Figures: reprojection RMS, intrinsics error, mount translation/rotation error, the time to
  calibrate 30 views (detection + calibrateCamera + hand-eye).
- Relations: compiled indoor scenes (assets/benchmark.yaml), depth + segmentation from the robot's
  head/left/right cameras at every station (320x240), clouds fused in the world frame (Open3D),
  INSIDE/ON/IN_ROOM/OPEN read from the clouds and compared with the simulator's reconcile, in the
  initial state and with every articulation driven open. Simulator help: camera poses,
  segmentation masks, static structure (regions, articulation kinematics).

`--figures DIR` also writes the images docs/calibration.md shows: the camera-frame conventions and
the hand-eye chain (matplotlib), a rendered board view, and a set-of-marks overlay on a kitchen view.

Usage: python scripts/bench_calibration.py [--views 30] [--scenes N] [--figures DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from robograph_calibration.handeye import HANDEYE_METHODS, calibrate_hand_eye
from robograph_calibration.intrinsics import calibrate_intrinsics
from robograph_calibration.relations import Agreement, merge, table_markdown
from robograph_calibration.sim_board import render_board_views
from robograph_calibration.transforms import pose_error


def board_figures(views: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in ("eye-in-hand", "eye-to-hand"):
        data = render_board_views(views, mode=mode, seed=seed)
        t0 = time.perf_counter()
        res = calibrate_intrinsics([v.image for v in data.views], data.board, distortion="radial")
        he = calibrate_hand_eye([data.views[i].T_base_hand for i in res.used], list(res.T_cam_board), mode=mode)
        took = time.perf_counter() - t0
        dt, dr = pose_error(he.T, data.T_true)
        true, est = data.camera, res.camera
        methods = {}
        for method in HANDEYE_METHODS:
            other = calibrate_hand_eye([data.views[i].T_base_hand for i in res.used], list(res.T_cam_board),
                                       mode=mode, method=method)
            mt, mr = pose_error(other.T, data.T_true)
            methods[method] = {"translation_mm": round(1000 * mt, 4), "rotation_deg": round(mr, 5)}
        out[mode] = {"methods": methods, "views": views, "used": len(res.used), "reprojection_rms_px": round(res.rms_px, 4),
                     "fx_error_pct": round(100 * abs(est.fx - true.fx) / true.fx, 4),
                     "principal_point_error_px": round(float(np.hypot(est.cx - true.cx, est.cy - true.cy)), 4),
                     "translation_mm": round(1000 * dt, 4), "rotation_deg": round(dr, 5),
                     "self_check_mm": round(he.residual_mm, 4), "calibration_s": round(took, 3)}
    return out


def relation_figures(n_scenes: int, noisy: tuple[float, float, float]) -> tuple[dict[str, Any], Agreement]:
    """Agreement with exact depth and poses, and again with sensor noise and a rig error
    (`noisy` = depth noise k, camera translation error m, rotation error deg)."""
    from robograph_backends.mujoco_kitchen.episodes import compile_baseline, indoor_scene_ids
    from robograph_backends.mujoco_kitchen.perception import Perception, agreement, open_everything
    from robograph_backends.mujoco_kitchen.world import World

    results: list[Agreement] = []
    noisy_results: list[Agreement] = []
    per_scene = {}
    render_s = 0.0
    for k, sid in enumerate(indoor_scene_ids()[:n_scenes]):
        inst = compile_baseline(sid)
        world = World.build(inst.graph)
        exact = Perception(world)
        rough = Perception(world, depth_noise=noisy[0], pose_error=(noisy[1], noisy[2]), seed=k)
        try:
            for state in ("closed", "opened"):
                if state == "opened":
                    open_everything(world)
                t0 = time.perf_counter()
                ag, _ = agreement(world, inst.graph, exact)
                render_s += time.perf_counter() - t0
                results.append(ag)
                noisy_results.append(agreement(world, inst.graph, rough)[0])
                per_scene.setdefault(sid, {})[state] = (f"{ag.agreed}/{ag.observed} (+{ag.unobserved} unobserved), "
                                                        f"noisy {noisy_results[-1].agreed}/{noisy_results[-1].observed}")
        finally:
            exact.close()
            rough.close()
        print(f"{sid:14s} closed {per_scene[sid]['closed']:40s} opened {per_scene[sid]['opened']}")
    total, rough_total = merge(results), merge(noisy_results)
    figures = {"relation_agreement": round(total.rate, 4),
               "relation_agreement_noisy": round(rough_total.rate, 4),
               "relation_noise": {"depth_std_per_m2": noisy[0], "camera_translation_m": noisy[1],
                                  "camera_rotation_deg": noisy[2]},
               "relation_confusion_noisy": {f"{t} -> {p}": c for (t, p), c in sorted(rough_total.table.items())},
               "relation_scenes": len(per_scene),
               "relation_states": len(results), "relation_facts_observed": total.observed,
               "relation_facts_unobserved": total.unobserved,
               "relation_seconds_per_state": round(render_s / max(len(results), 1), 2),
               "relation_confusion": {f"{t} -> {p}": c for (t, p), c in sorted(total.table.items())}}
    return figures, total


def _axes(ax: Any, T: np.ndarray, labels: tuple[str, str, str], scale: float = 0.6, name: str = "") -> None:
    for k, (colour, label) in enumerate(zip(("tab:red", "tab:green", "tab:blue"), labels, strict=True)):
        d = T[:3, k] * scale
        ax.quiver(*T[:3, 3], *d, color=colour, linewidth=2, arrow_length_ratio=0.15)
        ax.text(*(T[:3, 3] + d * 1.15), label, color=colour, fontsize=9)
    if name:
        ax.text(*(T[:3, 3] + [0, 0, 0.12]), name, fontsize=8, ha="center", fontweight="bold")


def frames_figure(path: str) -> None:
    """The same camera (looking along world +x) in each convention, and the hand-eye chain."""
    import matplotlib.pyplot as plt

    from robograph_calibration.camera import convert_pose

    T_cv = np.eye(4)
    T_cv[:3, :3] = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])  # looks along world +x
    fig = plt.figure(figsize=(16, 4.2))
    grid = fig.add_gridspec(1, 4, width_ratios=(1, 1, 1, 1.7))
    panels = [("opencv", "OpenCV = ROS optical frame\n(x right, y down, z forward)", ("x", "y", "z")),
              ("mujoco", "MuJoCo = OpenGL\n(x right, y up, looks along -z)", ("x", "y", "z")),
              ("sapien", "SAPIEN = ROS camera_link (REP 103)\n(x forward, y left, z up)", ("x", "y", "z"))]
    for k, (conv, title, labels) in enumerate(panels):
        ax = fig.add_subplot(grid[0, k], projection="3d")
        T = convert_pose(T_cv, "opencv", conv)
        _axes(ax, T, labels)
        frustum = np.array([[1.0, 0.35, 0.25], [1.0, -0.35, 0.25], [1.0, -0.35, -0.25], [1.0, 0.35, -0.25]])
        for a, b in zip(frustum, np.roll(frustum, 1, axis=0), strict=True):
            ax.plot(*np.stack([a, b]).T, color="grey", linewidth=0.8)
            ax.plot(*np.stack([[0, 0, 0], a]).T, color="grey", linewidth=0.5)
        ax.set_title(title, fontsize=9)
        _style(ax)
    ax = fig.add_subplot(grid[0, 3])
    ax.axis("off")
    chains = [(0.78, "eye-in-hand (camera on the gripper)",
               [("base", "T_base_gripper\n(robot)"), ("gripper", "X = T_gripper_cam\n(solved)"),
                ("camera", "T_cam_board\n(PnP)"), ("board", "")]),
              (0.3, "eye-to-hand (camera fixed, board on the gripper)",
               [("base", "X = T_base_cam\n(solved)"), ("camera", "T_cam_board\n(PnP)"), ("board", "T_board_gripper\n(constant)"),
                ("gripper", "")])]
    for y, title, chain in chains:
        ax.text(0.5, y + 0.15, title, ha="center", fontsize=9, fontweight="bold")
        xs = np.linspace(0.06, 0.94, len(chain))
        for x, (frame, _) in zip(xs, chain, strict=True):
            ax.text(x, y, frame, ha="center", va="center", fontsize=8,
                    bbox={"boxstyle": "round", "facecolor": "whitesmoke", "edgecolor": "grey"})
        for k, (x0, x1, (_, edge)) in enumerate(zip(xs[:-1], xs[1:], chain, strict=False)):
            ax.annotate("", xy=(x1 - 0.06, y), xytext=(x0 + 0.06, y), arrowprops={"arrowstyle": "->"})
            above = k % 2 == 1
            ax.text((x0 + x1) / 2, y + (0.04 if above else -0.04), edge, ha="center", va="bottom" if above else "top",
                    fontsize=7)
    ax.text(0.5, 0.02, "T_a_b maps points from frame b into frame a;\ncamera frames in the rig are OpenCV optical frames",
            ha="center", fontsize=7, color="dimgrey")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _style(ax: Any) -> None:
    ax.set_xlim(-0.2, 1.2)
    ax.set_ylim(-0.7, 0.7)
    ax.set_zlim(-0.3, 1.4)
    ax.set_xlabel("world x", fontsize=7)
    ax.set_ylabel("world y", fontsize=7)
    ax.set_zlabel("world z", fontsize=7)
    ax.tick_params(labelsize=6)
    ax.view_init(elev=20, azim=-130)


def example_images(directory: str) -> list[str]:
    """A rendered board view and a set-of-marks overlay on a kitchen head-camera view."""
    from pathlib import Path

    from robograph.render_cmd import write_png
    from robograph_backends.mujoco_kitchen.episodes import compile_baseline
    from robograph_backends.mujoco_kitchen.perception import Perception
    from robograph_backends.mujoco_kitchen.render import Cameras
    from robograph_backends.mujoco_kitchen.sense import half_of, node_bodies
    from robograph_backends.mujoco_kitchen.world import World
    from robograph_calibration.marks import Box, set_of_marks

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    board = render_board_views(1, seed=4).views[0].image
    write_png(out / "calibration_board_view.png", board)
    inst = compile_baseline("Fridge-I1")
    world = World.build(inst.graph)
    # the picture from the perception survey's fixed head mount (its camera model draws the marks)
    perception, cams = Perception(world, 480, 360), Cameras(world, 480, 360, gaze=False)
    try:
        with perception.base_at(*world.plan.stations["dining_table"]):
            view = perception.view("head")
            rgb = cams.render(["head"])["head"]
        bodies = node_bodies(world)
        boxes = {n: Box(world.body_pos(bodies[n]), world.body_mat(bodies[n]), half_of(world, n))
                 for n in perception.movable if n in world.plan.items}
        names = {n: inst.graph.nodes[n].name for n in boxes}
        overlay, _ = set_of_marks(rgb, view.camera, boxes, names, segmentation=view.labels, seg_ids=perception.names)
        write_png(out / "set_of_marks.png", overlay)
    finally:
        perception.close()
        cams.close()
    frames_figure(str(out / "calibration_frames.png"))
    return [str(out / n) for n in ("calibration_frames.png", "calibration_board_view.png", "set_of_marks.png")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--views", type=int, default=30, help="board views per setup (default 30)")
    ap.add_argument("--scenes", type=int, default=27, help="indoor scenes for the relation figure (default all 27)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--depth-noise", type=float, default=0.005, help="noisy run: depth std = k z^2 (default 0.005)")
    ap.add_argument("--pose-error", type=float, nargs=2, default=(0.002, 0.2), metavar=("M", "DEG"),
                    help="noisy run: camera pose error (default 2 mm, 0.2 deg: the hand-eye acceptance bound)")
    ap.add_argument("--figures", metavar="DIR", help="also write the documentation images there")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.figures:
        for path in example_images(args.figures):
            print(path)
    boards = board_figures(args.views, args.seed)
    for mode, f in boards.items():
        print(f"{mode:12s} RMS {f['reprojection_rms_px']:.3f} px, fx {f['fx_error_pct']:.3f} %, "
              f"pp {f['principal_point_error_px']:.2f} px, mount {f['translation_mm']:.3f} mm "
              f"{f['rotation_deg']:.4f} deg, {f['calibration_s']:.2f} s for {f['used']} views")
    relations, total = relation_figures(args.scenes, (args.depth_noise, *args.pose_error)) if args.scenes else ({}, None)
    if total is not None:
        print(f"relation agreement {total.agreed}/{total.observed} = {total.rate:.3f} "
              f"({total.unobserved} facts unobserved)")
        print(table_markdown(total))
    figures = {
        "reprojection_rms_px": max(f["reprojection_rms_px"] for f in boards.values()),
        "handeye_translation_mm": max(f["translation_mm"] for f in boards.values()),
        "handeye_rotation_deg": max(f["rotation_deg"] for f in boards.values()),
        "views": args.views,
        "calibration_time_30_views_s" if args.views == 30 else f"calibration_time_{args.views}_views_s":
            max(f["calibration_s"] for f in boards.values()),
        "boards": boards,
        **relations,
        "help": "board: none (pixels + reported hand poses); relations: camera poses, segmentation masks, "
                "static structure from the simulator",
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
