"""The SAPIEN scene of one tabletop layout: table and bodies, two Pandas, head and wrist cameras.

Containers are open boxes (floor and four walls); drawers are open boxes on a prismatic joint
that slides toward the robot (-x); lids, book covers and doors are panels on a revolute hinge.
Furniture is fixed; objects are dynamic. Every camera takes one picture at creation (deleting a
scene in which only some cameras rendered crashes SAPIEN 3.0.3).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from robograph.backend import Frame
from robograph.graph import FURNITURE, OBJECT, PART_OF, ROBOT_ID, Node, SceneGraph
from robograph.rotations import quat_from_mat
from robograph_backends.mujoco_kitchen.tuning import SLENDER, TALL, TALL_COM_DROP
from robograph_backends.sapien_tabletop.cameras import (
    HEAD_FOVY,
    HEIGHT,
    WIDTH,
    WRIST_FOVY,
    head_pitch,
    head_pose,
    model_from_sapien,
    quat_pitch,
)
from robograph_backends.sapien_tabletop.deps import _mesa_cache, panda_urdf, require_vulkan, sapien_module
from robograph_backends.sapien_tabletop.errors import SapienBackendError
from robograph_backends.sapien_tabletop.layout import ARTICULATED, LIP, WALL, Layout, Placement
from robograph_calibration.camera import CameraModel

ARM_BASES = {"left": 0.25, "right": -0.25}  # y of each Panda's base: close enough for either hand to reach the middle
# (x and height of the bases: Layout.robot_x, robot_z, from the pure layout)
READY_QPOS = (0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.785, 0.04, 0.04)
TIMESTEP = 1 / 500
JOINT_FRICTION = 0.5  # drawers and hinges hold where they were left, as real ones do (N or N m)
JOINT_DAMPING = 5.0
LOOSE_LID_DAMPING = 1.0  # N m s/rad: the hinge of a lid or cover on a movable box (`_add_articulated`)
LID_DENSITY = 300.0  # kg/m^3 of a lid's panel
LID_STOP = 1.3  # rad: a lid's or cover's hinge stops here (open)
LID_BALANCE = math.radians(40)  # ... and its counterweight balances it here
CW_HEIGHT = 0.06  # m: the counterweight stands this far above the hinge
BOOK_POST = 0.2  # m: ... a book cover's, so it weighs 0.14 kg instead of 0.46 (same torque at every angle)
DENSITY = 1000.0  # kg/m^3 of every other shape (SAPIEN's default)
# pillows and blankets are stuffed fabric, not water: at DENSITY a 26 cm pillow grown to hide a
# toy weighed 7 kg, slid 2 cm down between the fingers on the way to its aside spot and, set
# down where its bottom met the mat early, toppled (Toy-A3)
SOFT_CATEGORIES = ("pillow", "blanket")
SOFT_DENSITY = 100.0  # kg/m^3
BOOK_DENSITY = 600.0  # kg/m^3 of a book's floor and walls: lighter than a real book (named in the docs)
TAB_HALF = 0.015  # m: half the width of a lid's or cover's tab (it reaches `layout.LIP` past the front wall)
DRAWER_TRAVEL = 0.8  # a drawer opens this fraction of its depth
LID_OPEN = LID_STOP  # rad: an open lid or book cover rests on its stop (its counterweight holds it there)
DOOR_OPEN = 1.6  # rad: an open door (a little past square to its front)
BUTTON_DEPTH = 0.012  # m of button travel; pressed past half of it
BUTTON_HALF = (0.02, 0.02, 0.006)  # m
BUTTON_FRICTION = 8.0  # N of dry friction: a pushed button stays down
BUTTON_RGBA = (0.85, 0.15, 0.15, 1.0)
# a carried-by-handle body (`Placement.handle`): a closed box of 1 cm boards (a riser's mass, ~2 kg
# for a 45 x 22 x 10 cm monitor stand, not the 10 kg of a solid one) and a bar on its top, along
# its long side, above the placement's box (as a button): the fingers close across its width,
# their pads' 2 cm on it and their tips clear of the top
HANDLE_HALF = (0.01, 0.06, 0.0225)  # m: half width (across), half length (along), half height
BOARD_DENSITY = 600.0  # kg/m^3 of its boards (wood)
HANDS = ("left", "right")
# joint drives (stiffness N m/rad, damping N m s/rad, force limit): damping 1e3 lagged a moving
# set point by ~0.1 s and stopped the hand 3.5 cm short; 300 still settles without ringing
SNAP_DRIVE = (2e4, 200.0, 200.0)  # joined parts: stiffness N/m, damping N s/m, force limit N per axis
SNAP_TURN = (200.0, 2.0, 20.0)  # ... and about every axis (N m/rad, N m s/rad, N m)
ARM_DRIVE = (1e4, 300.0, 500.0)


def bar_half_height(half_z: float) -> float:
    """Half the height of a drawer's handle bar, for a drawer of half height `half_z` (m)."""
    return min(0.03, half_z - 0.01)


def drawer_travel(size_x: float) -> float:
    return DRAWER_TRAVEL * size_x


