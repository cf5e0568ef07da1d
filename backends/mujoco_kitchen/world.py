"""The compiled MuJoCo world for one scene graph: model + data + the plan that names its parts.

Owns every direct MjData access the backend needs (poses, joints, welds, servos, contacts,
stepping), so the reader, the realizer and the robot interface stay simulator-light.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robograph.errors import BackendError
from robograph.graph import PART_OF, SceneGraph
from robograph.rotations import relative_pose
from robograph_backends.mujoco_kitchen.deps import mujoco_module
from robograph_backends.mujoco_kitchen.layout import solve_layout
from robograph_backends.mujoco_kitchen.mjcf import kitchen_spec
from robograph_backends.mujoco_kitchen.plan import Body, ScenePlan
from robograph_backends.mujoco_kitchen.robot import (
    FINGER_OPEN,
    HANDS,
    PANDA_HOME,
    RobotNames,
    add_robot,
    add_servos,
    add_welds,
)

INTERRUPT_EVERY = 10  # physics steps between two deadline/cancel checks (~20 ms of sim time)


class SimulationUnstable(BackendError):
    """NaN/Inf state or a MuJoCo warning (bad contact, too many iterations) during stepping."""


@dataclass
class Timers:
    physics_s: float = 0.0
    render_s: float = 0.0
    steps: int = 0

    def snapshot(self) -> dict[str, float]:
        return {"physics_s": self.physics_s, "render_s": self.render_s, "steps": float(self.steps)}


def _walk(bodies: Iterable[Body]) -> Iterable[Body]:
    for b in bodies:
        yield b
        yield from _walk(b.children)


def assembly_pairs(graph: SceneGraph) -> list[tuple[str, str, str]]:
    """(whole, part_a, part_b) for every assembly with two parts, parts sorted."""
    parts: dict[str, list[str]] = {}
    for e in graph.edges:
        if e.rel == PART_OF:
            parts.setdefault(e.dst, []).append(e.src)
    return [(w, *sorted(p)[:2]) for w, p in sorted(parts.items()) if len(p) >= 2]


@dataclass
class World:
    plan: ScenePlan
    model: Any
    data: Any
    graph0: SceneGraph
    timers: Timers = field(default_factory=Timers)
    spare_of: dict[str, str] = field(default_factory=dict)  # added node -> spare body
    # called between physics steps (every INTERRUPT_EVERY); it raises to stop the motion in
    # progress (the backend's deadline / cancel check). None: never interrupted.
    interrupt: Callable[[], None] | None = None

    # construction ----------------------------------------------------------------------------------
    @classmethod
    def build(cls, graph: SceneGraph, *, spares: int = 3, offwidth: int = 640, offheight: int = 480,
              dress: bool = True) -> World:
        """`dress`: objects look like their category, labelled (visual-only parts, dress.py)."""
        mj = mujoco_module()
        plan = solve_layout(graph, spares=spares)
        spec = kitchen_spec(plan, offwidth=offwidth, offheight=offheight, dress=dress)
        add_robot(spec, plan.robot_start)
        movable = [plan.items[n].body for n in sorted(plan.items)] + list(plan.spares)
        articulated = sorted({a.body for arts in plan.articulations.values() for a in arts})
        pairs = [(w, plan.node_body[a], plan.node_body[b]) for w, a, b in assembly_pairs(graph)
                 if a in plan.node_body and b in plan.node_body]
        add_welds(spec, movable + articulated, pairs)
        joints = sorted({a.joint for arts in plan.articulations.values() for a in arts})
        joints += sorted(b.joint for b in plan.buttons.values())
        add_servos(spec, joints)
        model = spec.compile()
        data = mj.MjData(model)
        world = cls(plan, model, data, graph)
        world.reset()
        return world

    def reset(self) -> None:
        mj = mujoco_module()
        mj.mj_resetData(self.model, self.data)
        held = self.model.geom_contype == 2  # objects that were welded to a hand collide again
        self.model.geom_contype[held] = self.model.geom_conaffinity[held] = 3
        x, y, yaw = self.plan.robot_start
        self.set_qpos("base_x", x)
        self.set_qpos("base_y", y)
        self.set_qpos("base_yaw", yaw)
        for hand in HANDS:
            for jn, v in zip(RobotNames.arm_joints(hand), PANDA_HOME, strict=True):
                self.set_qpos(jn, v)
            f1, f2 = RobotNames.finger_joints(hand)
            self.set_qpos(f1, FINGER_OPEN)
            self.set_qpos(f2, -FINGER_OPEN)
        for node, arts in self.plan.articulations.items():
            if self.plan.initial_open.get(node):
                for a in arts:
                    self.set_qpos(a.joint, a.open)
        for node, button in self.plan.buttons.items():
            if self.graph0.attr(node, "pressed"):
                self.set_qpos(button.joint, -button.depth)
        self.hold_ctrl()
        mj.mj_forward(self.model, self.data)
        for whole, _a, _b in assembly_pairs(self.graph0):
            if self.graph0.attr(whole, "assembled") and f"asm_{whole}" in self.eq_names():
                self.activate_weld(f"asm_{whole}")
        self.step(300)

    # names -----------------------------------------------------------------------------------------
    def eq_names(self) -> set[str]:
        return {self.model.equality(i).name for i in range(self.model.neq)}

    def body_id(self, name: str) -> int:
        return int(self.model.body(name).id)

    def qadr(self, joint: str) -> int:
        return int(self.model.jnt_qposadr[self.model.joint(joint).id])

    def qpos(self, joint: str) -> float:
        return float(self.data.qpos[self.qadr(joint)])

    def set_qpos(self, joint: str, value: float) -> None:
        jid = self.model.joint(joint).id
        self.data.qpos[self.model.jnt_qposadr[jid]] = value
        self.data.qvel[self.model.jnt_dofadr[jid]] = 0.0

    def actuator(self, name: str) -> int:
        return int(self.model.actuator(name).id)

    # stepping --------------------------------------------------------------------------------------
    def hold_ctrl(self) -> None:
        """Every position actuator targets its joint's current position (no motion)."""
        m, d = self.model, self.data
        for i in range(m.nu):
            j = m.actuator_trnid[i, 0]
            d.ctrl[i] = d.qpos[m.jnt_qposadr[j]]

    def step(self, n: int = 1) -> None:
        """Advance physics; raise SimulationUnstable on NaN/Inf or a MuJoCo warning."""
        mj = mujoco_module()
        m, d = self.model, self.data
        t0 = time.perf_counter()
        kinds = (mj.mjtWarning.mjWARN_BADQPOS, mj.mjtWarning.mjWARN_BADQVEL, mj.mjtWarning.mjWARN_BADQACC)
        before = [int(d.warning[k].number) for k in kinds]
        hook = self.interrupt
        for k in range(n):
            if hook is not None and k % INTERRUPT_EVERY == 0:
                hook()
            mj.mj_step(m, d)
        self.timers.physics_s += time.perf_counter() - t0
        self.timers.steps += n
        if not (np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel))):
            raise SimulationUnstable("simulation state became NaN/Inf")
        # MuJoCo resets the state itself after NaN/Inf/huge values and only counts a warning
        if any(int(d.warning[k].number) > b for k, b in zip(kinds, before, strict=True)):
            raise SimulationUnstable("MuJoCo reported NaN/Inf or huge values and reset the simulation")

    def forward(self) -> None:
        mujoco_module().mj_forward(self.model, self.data)

    # bodies ----------------------------------------------------------------------------------------
    def body_pos(self, name: str) -> np.ndarray:
        return np.array(self.data.xpos[self.body_id(name)])

    def body_mat(self, name: str) -> np.ndarray:
        return np.array(self.data.xmat[self.body_id(name)]).reshape(3, 3)

    def to_local(self, body: str, point: np.ndarray) -> np.ndarray:
        return self.body_mat(body).T @ (np.asarray(point) - self.body_pos(body))

    def to_world(self, body: str, point: Any) -> np.ndarray:
        return self.body_pos(body) + self.body_mat(body) @ np.asarray(point, dtype=float)

    def site_pos(self, name: str) -> np.ndarray:
        return np.array(self.data.site(name).xpos)

    def set_free_pose(self, body: str, pos: Any, quat: Any = (1.0, 0.0, 0.0, 0.0)) -> None:
        """Teleport a free body (zero velocity)."""
        bid = self.body_id(body)
        jid = self.model.body_jntadr[bid]
        adr = self.model.jnt_qposadr[jid]
        self.data.qpos[adr:adr + 3] = pos
        self.data.qpos[adr + 3:adr + 7] = quat
        dof = self.model.jnt_dofadr[jid]
        self.data.qvel[dof:dof + 6] = 0.0

    def body_velocity(self, body: str) -> float:
        bid = self.body_id(body)
        return float(np.linalg.norm(self.data.cvel[bid][3:]))

    # welds and servos ------------------------------------------------------------------------------
    def activate_weld(self, eq_name: str) -> None:
        """Switch a weld on at the bodies' CURRENT relative pose (no jump)."""
        m, d = self.model, self.data
        e = m.equality(eq_name).id
        b1, b2 = m.eq_obj1id[e], m.eq_obj2id[e]
        rel, rq = relative_pose(d.xpos[b1], d.xquat[b1], d.xpos[b2], d.xquat[b2])
        m.eq_data[e, 0:3] = 0.0
        m.eq_data[e, 3:6] = rel
        m.eq_data[e, 6:10] = rq
        m.eq_data[e, 10] = 1.0
        d.eq_active[e] = 1
        self.robot_contacts(eq_name, on=False)

    def deactivate_weld(self, eq_name: str, *, collide: bool = True) -> None:
        """`collide=False`: the released object keeps ignoring the robot until
        `robot_contacts(name, on=True)` (the hand first moves off it)."""
        self.data.eq_active[self.model.equality(eq_name).id] = 0
        if collide:
            self.robot_contacts(eq_name, on=True)

    def robot_contacts(self, eq_name: str, *, on: bool) -> None:
        """An object welded to a hand is part of the hand: it stops colliding with the robot
        (kitchen geoms collide on bits 1 and 2, the robot on bit 1), else a finger or the palm
        pressing into it fights the weld and jams the wrist. Other hand welds are untouched."""
        for hand in HANDS:
            if eq_name.startswith(f"weld_{hand}_"):
                body = eq_name[len(f"weld_{hand}_"):]
                break
        else:
            return
        m = self.model
        bits = 3 if on else 2
        bodies = self.subtree(body)
        if any(m.equality(i).name.startswith("asm_") and (m.eq_obj1id[i] in bodies or m.eq_obj2id[i] in bodies)
               for i in range(m.neq)):
            return  # assembly parts keep colliding (open: held assemblies with the exemption)
        for b in bodies:
            for g in range(int(m.body_geomadr[b]), int(m.body_geomadr[b] + m.body_geomnum[b])):
                if m.geom_contype[g]:
                    m.geom_contype[g] = m.geom_conaffinity[g] = bits

    def weld_active(self, eq_name: str) -> bool:
        try:
            return bool(self.data.eq_active[self.model.equality(eq_name).id])
        except KeyError:
            return False

    def drive_joint(self, joint: str, target: float, kp: float = 400.0, kv: float = 60.0) -> None:
        """Turn on the zero-gain servo of an articulation joint and set its target."""
        a = self.actuator(f"servo_{joint}")
        self.model.actuator_gainprm[a, 0] = kp
        self.model.actuator_biasprm[a, 1] = -kp
        self.model.actuator_biasprm[a, 2] = -kv
        self.data.ctrl[a] = target

    def release_joint(self, joint: str) -> None:
        a = self.actuator(f"servo_{joint}")
        self.model.actuator_gainprm[a, 0] = 0.0
        self.model.actuator_biasprm[a, 1:3] = 0.0

    # contacts --------------------------------------------------------------------------------------
    def contacts(self, bodies_a: set[int], bodies_b: set[int]) -> int:
        m, d = self.model, self.data
        n = 0
        for c in d.contact[: d.ncon]:
            b1, b2 = m.geom_bodyid[c.geom1], m.geom_bodyid[c.geom2]
            if (b1 in bodies_a and b2 in bodies_b) or (b2 in bodies_a and b1 in bodies_b):
                n += 1
        return n

    def subtree(self, body: str) -> set[int]:
        """Ids of a body and all its descendants."""
        root = self.body_id(body)
        out = {root}
        for i in range(root + 1, self.model.nbody):
            if int(self.model.body_parentid[i]) in out:
                out.add(i)
        return out

    def finger_ids(self, hand: str) -> set[int]:
        return {self.body_id(b) for b in RobotNames.finger_bodies(hand)}

    def movable_bodies(self) -> list[str]:
        return [self.plan.items[n].body for n in sorted(self.plan.items)]

    def all_plan_bodies(self) -> list[str]:
        return [b.name for b in _walk(self.plan.bodies)]
