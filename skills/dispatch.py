"""Task-level action -> motion primitive, once for every simulator backend.

Which hand a primitive uses follows the graph: a grab takes the hand the symbolic effect put
the object in (`expected`), a put uses the hand that holds it, everything else the first free
hand. Imports no simulator.
"""

from __future__ import annotations

from typing import Any

from robograph.graph import HANDS
from robograph_skills import primitives as sk
from robograph_skills.interface import Robot, Scene, SkillResult


def run_action(robot: Robot, scene: Scene, graph: Any, action: Any, expected: Any) -> SkillResult:
    """Run `action` (a robograph.actions.Action whose preconditions held on `graph`; `expected`
    is its symbolic outcome) with the scene's primitives; the skill's own check is the result."""
    name, args = action.name, action.args

    def free_hand() -> str:
        for hand in HANDS:
            if not graph.attr("robot", hand):
                return hand
        return HANDS[0]

    if name in ("observe", "stop"):
        return sk.observe(robot, scene)
    if name == "walk":
        return sk.walk(robot, scene, args[0])
    if name in ("open", "close"):
        return sk.articulate(robot, scene, args[0], opening=name == "open")
    if name == "grab":
        return sk.grab(robot, scene, args[0], expected.hand_of(args[0]) or free_hand())
    if name in ("puton", "putin"):
        hand = graph.hand_of(args[0]) or free_hand()
        return sk.place(robot, scene, args[0], args[1], "ON" if name == "puton" else "INSIDE", hand)
    if name == "move_aside":
        return sk.move_aside(robot, scene, args[0], free_hand())
    if name == "press":
        return sk.press(robot, scene, args[0], free_hand())
    if name == "attach":
        part, target = args
        keep = graph.hand_of(target) is None and graph.hand_of(part) is not None
        return sk.attach(robot, scene, part, target, graph.hand_of, free_hand, keep)
    return SkillResult(False, f"no motion primitive for {name!r}")
