"""SAPIEN tabletop graph contract: G0 -> world -> G0 is the identity on compiled tabletop scenes
(one per family), and changes made in the world behind the graph's back are read back as the
rewrites they are (the shared predicates of robograph_backends.reading)."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_scenes import baseline_graph

from robograph.graph import INSIDE, ON

pytestmark = pytest.mark.slow

# the first baseline scene of every tabletop family except Toy (its compile alone takes ~30 s on
# two cores; it is covered by the ad hoc sweep in docs/sapien_backend.md)
SCENES = ("Buffet-T1", "Cosmetics-1", "Desk-1", "Dining-3", "Fridge-T1")



@pytest.fixture(scope="module")
def backend():
    pytest.importorskip("sapien")
    from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend

    b = SapienTabletopBackend()
    yield b
    b.close()


@pytest.mark.parametrize("scene_id", SCENES)
def test_identity_graph_world_graph(backend, scene_id):
    g0 = baseline_graph(scene_id)
    backend.reset(g0, seed=0)
    assert backend.reconcile(g0) is g0


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
