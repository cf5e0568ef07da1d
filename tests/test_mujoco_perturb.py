"""Reconcile notices the world changing behind the graph's back, and reports exactly that change.

Each perturbation moves the MuJoCo world directly (body poses, joint positions, welds; never
through `realize`) and then checks that `reconcile` returns the graph with that one change and
nothing else. Setups that need a state other than G0 (a held object, an open door, a blocker set
aside) are realized first and checked to read back unchanged. Every scene is built once; the
world's state is restored between perturbations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

from robograph.actions import Action, effects
from robograph.graph import CONTAINER, FURNITURE, OBJECT, OCCLUDES, OPENABLE, Edge, SceneGraph
from robograph.rewrite import AddEdge, MoveNode, Rewrite, SetAttr, apply_all, diff

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]

SCENES = ("Buffet-I5", "FoodPack-I1", "Fridge-I5", "FoodPack-I4")
SETTLE_STEPS = 150  # 0.3 s: a teleported body comes to rest before the reading
COLUMN_GAP = 0.035  # blocker to hidden object, as the layout builds occlusion columns (m)


@dataclass
class Snapshot:
    """Everything a perturbation or a realized setup may change, to restore the built scene."""

    data: dict[str, np.ndarray]
    model: dict[str, np.ndarray]
    blocking: dict = field(default_factory=dict)
    items: dict = field(default_factory=dict)

    DATA = ("qpos", "qvel", "act", "ctrl", "eq_active")
    MODEL = ("geom_contype", "geom_conaffinity", "eq_data", "geom_size", "geom_type", "geom_rbound",
             "geom_aabb", "body_inertia", "body_ipos", "body_sameframe", "bvh_aabb", "actuator_gainprm",
             "actuator_biasprm")

    @classmethod
    def take(cls, world) -> Snapshot:
        return cls({k: np.array(getattr(world.data, k)) for k in cls.DATA},
                   {k: np.array(getattr(world.model, k)) for k in cls.MODEL},
                   dict(world.plan.blocking), dict(world.plan.items))

    def restore(self, world) -> None:
        for k, v in self.data.items():
            getattr(world.data, k)[:] = v
        for k, v in self.model.items():
            getattr(world.model, k)[:] = v
        world.plan.blocking.clear()
        world.plan.blocking.update(self.blocking)
        world.plan.items.clear()
        world.plan.items.update(self.items)
        world.data.time = 0.0
        world.forward()


# subjects, chosen from the graph and the plan (deterministically: sorted ids) ----------------------
def _occluding(g: SceneGraph) -> set[str]:
    return {n for e in g.edges_of(OCCLUDES) for n in (e.src, e.dst)}


def _plain_objects(world, g: SceneGraph) -> list[str]:
    """Movable single-body objects that are neither vessels nor part of an occlusion."""
    return [n for n in sorted(world.plan.items) if g.nodes[n].kind == OBJECT and not world.plan.items[n].hollow
            and n not in _occluding(g) and g.location.get(n) is not None and not g.children(n)]


def _place(world, node: str, pos) -> None:
    world.set_free_pose(world.plan.items[node].body, pos)
    world.forward()


def _free_spot_in(world, g: SceneGraph, node: str, dst: str, rel: str):
    from robograph_backends.mujoco_kitchen.placement import free_spot
    from robograph_backends.mujoco_kitchen.sense import half_of

    region = world.plan.support_region(dst, rel)
    if region is None or (rel == "INSIDE") != region.inside:
        return None
    return free_spot(world, region, half_of(world, node), {world.plan.items[node].body})


def _settle(world) -> None:
    world.hold_ctrl()
    world.step(SETTLE_STEPS)


# perturbations: each changes the world and returns the rewrites reconcile must report ------------
Perturb = Callable[[object, SceneGraph], list[Rewrite] | None]


def into_container(world, g):
    for node in _plain_objects(world, g):
        here = g.parent(node)
        for dst in sorted(world.plan.regions):
            if dst == here or dst not in g.nodes or not g.nodes[dst].has(CONTAINER) or g.nodes[dst].has(OPENABLE):
                continue
            spot = _free_spot_in(world, g, node, dst, "INSIDE")
            if spot is not None:
                _place(world, node, spot)
                return [MoveNode(node, "INSIDE", dst)]
    return None


def onto_surface(world, g):
    for node in _plain_objects(world, g):
        here = g.parent(node)
        for dst in sorted(world.plan.tops):
            if dst == here or g.nodes[dst].kind != FURNITURE:
                continue
            spot = _free_spot_in(world, g, node, dst, "ON")
            if spot is not None:
                _place(world, node, spot)
                return [MoveNode(node, "ON", dst)]
    return None


def _floor_spot(world, g: SceneGraph, node: str):
    """On the floor in front of the furniture the node stands at, beside the robot's lane."""
    from robograph_backends.mujoco_kitchen.sense import half_of

    half = half_of(world, node)
    pos = world.body_pos(world.plan.items[node].body)
    station = next(world.plan.stations[a] for a in g.ancestors(node) if a in world.plan.stations)
    return np.array([station[0] + 0.42, pos[1], half[2] + 0.002])