def _drawer_shift(layout: Layout, node: str, open_state: dict[str, bool]) -> float:
    """How far along x a body starts from its layout spot: what lies in an open drawer comes out
    with it (the drawer's own link starts closed and is moved by its joint)."""
    parent = layout.placements[node].parent
    while parent is not None:
        pl = layout.placements[parent]
        if pl.app.articulation == "drawer" and open_state.get(parent):
            return -drawer_travel(pl.size[0])
        parent = pl.parent
    return 0.0


class SimulationUnstable(SapienBackendError):
    """The physics blew up (a Panda's joint angles or a body's pose NaN/Inf, checked after every
    chunk of steps): the backend rebuilds from the last graph."""


def handle_half(pl: Placement) -> tuple[float, float, float]:
    """Half extents (body frame) of the carry handle on `pl`'s top: along its longer side."""
    across, along, up = HANDLE_HALF
    return (across, along, up) if pl.size[0] <= pl.size[1] else (along, across, up)


def built_round(pl: Placement, fixed: bool) -> bool:
    """Whether the body of `pl` (`fixed`: furniture) is built as an upright cylinder
    (`World._add_actor`), so its footprint is the same at any yaw: a round movable object, not
    slender (a slender cylinder is built as a box, as in MuJoCo: a 20 cm wine glass let go a few
    degrees tilted rocked on its rim and toppled)."""
    hx, hy, hz = (s / 2 for s in pl.size)
    return not fixed and not pl.button and not pl.handle and pl.app.articulation not in ARTICULATED and not pl.cabinet \
        and not pl.container and pl.app.geometry in ("cylinder", "capsule", "sphere") and hz <= SLENDER * min(hx, hy)


