"""Bodies that realize resizes at run time (a blocker grown to hide its target, a spare body
taking an added node's size) collide with their new size and stand on their support.

MuJoCo computes a body's collision bounds and centre-of-mass frame once, at compile time; a
resized body left with its old bounds sank into the counter (its old, smaller bounding box was
all the mid-phase tested) and read IN_ROOM instead of ON.
"""

from __future__ import annotations

import pytest

from robograph.graph import OCCLUDES, ON, Edge, Node
from robograph.rewrite import AddEdge, AddNode, MoveNode, apply_all, diff

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]

REST_STEPS = 500  # 1 s of physics after realize's own settling: a sinking body keeps sinking
REST_TOL = 0.004  # m a resting body's bottom may sit off its support's floor (contact softness)


@pytest.fixture(scope="module")
def buffet():
    """The conformance check's first indoor scene (Buffet-Is101): the croissant beside the
    fruit cup on the counter is its add_edge probe."""
    from robograph.backend_check import conformance_instances

    return conformance_instances(1, "indoor")[0]


def _bottom_above_floor(world, node: str, support: str) -> float:
    from robograph_backends.mujoco_kitchen.placement import local
    from robograph_backends.mujoco_kitchen.sense import half_of, node_bodies

    region = world.plan.support_region(support, ON)
    centre = local(world, region, world.body_pos(node_bodies(world)[node]))
    return float(centre[2] - half_of(world, node)[2])


def test_grown_blocker_stands_on_its_support_with_its_weight_low(buffet) -> None:
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    g0 = buffet.graph
    blocker, target = "croissant", "fruit_cup"
    support = g0.location[blocker].dst
    assert g0.location[target].dst == support and Edge(blocker, OCCLUDES, target) not in g0.edges
    be = MujocoKitchenBackend()
    be.reset(g0, seed=0)
    w = be.world
    before = float(w.plan.items[blocker].half[2])
    change = [AddEdge(Edge(blocker, OCCLUDES, target))]
    g1 = apply_all(g0, change)
    be.realize(g1, change)
    w.step(REST_STEPS)
    half = w.plan.items[blocker].half
    assert half[2] > before + 0.01  # it was grown (else this test proves nothing)
    assert abs(_bottom_above_floor(w, blocker, support)) < REST_TOL
    bid = w.body_id(w.plan.items[blocker].body)
    assert w.data.xipos[bid][2] < w.data.xpos[bid][2] - 0.5 * half[2]  # bottom-weighted, as built
    assert be.reconcile(g1) == g1, diff(g1, be.reconcile(g1))
    be.close()


def test_added_node_larger_than_its_spare_stands_on_its_support(buffet) -> None:
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.tuning import SPARE_HALF

    g0 = buffet.graph
    support = g0.location["croissant"].dst
    node = Node("added_bottle", "juice bottle", "juice_bottle", "object", frozenset({"GRABBABLE", "MOVABLE"}))
    change = [AddNode(node), MoveNode(node.id, ON, support)]
    g1 = apply_all(g0, change)
    be = MujocoKitchenBackend()
    be.reset(g0, seed=0)
    be.realize(g1, change)
    w = be.world
    w.step(REST_STEPS)
    from robograph_backends.mujoco_kitchen.sense import half_of

    assert half_of(w, node.id)[2] > 2 * SPARE_HALF  # taller than the spare it was built from
    assert abs(_bottom_above_floor(w, node.id, support)) < REST_TOL
    # it has its weight back (spares are parked weightless): raised 2 cm, it falls back
    body = w.plan.items[node.id].body
    w.set_free_pose(body, w.body_pos(body) + [0.0, 0.0, 0.02], w.data.xquat[w.body_id(body)])
    w.step(REST_STEPS)
    assert abs(_bottom_above_floor(w, node.id, support)) < REST_TOL
    assert be.reconcile(g1) == g1, diff(g1, be.reconcile(g1))
    be.close()
