"""Small scene-graph builders shared by the core tests, so no test file repeats graph construction.

`Scene` is a fluent builder over the real `SceneGraph`/`TaskInstance` types (no mocks): add nodes
with their affordances, relate them, put the robot in a room or give it something to hold, then
`graph()` or `instance(goal=...)` (which goes through the instance validator like a file would).
"""

from __future__ import annotations

from typing import Any

from robograph.actions import ACTION_NAMES, Action, check, effects
from robograph.events import EventSpec
from robograph.failures import ActionFailure
from robograph.graph import (
    ADJACENT,
    ASSEMBLY,
    CONTAINER,
    FURNITURE,
    GRABBABLE,
    IN_ROOM,
    INSIDE,
    MOVABLE,
    OBJECT,
    OCCLUDES,
    ON,
    OPENABLE,
    PART,
    PART_OF,
    PRESSABLE,
    ROBOT,
    ROBOT_ID,
    ROOM,
    SURFACE,
    TRANSPARENT,
    Edge,
    Node,
    SceneGraph,
)
from robograph.instance import TaskInstance
from robograph.rewrite import apply_all
from robograph.runtime import Episode, StepRecord
from robograph.view import compute_view

ITEM = (GRABBABLE, MOVABLE)


class Scene:
    """Fluent builder; every method returns self so a scene reads as one expression."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {ROBOT_ID: Node(ROBOT_ID, ROBOT_ID, ROBOT_ID, ROBOT)}
        self.attrs: dict[str, dict[str, Any]] = {ROBOT_ID: {}}
        self.edges: list[Edge] = []

    # nodes ----------------------------------------------------------------------------------------
    def add(self, nid: str, *affordances: str, kind: str = OBJECT, capacity: int | None = None,
            **attrs: Any) -> Scene:
        self.nodes[nid] = Node(nid, nid.replace("_", " "), nid.rstrip("_0123456789") or nid, kind,
                               frozenset(affordances), capacity)
        self.attrs[nid] = dict(attrs)
        return self

    def room(self, nid: str) -> Scene:
        return self.add(nid, kind=ROOM)

    def surface(self, nid: str, capacity: int | None = None) -> Scene:
        return self.add(nid, SURFACE, kind=FURNITURE, capacity=capacity)

    def item(self, nid: str, *extra: str, **attrs: Any) -> Scene:
        return self.add(nid, *ITEM, *extra, **attrs)

    def box(self, nid: str, *extra: str, capacity: int | None = None, is_open: bool = False,
            grabbable: bool = False) -> Scene:
        """An openable container (a drawer, or a box with `grabbable=True`)."""
        affs = (CONTAINER, OPENABLE, *extra, *(ITEM if grabbable else ()))
        return self.add(nid, *affs, kind=OBJECT if grabbable else FURNITURE, capacity=capacity,
                        open=is_open)

    def glass_box(self, nid: str, is_open: bool = False) -> Scene:
        return self.box(nid, TRANSPARENT, is_open=is_open)

    def button(self, nid: str) -> Scene:
        return self.add(nid, PRESSABLE, kind=FURNITURE, pressed=False)

    def assembly(self, whole: str, *parts: str) -> Scene:
        self.add(whole, ASSEMBLY, *ITEM, assembled=False)
        for part in parts:
            if part not in self.nodes:
                self.item(part, PART)
            self.edges.append(Edge(part, PART_OF, whole))
        return self

    # relations ------------------------------------------------------------------------------------
    def on(self, nid: str, target: str) -> Scene:
        self.edges.append(Edge(nid, ON, target))
        return self

    def inside(self, nid: str, target: str) -> Scene:
        self.edges.append(Edge(nid, INSIDE, target))
        return self

    def in_room(self, nid: str, room: str) -> Scene:
        self.edges.append(Edge(nid, IN_ROOM, room))
        return self

    def occludes(self, blocker: str, target: str, **when: Any) -> Scene:
        self.edges.append(Edge(blocker, OCCLUDES, target, tuple(sorted(when.items()))))
        return self

    def adjacent(self, a: str, b: str) -> Scene:
        self.edges.append(Edge(a, ADJACENT, b))
        return self

    def robot_in(self, room: str) -> Scene:
        self.attrs[ROBOT_ID]["room"] = room
        return self

    def hold(self, nid: str, hand: str = "left") -> Scene:
        self.attrs[ROBOT_ID][hand] = nid
        return self

    # products -------------------------------------------------------------------------------------
    def graph(self) -> SceneGraph:
        return SceneGraph.build(self.nodes.values(), self.edges, self.attrs)

    def instance(self, goal: list[str], events: list[EventSpec] | None = None, *,
                 step_budget: int = 100, actions: list[str] | None = None) -> TaskInstance:
        data: dict[str, Any] = {
            "id": "test",
            "task": "test task",
            "graph": self.graph().to_json(),
            "goal": goal,
            "events": [e.to_json() for e in events or []],
            "step_budget": step_budget,
        }
        if actions is not None:
            data["actions"] = actions
        return TaskInstance.from_json(data)


def desk_scene() -> Scene:
    """A compact tabletop: drawer with a pen, a book hiding a cup, a lamp, a two-part marker, a
    pencil case that holds two items, and a glass box with a coin."""
    return (
        Scene()
        .surface("desk")
        .box("drawer", capacity=3).on("drawer", "desk")
        .item("pen").inside("pen", "drawer")
        .item("book").on("book", "desk")
        .item("cup").on("cup", "desk").occludes("book", "cup")
        .button("lamp").on("lamp", "desk")
        .box("case", capacity=2, grabbable=True, is_open=True).on("case", "desk")
        .assembly("marker", "marker_cap", "marker_body")
        .on("marker_cap", "desk").on("marker_body", "desk")
        .glass_box("vitrine").on("vitrine", "desk")
        .item("coin").inside("coin", "vitrine")
    )


def event_scene() -> Scene:
    """desk_scene plus a staging side table and an open waste bin (I3/I4/I6 destinations)."""
    return (
        desk_scene()
        .surface("side_table", capacity=3)
        .add("bin", CONTAINER, kind=FURNITURE, capacity=4).on("bin", "desk")
    )


def figure3_scene() -> Scene:
    """Figure 3: a cabinet with two drawers; the open first drawer occludes the one below it."""
    return (
        Scene()
        .surface("table")
        .add("cabinet", SURFACE, kind=FURNITURE).on("cabinet", "table")
        .box("drawer_1").inside("drawer_1", "cabinet")
        .box("drawer_2").inside("drawer_2", "cabinet")
        .occludes("drawer_1", "drawer_2", open=True)
        .item("concealer").inside("concealer", "drawer_1")
        .item("lipstick").inside("lipstick", "drawer_2")
    )


def house_scene() -> Scene:
    """Indoor: kitchen - hall - bedroom in a line; the robot starts in the kitchen."""
    return (
        Scene()
        .room("kitchen").room("hall").room("bedroom")
        .adjacent("kitchen", "hall").adjacent("hall", "bedroom")
        .robot_in("kitchen")
        .surface("counter").in_room("counter", "kitchen")
        .item("mug").on("mug", "counter")
        .surface("bed").in_room("bed", "bedroom")
        .item("pillow").on("pillow", "bed")
        .box("fridge").in_room("fridge", "kitchen")
        .item("milk").inside("milk", "fridge")
    )


def act(text: str) -> Action:
    return Action.parse(text)


def run(episode: Episode, *actions: str) -> list[StepRecord]:
    """Step an episode through terminal-syntax actions, e.g. run(ep, "open drawer", "grab pen")."""
    return [episode.step(act(a)) for a in actions]


def attempt(graph: SceneGraph, text: str, available: tuple[str, ...] = ACTION_NAMES
            ) -> tuple[ActionFailure | None, SceneGraph]:
    """One transition of the symbolic model without an episode: check on the latent graph and the
    fresh view, then apply the effects. A failed action returns the same graph object."""
    action = act(text)
    failure = check(graph, compute_view(graph), action, available)
    if failure is not None:
        return failure, graph
    return None, apply_all(graph, effects(graph, action))


def attempt_all(graph: SceneGraph, *texts: str) -> SceneGraph:
    """Apply actions that must all succeed (scene set-up in tests)."""
    for text in texts:
        failure, graph = attempt(graph, text)
        assert failure is None, f"{text}: {failure}"
    return graph


# A shortest-style solution of the built-in demo instance (robograph/data/demo_desk.json).
DEMO_SOLUTION: tuple[str, ...] = (
    "open pencil_case", "move_aside book", "grab red_pen", "putin red_pen pencil_case",
    "open drawer_2", "grab eraser", "putin eraser pencil_case", "close drawer_2",
    "open drawer_1", "grab highlighter_cap", "attach highlighter_cap highlighter_body",
    "putin highlighter pencil_case", "close drawer_1", "open book", "grab note_card",
    "putin note_card trash_bin", "press desk_lamp", "close pencil_case", "stop",
)