def knocked_to_floor(world, g):
    node = _plain_objects(world, g)[0]
    _place(world, node, _floor_spot(world, g, node))
    return [MoveNode(node, "IN_ROOM", g.room_of(node))]


def _articulation(world, g: SceneGraph, want_open: bool) -> str | None:
    return next((n for n in sorted(world.plan.articulations) if n in g.nodes and g.is_open(n) != want_open), None)


def _set_joints(world, node: str, opened: bool) -> None:
    for a in world.plan.articulations[node]:
        world.set_qpos(a.joint, a.open if opened else a.closed)
    world.forward()


def joint_opened(world, g):
    node = _articulation(world, g, want_open=True)
    _set_joints(world, node, True)
    return [SetAttr(node, "open", True)]


def _grip(world, hand: str, node: str) -> None:
    """The object between `hand`'s fingers, welded there (a held object, as the assisted grasp has it)."""
    from robograph_backends.mujoco_kitchen.robot import RobotNames
    from robograph_backends.mujoco_kitchen.sense import half_of

    body = world.plan.items[node].body
    grip = world.site_pos(RobotNames.grip_site(hand))
    _place(world, node, grip - np.array([0.0, 0.0, max(float(half_of(world, node)[2]) - 0.02, 0.0)]))
    world.activate_weld(f"weld_{hand}_{body}")


def put_into_hand(world, g):
    node = _plain_objects(world, g)[0]
    _grip(world, "right", node)
    return [MoveNode(node, "HELD", "right")]


def _pair(g: SceneGraph) -> tuple[str, str]:
    e = g.edges_of(OCCLUDES)[0]
    return e.src, e.dst


def _set_aside(world, g: SceneGraph, blocker: str) -> None:
    """The blocker to a free spot of its support, 10 cm clear of where it stood."""
    from robograph_backends.mujoco_kitchen.placement import free_spot, local
    from robograph_backends.mujoco_kitchen.sense import half_of

    loc = g.location[blocker]
    region = world.plan.support_region(loc.dst, loc.rel)
    pose = np.asarray(world.plan.blocking[blocker][1])
    half = half_of(world, blocker)
    spot = free_spot(world, region, half, {world.plan.items[blocker].body},
                     avoid=[(local(world, region, pose), half + 0.1)])
    _place(world, blocker, spot)


def blocker_moved_away(world, g):
    blocker, _target = _pair(g)
    _set_aside(world, g, blocker)
    return [SetAttr(blocker, "moved_aside", True)]


def blocker_picked_up(world, g):
    blocker, _target = _pair(g)
    _grip(world, "left", blocker)
    return effects(g, Action("grab", (blocker,)))


def new_occluder(world, g, be):
    """A blocker that no longer hides anything (picked up and set down elsewhere on its support)
    is put straight in front of another object of its support no larger than its old target:
    a new OCCLUDES edge (the pair is moved together to a free spot of the support, so the
    object keeps its location)."""
    from robograph_backends.mujoco_kitchen.placement import free_spot
    from robograph_backends.mujoco_kitchen.sense import half_of

    blocker, old_target = _pair(g)
    loc = g.location[blocker]
    g1 = apply_all(g, [*effects(g, Action("grab", (blocker,))), MoveNode(blocker, loc.rel, loc.dst)])
    _set_aside(world, g, blocker)
    _settle(world)
    assert be.reconcile(g1) == g1, diff(g1, be.reconcile(g1))
    bh, limit = half_of(world, blocker), half_of(world, old_target)
    region = world.plan.support_region(loc.dst, loc.rel)
    for target in _plain_objects(world, g1):
        th = half_of(world, target)
        if g1.location[target] != Edge(target, loc.rel, loc.dst) or np.any(th > limit + 1e-3):
            continue
        column = np.array([bh[0] + th[0] + COLUMN_GAP / 2, max(bh[1], th[1]), max(bh[2], th[2])])
        spot = free_spot(world, region, column, {world.plan.items[n].body for n in (blocker, target)}, margin=0.03)
        if spot is None:
            continue
        front, y, floor = spot[0] - column[0], spot[1], spot[2] - column[2]  # the column's footprint
        _place(world, target, [front + 2 * bh[0] + COLUMN_GAP + th[0], y, floor + th[2] + 0.002])
        _place(world, blocker, [front + bh[0], y, floor + bh[2] + 0.002])
        return g1, [AddEdge(Edge(blocker, OCCLUDES, target))]
    return g1, None


