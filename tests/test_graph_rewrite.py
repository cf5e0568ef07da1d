"""SceneGraph identity and serialization, and the rewrite algebra (apply / from_json / diff)."""

from __future__ import annotations

import json

import pytest
from builders import Scene, desk_scene, house_scene

from robograph.errors import RewriteError, UnknownNodeError
from robograph.graph import INSIDE, OCCLUDES, ON, Edge, Node, SceneGraph
from robograph.instance import TaskInstance
from robograph.rewrite import (
    DETACHED,
    HELD,
    AddEdge,
    AddNode,
    MoveNode,
    RemoveEdge,
    SetAttr,
    apply,
    apply_all,
    diff,
    from_json,
)


# serialization ------------------------------------------------------------------------------------
def test_graph_json_round_trip_is_exact():
    g = desk_scene().occludes("drawer", "lamp", open=True).graph()
    data = g.to_json()
    back = SceneGraph.from_json(json.loads(json.dumps(data)))
    assert back == g
    assert back.to_json() == data
    # attribute-conditioned occlusion survives the trip
    assert Edge("drawer", OCCLUDES, "lamp", (("open", True),)) in back.edges


def test_instance_dumps_are_byte_identical_after_reload(demo):
    text = demo.dumps()
    again = TaskInstance.from_json(json.loads(text))
    assert again.dumps() == text


def test_node_json_keeps_capacity_and_props():
    node = Node("jar", "glass jar", "jar", affordances=frozenset({"CONTAINER"}), capacity=3,
                props={"color": "blue"})
    assert Node.from_json(node.to_json()) == node
    assert Node.from_json(node.to_json()).props == {"color": "blue"}


# identity -----------------------------------------------------------------------------------------
def test_equal_graphs_hash_equal_regardless_of_construction_order():
    a = desk_scene()
    b = desk_scene()
    b.edges.reverse()
    ga, gb = a.graph(), b.graph()
    assert ga is not gb and ga == gb and hash(ga) == hash(gb)
    assert len({ga, gb}) == 1


def test_attribute_change_changes_identity_and_reverting_restores_it():
    g = desk_scene().graph()
    opened = apply(g, SetAttr("drawer", "open", True))
    assert opened != g
    assert apply(opened, SetAttr("drawer", "open", False)) == g


def test_none_attribute_equals_absent_attribute():
    g = desk_scene().graph()
    assert apply(g, SetAttr("pen", "moved_aside", None)) == g


def test_apply_never_mutates_its_input():
    g = desk_scene().graph()
    snapshot = json.dumps(g.to_json(), sort_keys=True)
    apply_all(g, [SetAttr("drawer", "open", True), MoveNode("book", HELD, "left"),
                  AddEdge(Edge("lamp", OCCLUDES, "cup")), MoveNode("cup", INSIDE, "case")])
    assert json.dumps(g.to_json(), sort_keys=True) == snapshot
    assert g.held() == ()


# queries ------------------------------------------------------------------------------------------
def test_location_queries():
    g = desk_scene().graph()
    assert g.parent("pen") == "drawer"
    assert list(g.ancestors("pen")) == ["drawer", "desk"]
    assert g.children("desk") == sorted(["drawer", "book", "cup", "lamp", "case", "marker_cap",
                                         "marker_body", "vitrine"])
    assert g.contents("drawer") == ["pen"]
    assert g.load("drawer") == 1 and g.is_full("drawer") is False
    assert g.is_full("desk") is None  # no capacity, no is_full
    with pytest.raises(UnknownNodeError, match="known nodes"):
        g.node("ghost")


def test_rooms_and_held_objects_are_located_by_room():
    g = house_scene().hold("mug").graph()
    g = apply(g, MoveNode("mug", HELD, "left"))
    assert g.room_of("milk") == "kitchen"
    assert g.room_of("pillow") == "bedroom"
    assert g.room_of("mug") == "kitchen"  # held: wherever the robot is
    assert g.adjacent_rooms("hall") == ["bedroom", "kitchen"]
    assert g.adjacent_rooms(None) == []


# rewrite semantics --------------------------------------------------------------------------------
def test_move_keeps_exactly_one_location_edge():
    g = desk_scene().graph()
    g2 = apply(g, MoveNode("pen", ON, "desk"))
    assert g2.location["pen"] == Edge("pen", ON, "desk")
    assert Edge("pen", INSIDE, "drawer") not in g2.edges
    # a location AddEdge is a move, not a second location
    g3 = apply(g2, AddEdge(Edge("pen", INSIDE, "case")))
    assert [e for e in g3.edges if e.src == "pen"] == [Edge("pen", INSIDE, "case")]


