"""Pure packing of the MuJoCo kitchen's layout (rows, occlusion columns, reserved slots), run with
MuJoCo, mink and robosuite blocked: the rules that make a layout read back as its graph hold
without a simulator."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robograph_backends.mujoco_kitchen import packing
from robograph_backends.mujoco_kitchen.packing import Placed, Unit
from robograph_backends.mujoco_kitchen.tuning import COLUMN_GAP, GAP, SLOT_GAP

SIMULATORS = ("mujoco", "mink", "robosuite")


@pytest.fixture(autouse=True)
def simulators_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any import of a simulator inside these tests raises ImportError."""
    for name in SIMULATORS:
        monkeypatch.setitem(sys.modules, name, None)


def _footprints(units: list[Unit], placed: list[Placed]) -> dict[str, tuple[float, float, float, float]]:
    """node -> (x_min, x_max, y_min, y_max) of its footprint (a column's nodes as wide as the
    column: a bound on their own width)."""
    sizes = {n: (d, u.width) for u in units for n, d in zip(u.nodes, u.depths, strict=True)}
    return {p.node: (p.x - sizes[p.node][0] / 2, p.x + sizes[p.node][0] / 2,
                     p.y - sizes[p.node][1] / 2, p.y + sizes[p.node][1] / 2) for p in placed}


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[1] - 1e-9 and b[0] < a[1] - 1e-9 and a[2] < b[3] - 1e-9 and b[2] < a[3] - 1e-9


def test_rows_wrap_at_the_region_width_and_keep_the_order() -> None:
    units = [packing.single(f"n{k}", 0.1, 0.2) for k in range(5)]
    rows = packing.rows(units, max_width=0.5)  # two of 0.2 + GAP fit, three do not
    assert [[u.nodes[0] for u in r] for r in rows] == [["n0", "n1"], ["n2", "n3"], ["n4"]]
    for r in rows:
        assert sum(u.width for u in r) + GAP * (len(r) - 1) <= 0.5
    wide = packing.single("wide", 0.1, 0.9)
    assert packing.rows([wide, units[0]], 0.5) == [[wide], [units[0]]]


def test_pack_extent_is_what_pack_rows_uses() -> None:
    units = [packing.single("a", 0.1, 0.2), packing.single("b", 0.15, 0.1), packing.single("c", 0.05, 0.3)]
    width, depth = packing.pack_extent(units, 0.4)
    placed = packing.pack_rows(units, x_front=0.0, y_mid=0.0, max_width=0.4, front_margin=0.0)
    boxes = _footprints(units, placed).values()
    assert max(b[1] for b in boxes) == pytest.approx(depth)
    assert max(b[3] for b in boxes) - min(b[2] for b in boxes) <= width + 1e-9


def test_rows_start_at_the_front_and_are_centred_along_the_wall() -> None:
    units = [packing.single("a", 0.1, 0.2), packing.single("b", 0.2, 0.1)]
    placed = {p.node: p for p in packing.pack_rows(units, x_front=1.0, y_mid=2.0, max_width=1.0,
                                                    front_margin=0.01)}
    assert placed["a"].x == pytest.approx(1.0 + 0.01 + 0.05)
    assert placed["b"].x == pytest.approx(1.0 + 0.01 + 0.1)
    row_width = 0.2 + GAP + 0.1
    assert placed["a"].y + 0.1 == pytest.approx(2.0 + row_width / 2)  # the row's +y end
    assert placed["b"].y - 0.05 == pytest.approx(2.0 - row_width / 2)


def test_centred_rows_sit_in_the_middle_of_a_deep_region() -> None:
    units = [packing.single("a", 0.1, 0.1)]
    placed = packing.pack_rows(units, x_front=-0.3, y_mid=0.0, max_width=1.0, front_margin=0.01,
                               centre_depth=0.3)
    assert placed[0].x == pytest.approx(0.0)


def test_centred_in_its_row_a_short_unit_stands_at_the_middle_of_a_long_ones_depth() -> None:
    units = [packing.single("knife", 0.22, 0.03), packing.single("cup", 0.06, 0.06)]
    front = {p.node: p.x for p in packing.pack_rows(units, x_front=0.0, y_mid=0.0, max_width=1.0, front_margin=0.02)}
    middle = {p.node: p.x for p in packing.pack_rows(units, x_front=0.0, y_mid=0.0, max_width=1.0, front_margin=0.02,
                                                     centre_in_row=True)}
    assert front["cup"] == pytest.approx(0.02 + 0.03)  # at the row's front by default
    assert middle["cup"] == pytest.approx(middle["knife"]) == pytest.approx(0.02 + 0.11)
    assert middle["knife"] == pytest.approx(front["knife"])


