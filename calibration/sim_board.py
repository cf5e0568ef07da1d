"""Rendered calibration boards with ground truth, in MuJoCo: a ChArUco texture on a plate, a
camera on a mocap "hand" (eye-in-hand, board fixed) or fixed in the world (eye-to-hand, board on the
hand). Every view comes with the hand pose the robot would report; the true intrinsics and the true
mount are known, so a calibration can be scored exactly.

Own small scene (MJCF + generated texture), so it does not depend on any backend's internals.
Rendering: 8x multisampling (anti-aliased edges give sub-pixel corners, as a real lens does), no
shadows. Deterministic for a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robograph.rotations import quat_from_mat, rot_x, rot_y, rot_z
from robograph_calibration.board import BoardSpec
from robograph_calibration.camera import CameraModel, convert_pose
from robograph_calibration.deps import cv2_module, mujoco_module
from robograph_calibration.errors import CalibrationError
from robograph_calibration.handeye import HANDEYE_MODES
from robograph_calibration.transforms import invert, make_T

BOARD_Z = 0.002  # plate half thickness (m); the texture is on its top face
# The plate's body frame has z up out of the printed face; OpenCV's board frame has its origin at the
# top-left outer corner, x along the columns, y down the rows, z into the plate.
_R_BODY_BOARD = np.diag([1.0, -1.0, -1.0])


def _rot(axis: str, deg: float) -> np.ndarray:
    return {"x": rot_x, "y": rot_y, "z": rot_z}[axis](math.radians(deg))


# A wrist camera mount like a Panda hand's: 6 cm off the flange axis, looking along the hand's z
# (the approach direction), tilted 12 degrees inwards and rolled 5 degrees.
TRUE_T_HAND_CAM = make_T(_rot("z", 5.0) @ _rot("x", -12.0), [0.012, 0.062, 0.045])  # OpenCV cam frame
TRUE_T_HAND_BOARD = make_T(_R_BODY_BOARD, [0.0, 0.0, 0.10])  # board 10 cm along the hand's z (eye-to-hand)


@dataclass(frozen=True, slots=True, eq=False)
class View:
    image: np.ndarray  # (H, W, 3) uint8
    T_base_hand: np.ndarray  # what the robot reports
    T_world_cam: np.ndarray  # ground truth camera pose (OpenCV)


@dataclass(frozen=True, slots=True, eq=False)
class BoardViews:
    views: tuple[View, ...]
    camera: CameraModel  # true intrinsics (pixel-corner convention, pose identity)
    T_true: np.ndarray  # true T_hand_cam (eye-in-hand) or T_base_cam (eye-to-hand)
    mode: str
    board: BoardSpec


def _look_at(eye: np.ndarray, target: np.ndarray, roll_deg: float) -> np.ndarray:
    """T_world_cam (OpenCV) at `eye` looking at `target`, rolled about the optical axis."""
    z = target - eye
    z /= np.linalg.norm(z)
    up = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.95 else np.array([0.0, 1.0, 0.0])
    x = np.cross(z, up)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return make_T(np.stack([x, y, z], axis=1) @ _rot("z", roll_deg), eye)


def _scene_xml(board: BoardSpec, size_m: tuple[float, float], mode: str, fovy: float,
               T_world_cam_fixed: np.ndarray, width: int, height: int) -> str:
    hx, hy = size_m[0] / 2, size_m[1] / 2
    plate = (f'<geom type="box" size="{hx} {hy} {BOARD_Z}" material="board"/>')
    if mode == "eye-in-hand":
        T_mj = convert_pose(TRUE_T_HAND_CAM, "opencv", "mujoco")
        q = quat_from_mat(T_mj[:3, :3])
        hand_children = (f'<camera name="cam" pos="{" ".join(map(str, T_mj[:3, 3]))}" '
                         f'quat="{" ".join(map(str, q))}" fovy="{fovy}"/>')
        fixed_board = f'<body name="board" pos="0 0 {BOARD_Z}">{plate}</body>'
        world_cam = ""
    else:
        T_hb = TRUE_T_HAND_BOARD @ invert(make_T(_R_BODY_BOARD, [-hx, hy, 0.0]))  # hand <- plate body
        q = quat_from_mat(T_hb[:3, :3])
        hand_children = (f'<body name="board" pos="{" ".join(map(str, T_hb[:3, 3] - T_hb[:3, :3] @ [0, 0, BOARD_Z]))}" '
                         f'quat="{" ".join(map(str, q))}">{plate}</body>')
        fixed_board = ""
        T_mj = convert_pose(T_world_cam_fixed, "opencv", "mujoco")
        q = quat_from_mat(T_mj[:3, :3])
        world_cam = (f'<camera name="cam" pos="{" ".join(map(str, T_mj[:3, 3]))}" '
                     f'quat="{" ".join(map(str, q))}" fovy="{fovy}"/>')
    return f"""<mujoco model="calibration_board">
  <visual><quality offsamples="8" shadowsize="0"/><global offwidth="{width}" offheight="{height}"/>
    <headlight ambient="0.6 0.6 0.6" diffuse="0.4 0.4 0.4"/></visual>
  <asset><texture name="board" type="2d" file="board.png"/>
    <material name="board" texture="board" texrepeat="1 1" texuniform="false" specular="0" shininess="0"/></asset>
  <worldbody>
    <geom type="plane" size="3 3 0.1" pos="0 0 -0.3" rgba="0.35 0.38 0.4 1"/>
    {fixed_board}{world_cam}
    <body name="hand" mocap="true" pos="0 0 0.5">{hand_children}</body>
  </worldbody>
