"""ScenePlan -> MJCF text for the kitchen (rooms, walls, furniture, objects). The robot is added
afterwards with MjSpec (robot.py). Pure string generation: no simulator import.

Every kitchen geom is in group 1 (rendered and colliding); robosuite's collision meshes are in
group 0 and hidden when rendering.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from backends.mujoco_kitchen.plan import (
    CORRIDOR_X,
    DOOR_HALF_WIDTH,
    ROOM_DEPTH,
    WALL_HEIGHT,
    Body,
    Geom,
    ScenePlan,
)

TIMESTEP = 0.002
WALL_RGBA = (0.92, 0.91, 0.88, 1.0)


def _f(values: tuple[float, ...] | list[float]) -> str:
    return " ".join(f"{v:.5g}" for v in values)


def _geom(g: Geom) -> str:
    shape = g.shape
    if shape == "box":
        size = g.half
    elif shape == "cylinder":
        size = (g.half[0], g.half[2])
    else:
        size = (g.half[0],)
    extra = ""
    if g.friction is not None:
        extra += f' friction="{g.friction:.3g} 0.01 0.001" condim="4"'
    # kitchen geoms collide on bits 1 and 2: bit 1 with the robot, bit 2 among themselves (an
    # object welded to a hand drops bit 1, see MujocoRobot.attach)
    extra += ' contype="3" conaffinity="3"' if g.collide else ' contype="0" conaffinity="0"'
    return (f'<geom name={quoteattr(g.name)} type="{shape}" pos="{_f(g.pos)}" size="{_f(size)}" '
            f'rgba="{_f(g.rgba)}" group="1"{extra}/>')


def _body(b: Body) -> str:
    grav = f' gravcomp="{b.gravcomp:.3g}"' if b.gravcomp else ""
    parts = [f'<body name={quoteattr(b.name)} pos="{_f(b.pos)}"{grav}>']
    j = b.joint
    if j is not None:
        if j.kind == "free":
            parts.append(f'<freejoint name={quoteattr(j.name)}/>')
        else:
            rng = f' range="{_f(j.range)}"' if j.range else ""
            parts.append(f'<joint name={quoteattr(j.name)} type="{j.kind}" axis="{_f(j.axis)}" '
                         f'pos="{_f(j.pos)}"{rng} damping="{j.damping:.4g}" frictionloss="{j.frictionloss:.4g}" armature="0.01"/>')
    if b.mass is not None:
        parts.append(f'<inertial pos="0 0 {-b.com_z:.4g}" mass="{b.mass:.4g}" diaginertia="{_inertia(b)}"/>')
    parts += [_geom(g) for g in b.geoms]
    parts += [f'<site name={quoteattr(n)} pos="{_f(p)}" size="0.01" rgba="1 0 0 0" group="3"/>' for n, p in b.sites]
    parts += [_body(c) for c in b.children]
    parts.append("</body>")
    return "\n".join(parts)


def _inertia(b: Body) -> str:
    """Box inertia from the first geom's half sizes, floored so tiny items stay stable."""
    m = b.mass or 0.1
    hx, hy, hz = b.geoms[0].half if b.geoms else (0.03, 0.03, 0.03)
    if b.geoms and b.geoms[0].shape in ("cylinder", "sphere"):
        hy = hx
        if b.geoms[0].shape == "sphere":
            hz = hx
    if len(b.geoms) > 1:  # vessels: use the overall extents of their geoms
        hx = max(abs(g.pos[0]) + g.half[0] for g in b.geoms)
        hy = max(abs(g.pos[1]) + g.half[1] for g in b.geoms)
        hz = max(abs(g.pos[2]) + g.half[2] for g in b.geoms)
    ix = m / 3 * (hy * hy + hz * hz)
    iy = m / 3 * (hx * hx + hz * hz)
    iz = m / 3 * (hx * hx + hy * hy)
    return _f([max(v, 2e-5) for v in (ix, iy, iz)])


def _excludes(bodies: list[Body]) -> list[str]:
    """Articulated parts (doors, drawers, lids) do not collide with the body they hang on: a
    static carcass is welded to the world, where MuJoCo's parent-child filter does not apply."""
    out = []
    for b in bodies:
        for c in b.children:
            if c.joint is not None and c.joint.kind != "free":
                out.append(f'<exclude body1={quoteattr(b.name)} body2={quoteattr(c.name)}/>')
        out += _excludes(b.children)
    return out


def _walls(plan: ScenePlan) -> list[str]:
    out = []
    h = WALL_HEIGHT / 2
    y_min, y_max = plan.rooms[0].y0, plan.rooms[-1].y1
    ly = (y_max - y_min) / 2
    yc = (y_min + y_max) / 2

    def wall(name: str, pos: tuple[float, float, float], half: tuple[float, float, float]) -> str:
        return _geom(Geom(name, "box", pos, half, WALL_RGBA))

    out.append(wall("wall_back", (ROOM_DEPTH + 0.05, yc, h), (0.05, ly + 0.1, h)))
    out.append(wall("wall_front", (-0.05, yc, h), (0.05, ly + 0.1, h)))
    out.append(wall("wall_end_a", (ROOM_DEPTH / 2, y_min - 0.05, h), (ROOM_DEPTH / 2, 0.05, h)))
    out.append(wall("wall_end_b", (ROOM_DEPTH / 2, y_max + 0.05, h), (ROOM_DEPTH / 2, 0.05, h)))
    a, b = CORRIDOR_X - DOOR_HALF_WIDTH, CORRIDOR_X + DOOR_HALF_WIDTH
    for i, room in enumerate(plan.rooms[1:], start=1):
        y = room.y0
        out.append(wall(f"wall_{i}_a", (a / 2, y, h), (a / 2, 0.05, h)))
        out.append(wall(f"wall_{i}_b", ((b + ROOM_DEPTH) / 2, y, h), ((ROOM_DEPTH - b) / 2, 0.05, h)))
    return out


def kitchen_xml(plan: ScenePlan, *, offwidth: int = 640, offheight: int = 480) -> str:
    """The whole kitchen as one MJCF document (without the robot)."""
    lights = []
    for i, room in enumerate(plan.rooms):
        yc = (room.y0 + room.y1) / 2
        lights.append(f'<light name="light_{i}" pos="{ROOM_DEPTH / 2:.3f} {yc:.3f} 2.6" dir="0 0 -1" '
                      f'castshadow="false" diffuse="0.45 0.45 0.45"/>')
    bodies = "\n".join(_body(b) for b in plan.bodies)
    walls = "\n".join(_walls(plan))
    excludes = "\n".join(_excludes(plan.bodies))
    return f"""<mujoco model="robograph_kitchen">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{TIMESTEP}" integrator="implicitfast" cone="elliptic" impratio="10">
    <flag multiccd="enable"/>
  </option>
  <visual>
    <global offwidth="{offwidth}" offheight="{offheight}"/>
    <quality shadowsize="0" offsamples="0"/>
    <headlight ambient="0.45 0.45 0.45" diffuse="0.45 0.45 0.45"/>
  </visual>
  <asset>
    <texture name="floor_tex" type="2d" builtin="checker" rgb1="0.75 0.7 0.62" rgb2="0.6 0.55 0.5" width="256" height="256"/>
    <material name="floor_mat" texture="floor_tex" texrepeat="10 10"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 0.1" material="floor_mat" group="1" contype="3" conaffinity="3"/>
    {"".join(lights)}
    {walls}
    {bodies}
  </worldbody>
  <contact>
    {excludes}
  </contact>
</mujoco>"""