def test_an_occlusion_column_puts_the_blocker_in_front_of_its_target() -> None:
    col = packing.column("cereal_box", (0.08, 0.2), "jam_jar", (0.06, 0.07))
    assert col.width == 0.2 and col.depth == pytest.approx(0.08 + 0.06 + COLUMN_GAP)
    units = [packing.single("milk", 0.07, 0.07), col]
    placed = {p.node: p for p in packing.pack_rows(units, x_front=0.0, y_mid=0.0, max_width=1.0,
                                                    front_margin=0.01)}
    blocker, target = placed["cereal_box"], placed["jam_jar"]
    assert blocker.x < target.x  # camera side is -x
    assert blocker.y == target.y
    assert (target.x - 0.03) - (blocker.x + 0.04) == pytest.approx(COLUMN_GAP)
    assert blocker.hides == "jam_jar" and target.hides is None and placed["milk"].hides is None


def test_slots_are_refused_to_occlusion_columns() -> None:
    col = packing.column("b", (0.05, 0.05), "t", (0.05, 0.05))
    slots = packing.slot_grid((0.3, 0.3), 4, (0.1, 0.1))
    assert packing.assign_slots([col], slots, 0.1) is None


def test_slot_grid_front_row_first_centred_and_within_the_region() -> None:
    size = (0.1, 0.12)
    half = (0.2, 0.3)
    slots = packing.slot_grid(half, 8, size, side=0.05)  # two full rows of four
    assert len(slots) == 8
    xs = sorted({x for x, _ in slots})
    assert slots[0][0] == xs[0]  # front row first
    for x in xs:
        ys = [y for sx, y in slots if sx == x]
        assert sum(ys) == pytest.approx(0.0, abs=1e-9)  # each row centred along the wall
        assert max(ys) + size[1] / 2 <= half[1] - 0.05 + 1e-9  # side margin kept
    for x, _ in slots:
        assert -half[0] <= x - size[0] / 2 and x + size[0] / 2 <= half[0] + 1e-9


def test_slot_grid_keeps_only_the_rows_that_fit() -> None:
    slots = packing.slot_grid((0.1, 0.2), 20, (0.1, 0.1))
    assert 0 < len(slots) < 20
    assert all(x + 0.05 <= 0.1 + 1e-6 for x, _ in slots)


def test_capacity_fills_the_slots_and_a_wide_item_takes_a_run() -> None:
    pitch = 0.1
    slots = packing.slot_grid((0.3, 0.25), 4, (0.1, pitch))  # one row of four
    assert len({x for x, _ in slots}) == 1
    wide = packing.single("tray", 0.1, 2 * pitch - SLOT_GAP)  # needs two slots
    assert packing.slots_needed(wide.width, pitch) == 2
    placed = packing.assign_slots([wide, packing.single("a", 0.05, 0.05)], slots, pitch)
    assert placed is not None
    ys = [y for _, y in slots]
    assert placed[0].y == pytest.approx((ys[0] + ys[1]) / 2)
    assert placed[1].y == pytest.approx(ys[2])
    full = [packing.single(f"n{k}", 0.05, 0.05) for k in range(5)]  # five items, four slots
    assert packing.assign_slots(full, slots, pitch) is None


def test_slot_size_comes_from_the_ordinary_items() -> None:
    sx, sy = packing.slot_size([(0.05, 0.06), (0.08, 0.07), (0.3, 0.4)])  # the last is too wide
    assert sy == pytest.approx(0.07 + SLOT_GAP)
    assert sx > 0.08


_units = st.lists(st.tuples(st.floats(0.02, 0.3), st.floats(0.02, 0.5), st.booleans()), min_size=1, max_size=12)


def _make(specs: list[tuple[float, float, bool]]) -> list[Unit]:
    out = []
    for k, (depth, width, is_column) in enumerate(specs):
        if is_column:
            out.append(packing.column(f"b{k}", (depth, width), f"t{k}", (depth / 2, width / 2)))
        else:
            out.append(packing.single(f"n{k}", depth, width))
    return out


@settings(max_examples=60, deadline=None)
@given(specs=_units, max_width=st.floats(0.3, 2.0))
def test_packed_units_never_overlap_and_packing_is_deterministic(specs, max_width) -> None:
    units = _make(specs)
    kwargs = dict(x_front=0.5, y_mid=-1.0, max_width=max_width, front_margin=0.01)
    placed = packing.pack_rows(units, **kwargs)
    assert placed == packing.pack_rows(list(units), **kwargs)
    assert sorted(p.node for p in placed) == sorted(n for u in units for n in u.nodes)
    boxes = list(_footprints(units, placed).items())
    for i, (a, fa) in enumerate(boxes):
        assert fa[0] >= 0.5 + 0.01 - 1e-9  # behind the front edge
        for b, fb in boxes[i + 1:]:
            assert not _overlap(fa, fb), f"{a} and {b} overlap"


def test_the_layout_solves_with_simulators_blocked() -> None:
    """A whole layout (solver, packing, body builders, tuning) in a fresh interpreter in which
    every simulator import fails."""
    code = (f"import sys\nfor n in {SIMULATORS!r}: sys.modules[n] = None\n"
            "from robograph_backends.mujoco_kitchen.layout import solve_layout\n"
            "from robograph_backends.mujoco_kitchen.samples import indoor_samples, skills_playground\n"
            "plans = [solve_layout(i.graph) for i in [*indoor_samples(), skills_playground()]]\n"
            "print(sum(len(p.items) for p in plans))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) > 10
