"""Layout solver (pure Python): relations of G0 become geometry without interpenetration, and
the backend package imports without MuJoCo."""

from __future__ import annotations

import subprocess
import sys

import pytest

from robograph.graph import OCCLUDES
from robograph_backends.mujoco_kitchen.layout import solve_layout
from robograph_backends.mujoco_kitchen.plan import Body
from robograph_backends.mujoco_kitchen.samples import indoor_samples

SAMPLES = indoor_samples()


def _free_bodies(bodies: list[Body]) -> dict[str, Body]:
    out = {}
    for b in bodies:
        if b.joint is not None and b.joint.kind == "free":
            out[b.name] = b
        out.update(_free_bodies(b.children))
    return out


@pytest.mark.parametrize("inst", SAMPLES, ids=lambda i: i.id)
def test_every_located_node_gets_a_body_and_rooms_are_ordered(inst) -> None:
    plan = solve_layout(inst.graph)
    g = inst.graph
    for nid, node in g.nodes.items():
        if node.kind in ("robot", "room"):
            continue
        assert nid in plan.node_body, f"{nid} has no body"
    ys = [(r.y0, r.y1) for r in plan.rooms]
    assert all(a[1] == b[0] for a, b in zip(ys, ys[1:], strict=False))
    assert plan.room_at(*plan.robot_start[:2]) == g.robot_room()


@pytest.mark.parametrize("inst", SAMPLES, ids=lambda i: i.id)
def test_movable_objects_do_not_overlap(inst) -> None:
    plan = solve_layout(inst.graph)
    free = _free_bodies(plan.bodies)
    items = [(n, it) for n, it in plan.items.items()]
    for i, (a, ia) in enumerate(items):
        for b, ib in items[i + 1:]:
            pa, pb = free[ia.body].pos, free[ib.body].pos
            sep = [abs(pa[k] - pb[k]) - ia.half[k] - ib.half[k] for k in range(3)]
            if a in inst.graph.ancestors(b) or b in inst.graph.ancestors(a):
                continue  # contents inside a vessel
            assert max(sep) > -1e-6, f"{a} and {b} interpenetrate"


def test_occluder_stands_in_front_of_its_target_and_hides_it() -> None:
    inst = SAMPLES[0]
    plan = solve_layout(inst.graph)
    free = _free_bodies(plan.bodies)
    edges = [e for e in inst.graph.edges if e.rel == OCCLUDES]
    assert edges
    for e in edges:
        b, t = plan.items[e.src], plan.items[e.dst]
        pb, pt = free[b.body].pos, free[t.body].pos
        assert pb[0] < pt[0], "the blocker is on the camera side (-x) of its target"
        assert abs(pb[1] - pt[1]) < 1e-6
        assert b.half[2] > t.half[2] and b.half[1] >= t.half[1]
        assert plan.blocking[e.src][0] == e.dst


def test_importing_the_backend_does_not_import_mujoco() -> None:
    code = ("import sys; import robograph_backends.mujoco_kitchen, robograph_backends.mujoco_kitchen.layout, robograph_skills.primitives; "
            "import robograph.cli; robograph.cli.build_parser(); "
            "print('mujoco' in sys.modules, 'mink' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_registered_as_entry_point() -> None:
    from robograph.registry import backend_names

    assert "mujoco" in backend_names()


@pytest.mark.parametrize("inst", SAMPLES, ids=lambda i: i.id)
def test_slotted_regions_hold_their_capacity_within_their_floor(inst) -> None:
    plan = solve_layout(inst.graph)
    slotted = {n: r for n, r in plan.regions.items() if r.slots}
    for n, r in slotted.items():
        assert len(r.slots) == inst.graph.nodes[n].capacity, n
        sx, sy = r.slot_size
        for x, y in r.slots:
            assert abs(x) + sx / 2 <= r.half[0] + 1e-6 and abs(y) + sy / 2 <= r.half[1] + 1e-6, n


def test_slots_exist_where_the_samples_have_capacities() -> None:
    assert sum(len(r.slots) for inst in SAMPLES for r in solve_layout(inst.graph).regions.values()) > 0


def test_same_graph_same_layout() -> None:
    inst = SAMPLES[0]
    assert repr(solve_layout(inst.graph)) == repr(solve_layout(inst.graph))
