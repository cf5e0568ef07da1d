"""The task-level action catalog (Table 5): schemas, precondition checks and effects.

Preconditions are checked against the complete latent graph (plus the current view for
visibility); effects are lists of `Rewrite`s. A failed check returns a typed `ActionFailure` and
leaves the graph unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from robograph.facts import changed_facts
from robograph.failures import ActionFailure, FailureType
from robograph.graph import (
    ASSEMBLY,
    CONTAINER,
    GRABBABLE,
    HANDS,
    INSIDE,
    MOVABLE,
    OCCLUDES,
    ON,
    OPENABLE,
    PART,
    PART_OF,
    PRESSABLE,
    ROBOT_ID,
    ROOM,
    SURFACE,
    SceneGraph,
)
from robograph.rewrite import DETACHED, HELD, MoveNode, RemoveEdge, Rewrite, SetAttr, apply_all
from robograph.view import View, navigation_enabled


@dataclass(frozen=True, slots=True)
class ActionSchema:
    """One catalog record of Table 5 (serialized verbatim into the payload's action_catalog)."""

    name: str
    parameters: tuple[str, ...]
    description: str
    required_free_hands: int
    held_object_required: bool
    hand_result: str
    failure_injectable: bool
    navigation_only: bool = False

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "parameters": list(self.parameters),
            "description": self.description,
            "required_free_hands": self.required_free_hands,
            "held_object_required": self.held_object_required,
            "hand_result": self.hand_result,
            "failure_injectable": self.failure_injectable,
        }


CATALOG: Mapping[str, ActionSchema] = MappingProxyType({  # read-only: shared by every episode
    s.name: s
    for s in (
        ActionSchema("observe", (), "Refresh the current observation without changing object state.",
                     0, False, "hands unchanged", False),
        ActionSchema("walk", ("target",), "Move to an adjacent room in a navigation-enabled indoor scene.",
                     0, False, "hands unchanged", True, navigation_only=True),
        ActionSchema("open", ("container",),
                     "Open a visible closed openable container or reveal-capable object.",
                     2, False, "hands unchanged", True),
        ActionSchema("close", ("container",), "Close a visible open openable container.",
                     2, False, "hands unchanged", True),
        ActionSchema("press", ("object",), "Press a visible reachable object with PRESSABLE affordance.",
                     1, False, "hands unchanged", True),
        ActionSchema("grab", ("object",),
                     "Try to hold a visible reachable grabbable movable object; loaded carriers may "
                     "reject the attempt.", 1, False, "occupies one hand", True),
        ActionSchema("attach", ("part", "target"),
                     "Attach two visible or held compatible part nodes; use this action to satisfy "
                     "ASSEMBLED goals.", 2, False, "two-hand coordination", True),
        ActionSchema("puton", ("object", "target"),
                     "Place a held object on a visible surface without creating a self-placement or "
                     "placement cycle.", 0, True, "frees one hand", True),
        ActionSchema("putin", ("object", "container"),
                     "Place a held object inside a visible container that is open if openable, "
                     "without creating a self-containment or containment cycle.",
                     0, True, "frees one hand", True),
        ActionSchema("move_aside", ("object",),
                     "Move a visible movable blocker aside so hidden nodes may become visible.",
                     1, False, "hands unchanged", True),
        ActionSchema("stop", (), "End the episode and submit the current state for success evaluation.",
                     0, False, "hands unchanged", False),
    )
})
ACTION_NAMES: tuple[str, ...] = tuple(CATALOG)


def catalog_for(navigation: bool) -> tuple[str, ...]:
    """Tabletop requests carry ten actions; navigation-enabled indoor requests add walk."""
    return tuple(n for n in ACTION_NAMES if navigation or not CATALOG[n].navigation_only)


@dataclass(frozen=True, slots=True)
class Action:
    """A grounded task-level action: name plus ordered node ids (object first, then target)."""

    name: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "node_ids": list(self.args)}

    @classmethod
    def parse(cls, text: str) -> Action:
        """Terminal syntax: `open drawer_1`, `putin pen pencil_case`, `grab(pen)`."""
        cleaned = text.replace("(", " ").replace(")", " ").replace(",", " ")
        parts = cleaned.split()
        if not parts:
            return cls("")
        return cls(parts[0].lower(), tuple(parts[1:]))


def _fail(kind: FailureType, message: str) -> ActionFailure:
    return ActionFailure(kind, message)


# Precondition checks ---------------------------------------------------------------------------
Check = Callable[[SceneGraph, View, Action], ActionFailure | None]


def _need_hands(graph: SceneGraph, needed: int, name: str, counted: int = 0) -> ActionFailure | None:
    free = graph.free_hands() + counted
    if free < needed:
        held = ", ".join(graph.held())
        return _fail(FailureType.HANDS_FULL, f"{name} needs {needed} free hand(s); holding {held}")
    return None


def _access(graph: SceneGraph, view: View, nid: str) -> ActionFailure | None:
    if nid not in view.reachable and graph.hand_of(nid) is None:
        return _fail(FailureType.NOT_REACHABLE, f"{nid} is visible but cannot be reached")
    return None