def robot_to_other_room(world, g):
    from robograph_backends.mujoco_kitchen.plan import CORRIDOR_X

    here = g.robot_room()
    other = next(r for r in sorted(g.rooms()) if r != here)
    span = world.plan.room_span(other)
    world.set_qpos("base_x", CORRIDOR_X)
    world.set_qpos("base_y", (span.y0 + span.y1) / 2)
    world.forward()
    return [SetAttr("robot", "room", other)]


# perturbations from a realized setup --------------------------------------------------------------
def _realized(setup: Callable[[object, SceneGraph], list[Rewrite]], perturb: Callable[..., list[Rewrite]]):
    """A perturbation that first realizes `setup`'s rewrites (checked to read back unchanged)."""

    def run(world, g, be):
        g1 = apply_all(g, setup(world, g))
        be.realize(g1, [])
        assert be.reconcile(g1) == g1, diff(g1, be.reconcile(g1))
        return g1, perturb(world, g1)

    run.__name__ = perturb.__name__
    return run


def _open_one(world, g):
    return [SetAttr(_articulation(world, g, want_open=True), "open", True)]


def joint_closed(world, g):
    node = _articulation(world, g, want_open=False)
    _set_joints(world, node, False)
    return [SetAttr(node, "open", False)]


def _hold_one(world, g):
    return [MoveNode(_plain_objects(world, g)[0], "HELD", "left")]


def held_dropped(world, g):
    node = g.held()[0]
    body = world.plan.items[node].body
    world.deactivate_weld(f"weld_left_{body}")
    x, y = world.qpos("base_x"), world.qpos("base_y")
    from robograph_backends.mujoco_kitchen.sense import half_of

    _place(world, node, [x + 0.55, y, float(half_of(world, node)[2]) + 0.002])
    return [MoveNode(node, "IN_ROOM", g.robot_room())]


def _aside_one(world, g):
    return [SetAttr(_pair(g)[0], "moved_aside", True)]


def blocker_back_in_front(world, g):
    blocker, _target = _pair(g)
    x, y, _ = world.plan.blocking[blocker][1]  # where it hid its target (the height: where it stands now)
    _place(world, blocker, [x, y, world.body_pos(world.plan.items[blocker].body)[2]])
    return [SetAttr(blocker, "moved_aside", False)]


DIRECT: tuple[Perturb, ...] = (into_container, onto_surface, knocked_to_floor, joint_opened, put_into_hand,
                               blocker_moved_away, blocker_picked_up, robot_to_other_room)
FROM_SETUP = (_realized(_open_one, joint_closed), _realized(_hold_one, held_dropped),
              _realized(_aside_one, blocker_back_in_front), new_occluder)
KINDS = [p.__name__ for p in DIRECT] + [p.__name__ for p in FROM_SETUP]


@pytest.fixture(scope="module")
def perturbation_results(indoor_benchmark) -> dict[tuple[str, str], object]:
    """(scene, kind) -> None when reconcile reported exactly the change, else what differed
    (or 'n/a' when the scene has nothing to perturb that way)."""
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    by_id = {inst.id.split("__")[0]: inst for inst in indoor_benchmark.instances}
    out: dict[tuple[str, str], object] = {}
    be = MujocoKitchenBackend()
    for scene in SCENES:
        g0 = by_id[scene].graph
        be.reset(g0, seed=0)
        be.world.step(250)
        assert be.reconcile(g0) is g0
        snap = Snapshot.take(be.world)
        for perturb in (*DIRECT, *FROM_SETUP):
            snap.restore(be.world)
            be.scene.graph = g0
            if perturb in FROM_SETUP:
                g, change = perturb(be.world, g0, be)
            else:
                g, change = g0, perturb(be.world, g0)
            if change is None:
                out[(scene, perturb.__name__)] = "n/a"
                continue
            _settle(be.world)
            want = apply_all(g, change)
            got = be.reconcile(g)
            out[(scene, perturb.__name__)] = None if got == want else {"want": change, "got": diff(g, got)}
    be.close()
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_reconcile_reports_exactly_the_perturbation(perturbation_results, kind: str) -> None:
    results = {scene: r for (scene, k), r in perturbation_results.items() if k == kind}
    bad = {scene: r for scene, r in results.items() if r is not None and r != "n/a"}
    assert not bad, bad
    assert sum(r is None for r in results.values()) >= 3, results


