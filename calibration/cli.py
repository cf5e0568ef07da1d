"""`robograph calibrate ...`: intrinsics from board images, hand-eye from image + robot pose pairs,
the printable board, and a rendered ground-truth data set to try both on.

Only argparse at import time: OpenCV, MuJoCo and numpy-heavy modules load inside the handlers, so
`robograph --help` stays light.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from robograph_calibration.errors import CalibrationFileError

POSES_HELP = ("YAML/JSON file: {views: [{image: PATH (relative to the file), T_base_gripper: 4x4 rows "
              "| translation: [x,y,z] + rotation_xyzw: [x,y,z,w]}, ...]}")


def _board(args: argparse.Namespace) -> Any:
    from robograph_calibration.board import BoardSpec

    try:
        sx, sy = (int(v) for v in args.squares.lower().split("x"))
    except ValueError:
        raise CalibrationFileError(f"--squares must look like 8x6 (across x down), got {args.squares!r}") from None
    return BoardSpec(args.board, sx, sy, args.square_m, args.marker_m, args.dictionary)


def _read_image(path: Path) -> Any:
    from robograph_calibration.deps import cv2_module

    cv2 = cv2_module()
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise CalibrationFileError(f"{path}: not a readable image (PNG, JPEG, ...)")
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def _cmd_intrinsics(args: argparse.Namespace) -> int:
    from robograph_calibration.intrinsics import calibrate_intrinsics
    from robograph_calibration.ros_yaml import write_ros_yaml

    paths = [Path(p) for p in args.images]
    res = calibrate_intrinsics([_read_image(p) for p in paths], _board(args), distortion=args.distortion,
                               min_views=args.min_views)
    write_ros_yaml(args.out, res.camera, args.camera_name)
    for i, why in sorted(res.skipped.items()):
        print(f"skipped {paths[i]}: {why}")
    cam = res.camera
    print(f"{args.out}: {len(res.used)} views, reprojection RMS {res.rms_px:.3f} px, "
          f"fx {cam.fx:.2f} fy {cam.fy:.2f} cx {cam.cx - 0.5:.2f} cy {cam.cy - 0.5:.2f} (OpenCV pixels), "
          f"dist {', '.join(f'{d:.4f}' for d in cam.dist)}")
    return 0


def _load_poses(path: Path) -> list[tuple[Path, Any]]:
    import numpy as np
    import yaml

    from robograph_calibration.transforms import make_T, quat_xyzw_to_R

    try:
        doc = yaml.safe_load(path.read_text())  # JSON is YAML
        out = []
        for v in doc["views"]:
            if "T_base_gripper" in v:
                T = np.asarray(v["T_base_gripper"], dtype=float).reshape(4, 4)
            else:
                T = make_T(quat_xyzw_to_R(v["rotation_xyzw"]), v["translation"])
            image = Path(v["image"])
            out.append((image if image.is_absolute() else path.parent / image, T))
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
        raise CalibrationFileError(f"{path}: cannot read robot poses ({exc}); expected {POSES_HELP}") from exc
    return out


def _cmd_hand_eye(args: argparse.Namespace) -> int:
    from robograph_calibration.handeye import calibrate_hand_eye
    from robograph_calibration.intrinsics import board_poses
    from robograph_calibration.rig import Mount, Rig, RigCamera
    from robograph_calibration.ros_yaml import read_ros_yaml

    _, camera = read_ros_yaml(args.intrinsics)
    pairs = _load_poses(Path(args.poses))
    images = [_read_image(p) for p, _ in pairs]
    poses, skipped = board_poses(camera, _board(args), images)
    for i, why in sorted(skipped.items()):
        print(f"skipped {pairs[i][0]}: {why}")
    used = sorted(poses)
    res = calibrate_hand_eye([pairs[i][1] for i in used], [poses[i] for i in used], mode=args.mode,
                             method=args.method)
    out = Path(args.out)
    rig = Rig.read(out) if args.update and out.exists() else Rig({})
    frame = args.frame_id or f"{args.camera}_optical_frame"
    parent = args.parent or ("gripper" if args.mode == "eye-in-hand" else "base")
    mount = Mount(args.mode, parent, res.T)
    rig = rig.with_camera(RigCamera(args.camera, camera, frame, mount,
                                    {"handeye_views": res.views, "handeye_residual_mm": round(res.residual_mm, 4),
                                     "handeye_residual_deg": round(res.residual_deg, 5), "method": args.method}))
    rig.write(out)
    t = res.T[:3, 3]
    print(f"{out}: {args.camera} {args.mode} in {parent!r} from {res.views} views: "
          f"t = [{t[0]:.4f}, {t[1]:.4f}, {t[2]:.4f}] m; self-check spread {res.residual_mm:.2f} mm, "
          f"{res.residual_deg:.3f} deg")
    return 0


def _cmd_board(args: argparse.Namespace) -> int:
    from robograph.render_cmd import write_png

    board = _board(args)
    write_png(args.out, board.texture(px_per_square=args.px_per_square))
    w, h = board.size_m
    print(f"{args.out}: {board.kind} {board.squares_x}x{board.squares_y}, print the squares at "
          f"{board.square_m * 1000:g} mm ({w * 1000:g} x {h * 1000:g} mm without the margin)")
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    """Render a ground-truth data set (MuJoCo) in the layout `hand-eye --poses` reads."""
    import numpy as np

    from robograph.render_cmd import write_png
    from robograph_calibration.rig import Mount, Rig, RigCamera
    from robograph_calibration.sim_board import render_board_views

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = render_board_views(args.views, mode=args.mode, board=_board(args), seed=args.seed,
                              off_board=args.off_board)
    views = []
    for k, v in enumerate(data.views):
        name = f"view_{k:03d}.png"
        write_png(out / name, v.image)
        views.append({"image": name, "T_base_gripper": np.round(v.T_base_hand, 12).tolist()})
    (out / "poses.yaml").write_text(json.dumps({"views": views}, indent=1))
    parent = "hand" if args.mode == "eye-in-hand" else "base"
    truth = Rig({"cam": RigCamera("cam", data.camera, "cam_optical_frame", Mount(args.mode, parent, data.T_true))})
    truth.write(out / "truth_rig.yaml")
    print(f"{out}: {len(views)} views, poses.yaml, truth_rig.yaml (true intrinsics and mount)")
    return 0


def _board_args(p: argparse.ArgumentParser) -> None:
    """Board options; the defaults are `BoardSpec`'s (repeated here so --help needs no OpenCV)."""
    p.add_argument("--board", default="charuco", choices=("charuco", "chessboard"))
    p.add_argument("--squares", default="8x6", help="squares across x down (default 8x6)")
    p.add_argument("--square-m", type=float, default=0.035, help="square side (m)")
    p.add_argument("--marker-m", type=float, default=0.026, help="ArUco marker side (m)")
    p.add_argument("--dictionary", default="DICT_4X4_50", help="ArUco dictionary (DICT_4X4_50, ...)")