def _check_walk(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
    target = a.args[0]
    if not navigation_enabled(graph):
        return _fail(FailureType.NAVIGATION_DISABLED, "this scene has no rooms to walk between")
    if graph.nodes[target].kind != ROOM:
        return _fail(FailureType.INVALID_TARGET, f"{target} is not a room")
    here = graph.robot_room()
    if target == here:
        return _fail(FailureType.ALREADY_THERE, f"already in {target}")
    if target not in graph.adjacent_rooms(here):
        return _fail(FailureType.NOT_REACHABLE, f"{target} is not adjacent to {here}")
    return None


def _check_open_close(opening: bool) -> Check:
    def check(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
        c = a.args[0]
        if not graph.nodes[c].has(OPENABLE):
            return _fail(FailureType.NOT_OPENABLE, f"{c} cannot be opened or closed")
        if opening and graph.is_open(c):
            return _fail(FailureType.ALREADY_OPEN, f"{c} is already open")
        if not opening and not graph.is_open(c):
            return _fail(FailureType.ALREADY_CLOSED, f"{c} is already closed")
        return _access(graph, view, c) or _need_hands(graph, 2, a.name)

    return check


def _check_press(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
    o = a.args[0]
    if not graph.nodes[o].has(PRESSABLE):
        return _fail(FailureType.NOT_PRESSABLE, f"{o} has no PRESSABLE affordance")
    if graph.attr(o, "pressed"):
        return _fail(FailureType.ALREADY_PRESSED, f"{o} is already pressed")
    return _access(graph, view, o) or _need_hands(graph, 1, "press")


def is_absorbed(graph: SceneGraph, nid: str) -> bool:
    """A part merged into an assembled whole: it has no place of its own (it is seen with the
    whole), so it moves only as part of the whole."""
    if nid in graph.location or graph.hand_of(nid) is not None or not graph.nodes[nid].has(PART):
        return False
    return any(graph.attr(e.dst, "assembled") for e in graph.edges_from(nid, PART_OF))


def is_grabbable(graph: SceneGraph, nid: str) -> bool:
    node = graph.nodes[nid]
    if not (node.has(GRABBABLE) and node.has(MOVABLE)) or is_absorbed(graph, nid):
        return False
    return not node.has(ASSEMBLY) or bool(graph.attr(nid, "assembled"))


def _check_grab(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
    o = a.args[0]
    if graph.hand_of(o) is not None:
        return _fail(FailureType.ALREADY_HELD, f"{o} is already held")
    if not is_grabbable(graph, o):
        return _fail(FailureType.NOT_GRABBABLE, f"{o} is not a grabbable movable object")
    if graph.load(o) > 0:
        return _fail(FailureType.LOADED_CARRIER, f"{o} still carries {', '.join(graph.children(o))}")
    return _access(graph, view, o) or _need_hands(graph, 1, "grab")


def _check_attach(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
    part, target = a.args
    for nid in (part, target):
        if not graph.nodes[nid].has(PART):
            return _fail(FailureType.NOT_A_PART, f"{nid} is not an attachable part")
    if part == target:
        return _fail(FailureType.INCOMPATIBLE_PARTS, "a part cannot be attached to itself")
    whole = assembly_of(graph, part, target)
    if whole is None:
        return _fail(FailureType.INCOMPATIBLE_PARTS, f"{part} and {target} do not fit together")
    if graph.attr(whole, "assembled"):
        return _fail(FailureType.ALREADY_ASSEMBLED, f"{whole} is already assembled")
    counted = sum(1 for nid in (part, target) if graph.hand_of(nid) is not None)
    return _access(graph, view, part) or _access(graph, view, target) or _need_hands(
        graph, 2, "attach", counted
    )


def assembly_of(graph: SceneGraph, part: str, target: str) -> str | None:
    wholes = {e.dst for e in graph.edges if e.rel == PART_OF and e.src == part}
    common = sorted(wholes & {e.dst for e in graph.edges if e.rel == PART_OF and e.src == target})
    return common[0] if common else None


def _check_place(relation: str) -> Check:
    affordance = SURFACE if relation == ON else CONTAINER
    missing = FailureType.NOT_A_SURFACE if relation == ON else FailureType.NOT_A_CONTAINER

    def check(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
        o, t = a.args
        if graph.hand_of(o) is None:
            return _fail(FailureType.NOTHING_HELD, f"{o} is not held")
        if not graph.nodes[t].has(affordance):
            return _fail(missing, f"{t} is not a {'surface' if relation == ON else 'container'}")
        if t == o or o in graph.ancestors(t):
            return _fail(FailureType.CYCLE, f"placing {o} {relation} {t} would create a cycle")
        if graph.hand_of(t) is not None:
            return _fail(FailureType.INVALID_TARGET, f"{t} is held; put it down first")
        if relation == INSIDE and graph.nodes[t].has(OPENABLE) and not graph.is_open(t):
            return _fail(FailureType.CONTAINER_CLOSED, f"{t} is closed")
        failure = _access(graph, view, t)
        if failure:
            return failure
        if graph.is_full(t):
            return _fail(FailureType.CAPACITY, f"{t} is full ({graph.nodes[t].capacity} items)")
        return None

    return check


def _check_move_aside(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
    o = a.args[0]
    if not graph.nodes[o].has(MOVABLE) or is_absorbed(graph, o):
        return _fail(FailureType.NOT_MOVABLE, f"{o} cannot be moved")
    if graph.hand_of(o) is not None:
        return _fail(FailureType.ALREADY_HELD, f"{o} is held; place it instead")
    if graph.attr(o, "moved_aside"):
        return _fail(FailureType.ALREADY_MOVED_ASIDE, f"{o} is already moved aside")
    return _access(graph, view, o) or _need_hands(graph, 1, "move_aside")


def _ok(graph: SceneGraph, view: View, a: Action) -> ActionFailure | None:
    return None


CHECKS: Mapping[str, Check] = {
    "observe": _ok,
    "stop": _ok,
    "walk": _check_walk,
    "open": _check_open_close(True),
    "close": _check_open_close(False),
    "press": _check_press,
    "grab": _check_grab,
    "attach": _check_attach,
    "puton": _check_place(ON),
    "putin": _check_place(INSIDE),
    "move_aside": _check_move_aside,
}


def check(
    graph: SceneGraph, view: View, action: Action, available: Sequence[str] = ACTION_NAMES
) -> ActionFailure | None:
    """Grounding then preconditions, in a fixed order so each bad input gets one clear type."""
    schema = CATALOG.get(action.name)
    if schema is None or action.name not in available:
        return _fail(FailureType.UNKNOWN_ACTION, f"unknown action {action.name!r}; valid: {', '.join(available)}")
    if len(action.args) != len(schema.parameters):
        want = ", ".join(schema.parameters) or "no arguments"
        return _fail(FailureType.INVALID_ARGUMENTS,
                     f"{action.name} takes ({want}), got {len(action.args)} node id(s)")
    for nid in action.args:
        if nid not in graph.nodes or nid == ROBOT_ID:
            return _fail(FailureType.UNKNOWN_NODE, f"no node with id {nid!r}")
    if action.name != "walk":
        for nid in action.args:
            if nid not in view.visible and graph.hand_of(nid) is None:
                return _fail(FailureType.NOT_VISIBLE, f"{nid} is not in the current view")
    return CHECKS[action.name](graph, view, action)


# Effects -----------------------------------------------------------------------------------------
def _free_hand(graph: SceneGraph) -> str:
    for hand in HANDS:
        if not graph.attr(ROBOT_ID, hand):
            return hand
    raise AssertionError("effects called without a free hand; check() must run first")


def effects(graph: SceneGraph, action: Action) -> list[Rewrite]:
    """The rewrites of a successful action. Only valid after `check` returned None."""
    name, args = action.name, action.args
    if name in ("observe", "stop"):
        return []
    if name == "walk":
        return [SetAttr(ROBOT_ID, "room", args[0])]
    if name == "open":
        return [SetAttr(args[0], "open", True)]
    if name == "close":
        return [SetAttr(args[0], "open", False)]
    if name == "press":
        return [SetAttr(args[0], "pressed", True)]
    if name == "move_aside":
        return [SetAttr(args[0], "moved_aside", True)]
    if name == "grab":
        o = args[0]
        out: list[Rewrite] = [MoveNode(o, HELD, _free_hand(graph))]
        out += [RemoveEdge(e) for e in graph.edges_from(o, OCCLUDES)]
        if graph.attr(o, "moved_aside"):
            out.append(SetAttr(o, "moved_aside", False))
        return out
    if name == "puton":
        return [MoveNode(args[0], ON, args[1])]
    if name == "putin":
        return [MoveNode(args[0], INSIDE, args[1])]
    if name == "attach":
        return _attach_effects(graph, args[0], args[1])
    raise AssertionError(f"no effects for {name}")


def _attach_effects(graph: SceneGraph, part: str, target: str) -> list[Rewrite]:
    whole = assembly_of(graph, part, target)
    assert whole is not None
    # the assembly takes the place of the target part (its hand, else its support)
    place: MoveNode | None = None
    for nid in (target, part):
        hand = graph.hand_of(nid)
        if hand is not None:
            place = MoveNode(whole, HELD, hand)
            break
    if place is None:
        loc = graph.location.get(target) or graph.location.get(part)
        if loc is not None:
            place = MoveNode(whole, loc.rel, loc.dst)
    out: list[Rewrite] = [MoveNode(part, DETACHED, whole), MoveNode(target, DETACHED, whole)]
    out.append(SetAttr(whole, "assembled", True))
    if place is not None:
        out.append(place)
    return out


def expected_facts(graph: SceneGraph, action: Action) -> list[str]:
    """Human-readable facts the action would establish (recorded when I1 suppresses it)."""
    after = apply_all(graph, effects(graph, action))
    return [str(f) for f in changed_facts(graph, after, set(action.args))[1]]
