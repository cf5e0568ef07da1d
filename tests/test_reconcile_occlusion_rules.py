"""How measured coverage becomes OCCLUDES edges and `moved_aside` (reading.occlusion_rewrites):
pure graph logic over a given reading, so every rule is checked without a simulator, including
the attribute-conditioned edge that no compiled indoor scene has."""

from __future__ import annotations

from robograph.graph import OCCLUDES, Edge
from robograph.rewrite import AddEdge, RemoveEdge, SetAttr, apply_all
from robograph_backends.reading import Reading, occlusion_rewrites, rewrites_to
from tests.builders import Scene


def _scene() -> Scene:
    return (Scene().room("kitchen").robot_in("kitchen").surface("counter").in_room("counter", "kitchen")
            .item("box").item("jar").item("cup").on("box", "counter").on("jar", "counter").on("cup", "counter")
            .occludes("box", "jar"))


def _reading(graph, covered=(), held=(), attrs=None) -> Reading:
    locations = {n: (("HELD", "left") if n in held else ("ON", "counter")) for n in ("box", "jar", "cup")}
    placed = frozenset(n for n in locations if n not in held)
    return Reading(locations, dict(attrs or {}), "kitchen", frozenset(covered), placed)


def test_blocker_still_covering_its_target_changes_nothing() -> None:
    g = _scene().graph()
    assert occlusion_rewrites(g, _reading(g, {("box", "jar")})) == []


def test_blocker_covering_nothing_is_moved_aside_and_keeps_its_edge() -> None:
    g = _scene().graph()
    assert occlusion_rewrites(g, _reading(g)) == [SetAttr("box", "moved_aside", True)]
    aside = apply_all(g, [SetAttr("box", "moved_aside", True)])
    assert occlusion_rewrites(aside, _reading(aside)) == []


def test_blocker_back_in_front_clears_moved_aside() -> None:
    g = apply_all(_scene().graph(), [SetAttr("box", "moved_aside", True)])
    assert occlusion_rewrites(g, _reading(g, {("box", "jar")})) == [SetAttr("box", "moved_aside", False)]


def test_blocker_in_a_hand_loses_its_edges_as_after_a_grab() -> None:
    g = apply_all(_scene().graph(), [SetAttr("box", "moved_aside", True)])
    assert occlusion_rewrites(g, _reading(g, held={"box"})) == [
        RemoveEdge(Edge("box", OCCLUDES, "jar")), SetAttr("box", "moved_aside", False)]


def test_edge_to_a_target_in_a_hand_is_left_as_it_is() -> None:
    """The target is not there to be hidden: no evidence the blocker was moved aside."""
    g = _scene().graph()
    assert occlusion_rewrites(g, _reading(g, held={"jar"})) == []


def test_new_cover_adds_an_edge_and_a_target_no_longer_covered_loses_it() -> None:
    g = _scene().graph()
    assert occlusion_rewrites(g, _reading(g, {("cup", "jar")})) == [
        SetAttr("box", "moved_aside", True), AddEdge(Edge("cup", OCCLUDES, "jar"))]
    assert occlusion_rewrites(g, _reading(g, {("box", "cup")})) == [
        AddEdge(Edge("box", OCCLUDES, "cup")), RemoveEdge(Edge("box", OCCLUDES, "jar"))]


def test_conditioned_edge_must_agree_with_its_condition() -> None:
    g = (Scene().room("kitchen").robot_in("kitchen").surface("counter").in_room("counter", "kitchen")
         .box("lid_box", is_open=False).item("jar").on("lid_box", "counter").on("jar", "counter")
         .occludes("lid_box", "jar", open=True).graph())
    edge = g.edges_from("lid_box", OCCLUDES)[0]

    def reading(covered, is_open):
        return Reading({"lid_box": ("ON", "counter"), "jar": ("ON", "counter")}, {("lid_box", "open"): is_open},
                       "kitchen", frozenset(covered), frozenset({"lid_box", "jar"}))

    assert occlusion_rewrites(g, reading((), False)) == []  # closed and not covering: as the edge says
    assert occlusion_rewrites(g, reading({("lid_box", "jar")}, True)) == []  # open and covering
    assert occlusion_rewrites(g, reading((), True)) == [RemoveEdge(edge)]  # open, yet the jar is in view
    assert occlusion_rewrites(g, reading({("lid_box", "jar")}, False)) == [AddEdge(Edge("lid_box", OCCLUDES, "jar"))]


def test_reading_without_measured_coverage_keeps_edges_as_static_structure() -> None:
    """A backend that measures no coverage (SAPIEN today) passes no placed blockers: its OCCLUDES
    edges and `moved_aside` stay as the graph has them, except for a blocker in a hand."""
    g = _scene().graph()
    on_counter = {n: ("ON", "counter") for n in ("box", "jar", "cup")}
    assert occlusion_rewrites(g, Reading(on_counter, {}, "kitchen")) == []
    assert rewrites_to(g, Reading(on_counter, {}, "kitchen")) == []
    held = {**on_counter, "box": ("HELD", "left")}
    assert occlusion_rewrites(g, Reading(held, {}, "kitchen")) == [RemoveEdge(Edge("box", OCCLUDES, "jar"))]