</mujoco>"""


def render_board_views(n_views: int, *, mode: str = "eye-in-hand", board: BoardSpec | None = None,
                       width: int = 640, height: int = 480, fovy: float = 55.0, seed: int = 0,
                       distance: tuple[float, float] = (0.28, 0.5), max_tilt_deg: float = 35.0,
                       off_board: int = 0) -> BoardViews:
    """Render `n_views` views of the board with their hand poses and the ground truth.
    `off_board` extra views point away from the board (a calibration must skip them)."""
    if mode not in HANDEYE_MODES:
        raise CalibrationError(f"unknown mode {mode!r}; valid: {', '.join(HANDEYE_MODES)}")
    mj = mujoco_module()
    cv2 = cv2_module()
    board = board or BoardSpec()
    rng = np.random.default_rng(seed)
    margin = 0.5
    tex = board.texture(px_per_square=160, margin_squares=margin)
    size_m = (board.size_m[0] + 2 * margin * board.square_m, board.size_m[1] + 2 * margin * board.square_m)
    ok, png = cv2.imencode(".png", cv2.cvtColor(tex, cv2.COLOR_GRAY2RGB))
    if not ok:
        raise CalibrationError("could not encode the board texture")
    centre_board = np.array([board.size_m[0] / 2, board.size_m[1] / 2, 0.0])  # in the OpenCV board frame
    T_world_cam_fixed = _look_at(np.array([0.1, -0.45, 0.75]), np.array([0.0, 0.0, 0.45]), 0.0)
    xml = _scene_xml(board, size_m, mode, fovy, T_world_cam_fixed, width, height)
    model = mj.MjModel.from_xml_string(xml, assets={"board.png": png.tobytes()})
    data = mj.MjData(model)
    renderer = mj.Renderer(model, height, width)
    # the fixed board's OpenCV frame in the world (eye-in-hand)
    T_world_board_fixed = make_T(_R_BODY_BOARD, [-size_m[0] / 2 + margin * board.square_m,
                                                 size_m[1] / 2 - margin * board.square_m, 2 * BOARD_Z])
    views = []
    try:
        for k in range(n_views + off_board):
            away = k >= n_views
            d = rng.uniform(*distance)
            tilt, azim, roll = rng.uniform(0, max_tilt_deg), rng.uniform(0, 360), rng.uniform(-180, 180)
            jitter = rng.normal(0, 0.015, 3)
            if mode == "eye-in-hand":
                target = T_world_board_fixed[:3, :3] @ centre_board + T_world_board_fixed[:3, 3] + jitter
                direction = np.array([math.sin(math.radians(tilt)) * math.cos(math.radians(azim)),
                                      math.sin(math.radians(tilt)) * math.sin(math.radians(azim)),
                                      math.cos(math.radians(tilt))])
                eye = target + d * direction
                if away:
                    target = eye + np.array([1.0, 0.3, 0.2])
                T_world_cam = _look_at(eye, target, roll)
                T_world_hand = T_world_cam @ invert(TRUE_T_HAND_CAM)
            else:
                # board centre on the camera's optical axis at distance d, facing the camera
                T_world_cam = T_world_cam_fixed
                centre = T_world_cam[:3, :3] @ (np.array([0, 0, d]) + jitter) + T_world_cam[:3, 3]
                face = _look_at(T_world_cam[:3, 3], centre, 0.0)[:3, :3]  # board z away from camera
                R = face @ _rot("x", rng.uniform(-1, 1) * max_tilt_deg) @ _rot("y", rng.uniform(-1, 1) * max_tilt_deg) \
                    @ _rot("z", roll)
                T_world_board = make_T(R, centre - R @ centre_board)
                if away:
                    T_world_board[:3, 3] += np.array([0.0, 0.0, -2.0])
                T_world_hand = T_world_board @ invert(TRUE_T_HAND_BOARD)
            data.mocap_pos[0] = T_world_hand[:3, 3]
            data.mocap_quat[0] = quat_from_mat(T_world_hand[:3, :3])
            mj.mj_forward(model, data)
            renderer.update_scene(data, camera="cam")
            img = renderer.render().copy()
            cam_id = model.camera("cam").id
            T_true_cam = convert_pose(make_T(data.cam_xmat[cam_id].reshape(3, 3), data.cam_xpos[cam_id]),
                                      "mujoco", "opencv")
            views.append(View(img, T_world_hand, T_true_cam))
    finally:
        renderer.close()
    truth = TRUE_T_HAND_CAM if mode == "eye-in-hand" else T_world_cam_fixed
    return BoardViews(tuple(views), CameraModel.from_fovy(width, height, fovy, np.eye(4)), truth, mode, board)
