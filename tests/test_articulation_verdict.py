"""The open/close skill's verdict is the world's reading: one threshold (`backends/reading.py`
`is_open`) decides both whether the skill reports success and what reconcile writes into the
graph, so a step never fails while its graph reads the asked state (or the other way round)."""

from __future__ import annotations

import pytest

from robograph_backends.reading import is_open
from robograph_skills.articulation import SHUT, _check


class ReadOnlyScene:
    """A `Scene` reduced to what the verdict reads: one articulation at `fraction` open."""

    assist = None

    def __init__(self, fraction: float) -> None:
        self.fraction = fraction

    def open_fraction(self, node: str) -> float:
        return self.fraction

    def is_open(self, node: str) -> bool:
        return is_open(self.fraction)


@pytest.mark.parametrize(("fraction", "opening", "ok"), [
    (0.41, False, True),  # a fridge left 41 % open reads closed: the close succeeded
    (0.19, False, True),  # past the motion's 15 % aim, still closed for the world
    (0.55, False, False),  # reads open: the close failed, and says how far open
    (0.55, True, True),  # short of the 60 % the pull aims at, but the world reads it open
    (0.45, True, False),
])
def test_the_skill_reports_what_the_world_reads(fraction: float, opening: bool, ok: bool) -> None:
    result = _check(ReadOnlyScene(fraction), "fridge", opening, [])
    assert result.ok is ok
    assert result.ok == (is_open(fraction) == opening)
    if not ok:
        assert f"{fraction:.0%}" in result.message


def test_the_motion_aims_past_the_reading_threshold() -> None:
    """The pull aims further than the threshold, so a leaf that stops a little short still
    reads as asked (SHUT well below it; `DONE` above it)."""
    from robograph_skills.articulation import DONE

    assert not is_open(SHUT) and is_open(DONE)