def test_unperturbed_world_reads_back_unchanged_after_restore(indoor_benchmark) -> None:
    """The restore the perturbation tests rely on: a perturbed then restored world is G0 again."""
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    inst = next(i for i in indoor_benchmark.instances if i.id.startswith(SCENES[0] + "__"))
    be = MujocoKitchenBackend()
    be.reset(inst.graph, seed=0)
    snap = Snapshot.take(be.world)
    knocked_to_floor(be.world, inst.graph)
    _settle(be.world)
    assert be.reconcile(inst.graph) != inst.graph
    snap.restore(be.world)
    _settle(be.world)
    assert be.reconcile(inst.graph) is inst.graph
    be.close()



def test_button_and_assembly_perturbations_on_the_skills_sample() -> None:
    """The compiled indoor scenes have no buttons or assemblies: the hand-made skills sample
    has both (a lamp, a two-part toy rocket)."""
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.samples import skills_playground

    g0 = skills_playground().graph
    be = MujocoKitchenBackend()
    be.reset(g0, seed=0)
    w = be.world
    assert be.reconcile(g0) is g0
    snap = Snapshot.take(w)
    button = w.plan.buttons["table_lamp"]

    def check(g: SceneGraph, change: list[Rewrite]) -> None:
        _settle(w)
        got = be.reconcile(g)
        assert got == apply_all(g, change), diff(g, got)

    w.set_qpos(button.joint, -button.depth)  # pressed behind the graph's back
    check(g0, [SetAttr("table_lamp", "pressed", True)])

    snap.restore(w)
    g1 = apply_all(g0, [SetAttr("table_lamp", "pressed", True)])
    be.realize(g1, [])
    assert be.reconcile(g1) == g1
    w.set_qpos(button.joint, 0.0)  # released
    check(g1, [SetAttr("table_lamp", "pressed", False)])

    snap.restore(w)
    g2 = apply_all(g0, effects(g0, Action("attach", ("rocket_nose", "rocket_base"))))
    be.realize(g2, [])
    assert be.reconcile(g2) == g2, diff(g2, be.reconcile(g2))
    w.deactivate_weld("asm_toy_rocket")  # the nose comes off and is set down beside the base
    spot = _free_spot_in(w, g0, "rocket_nose", "kitchen_counter", "ON")
    _place(w, "rocket_nose", spot)
    check(g2, [SetAttr("toy_rocket", "assembled", False), MoveNode("toy_rocket", "DETACHED", ""),
               MoveNode("rocket_base", "ON", "kitchen_counter"), MoveNode("rocket_nose", "ON", "kitchen_counter")])
    be.close()


@pytest.mark.parametrize("scene", SCENES[:3])
def test_realized_occlusion_rewrites_reconcile_to_themselves(indoor_benchmark, scene: str) -> None:
    """realize -> reconcile for the occlusion rewrites of interventions: a blocker set aside, put
    back (I2 regression of move_aside), and a new occlusion (I5: an object moved to a blocker's
    support and hidden behind it; realize grows the blocker until the camera sees it covered)."""
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    inst = next(i for i in indoor_benchmark.instances if i.id.startswith(scene + "__"))
    be = MujocoKitchenBackend()
    be.reset(inst.graph, seed=0)
    g = inst.graph
    blocker, _target = _pair(g)
    for change in ([SetAttr(blocker, "moved_aside", True)], [SetAttr(blocker, "moved_aside", False)]):
        g = apply_all(g, change)
        be.realize(g, change)
        assert be.reconcile(g) == g, diff(g, be.reconcile(g))
    objs = _plain_objects(be.world, g)
    new_blocker, hidden = objs[0], objs[-1]
    loc = g.location[new_blocker]
    change = [MoveNode(hidden, loc.rel, loc.dst), AddEdge(Edge(new_blocker, OCCLUDES, hidden))]
    g = apply_all(g, change)
    be.realize(g, change)
    assert be.reconcile(g) == g, diff(g, be.reconcile(g))
    b, t = (be.world.body_pos(be.world.plan.items[n].body) for n in (new_blocker, hidden))
    assert b[0] < t[0] and abs(b[1] - t[1]) < 0.02  # in front of it, on the camera's side
    be.close()
