"""The observation operator O(G_t, h_t): visibility, reachability and the Figure 11 observation."""

from __future__ import annotations

from builders import Scene, attempt, attempt_all, desk_scene, figure3_scene, house_scene

from robograph.failures import FailureType
from robograph.view import compute_view, navigation_enabled, observation


def visible(graph) -> set[str]:
    return set(compute_view(graph).visible)


# containment ----------------------------------------------------------------------------------------
def test_nested_containers_open_one_level_at_a_time():
    g = (Scene().surface("floor")
         .box("cabinet").on("cabinet", "floor")
         .box("drawer").inside("drawer", "cabinet")
         .box("jewel_box", grabbable=True).inside("jewel_box", "drawer")
         .item("ring").inside("ring", "jewel_box").graph())
    assert visible(g) == {"floor", "cabinet"}
    g = attempt_all(g, "open cabinet")
    assert visible(g) == {"floor", "cabinet", "drawer"}
    g = attempt_all(g, "open drawer")
    assert "jewel_box" in visible(g) and "ring" not in visible(g)
    g = attempt_all(g, "open jewel_box")
    assert "ring" in compute_view(g).reachable
    # closing the outer level hides everything below it again: nothing is remembered
    g = attempt_all(g, "close cabinet")
    assert visible(g) == {"floor", "cabinet"}


def test_surfaces_and_unopenable_containers_show_their_contents():
    g = (Scene().surface("desk").add("bin", "CONTAINER", kind="object").on("bin", "desk")
         .item("paper").inside("paper", "bin").graph())
    assert visible(g) == {"desk", "bin", "paper"}


# occlusion -------------------------------------------------------------------------------------------
def test_occlusion_chain_needs_sequential_resolution():
    g = (Scene().surface("shelf")
         .item("box_a").on("box_a", "shelf")
         .item("box_b").on("box_b", "shelf")
         .item("vase").on("vase", "shelf")
         .occludes("box_a", "box_b").occludes("box_b", "vase").graph())
    assert visible(g) == {"shelf", "box_a"}
    g = attempt_all(g, "move_aside box_a")
    assert visible(g) == {"shelf", "box_a", "box_b"}  # box_b still hides the vase
    g = attempt_all(g, "move_aside box_b")
    assert "vase" in visible(g)


def test_occluded_container_hides_its_contents():
    g = (desk_scene().box("tin", grabbable=True, is_open=True).on("tin", "desk")
         .item("key").inside("key", "tin").occludes("lamp", "tin").graph())
    assert not {"tin", "key"} & visible(g)


def test_held_blocker_does_not_occlude_and_grab_drops_the_edge():
    g = desk_scene().graph()
    assert "cup" not in visible(g)
    held = attempt_all(g, "grab book")
    assert "cup" in visible(held)
    assert "cup" in visible(attempt_all(held, "puton book desk"))


def test_figure_3_open_drawer_hides_the_open_drawer_below():
    g = figure3_scene().graph()
    g = attempt_all(g, "open drawer_2")
    assert {"drawer_2", "lipstick"} <= visible(g)
    g = attempt_all(g, "open drawer_1")
    view = visible(g)
    assert "concealer" in view  # revealed by opening the first drawer
    assert not {"drawer_2", "lipstick"} & view  # the open first drawer now blocks the second
    assert g.is_open("drawer_2")  # still open in the latent graph
    failure, _ = attempt(g, "close drawer_2")
    assert failure is not None and failure.type is FailureType.NOT_VISIBLE
    obs_ids = {n["id"] for n in observation(g)["visible_nodes"]}
    assert "drawer_2" not in obs_ids
    g = attempt_all(g, "close drawer_1")
    assert {"drawer_2", "lipstick"} <= visible(g)


def test_occlusion_condition_on_a_closed_blocker_is_inactive():
    g = figure3_scene().graph()
    assert "drawer_2" in visible(g)  # drawer_1 closed: its conditional OCCLUDES edge is inactive
    edges = observation(g)["visible_edges"]
    assert not [e for e in edges if e["relation"] == "OCCLUDES"]


# transparency -----------------------------------------------------------------------------------------
def test_closed_glass_shows_but_does_not_give_access():
    g = (Scene().surface("desk").glass_box("vitrine").on("vitrine", "desk")
         .box("case", grabbable=True, is_open=True).inside("case", "vitrine")
         .item("watch").inside("watch", "case").graph())
    view = compute_view(g)
    assert {"vitrine", "case", "watch"} <= view.visible
    assert "vitrine" in view.reachable and not {"case", "watch"} & view.reachable
    failure, _ = attempt(g, "grab watch")
    assert failure is not None and failure.type is FailureType.NOT_REACHABLE
    opened = attempt_all(g, "open vitrine")
    assert "watch" in compute_view(opened).reachable


def test_nested_glass_shows_every_level():
    g = (Scene().surface("desk").glass_box("outer").on("outer", "desk")
         .glass_box("inner").inside("inner", "outer").item("gem").inside("gem", "inner").graph())
    view = compute_view(g)
    assert {"outer", "inner", "gem"} <= view.visible
    assert view.reachable == {"desk", "outer"}


