"""Contacts MuJoCo solves at every step that nothing needs (issue 9 SPEED): an open box standing
on something touches it through its floor plate only, parked spare bodies hover out of contact,
and an arm's wrist links do not run a mesh narrow phase against each other."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]


@pytest.fixture(scope="module")
def buffet():
    """Buffet-I2's baseline: two trays (open boxes) on the buffet counter, settled for 1 s."""
    from compiled_scenes import baseline_instance

    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    be = MujocoKitchenBackend()
    be.reset(baseline_instance("Buffet-I2").graph, seed=0)
    be.world.step(500)
    yield be.world
    be.close()


def _touching(world) -> list[tuple[str, str, str, str]]:
    m, d = world.model, world.data
    out = []
    for i in range(d.ncon):
        c = d.contact[i]
        g1, g2 = int(c.geom1), int(c.geom2)
        out.append((m.body(m.geom_bodyid[g1]).name, m.geom(g1).name, m.body(m.geom_bodyid[g2]).name, m.geom(g2).name))
    return out


def test_an_open_box_touches_its_support_through_its_floor_plate_only(buffet) -> None:
    from robograph_backends.mujoco_kitchen.bodies import body_name

    trays = [n for n in buffet.plan.items if n.startswith("tray")]
    assert trays, "Buffet-I2 has trays: without them this test proves nothing"
    touching = _touching(buffet)
    for tray in trays:
        body = body_name(tray)
        support = {b for b, _, o, _ in touching if o == body} | {o for b, _, o, _ in touching if b == body}
        supports = {s for s in support if s.endswith("counter")}
        assert supports, f"{tray} stands on no counter"
        geoms = {g for b, g, o, _ in touching if b == body and o in supports} | \
            {g for b, _, o, g in touching if o == body and b in supports}
        assert geoms == {f"{body}_base"}, geoms


def test_parked_spares_hover_out_of_contact(buffet) -> None:
    from robograph_backends.mujoco_kitchen.tuning import SPARE_HALF, SPARE_LIFT

    assert buffet.plan.spares
    touching = {name for b, _, o, _ in _touching(buffet) for name in (b, o)}
    for spare in buffet.plan.spares:
        assert spare not in touching
        assert abs(buffet.body_pos(spare)[2] - (SPARE_HALF + SPARE_LIFT)) < 1e-6  # after 1 s: not falling


def test_wrist_link_pairs_are_excluded_from_collision(buffet) -> None:
    from robograph_backends.mujoco_kitchen.robot import ARM_NEVER_COLLIDE, HANDS

    m = buffet.model
    excluded = {(int(m.exclude_signature[i]) >> 16, int(m.exclude_signature[i]) & 0xFFFF) for i in range(m.nexclude)}
    for hand in HANDS:
        for a, b in ARM_NEVER_COLLIDE:
            ia, ib = m.body(f"{hand}_{a}").id, m.body(f"{hand}_{b}").id
            assert (min(ia, ib), max(ia, ib)) in excluded, (hand, a, b)
