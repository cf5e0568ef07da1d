"""ScenePlan -> `mujoco.MjSpec` of the kitchen (rooms, walls, furniture, objects). The robot is
attached to the same spec afterwards (robot.py), and world.py compiles it.

Every kitchen geom is in group 1 (rendered and colliding); robosuite's collision meshes are in
group 0 and hidden when rendering. Dressed objects (dress.py) add visual-only parts in group 2 and
move their solid collision geom to group 3 (colliding, not rendered). MuJoCo is imported on the first call only.

Numbers are rounded as the former MJCF text wrote them (5 significant digits, 4 for masses,
damping and centres of mass, 3 for friction and light positions), so the compiled model is
bit-identical to the one the text built: physical outcomes of whole episodes change with
sub-millimetre differences, and the benchmark's figures were measured on that model.
"""

from __future__ import annotations

from typing import Any

from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.dress import HIDDEN_GROUP, add_visual
from robograph_backends.mujoco_kitchen.plan import Body, Geom, ScenePlan
from robograph_backends.mujoco_kitchen.robot import _set_damping as set_damping  # one mujoco 3.3/3.9 shim
from robograph_backends.mujoco_kitchen.tuning import (
    ARTICULATION_ARMATURE,
    CORRIDOR_X,
    DOOR_HALF_WIDTH,
    IMPRATIO,
    INERTIA_FLOOR,
    ROLLING_FRICTION,
    ROOM_DEPTH,
    TIMESTEP,
    TORSIONAL_FRICTION,
    WALL_HEIGHT,
    WALL_THICKNESS,
)

WALL_RGBA = (0.92, 0.91, 0.88, 1.0)
SITE_SIZE = 0.01  # m, radius of the (invisible) handle and button sites
KITCHEN_CONTACT = 3  # contype/conaffinity bits 1|2: bit 1 with the robot, bit 2 among themselves
# (an object welded to a hand drops bit 1, see World.activate_weld)


def _r(value: float, digits: int = 5) -> float:
    """`value` as the MJCF text wrote it (`digits` significant digits)."""
    return float(f"{value:.{digits}g}")


def _rs(values: Any, digits: int = 5) -> list[float]:
    return [_r(float(v), digits) for v in values]


def _geom_size(g: Geom) -> list[float]:
    """MuJoCo's size vector: box (hx, hy, hz), cylinder (r, hz), sphere (r); unused entries 0."""
    if g.shape == "box":
        size = list(g.half)
    elif g.shape == "cylinder":
        size = [g.half[0], g.half[2]]
    else:
        size = [g.half[0]]
    return _rs(size) + [0.0] * (3 - len(size))


def _add_geom(parent: Any, g: Geom, group: int = 1) -> None:
    mj = mujoco_module()
    geom = parent.add_geom(name=g.name, type=getattr(mj.mjtGeom, f"mjGEOM_{g.shape.upper()}"),
                           pos=_rs(g.pos), size=_geom_size(g), rgba=_rs(g.rgba), group=group)
    if g.friction is not None:
        geom.friction = [_r(g.friction, 3), TORSIONAL_FRICTION, ROLLING_FRICTION]
        # a sphere rolls: with condim 4 it has no rolling resistance at all (held-out
        # FoodPack-Is5: an orange nudged by the grasp of its neighbour rolled on, on its own,
        # off the fridge shelf); condim 6 makes ROLLING_FRICTION act, as fruit has
        geom.condim = 6 if g.shape == "sphere" else 4
    geom.contype = geom.conaffinity = KITCHEN_CONTACT if g.collide else 0


def _inertia(b: Body) -> list[float]:
    """Diagonal box inertia from the first geom's half sizes (a vessel's: the overall extents of
    its geoms), floored so tiny items stay stable."""
    m = b.mass or 0.1
    hx, hy, hz = b.geoms[0].half if b.geoms else (0.03, 0.03, 0.03)
    if b.geoms and b.geoms[0].shape in ("cylinder", "sphere"):
        hy = hx
        if b.geoms[0].shape == "sphere":
            hz = hx
    if len(b.geoms) > 1:
        hx = max(abs(g.pos[0]) + g.half[0] for g in b.geoms)
        hy = max(abs(g.pos[1]) + g.half[1] for g in b.geoms)
        hz = max(abs(g.pos[2]) + g.half[2] for g in b.geoms)
    ix = m / 3 * (hy * hy + hz * hz)
    iy = m / 3 * (hx * hx + hz * hz)
    iz = m / 3 * (hx * hx + hy * hy)
    return _rs(max(v, INERTIA_FLOOR) for v in (ix, iy, iz))