@dataclass
class World:
    """A built scene. `entity_node` maps SAPIEN's per-scene entity id to the graph node it belongs to."""

    scene: Any
    layout: Layout
    robots: dict[str, Any]
    cameras: dict[str, Any]
    joints: dict[str, tuple[Any, float, float]] = field(default_factory=dict)  # node -> (articulation, closed, open)
    bodies: dict[str, Any] = field(default_factory=dict)
    entity_node: dict[int, str] = field(default_factory=dict)
    hand_of_entity: dict[int, str] = field(default_factory=dict)  # finger link entity id -> hand
    time: float = 0.0  # simulated seconds since the build
    buttons: dict[str, Any] = field(default_factory=dict)  # node -> articulation (body + button)
    # blocker -> (the node it hides, world x, y where it hides it): G0's columns, then realize's
    blocking: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)
    welds: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # node -> (hand, grip -> body)
    held_qpos: dict[str, np.ndarray] = field(default_factory=dict)  # welded articulation -> its joints
    held_groups: dict[str, list[list[int]]] = field(default_factory=dict)  # welded body -> its shapes' groups
    # let go of while the fingers may still be inside it -> (the hand, its shapes' groups) (`unweld`)
    released: dict[str, tuple[str, list[list[int]]]] = field(default_factory=dict)
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)  # assembly whole -> its parts (no body of its own)
    snaps: dict[str, Any] = field(default_factory=dict)  # part -> the drive holding it on its seat (`snap`)
    physics_s: float = 0.0  # wall seconds spent stepping physics since the build
    interrupt: Any = None  # called before every chunk of steps (deadline / cancel); may raise
    dress: bool = True  # objects drawn as their category with their name's label (dress.py), visual only
    graph_nodes: dict[str, Node] = field(default_factory=dict)  # node id -> its graph node (category, name)
    _pressed: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def build(cls, graph: SceneGraph, layout: Layout, *, dress: bool = True) -> World:
        """`dress`: objects look like their category with their name's label (visual shapes
        only: collisions, masses and hence physics and reconcile are the same either way)."""
        require_vulkan()
        _mesa_cache()
        sapien = sapien_module()
        scene = sapien.Scene()
        scene.set_timestep(TIMESTEP)
        scene.set_ambient_light([0.55, 0.55, 0.55])
        scene.add_directional_light([0.3, 0.2, -1.0], [0.6, 0.6, 0.6], shadow=False)
        scene.add_ground(0.0)
        world = cls(scene, layout, {}, {}, dress=dress, graph_nodes=dict(graph.nodes))
        world._pressed = {n: bool(graph.attr(n, "pressed", False)) for n in layout.placements}
        for e in sorted(graph.edges_of(PART_OF)):
            world.parts[e.dst] = (*world.parts.get(e.dst, ()), e.src)
        open_state = {n: bool(graph.attr(n, "open", False)) for n in layout.placements}
        for pl in layout.placements.values():
            shift = _drawer_shift(layout, pl.node, open_state)
            moved = replace(pl, centre=(pl.centre[0] + shift, pl.centre[1], pl.centre[2])) if shift else pl
            world._add_body(moved, graph.nodes[pl.node].kind == FURNITURE, open_state[pl.node])
        world._add_robots()
        world._add_cameras()
        for blocker, target in layout.blocking.items():
            world.blocking[blocker] = (target, world.position(blocker)[:2].copy())
        for cam in world.cameras.values():
            scene.update_render()
            cam.take_picture()
        return world

    # bodies ---------------------------------------------------------------------------------------
    def _material(self, rgba: tuple[float, ...]) -> Any:
        sapien = sapien_module()
        return sapien.render.RenderMaterial(base_color=list(rgba))

    def _box(self, builder: Any, centre: tuple[float, float, float], half: tuple[float, float, float],
             rgba: tuple[float, ...], physx: Any, visual: bool = True, density: float = DENSITY) -> None:
        """A box collision shape and, unless `visual` is false (a dressed solid), its plain visual."""
        sapien = sapien_module()
        pose = sapien.Pose(list(centre))
        builder.add_box_collision(pose, half_size=list(half), material=physx, density=density)
        if visual:
            builder.add_box_visual(pose, half_size=list(half), material=self._material(rgba))

    def _dress(self, builder: Any, node: str, shape: str, half: tuple[float, float, float],
               rgba: tuple[float, ...], hollow: bool = False) -> bool:
        """Draw an object as its category with its name's label (the shared generator,
        `dress.add_visual`: visual shapes only). False when the world is not dressed or the node
        is furniture or unknown: the caller then draws its plain visual."""
        n = self.graph_nodes.get(node)
        if not self.dress or n is None or n.kind != OBJECT:
            return False
        from robograph_backends.appearance import describe
        from robograph_backends.sapien_tabletop.dress import add_visual

        add_visual(builder, describe(n.category, n.name, shape, half, (*rgba[:3], rgba[3] if len(rgba) > 3 else 1.0),
                                     hollow=hollow))
        return True

    def _shell(self, builder: Any, size: tuple[float, float, float], rgba: tuple[float, ...], physx: Any,
               top: bool = False, density: float = DENSITY) -> None:
        """An open box centred on the builder's origin: floor and four walls (and a top when asked)."""
        hx, hy, hz = (s / 2 for s in size)
        w = WALL / 2
        self._box(builder, (0, 0, -hz + w), (hx, hy, w), rgba, physx, density=density)
        self._box(builder, (hx - w, 0, 0), (w, hy, hz), rgba, physx, density=density)
        self._box(builder, (-hx + w, 0, 0), (w, hy, hz), rgba, physx, density=density)
        self._box(builder, (0, hy - w, 0), (hx, w, hz), rgba, physx, density=density)
        self._box(builder, (0, -hy + w, 0), (hx, w, hz), rgba, physx, density=density)
        if top:
            self._box(builder, (0, 0, hz - w), (hx, hy, w), rgba, physx, density=density)

    def _case(self, builder: Any, size: tuple[float, float, float], rgba: tuple[float, ...], physx: Any) -> None:
        """A cabinet for drawer tiers: floor, top, back and sides, open at the front (-x)."""
        hx, hy, hz = (s / 2 for s in size)
        w = WALL / 2
        self._box(builder, (0, 0, -hz + w), (hx, hy, w), rgba, physx)
        self._box(builder, (0, 0, hz - w), (hx, hy, w), rgba, physx)
        self._box(builder, (hx - w, 0, 0), (w, hy, hz), rgba, physx)
        self._box(builder, (0, hy - w, 0), (hx, w, hz), rgba, physx)
        self._box(builder, (0, -hy + w, 0), (hx, w, hz), rgba, physx)

    def _add_body(self, pl: Placement, fixed: bool, is_open: bool) -> None:
        sapien = sapien_module()
        physx = sapien.physx.PhysxMaterial(1.0, 1.0, 0.0)
        art = pl.app.articulation
        if pl.button:
            self._add_button(pl, fixed, physx)
            return
        if art not in ARTICULATED:
            self._add_actor(pl, fixed, physx)
            return
        self._add_articulated(pl, fixed, is_open, physx)

    def _add_actor(self, pl: Placement, fixed: bool, physx: Any) -> None:
        sapien = sapien_module()
        b = self.scene.create_actor_builder()
        hx, hy, hz = (s / 2 for s in pl.size)
        if pl.cabinet:
            self._case(b, pl.size, pl.app.rgba, physx)
        elif pl.container:
            self._shell(b, pl.size, pl.app.rgba, physx)
            self._dress(b, pl.node, "box", (hx, hy, hz), pl.app.rgba, hollow=True)  # its name on the front wall
        elif pl.handle:
            self._shell(b, pl.size, pl.app.rgba, physx, top=True, density=BOARD_DENSITY)
            self._box(b, (0.0, 0.0, hz + HANDLE_HALF[2]), handle_half(pl), tuple(0.6 * c for c in pl.app.rgba[:3]) + (1.0,),
                      physx, density=BOARD_DENSITY)
        elif built_round(pl, fixed):
            r = min(hx, hy)
            q = sapien.Pose([0, 0, 0], [0.7071068, 0, 0.7071068, 0])
            b.add_cylinder_collision(q, radius=r, half_length=hz, material=physx)
            if not self._dress(b, pl.node, "cylinder", (r, r, hz), pl.app.rgba):
                b.add_cylinder_visual(q, radius=r, half_length=hz, material=self._material(pl.app.rgba))
        else:
            dressed = self._dress(b, pl.node, "box", (hx, hy, hz), pl.app.rgba)
            node = self.graph_nodes.get(pl.node)
            soft = node is not None and node.category in SOFT_CATEGORIES
            self._box(b, (0, 0, 0), (hx, hy, hz), pl.app.rgba, physx, visual=not dressed,
                      density=SOFT_DENSITY if soft else DENSITY)
        b.set_physx_body_type("static" if fixed else "dynamic")
        b.set_initial_pose(sapien.Pose(list(pl.centre)))
        actor = b.build(name=pl.node)
        if not fixed and not pl.container and hz > TALL * min(hx, hy):
            # tall items are bottom-weighted, as in MuJoCo (its TALL rule): a wine glass set
            # down a few degrees tilted from the grip's swing toppled a second later
            body = actor.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent)
            body.set_cmass_local_pose(sapien.Pose([0.0, 0.0, -TALL_COM_DROP * hz]))
        self.bodies[pl.node] = actor
        self.entity_node[actor.per_scene_id] = pl.node

    def _counterweight(self, link: Any, hx: float, hy: float, hz: float, physx: Any,
                       post: float = CW_HEIGHT) -> None:
        """A weight on a post CW_HEIGHT above a lid's hinge, balancing the lid at LID_BALANCE: below
        it the lid falls shut, above it the lid falls open onto its stop at LID_STOP (75 deg),
        where its tab stays within reach (a plain lid let go at 62 deg fell shut again; pulled
        on to 90 deg, its tab stood out of reach for closing it). Only where the net torque
        beats JOINT_FRICTION (0.5 N m): a book cover or pencil case lid (net 0.1-0.35 N m by hand
        arithmetic; the book measured) stays where it is left. A box's lid stops at
        `Layout.lid_open` where the layout gives one (92 deg for boxes at most 0.33 m deep:
        leaning in at 75 deg, a lid caught what the hands brought to the box's back).

        The weight is mass only (`_ghost_counterweight` turns its shape's collisions off after
        the build; it is not drawn): it stands for a lid stay in the hinge, which takes no room
        on the table. As a solid it swung CW_HEIGHT * sin(LID_STOP) ~ 6 cm behind the box's
        back wall, where the packing puts the next row ~3.5 cm away: a lid opened by a hand hit
        that neighbour, and one set open by realize started inside it and PhysX's
        depenetration threw box and neighbour off the table (Desk-1's book and pencil case,
        Cosmetics-1's makeup box and storage bag read DETACHED).

        `post`: its height (the torque is the same for any post; a ghost's height takes no
        room): a book cover's is BOOK_POST, as the book is carried by its front wall and
        0.46 kg at the spine, 25 cm behind the fingers, twisted it out of them."""
        lid = LID_DENSITY * ((2 * hx) * (2 * hy) * WALL + LIP * 2 * TAB_HALF * WALL)
        mass = lid * hx / (post * math.tan(LID_BALANCE))
        half = (0.01, min(hy, 0.04), 0.01)
        volume = 8 * half[0] * half[1] * half[2]
        self._box(link, (hx, 0, hz + WALL / 2 + post), half, (0.3, 0.3, 0.3, 1), physx,
                  visual=False, density=mass / volume)

    @staticmethod
    def _ghost_counterweight(lid_link: Any) -> None:
        """Turn off the collisions of a built lid link's counterweight (its highest collision
        shape: `_counterweight` puts it CW_HEIGHT over the hinge); its mass and inertia stay."""
        shapes = lid_link.get_collision_shapes()
        top = max(shapes, key=lambda sh: float(sh.get_local_pose().p[2]))
        top.set_collision_groups([0, 0, 0, 0])

    def _add_button(self, pl: Placement, fixed: bool, physx: Any) -> None:
        """A PRESSABLE body with a push button on top: a slide joint along -z with dry friction,
        so a pushed button stays down (a latch), as the MuJoCo backend's button."""
        sapien = sapien_module()
        ab = self.scene.create_articulation_builder()
        root = ab.create_link_builder()
        root.set_name(f"{pl.node}_body")
        hx, hy, hz = (s / 2 for s in pl.size)
        dressed = self._dress(root, pl.node, "box", (hx, hy, hz), pl.app.rgba)
        self._box(root, (0, 0, 0), (hx, hy, hz), pl.app.rgba, physx, visual=not dressed)
        child = ab.create_link_builder(root)
        child.set_name(pl.node)
        self._box(child, (0, 0, hz + BUTTON_HALF[2]), BUTTON_HALF, BUTTON_RGBA, physx)
        joint = sapien.Pose([0, 0, hz], [0.7071068, 0, 0.7071068, 0])  # x -> -z: travel pushes down
        child.set_joint_name(f"{pl.node}_press")
        child.set_joint_properties("prismatic", [[0.0, BUTTON_DEPTH]], joint, joint, BUTTON_FRICTION, JOINT_DAMPING)
        ab.set_initial_pose(sapien.Pose(list(pl.centre)))
        articulation = ab.build(fix_root_link=fixed)
        articulation.set_name(pl.node)
        articulation.set_qpos(np.array([BUTTON_DEPTH if self._pressed.get(pl.node) else 0.0]))
        articulation.get_links()[-1].disable_gravity = True  # joint friction alone lets the cap creep down
        self.buttons[pl.node] = articulation
        self.bodies[pl.node] = articulation
        for link in articulation.get_links():
            self.entity_node[link.entity.per_scene_id] = pl.node

    def _add_articulated(self, pl: Placement, fixed: bool, is_open: bool, physx: Any) -> None:
        """Drawer: a fixed (invisible-size) root and an open-box link sliding along -x. Lid-like: the
        open box as root and a panel hinged at its back top edge (a door: at its side edge)."""
        sapien = sapien_module()
        ab = self.scene.create_articulation_builder()
        root = ab.create_link_builder()
        root.set_name(f"{pl.node}_base")
        hx, hy, hz = (s / 2 for s in pl.size)
        art = pl.app.articulation
        child = ab.create_link_builder(root)
        child.set_name(pl.node)
        # shapes are given in the root's frame: the child's frame coincides with it when closed
        if art == "drawer":
            self._shell(child, pl.size, pl.app.rgba, physx)
            # handle: an upright bar, pinched across y (fingers closing vertically put the palm
            # into the top above a drawer)
            self._box(child, (-hx - 0.01, 0, 0), (0.01, 0.01, bar_half_height(hz)), (0.2, 0.2, 0.2, 1), physx)
            travel = drawer_travel(pl.size[0])
            # a joint moves along its frame's x: a frame turned 180 deg about z slides toward -x
            joint = sapien.Pose([0, 0, 0], [0.0, 0.0, 0.0, 1.0])
            child.set_joint_name(f"{pl.node}_slide")
            child.set_joint_properties("prismatic", [[0.0, travel]], joint, joint, JOINT_FRICTION, JOINT_DAMPING)
            closed, opened = 0.0, travel
        else:
            # a book's boards are BOOK_DENSITY: held by its front wall, a 37 cm book of 1 cm
            # boards at 1000 kg/m^3 (1.4 kg) hung straight down from the fingers
            self._shell(root, pl.size, pl.app.rgba, physx,
                        density=BOOK_DENSITY if art == "book_cover" else DENSITY)
            self._dress(root, pl.node, "box", (hx, hy, hz), pl.app.rgba, hollow=True)  # its name on the front wall
            if art == "hinged_door":  # a panel over the open front, vertical hinge on its -y edge
                self._box(child, (-hx - WALL / 2, 0, 0), (WALL / 2, hy, hz), pl.app.rgba, physx)
                joint = sapien.Pose([-hx - WALL / 2, -hy, 0], [0.7071068, 0, -0.7071068, 0])  # axis +z
            else:  # lid / book cover: a panel on the rim, hinge along y at the back top edge, with
                # a tab LIP beyond the front wall in the middle (pinched from above, clear of the wall)
                self._box(child, (0, 0, hz + WALL / 2), (hx, hy, WALL / 2), pl.app.rgba, physx, density=LID_DENSITY)
                self._box(child, (-hx - LIP / 2, 0, hz + WALL / 2), (LIP / 2, TAB_HALF, WALL / 2), pl.app.rgba,
                          physx, density=LID_DENSITY)
                self._counterweight(child, hx, hy, hz, physx, BOOK_POST if art == "book_cover" else CW_HEIGHT)
                joint = sapien.Pose([hx, 0, hz + WALL / 2], [0.7071068, 0, 0, 0.7071068])  # axis +y
            lid_open = self.layout.lid_open.get(pl.node, LID_OPEN)
            closed, opened = 0.0, DOOR_OPEN if art == "hinged_door" else lid_open
            child.set_joint_name(f"{pl.node}_hinge")
            # the lid of a box that stands free is damped less: pulled open at ~1 rad/s against
            # JOINT_DAMPING, a pencil case's hinge pushed the 0.3 kg case 6 cm back along the desk
            damping = JOINT_DAMPING if fixed or art == "hinged_door" else LOOSE_LID_DAMPING
            child.set_joint_properties("revolute", [[0.0, 1.9 if art == "hinged_door" else lid_open]], joint, joint,
                                       JOINT_FRICTION, damping)
        ab.set_initial_pose(sapien.Pose(list(pl.centre)))
        articulation = ab.build(fix_root_link=fixed)
        articulation.set_name(pl.node)
        if art not in ("drawer", "hinged_door"):  # a lid or cover
            self._ghost_counterweight(articulation.get_links()[-1])
        articulation.set_qpos(np.array([opened if is_open else closed]))
        self.joints[pl.node] = (articulation, closed, opened)
        self.bodies[pl.node] = articulation
        for link in articulation.get_links():
            self.entity_node[link.entity.per_scene_id] = pl.node

    def add_object(self, pl: Placement, node: Node | None = None) -> None:
        """A body for a node added while the world runs (I6): built where `pl` says (realize
        then moves it to its place); the layout learns its placement and region. `node`: its
        graph node, so it is dressed as its category."""
        from robograph_backends.sapien_tabletop.layout import region_of

        if node is not None:
            self.graph_nodes[pl.node] = node
        self.layout.placements[pl.node] = pl
        self.layout.regions[pl.node] = region_of(pl)
        self._add_body(pl, False, False)

    def rebuild(self, pl: Placement) -> None:
        """Replace a free body by one built to `pl` (a blocker grown to hide its target, I5),
        keeping its joint state; the layout learns the new placement and region."""
        from robograph_backends.sapien_tabletop.layout import region_of

        old = self.bodies.pop(pl.node)
        is_open = False
        if hasattr(old, "get_links"):
            ids = {lk.entity.per_scene_id for lk in old.get_links()}
            if pl.node in self.joints:
                is_open = bool(old.get_qpos()[-1] > (self.joints[pl.node][1] + self.joints[pl.node][2]) / 2)
            self.scene.remove_articulation(old)
        else:
            ids = {old.per_scene_id}
            self.scene.remove_entity(old)
        for eid in ids:
            self.entity_node.pop(eid, None)
        self.joints.pop(pl.node, None)
        self.layout.placements[pl.node] = pl
        self.layout.regions[pl.node] = region_of(pl)
        self._add_body(pl, False, is_open)

    def position(self, node: str) -> np.ndarray:
        """World position (m) of a node's body (the root link of an articulation)."""
        body = self.bodies[node]
        if hasattr(body, "get_links"):
            return np.asarray(body.get_links()[0].entity_pose.p, dtype=float)
        return np.asarray(body.get_pose().p, dtype=float)

    def teleport(self, node: str, position: np.ndarray, quat: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0)) -> None:
        """Put a free body at `position` (m, world), at rest (realize, assisted help)."""
        sapien = sapien_module()
        entity = self.bodies[node]
        if hasattr(entity, "get_links"):
            entity.set_root_pose(sapien.Pose(list(map(float, position)), list(quat)))
            entity.set_root_linear_velocity(np.zeros(3))
            entity.set_root_angular_velocity(np.zeros(3))
            entity.set_qvel(np.zeros(entity.dof))
            return
        entity.set_pose(sapien.Pose(list(map(float, position)), list(quat)))
        body = entity.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent)
        if body is not None:
            body.set_linear_velocity(np.zeros(3))
            body.set_angular_velocity(np.zeros(3))

    # robot and cameras ---------------------------------------------------------------------------
    def _add_robots(self) -> None:
        sapien = sapien_module()
        top = self.layout.robot_z
        x = self.layout.robot_x
        for hand, y in ARM_BASES.items():
            loader = self.scene.create_urdf_loader()
            loader.fix_root_link = True
            builder = loader.load_file_as_articulation_builder(str(panda_urdf()))
            for link in builder.link_builders:
                # meant to stop one arm's links colliding with each other (hand and link7 touch
                # at rest): shapes sharing a group-2 bit with the same group 3 do not collide.
                # Not verified: link3-link5 contacts were still reported with the elbow folded
                link.collision_groups = [1, 1, 1, len(self.robots) + 1]
            robot = builder.build(fix_root_link=True)
            robot.set_name(f"{hand}_panda")
            robot.set_root_pose(sapien.Pose([x, y, top], [1, 0, 0, 0]))
            robot.set_qpos(np.array(READY_QPOS))
            for joint in robot.get_active_joints():
                joint.set_drive_property(*ARM_DRIVE)
            for j, q in zip(robot.get_active_joints(), READY_QPOS, strict=True):
                j.set_drive_target(q)
            self.robots[hand] = robot
            for link in robot.get_links():
                self.hand_of_entity[link.entity.per_scene_id] = hand

    def base(self) -> np.ndarray:
        """(x, y) of the arms' common base: the midpoint of their roots (m, world)."""
        roots = [np.asarray(r.get_root_pose().p, dtype=float) for r in self.robots.values()]
        return np.mean(roots, axis=0)[:2]

    def _add_cameras(self) -> None:
        sapien = sapien_module()
        # the head is mounted on the base (on the first arm's root link: both ride the rail
        # together), so it stays in front of what the arms work at: fixed at the rail's start, it
        # had a toy 2.4 m along a play mat out of its image
        first = next(iter(self.robots.values()))
        root = np.asarray(first.get_root_pose().p, dtype=float)
        table = self.layout.regions[self.layout.table]
        position, quat = head_pose(float(self.base()[1]), head_pitch(self.layout.robot_x, float(table.centre[2])))
        mount = sapien.Pose(list(position - root), list(quat))
        head = self.scene.add_mounted_camera("head", first.get_links()[0].entity, mount, WIDTH, HEIGHT,
                                             np.radians(HEAD_FOVY), 0.05, 10.0)
        self.cameras["head"] = head
        for hand, robot in self.robots.items():
            link = next(lk for lk in robot.get_links() if lk.name == "panda_hand")
            # look down the fingers: camera x (forward) along the hand's z, mounted 5 cm behind the palm
            mount = sapien.Pose([0.05, 0.0, 0.0], list(quat_pitch(-np.pi / 2)))
            cam = self.scene.add_mounted_camera(hand, link.entity, mount, WIDTH, HEIGHT,
                                                np.radians(WRIST_FOVY), 0.01, 10.0)
            self.cameras[hand] = cam

    def camera_model(self, name: str) -> CameraModel:
        """The camera's model (intrinsics + pose, OpenCV convention) from SAPIEN's own pose: the
        camera's global pose, its mount's times its offset on it (the pose of the link a wrist
        camera is mounted on put the model 5 cm off and turned 90 deg from the picture)."""
        cam = self.cameras[name]
        T = np.asarray(cam.global_pose.to_transformation_matrix(), dtype=float)
        return model_from_sapien(T, float(np.degrees(cam.fovy)))

    # rendering -----------------------------------------------------------------------------------
    def render(self, names: list[str] | None = None) -> dict[str, np.ndarray]:
        """RGB uint8 (H, W, 3) per camera."""
        self.scene.update_render()
        out = {}
        for name in names or list(self.cameras):
            cam = self.cameras[name]
            cam.take_picture()
            rgba = cam.get_picture("Color")
            out[name] = (np.clip(rgba[..., :3], 0, 1) * 255).astype(np.uint8)
        return out

    def frames(self, names: list[str] | None = None) -> list[Frame]:
        """One Frame per camera: RGB, depth along the optical axis (m; 0 where nothing), node
        labels (index into `node_labels()`, the Pandas' links the robot's, -1 for background and
        unlisted) and the labels' names, so the visual evaluation's coverage and self-occlusion
        (`robograph.agents.sight`) read these frames as they read the MuJoCo kitchen's."""
        images = self.render(names)
        labels = self.node_labels()
        index = {n: k for k, n in enumerate(labels)}
        lut = {eid: index[n] for eid, n in self.entity_node.items()}
        lut.update({eid: index[ROBOT_ID] for eid in self.hand_of_entity})
        out = []
        for name, image in images.items():
            cam = self.cameras[name]
            depth = -np.asarray(cam.get_picture("Position")[..., 2], dtype=np.float32)
            seg = self.segmentation(name).astype(np.int64)
            table = np.full(max(max(lut, default=0), int(seg.max())) + 1, -1, dtype=np.int64)  # entity id -> label
            table[list(lut)] = list(lut.values())
            mapped = table[seg]
            out.append(Frame(name, image, self.camera_model(name), self.time, depth, mapped, tuple(labels)))
        return out

    def node_labels(self) -> list[str]:
        """Graph node of each segmentation label, in label order: the bodies' nodes, then the
        robot's (its own pixels, last, as in the MuJoCo kitchen)."""
        return [*sorted(set(self.entity_node.values())), ROBOT_ID]

    def segmentation(self, name: str) -> np.ndarray:
        """Per-pixel entity id (H, W) uint32 from the last picture of camera `name`."""
        return np.asarray(self.cameras[name].get_picture("Segmentation")[..., 1])

    def step(self, n: int = 1) -> None:
        if self.interrupt is not None:
            self.interrupt()
        t0 = time.perf_counter()
        for robot in self.robots.values():
            robot.set_qf(robot.compute_passive_force(gravity=True, coriolis_and_centrifugal=True))
        for _ in range(n):
            for node, (hand, rel) in self.welds.items():
                self._follow(node, hand, rel)
            self.scene.step()
        self.time += n * TIMESTEP
        self.physics_s += time.perf_counter() - t0
        broken = [f"{h}_panda" for h, r in sorted(self.robots.items()) if not np.isfinite(r.get_qpos()).all()]
        broken += [n for n in sorted(self.bodies) if not np.isfinite(self.position(n)).all()]
        if broken:
            raise SimulationUnstable(f"the physics blew up: NaN/Inf pose or joint angles of {', '.join(broken)}")

    # assisted holds: a welded body follows the grip link (kinematic while welded) -----------------
    def grip_pose(self, hand: str) -> np.ndarray:
        link = next(lk for lk in self.robots[hand].get_links() if lk.name == "panda_grasptarget")
        return np.asarray(link.entity_pose.to_transformation_matrix())

    def weld(self, node: str, hand: str) -> None:
        """Fix `node` to `hand` where it is now (assisted grasp, realized hold)."""
        sapien = sapien_module()
        body = self.bodies[node]
        if not hasattr(body, "get_links"):
            body.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent).set_kinematic(True)
        self.welds[node] = (hand, np.linalg.inv(self.grip_pose(hand)) @ self._pose_of(node))
        # carried through anything: fingers pressing on it moved the arm. Taken again before the
        # fingers had opened, its own groups are the ones kept since it was let go of
        self.held_groups[node] = self.released.pop(node)[1] if node in self.released else \
            [list(shape.get_collision_groups()) for shape in self._shapes(node)]
        self._set_groups(node, [[0, 0, 0, 0]] * len(self.held_groups[node]))
        if hasattr(body, "get_links"):  # a held book's cover or box's lid stays as it was
            self.held_qpos[node] = np.asarray(body.get_qpos(), dtype=float).copy()

    def snap(self, part: str, target: str) -> None:
        """Hold `part` on `target` where it sits now: the snap-fit of two parts that met aligned
        and touching (MuJoCo switches on an equality weld the same way). A stiff D6 drive between
        the two bodies, so the joined whole lifts as one (grabbed by its top part alone, the
        lower part stayed on the mat)."""
        sapien = sapien_module()
        physx = sapien.physx
        body = self.bodies[part].find_component_by_type(physx.PhysxRigidDynamicComponent)
        seat = self.bodies[target].find_component_by_type(physx.PhysxRigidDynamicComponent)
        drive = physx.PhysxDriveComponent(body)
        drive.parent = seat
        rel = np.linalg.inv(self._pose_of(target)) @ self._pose_of(part)
        drive.pose_in_parent = sapien.Pose(rel[:3, 3], quat_from_mat(rel[:3, :3]))
        drive.pose_in_child = sapien.Pose()
        for axis in ("x", "y", "z"):
            getattr(drive, f"set_drive_property_{axis}")(*SNAP_DRIVE)
        drive.set_drive_property_slerp(*SNAP_TURN)
        drive.set_drive_target(sapien.Pose())
        self.bodies[part].add_component(drive)
        self.snaps[part] = drive

    def unweld(self, node: str, *, let_go: bool = False) -> None:
        """`let_go`: the hand is letting go of it, its fingers perhaps closed into the body
        while it collided with nothing: it collides with everything but that arm until
        `restore_contacts` (once the fingers have opened). Restored at once, the fingers inside
        it shot a wine glass off the dining table (MuJoCo's released welds likewise ignore the
        robot for a while)."""
        sapien = sapien_module()
        self.held_qpos.pop(node, None)
        weld = self.welds.pop(node, None)
        groups = self.held_groups.pop(node, [])
        if let_go and weld is not None:  # no contact with shapes sharing the arm's group 2 bit and group 3
            arm = self._arm_group(weld[0])
            self._set_groups(node, [[g[0], g[1], g[2] | 1, arm] for g in groups])
            self.released[node] = (weld[0], groups)
        elif groups:
            self._set_groups(node, groups)
        if weld is None:
            return
        body = self.bodies[node]
        if not hasattr(body, "get_links"):
            comp = body.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent)
            comp.set_kinematic(False)
            comp.set_linear_velocity(np.zeros(3))
            comp.set_angular_velocity(np.zeros(3))

    def _arm_group(self, hand: str) -> int:
        """Group 3 of the arm's links (`_add_robots`), read off its base link."""
        return int(self.robots[hand].get_links()[0].get_collision_shapes()[0].get_collision_groups()[3])

    def restore_contacts(self, hand: str) -> None:
        """Bodies `hand` let go of (`unweld(let_go=True)`) collide with its arm again."""
        for node, (h, groups) in sorted(self.released.items()):
            if h == hand:
                self._set_groups(node, groups)
                del self.released[node]

    def _set_groups(self, node: str, groups: list[list[int]]) -> None:
        """Each of the body's shapes to its collision groups, and the body taken out of the
        physics scene and put back, so that the pairs it is already in are filtered again
        (PhysX keeps a pair's filtering: a book welded, then let go of, with its groups back,
        fell through the desk)."""
        for shape, g in zip(self._shapes(node), groups, strict=True):
            shape.set_collision_groups(g)
        body = self.bodies[node]
        components = body.get_links() if hasattr(body, "get_links") else \
            [body.find_component_by_type(sapien_module().physx.PhysxRigidDynamicComponent)]
        for comp in components:
            comp.disable()
        for comp in components:
            comp.enable()

    def _shapes(self, node: str) -> list[Any]:
        sapien = sapien_module()
        body = self.bodies[node]
        if hasattr(body, "get_links"):
            return [sh for lk in body.get_links() for sh in lk.get_collision_shapes()]
        return list(body.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent).get_collision_shapes())

    def _pose_of(self, node: str) -> np.ndarray:
        body = self.bodies[node]
        if hasattr(body, "get_links"):
            return np.asarray(body.get_root_pose().to_transformation_matrix())
        return np.asarray(body.get_pose().to_transformation_matrix())

    def _follow(self, node: str, hand: str, rel: np.ndarray) -> None:

        sapien = sapien_module()
        T = self.grip_pose(hand) @ rel
        pose = sapien.Pose(T[:3, 3], quat_from_mat(T[:3, :3]))
        body = self.bodies[node]
        if hasattr(body, "get_links"):
            body.set_root_pose(pose)
            body.set_root_linear_velocity(np.zeros(3))
            body.set_root_angular_velocity(np.zeros(3))
            if node in self.held_qpos:
                body.set_qpos(self.held_qpos[node])
                body.set_qvel(np.zeros(body.dof))
        else:
            body.find_component_by_type(sapien.physx.PhysxRigidDynamicComponent).set_kinematic_target(pose)