# rooms ------------------------------------------------------------------------------------------------
def test_only_the_current_room_is_visible():
    g = house_scene().graph()
    assert visible(g) == {"kitchen", "counter", "mug", "fridge"}
    g = attempt_all(g, "grab mug", "walk hall")
    assert visible(g) == {"hall", "mug"}  # the held mug comes along
    g = attempt_all(g, "walk bedroom")
    assert visible(g) == {"bedroom", "bed", "pillow", "mug"}


def test_objects_in_other_rooms_are_not_visible_for_actions():
    g = house_scene().graph()
    failure, _ = attempt(g, "grab pillow")
    assert failure is not None and failure.type is FailureType.NOT_VISIBLE


def test_navigation_enabled_needs_rooms_and_a_placed_robot():
    assert navigation_enabled(house_scene().graph())
    assert not navigation_enabled(desk_scene().graph())
    assert not navigation_enabled(Scene().room("lonely").robot_in("lonely").graph())  # no ADJACENT


# assemblies -------------------------------------------------------------------------------------------
def test_unassembled_whole_is_seen_through_its_parts():
    g = Scene().surface("desk").box("drawer").on("drawer", "desk").assembly("lipstick", "tube", "lid") \
        .on("tube", "desk").inside("lid", "drawer").graph()
    assert {"tube", "lipstick"} <= visible(g) and "lid" not in visible(g)
    hidden = Scene().surface("desk").box("drawer").on("drawer", "desk").assembly("lipstick", "tube", "lid") \
        .inside("tube", "drawer").inside("lid", "drawer").graph()
    assert "lipstick" not in visible(hidden)


def test_parts_are_seen_with_the_assembled_whole():
    g = attempt_all(desk_scene().graph(), "attach marker_cap marker_body")
    assert {"marker", "marker_cap", "marker_body"} <= visible(g)


# the observation object (Appendix B, Figure 11) --------------------------------------------------------------
def test_tabletop_observation_is_figure_11():
    g = (Scene().surface("desk").box("case", grabbable=True, capacity=1, is_open=True).on("case", "desk")
         .item("pen").inside("pen", "case").button("lamp").on("lamp", "desk")
         .assembly("marker", "marker_cap", "marker_body").on("marker_cap", "desk")
         .item("mug").hold("mug", "right")
         .box("drawer").on("drawer", "desk").item("clip").inside("clip", "drawer").graph())
    assert observation(g) == {
        "visible_nodes": [
            {"id": "case", "name": "case", "category": "case", "open": True, "is_full": True},
            {"id": "desk", "name": "desk", "category": "desk"},
            {"id": "drawer", "name": "drawer", "category": "drawer", "open": False},
            {"id": "lamp", "name": "lamp", "category": "lamp", "pressed": False},
            {"id": "marker", "name": "marker", "category": "marker", "assembled": False},
            {"id": "marker_cap", "name": "marker cap", "category": "marker_cap"},
            {"id": "mug", "name": "mug", "category": "mug"},
            {"id": "pen", "name": "pen", "category": "pen"},
        ],
        "visible_edges": [
            {"from": "case", "to": "desk", "relation": "ON"},
            {"from": "drawer", "to": "desk", "relation": "ON"},
            {"from": "lamp", "to": "desk", "relation": "ON"},
            {"from": "marker_cap", "to": "desk", "relation": "ON"},
            {"from": "marker_cap", "to": "marker", "relation": "PART_OF"},
            {"from": "pen", "to": "case", "relation": "INSIDE"},
        ],
        "held_objects": [{"id": "mug", "name": "mug"}],
        "robot": {"hands": {"left": None, "right": "mug"}},  # no navigation fields on a tabletop
    }


def test_node_record_key_order_follows_figure_11():
    g = Scene().surface("desk").add("jar", "OPENABLE", "CONTAINER", "ASSEMBLY", "PRESSABLE", capacity=2) \
        .on("jar", "desk").graph()
    rec = next(n for n in observation(g)["visible_nodes"] if n["id"] == "jar")
    assert list(rec) == ["id", "name", "category", "open", "assembled", "pressed", "is_full"]


def test_indoor_robot_block():
    obs = observation(house_scene().graph())
    assert obs["robot"] == {
        "hands": {"left": None, "right": None},
        "navigation_enabled": True,
        "current_room": "kitchen",
        "adjacent_rooms": ["hall"],
    }
    # ADJACENT edges lead to rooms that are not visible, so they are not in the induced edges
    assert {e["relation"] for e in obs["visible_edges"]} == {"IN_ROOM", "ON"}


def test_moved_aside_blocker_edge_is_not_shown():
    g = attempt_all(desk_scene().graph(), "move_aside book")
    edges = observation(g)["visible_edges"]
    assert {"from": "cup", "to": "desk", "relation": "ON"} in edges
    assert not [e for e in edges if e["relation"] == "OCCLUDES"]


def test_robot_is_never_a_visible_node():
    for scene in (desk_scene(), house_scene(), figure3_scene()):
        assert "robot" not in visible(scene.graph())


def test_view_is_kept_per_graph_object_and_never_inherited():
    graph = desk_scene().graph()
    view = compute_view(graph)
    assert compute_view(graph) is view  # same immutable graph: computed once
    opened = attempt_all(graph, "open drawer")
    assert "pen" not in view.visible and "pen" in compute_view(opened).visible
    fresh = type(graph).from_json(opened.to_json())  # no shared caches at all
    assert compute_view(opened) == compute_view(fresh)