def _add_body(parent: Any, b: Body, dress: Any = None) -> None:
    """`b` and its subtree (depth first, as body ids are numbered). `dress`: the spec, to add
    each body's visual parts (dress.py) after its collision geoms; None: plain geoms only."""
    mj = mujoco_module()
    body = parent.add_body(name=b.name, pos=_rs(b.pos))
    if b.gravcomp:
        body.gravcomp = _r(b.gravcomp, 3)
    j = b.joint
    if j is not None:
        if j.kind == "free":
            body.add_freejoint(name=j.name)
        else:
            joint = body.add_joint(name=j.name, type=getattr(mj.mjtJoint, f"mjJNT_{j.kind.upper()}"),
                                   axis=_rs(j.axis), pos=_rs(j.pos), frictionloss=_r(j.frictionloss, 4),
                                   armature=ARTICULATION_ARMATURE)
            set_damping(joint, _r(j.damping, 4))
            if j.range:
                joint.range = _rs(j.range)
    if b.mass is not None:
        body.explicitinertial = True
        body.ipos = [0.0, 0.0, _r(-b.com_z, 4)]
        body.mass = _r(b.mass, 4)
        body.inertia = _inertia(b)
    dressed = dress is not None and b.visual is not None
    # a dressed solid item's parts stand in for its collision shape in the cameras
    hidden = dressed and b.visual is not None and b.visual.family != "vessel"
    for g in b.geoms:
        _add_geom(body, g, HIDDEN_GROUP if hidden else 1)
    if dressed and b.visual is not None:
        add_visual(dress, body, b.visual, b.name)
    for name, pos in b.sites:
        body.add_site(name=name, pos=_rs(pos), size=[SITE_SIZE, 0.005, 0.005], rgba=[1, 0, 0, 0], group=3)
    for c in b.children:
        _add_body(body, c, dress)


def _add_excludes(spec: Any, bodies: list[Body]) -> None:
    """Articulated parts (doors, drawers, lids) do not collide with the body they hang on: a
    static carcass is welded to the world, where MuJoCo's parent-child filter does not apply."""
    for b in bodies:
        for c in b.children:
            if c.joint is not None and c.joint.kind != "free":
                spec.add_exclude(bodyname1=b.name, bodyname2=c.name)
        _add_excludes(spec, b.children)


def _add_walls(world: Any, plan: ScenePlan) -> None:
    """Outer walls around all rooms and a divider with a doorway (around CORRIDOR_X) between
    consecutive rooms."""
    h = WALL_HEIGHT / 2
    t = WALL_THICKNESS / 2
    y_min, y_max = plan.rooms[0].y0, plan.rooms[-1].y1
    ly = (y_max - y_min) / 2
    yc = (y_min + y_max) / 2

    def wall(name: str, pos: tuple[float, float, float], half: tuple[float, float, float]) -> None:
        _add_geom(world, Geom(name, "box", pos, half, WALL_RGBA))

    wall("wall_back", (ROOM_DEPTH + t, yc, h), (t, ly + 0.1, h))
    wall("wall_front", (-t, yc, h), (t, ly + 0.1, h))
    wall("wall_end_a", (ROOM_DEPTH / 2, y_min - t, h), (ROOM_DEPTH / 2, t, h))
    wall("wall_end_b", (ROOM_DEPTH / 2, y_max + t, h), (ROOM_DEPTH / 2, t, h))
    a, b = CORRIDOR_X - DOOR_HALF_WIDTH, CORRIDOR_X + DOOR_HALF_WIDTH
    for i, room in enumerate(plan.rooms[1:], start=1):
        y = room.y0
        wall(f"wall_{i}_a", (a / 2, y, h), (a / 2, t, h))
        wall(f"wall_{i}_b", ((b + ROOM_DEPTH) / 2, y, h), ((ROOM_DEPTH - b) / 2, t, h))


def kitchen_spec(plan: ScenePlan, *, offwidth: int = 640, offheight: int = 480, dress: bool = True) -> Any:
    """The whole kitchen as one `mujoco.MjSpec` (without the robot), offscreen buffers of
    `offwidth` x `offheight` pixels for rendering. `dress`: objects get their category shapes
    and labels (visual-only, dress.py); False: the plain collision primitives are what cameras see."""
    mj = mujoco_module()
    spec = mj.MjSpec()
    spec.modelname = "robograph_kitchen"
    spec.compiler.degree = False
    spec.compiler.autolimits = True
    spec.option.timestep = TIMESTEP
    spec.option.integrator = mj.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mj.mjtCone.mjCONE_ELLIPTIC
    spec.option.impratio = IMPRATIO
    spec.option.enableflags |= mj.mjtEnableBit.mjENBL_MULTICCD
    spec.visual.global_.offwidth = offwidth
    spec.visual.global_.offheight = offheight
    spec.visual.quality.shadowsize = 0
    spec.visual.quality.offsamples = 0
    spec.visual.headlight.ambient = [0.45, 0.45, 0.45]
    spec.visual.headlight.diffuse = [0.45, 0.45, 0.45]
    spec.add_texture(name="floor_tex", type=mj.mjtTexture.mjTEXTURE_2D, builtin=mj.mjtBuiltin.mjBUILTIN_CHECKER,
                     rgb1=[0.75, 0.7, 0.62], rgb2=[0.6, 0.55, 0.5], width=256, height=256)
    floor_mat = spec.add_material(name="floor_mat", texrepeat=[10, 10])
    floor_mat.textures[mj.mjtTextureRole.mjTEXROLE_RGB] = "floor_tex"
    world = spec.worldbody
    world.add_geom(name="floor", type=mj.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.1], material="floor_mat", group=1,
                   contype=KITCHEN_CONTACT, conaffinity=KITCHEN_CONTACT)
    for i, room in enumerate(plan.rooms):
        yc = (room.y0 + room.y1) / 2
        world.add_light(name=f"light_{i}", pos=[float(f"{ROOM_DEPTH / 2:.3f}"), float(f"{yc:.3f}"), 2.6], dir=[0, 0, -1],
                        castshadow=False, diffuse=[0.45, 0.45, 0.45])
    _add_walls(world, plan)
    for b in plan.bodies:
        _add_body(world, b, spec if dress else None)
    _add_excludes(spec, plan.bodies)
    return spec
