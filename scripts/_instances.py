"""Shared by the harness scripts: where instances come from when no compiled benchmark exists."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from robograph.events import EventSpec
from robograph.gym_env import demo_instance_path
from robograph.instance import load_instance

DEMO_EVENTS: dict[str, list[EventSpec]] = {
    "baseline": [],
    "I1": [EventSpec("i1", "I1", 2)],
    "I2": [EventSpec("i2", "I2", 2)],
    "I3": [EventSpec("i3", "I3", 2, {"staging": ["desk"]})],
    "I4": [EventSpec("i4", "I4", 2, {"containers": ["trash_bin"]})],
    "I5": [EventSpec("i5", "I5", 4, {"pairs": [["book", "eraser"], ["stapler", "red_pen"]]})],
    "I6": [EventSpec("i6", "I6", 0, {
        "mode": "inherit", "source_fact": "INSIDE(note_card, trash_bin)", "staging": "desk",
        "node": {"id": "note_card_2", "name": "second note card", "category": "note_card",
                 "affordances": ["GRABBABLE", "MOVABLE"]},
        "goal": ["INSIDE(note_card_2, trash_bin)"]})],
}


def demo_conditions(out: Path) -> Path:
    """The built-in demo desk in the baseline and the six intervention conditions."""
    out.mkdir(parents=True, exist_ok=True)
    demo = load_instance(demo_instance_path())
    for cond, events in DEMO_EVENTS.items():
        inst = replace(demo.with_events(events, condition=cond), id=f"demo__{cond}")
        inst.save(out / f"demo__{cond}.json")
    return out