def test_move_into_and_out_of_hands():
    g = apply(desk_scene().graph(), MoveNode("pen", HELD, "right"))
    assert g.hand_of("pen") == "right" and "pen" not in g.location and g.free_hands() == 1
    g = apply(g, MoveNode("pen", ON, "desk"))
    assert g.hand_of("pen") is None and g.free_hands() == 2


def test_detached_node_has_no_location():
    g = apply(desk_scene().graph(), MoveNode("marker_cap", DETACHED, "marker"))
    assert "marker_cap" not in g.location and g.hand_of("marker_cap") is None


def test_remove_location_edge_drops_the_index_entry():
    g = desk_scene().graph()
    g2 = apply(g, RemoveEdge(Edge("pen", INSIDE, "drawer")))
    assert g2.parent("pen") is None and "pen" not in g2.children("drawer")


def test_add_node():
    g = apply(desk_scene().graph(), AddNode(Node("eraser", "eraser", "eraser"), (("dirty", True),)))
    assert g.attr("eraser", "dirty") is True


@pytest.mark.parametrize(
    "rewrite, message",
    [
        (SetAttr("ghost", "open", True), "unknown node"),
        (RemoveEdge(Edge("pen", ON, "desk")), "missing edge"),
        (AddNode(Node("pen", "pen", "pen")), "already exists"),
        (MoveNode("pen", HELD, "third"), "hand must be"),
        (MoveNode("pen", "FLOATS", "desk"), "cannot move into relation"),
        (MoveNode("pen", ON, "ghost"), "unknown node"),
        (AddEdge(Edge("pen", OCCLUDES, "ghost")), "unknown node"),
    ],
)
def test_invalid_rewrites_raise_rewrite_error(rewrite, message):
    with pytest.raises(RewriteError, match=message):
        apply(desk_scene().graph(), rewrite)


def test_cannot_put_two_objects_in_one_hand():
    g = apply(desk_scene().graph(), MoveNode("pen", HELD, "left"))
    with pytest.raises(RewriteError, match="already holds"):
        apply(g, MoveNode("book", HELD, "left"))


def test_not_a_rewrite():
    with pytest.raises(RewriteError, match="not a rewrite"):
        apply(desk_scene().graph(), "open drawer")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "rewrite",
    [
        SetAttr("drawer", "open", True),
        AddEdge(Edge("book", OCCLUDES, "lamp", (("open", True),))),
        RemoveEdge(Edge("book", OCCLUDES, "cup")),
        AddNode(Node("eraser", "eraser", "eraser", affordances=frozenset({"GRABBABLE"})), (("x", 1),)),
        MoveNode("pen", HELD, "left"),
        MoveNode("marker_cap", DETACHED, "marker"),
    ],
)
def test_rewrite_json_round_trip(rewrite):
    assert from_json(json.loads(json.dumps(rewrite.to_json()))) == rewrite


def test_unknown_rewrite_op():
    with pytest.raises(RewriteError, match="unknown rewrite op"):
        from_json({"op": "teleport"})


# diff ---------------------------------------------------------------------------------------------
def test_diff_of_identical_graphs_is_empty():
    g = desk_scene().graph()
    assert diff(g, g) == []


def test_diff_reproduces_after_for_every_kind_of_change():
    before = desk_scene().graph()
    after = apply_all(before, [
        SetAttr("drawer", "open", True),
        MoveNode("pen", HELD, "left"),
        MoveNode("book", INSIDE, "case"),
        RemoveEdge(Edge("book", OCCLUDES, "cup")),
        AddEdge(Edge("lamp", OCCLUDES, "coin")),
        AddNode(Node("eraser", "eraser", "eraser")),
        MoveNode("eraser", ON, "desk"),
        MoveNode("marker_cap", DETACHED, "marker"),
        SetAttr("lamp", "pressed", None),
    ])
    rewrites = diff(before, after)
    assert apply_all(before, rewrites) == after
    assert apply_all(before, [from_json(r.to_json()) for r in rewrites]) == after


def test_diff_handles_objects_changing_hands():
    """Regression: swapping the objects in the two hands (reachable by six actions) used to make
    diff emit a move into a still-occupied hand."""
    start = Scene().surface("desk").item("a").item("b").hold("a", "left").hold("b", "right").graph()
    swapped = apply_all(start, [MoveNode("a", ON, "desk"), MoveNode("b", ON, "desk"),
                                MoveNode("b", HELD, "left"), MoveNode("a", HELD, "right")])
    assert apply_all(start, diff(start, swapped)) == swapped
    # one hand to the other, the other hand emptied onto the desk
    moved = apply_all(start, [MoveNode("b", ON, "desk"), MoveNode("a", HELD, "right")])
    assert apply_all(start, diff(start, moved)) == moved
