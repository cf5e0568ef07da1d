"""SAPIEN tabletop graph contract: changes made in the world behind the graph's back are read
back as the rewrites they are (the shared predicates of robograph_backends.reading), OCCLUDES
included, measured from the head camera's viewpoint. G0 -> world -> G0 on every baseline is
tests/test_sapien_acceptance.py."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_scenes import baseline_graph

from robograph.graph import INSIDE, OCCLUDES, ON, Edge
from robograph.rewrite import AddEdge, RemoveEdge, SetAttr, diff

pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def backend(sapien_backend):
    return sapien_backend


def test_object_moved_into_a_container_behind_the_graphs_back_reads_inside(backend):
    import sapien

    g0 = baseline_graph("Dining-3")
    backend.reset(g0, seed=0)
    world = backend.world
    lay = world.layout
    containers = [n for n, pl in lay.placements.items() if pl.container and pl.app.articulation == "none"
                  and g0.nodes[n].kind != "object"]
    target = containers[0]
    item = next(n for n, e in g0.location.items() if e.rel == ON and e.dst == lay.table
                and g0.nodes[n].kind == "object" and n in world.bodies and n not in g0.children(n))
    region = lay.regions[target]
    hz = lay.placements[item].size[2] / 2
    world.bodies[item].set_pose(sapien.Pose([region.centre[0], region.centre[1], region.centre[2] + hz + 0.002]))
    world.step(200)
    got = backend.reconcile(g0)
    assert got is not g0
    assert got.location[item].rel == INSIDE and got.location[item].dst == target
    others = {n: e for n, e in got.location.items() if n != item}
    assert others == {n: e for n, e in g0.location.items() if n != item}


def test_drawer_pulled_open_behind_the_graphs_back_reads_open(backend):
    g0 = baseline_graph("Desk-1")
    backend.reset(g0, seed=0)
    world = backend.world
    drawer = next(n for n, pl in world.layout.placements.items() if pl.app.articulation == "drawer")
    assert g0.attr(drawer, "open", False) is False
    articulation, closed, opened = world.joints[drawer]
    articulation.set_qpos(np.array([opened]))
    world.step(50)
    got = backend.reconcile(g0)
    assert got.attr(drawer, "open") is True
    # the drawer was teleported (its contents stayed behind and fell where physics put them);
    # everything outside it reads where the graph has it
    for n, e in g0.location.items():
        if e.dst != drawer and g0.nodes[n].kind == "object":
            assert got.location[n] == e, n


def test_button_pushed_behind_the_graphs_back_reads_pressed_and_stays_down(backend):
    g0 = baseline_graph("Desk-12")  # has a desk lamp to switch on
    backend.reset(g0, seed=0)
    world = backend.world
    lamp = next(iter(world.buttons))
    assert backend.reconcile(g0) is g0
    from robograph_backends.sapien_tabletop.world import BUTTON_DEPTH

    world.buttons[lamp].set_qpos(np.array([BUTTON_DEPTH]))
    world.step(300)
    got = backend.reconcile(g0)
    assert got.attr(lamp, "pressed") is True
    assert {n: e for n, e in got.location.items()} == dict(g0.location)


def _plain_pair(g0):
    return next(e for e in sorted(g0.edges_of(OCCLUDES)) if not e.when and g0.nodes[e.src].kind == "object")


def test_blocker_moved_away_behind_the_graphs_back_no_longer_hides_its_target(backend):
    from robograph_backends.sapien_tabletop.sense import position
    from robograph_backends.sapien_tabletop.spots import aside_spots

    g0 = baseline_graph("Dining-5")
    backend.reset(g0, seed=0)
    world = backend.world
    edge = _plain_pair(g0)
    support = g0.location[edge.src].dst
    spot = next(aside_spots(world, edge.src, support, position(world, edge.src)[:2], 0.05))
    world.teleport(edge.src, spot)
    world.step(200)
    got = backend.reconcile(g0)
    # the graph's way of saying it: the blocker is set aside, its edge kept but inactive
    assert diff(g0, got) == [SetAttr(edge.src, "moved_aside", True)]
    assert not got.occlusion_active(edge)


def _free_pair(g0, lay):
    """A tall object and a small flat one on one support, neither in any occlusion."""
    involved = {n for e in g0.edges_of(OCCLUDES) for n in (e.src, e.dst)}
    free = [n for n, e in sorted(g0.location.items()) if g0.nodes[n].kind == "object" and e.rel == ON
            and n not in involved and n in lay.placements and not g0.children(n)]
    size = {n: lay.placements[n].size for n in free}
    for b in sorted(free, key=lambda n: -size[n][2]):
        for t in free:
            if t != b and g0.location[t].dst == g0.location[b].dst and size[t][2] <= 0.05 \
                    and size[t][0] <= 0.08 and size[t][1] <= size[b][1] and size[b][2] >= 3 * size[t][2]:
                return b, t
    raise AssertionError("no free tall/flat pair in this scene")


def test_object_moved_in_front_of_another_behind_the_graphs_back_reads_a_new_occlusion(backend):
    from robograph_backends.sapien_tabletop.sense import floor_frame
    from robograph_backends.sapien_tabletop.spots import half_of, spots_on

    g0 = baseline_graph("Dining-6")  # a flower vase and a dinner plate, neither in an occlusion
    backend.reset(g0, seed=0)
    world = backend.world
    blocker, target = _free_pair(g0, world.layout)
    support = g0.location[target].dst
    th, bh = half_of(world, target), half_of(world, blocker)
    half = np.array([th[0] + bh[0] + 0.006, max(th[1], bh[1]), max(th[2], bh[2])])
    centre = next(spots_on(world, target, support, half=half, skip=(blocker,)))
    along = floor_frame(world, support)[0][:3, 0]  # away from the robot
    world.teleport(target, centre + along * (half[0] - th[0]) + [0, 0, th[2] - half[2]])
    world.teleport(blocker, centre - along * (half[0] - bh[0]) + [0, 0, bh[2] - half[2]])
    world.step(200)
    got = backend.reconcile(g0)
    assert AddEdge(Edge(blocker, OCCLUDES, target)) in diff(g0, got)
    assert got.location == g0.location  # both still stand on their support
    assert got.occlusion_active(Edge(blocker, OCCLUDES, target))


def test_lid_opened_behind_the_graphs_back_hides_as_its_conditioned_edge_says(backend):
    """Cosmetics-1: the makeup box hides the storage bag when open. Opened in the world, its
    raised lid is measured hiding the bag (the edge stays); moved away open, it hides nothing
    and the edge, whose condition holds, goes."""
    from robograph_backends.sapien_tabletop.sense import position
    from robograph_backends.sapien_tabletop.spots import aside_spots

    g0 = baseline_graph("Cosmetics-1")
    backend.reset(g0, seed=0)
    world = backend.world
    edge = next(e for e in g0.edges_of(OCCLUDES) if e.when and g0.nodes[e.src].kind == "object")
    articulation, _closed, opened = world.joints[edge.src]
    articulation.set_qpos(np.array([opened]))
    world.step(100)
    got = backend.reconcile(g0)
    assert diff(g0, got) == [SetAttr(edge.src, "open", True)]
    assert got.occlusion_active(edge)
    support = g0.location[edge.src].dst
    spot = next(aside_spots(world, edge.src, support, position(world, edge.src)[:2], 0.10))
    world.teleport(edge.src, spot)
    articulation.set_qpos(np.array([opened]))
    world.step(100)
    moved = backend.reconcile(got)
    assert RemoveEdge(edge) in diff(got, moved)


def test_a_hand_reads_holding_one_thing_the_welded_one(backend):
    """Assisted-mode crash of the bench: a body welded to the left hand and another that both
    its fingers pinched read HELD by that hand twice, and the second MoveNode raised
    RewriteError ("left hand already holds ..."). A hand holds one thing: the welded one; the
    other reads where it is apart from the hand (here in the air: DETACHED)."""
    from robograph.rewrite import DETACHED, HELD, MoveNode, apply_all
    from robograph_backends.sapien_tabletop.sense import holding_hand

    g0 = baseline_graph("Buffet-T1")
    backend.reset(g0, seed=0)
    world = backend.world
    welded, pinched = "croissant", "fruit_cup"
    fingers = world.robots["left"].get_active_joints()[-2:]
    for joint in fingers:
        joint.set_drive_target(0.0)
    for _ in range(60):  # held at the grip point while the fingers close on it
        world.teleport(pinched, world.grip_pose("left")[:3, 3])
        world.step(1)
    world.step(20)
    assert holding_hand(world, pinched) == "left"
    world.teleport(welded, world.grip_pose("left")[:3, 3])
    world.weld(welded, "left")
    expected = apply_all(g0, [MoveNode(welded, HELD, "left")])
    got = backend.reconcile(expected)
    assert got.hand_of(welded) == "left" and got.hand_of(pinched) is None
    assert MoveNode(pinched, DETACHED, "") in diff(expected, got)


def test_content_of_a_closed_drawer_tier_is_not_measured_through_its_front_panel(backend):
    """Desk-2: the stapler in the upper tier stands, from the head camera, over the pen in the
    closed lower tier. The pen cannot be seen (the drawer's front panel and the tier above hide
    it), so no OCCLUDES is read; opened, the lower drawer carries the pen out from under the
    tier above and it is measured again: still nothing hides it."""
    from robograph.rewrite import apply_all
    from robograph_backends.sapien_tabletop.occlusion import covered_pairs
    from robograph_backends.sapien_tabletop.sense import read

    g0 = baseline_graph("Desk-2")
    backend.reset(g0, seed=0)
    assert g0.location["stapler"].dst == "drawer_1" and g0.location["pen"].dst == "drawer_2"
    assert not g0.is_open("drawer_2") and not any(e.dst == "pen" for e in g0.edges_of(OCCLUDES))
    got = backend.reconcile(g0)
    assert diff(g0, got) == []
    opened = apply_all(g0, [SetAttr("drawer_2", "open", True)])
    backend.realize(opened, [SetAttr("drawer_2", "open", True)])
    reading = read(backend.world, opened)
    pairs = covered_pairs(backend.world, opened, reading.locations, reading.placed_blockers)
    assert not any(t == "pen" for _, t in pairs)
    assert backend.reconcile(opened) == opened


def test_an_assembly_whose_parts_stand_apart_is_nowhere_not_in_the_hand_the_graph_says(backend):
    """Toy-B2's bench crash: the graph had the assembled rocket in the left hand, the world had
    its parts apart (one in that hand); the whole was left unmeasured, stayed "held", and moving
    the part into the same hand raised RewriteError. Apart, the whole reads nowhere (DETACHED)
    and not assembled; its parts read where they are."""
    from robograph.graph import PART_OF
    from robograph.rewrite import HELD, MoveNode, apply_all

    g0 = baseline_graph("Cosmetics-4")
    backend.reset(g0, seed=0)
    whole = sorted({e.dst for e in g0.edges_of(PART_OF)})[0]
    assert g0.location.get(whole) is None and g0.attr(whole, "assembled") is False
    expected = apply_all(g0, [SetAttr(whole, "assembled", True), MoveNode(whole, HELD, "left")])
    got = backend.reconcile(expected)
    assert got.hand_of(whole) is None and got.location.get(whole) is None
    assert got.attr(whole, "assembled") is False
    assert got == g0


def test_stacked_parts_read_joined_along_their_own_axis_when_tilted_together(backend):
    """`sense.joined` measures the stack in the lower part's frame: a toy rocket carried by a
    hand tilted forward (0.35 rad, the far reach) or set down leaning still reads assembled
    (measured along the world's vertical its parts' centres stood 3.5 cm apart and it read
    "rocket_base ON rocket_nose"); parts 2 cm apart across their axis do not."""
    import math

    from robograph_backends.sapien_tabletop.sense import joined

    g0 = baseline_graph("Toy-A5")
    backend.reset(g0, seed=0)
    world = backend.world
    low, high = "rocket_base", "rocket_nose"
    gap = (world.layout.placements[low].size[2] + world.layout.placements[high].size[2]) / 2
    base = np.array([0.0, 3.0, 0.5])  # in the air beside the mat: nothing else there
    tilt = 0.35
    quat = (math.cos(tilt / 2), 0.0, math.sin(tilt / 2), 0.0)  # about +y
    axis = np.array([math.sin(tilt), 0.0, math.cos(tilt)])
    world.teleport(low, base, quat)
    world.teleport(high, base + gap * axis, quat)
    assert joined(world, low, high)
    world.teleport(high, base + gap * axis + np.array([0.0, 0.02, 0.0]), quat)
    assert not joined(world, low, high)


def test_an_object_on_a_drawers_floor_beside_a_low_neighbour_reads_inside_the_drawer(backend):
    """Desk-1: a stapler (6 cm high) standing on the open drawer's floor 2 mm beside the
    scissors (2 cm high) has its centre within the shared tolerance of the scissors' footprint
    and its bottom within the tolerance below their top, yet it stands on the drawer's floor:
    it reads INSIDE the drawer (it read ON the scissors). Set on top of them, it reads ON them."""
    import math

    import sapien

    from robograph.rewrite import apply_all
    from robograph_backends.sapien_tabletop.sense import floor_frame
    from robograph_backends.sapien_tabletop.spots import aligned_box

    g0 = baseline_graph("Desk-1")
    assert g0.location["scissors"].dst == "drawer_1"
    opened = apply_all(g0, [SetAttr("drawer_1", "open", True)])
    backend.reset(g0, seed=0)
    backend.realize(opened, [SetAttr("drawer_1", "open", True)])
    world = backend.world
    F, _ = floor_frame(world, "drawer_1")
    centre, half = aligned_box(world, "scissors")
    sx, sy, sz = (s / 2 for s in world.layout.placements["stapler"].size)
    assert half[0] > half[1] and sy > sx  # the scissors lie along x; the stapler, turned, will too
    turned = sapien.Pose(q=[math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4)])
    beside = (centre[1] - half[1] - sx - 0.002, centre[1] + half[1] + sx + 0.002)
    y = min(beside, key=lambda v: abs(v - F[1, 3]))  # the side of the scissors nearer the middle
    world.bodies["stapler"].set_pose(sapien.Pose([centre[0], y, F[2, 3] + sz + 0.002], turned.q))
    world.step(200)
    assert abs(world.position("stapler")[1] - centre[1]) < half[1] + 0.025  # within the tolerance
    got = backend.reconcile(opened)
    assert got.location["stapler"].rel == INSIDE and got.location["stapler"].dst == "drawer_1"
    world.bodies["stapler"].set_pose(sapien.Pose([centre[0], centre[1], centre[2] + half[2] + sz + 0.002], turned.q))
    world.step(200)
    got = backend.reconcile(opened)
    assert got.location["stapler"].rel == ON and got.location["stapler"].dst == "scissors"


def test_a_round_jar_lying_on_its_side_on_a_shelf_reads_on_the_shelf(backend):
    """Fridge-T6: a jam jar (6.2 cm across, 10 cm tall) tipped over on the mini fridge's shelf,
    whose top is 1 cm above the fridge's floor. Measured with its upright height its bottom
    read nearer the fridge's floor, and it read INSIDE the fridge; lying, it is as low as it is
    wide, and it reads ON the shelf."""
    import math

    import sapien

    from robograph_backends.sapien_tabletop.sense import floor_frame
    from robograph_backends.sapien_tabletop.world import built_round

    g0 = baseline_graph("Fridge-T6")
    backend.reset(g0, seed=0)
    world = backend.world
    jar = world.layout.placements["jam_jar"]
    assert built_round(jar, fixed=False)
    F, _ = floor_frame(world, "fridge_shelf")
    radius = min(jar.size[0], jar.size[1]) / 2
    lying = [math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0]  # its axis turned to x
    world.bodies["jam_jar"].set_pose(sapien.Pose(F[:3, 3] + np.array([0.0, 0.0, radius + 0.002]), lying))
    world.step(200)
    assert abs(world.bodies["jam_jar"].get_pose().to_transformation_matrix()[2, 2]) < 0.2  # still lying
    got = backend.reconcile(g0)
    assert got.location["jam_jar"].rel == ON and got.location["jam_jar"].dst == "fridge_shelf"