def register(sub: Any) -> None:
    calib = sub.add_parser("calibrate", help="camera intrinsics and hand-eye calibration (writes ROS YAML / rig files)")
    csub = calib.add_subparsers(dest="calibrate_command", metavar="STEP")
    csub.required = True

    p = csub.add_parser("intrinsics", help="K and distortion from board images; writes a ROS calibration YAML")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    _board_args(p)
    p.add_argument("--distortion", default="full", choices=("none", "radial", "full"),
                   help="full: k1 k2 p1 p2 k3; radial: k1 k2 only (distortion-free or renders)")
    p.add_argument("--min-views", type=int, default=8)
    p.add_argument("--camera-name", default="camera")
    p.add_argument("--out", required=True, metavar="YAML")
    p.set_defaults(handler=_cmd_intrinsics)

    p = csub.add_parser("hand-eye", help="camera mount from image + robot pose pairs; writes a rig file")
    p.add_argument("--poses", required=True, metavar="FILE", help=POSES_HELP)
    p.add_argument("--intrinsics", required=True, metavar="YAML", help="ROS calibration YAML of the camera")
    p.add_argument("--mode", default="eye-in-hand", choices=("eye-in-hand", "eye-to-hand"))
    p.add_argument("--method", default="park", choices=("tsai", "park", "horaud", "andreff", "daniilidis", "robot-world"))
    p.add_argument("--camera", default="camera", help="camera name in the rig")
    p.add_argument("--parent", default=None, help="frame of the mount (default: gripper for eye-in-hand, base otherwise)")
    p.add_argument("--frame-id", default=None)
    p.add_argument("--update", action="store_true", help="add to an existing rig file instead of replacing it")
    _board_args(p)
    p.add_argument("--out", required=True, metavar="RIG")
    p.set_defaults(handler=_cmd_hand_eye)

    p = csub.add_parser("board", help="write the printable board image (PNG)")
    _board_args(p)
    p.add_argument("--px-per-square", type=int, default=200)
    p.add_argument("--out", required=True, metavar="PNG")
    p.set_defaults(handler=_cmd_board)

    p = csub.add_parser("render", help="render a ground-truth board data set in MuJoCo (images, poses, true rig)")
    _board_args(p)
    p.add_argument("--views", type=int, default=30)
    p.add_argument("--off-board", type=int, default=0, help="extra views that miss the board")
    p.add_argument("--mode", default="eye-in-hand", choices=("eye-in-hand", "eye-to-hand"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, metavar="DIR")
    p.set_defaults(handler=_cmd_render)
