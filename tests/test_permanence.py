"""Object permanence of the visual agent's perception step, on scripted frames: a node seen once
stays believed while it flickers below the pixel threshold or is hidden behind something nearer,
and is dropped only when a camera looks at its place and sees something else there; depth
relations replace the symbolic view's location edges."""

from __future__ import annotations

import numpy as np
import pytest

from robograph.agents.base import AgentError
from robograph.agents.permanence import ObjectPermanence, probes, seen_absent
from robograph.agents.sight import SightError
from robograph.agents.visual_explorer import Perceiver
from robograph.backend import Frame, Percept
from robograph_calibration.camera import CameraModel

LABELS = ("cup", "table", "drawer", "robot")
CUP, TABLE, DRAWER, ROBOT = range(4)
CUP_BOX = ((0.0, 0.0, 1.0), (0.05, 0.05, 0.05))  # 1 m in front of the camera, 10 cm cube


def pinhole(pose: np.ndarray | None = None) -> CameraModel:
    """A 20x20 camera at the origin looking along +z (OpenCV axes), or at `pose`."""
    return CameraModel(20, 20, 20.0, 20.0, 10.0, 10.0, np.eye(4) if pose is None else pose)


AWAY = np.diag([-1.0, 1.0, -1.0, 1.0])  # turned round: the cup is behind it


def frame(patches: list[tuple[int, slice, slice, float]], percept: Percept | None = None, pose=None) -> Frame:
    """The table fills the view at 1.2 m; each patch (label, rows, cols, depth) is drawn over it."""
    seg = np.full((20, 20), TABLE, dtype=np.int64)
    depth = np.full((20, 20), 1.2, dtype=np.float32)
    for label, rows, cols, d in patches:
        seg[rows, cols], depth[rows, cols] = label, d
    model = pinhole(pose)
    return Frame("head", np.zeros((20, 20, 3), np.uint8), model, 0.0, depth=depth, segmentation=seg, labels=LABELS,
                 percept=percept)


SEEN = Percept({"cup": ("ON", "table")}, {"drawer": True}, {"cup": CUP_BOX}, frozenset({"cup"}))
CUP_BIG = (CUP, slice(5, 15), slice(5, 15), 0.95)  # 100 px
CUP_SMALL = (CUP, slice(9, 12), slice(9, 12), 0.95)  # 9 px over the cup's centre: below 30
ARM = (ROBOT, slice(0, 20), slice(6, 14), 0.5)  # nearer than the cup, covering its place
DRAWER_FRONT = (DRAWER, slice(0, 20), slice(0, 20), 0.8)  # a closed front before the cup's place
EMPTY = Percept(movable=frozenset({"cup"}))


def test_probes_are_the_centre_and_one_point_inside_each_face():
    pts = probes(CUP_BOX)
    assert pts.shape == (7, 3) and np.allclose(pts[0], CUP_BOX[0])
    assert np.allclose(np.abs(pts[1:] - pts[0]).max(axis=1), 0.025)


@pytest.mark.parametrize("later, kept", [
    ([CUP_SMALL], True),  # flicker below 30 px: the cup's own pixels are still where it was
    ([], False),  # the place seen empty: the table shows through where the cup was
    ([ARM], True),  # an arm in front: the place is not looked at
    ([DRAWER_FRONT], True),  # closed in: a front nearer than the place
])
def test_a_seen_node_stays_until_its_place_is_seen_empty(later, kept):
    memory = ObjectPermanence()
    assert memory.update([frame([CUP_BIG], SEEN)]) == {"cup", "table"}  # furniture too (no box: never judged)
    assert memory.location("cup") == ("ON", "table")
    believed = memory.update([frame(later, EMPTY)])
    assert ("cup" in believed) is kept
    if kept:  # and where it was believed to be
        assert memory.location("cup") == ("ON", "table") and memory.believed["cup"].box == CUP_BOX


def test_flicker_then_empty_drops_and_a_camera_facing_away_judges_nothing():
    memory = ObjectPermanence()
    memory.update([frame([CUP_BIG], SEEN)])
    assert "cup" in memory.update([frame([], EMPTY, pose=AWAY)])  # place outside the image
    assert "cup" in memory.update([frame([CUP_SMALL], EMPTY)])
    assert "cup" not in memory.update([frame([], EMPTY)])
    # one camera showing the node outweighs another seeing its place empty
    memory.update([frame([CUP_BIG], SEEN)])
    assert "cup" in memory.update([frame([], EMPTY), frame([CUP_SMALL], EMPTY)])


def test_without_memory_a_flicker_drops_the_node_at_once():
    per_frame = Perceiver(memory=False, relations="view")
    with_memory = Perceiver()
    obs = _obs()
    for p in (per_frame, with_memory):
        assert "cup" in _ids(p.observe(obs, {"head": frame([CUP_BIG], SEEN)}))
    assert "cup" not in _ids(per_frame.observe(obs, {"head": frame([CUP_SMALL], EMPTY)}))
    assert "cup" in _ids(with_memory.observe(obs, {"head": frame([CUP_SMALL], EMPTY)}))


def test_held_objects_are_believed_without_a_place_until_seen_again():
    memory = ObjectPermanence()
    memory.update([frame([CUP_BIG], SEEN)])
    assert "cup" in memory.update([frame([], EMPTY)], held=["cup"])
    assert memory.location("cup") is None
    assert "cup" in memory.update([frame([], EMPTY)])  # put down where no camera judged: no box to check
    memory.update([frame([CUP_BIG], SEEN)])
    assert "cup" not in memory.update([frame([], EMPTY)])


def test_depth_relations_replace_the_views_location_edges_and_open():
    obs = _obs()
    got = Perceiver().observe(obs, {"head": frame([CUP_BIG, (DRAWER, slice(0, 3), slice(0, 20), 1.0)], SEEN)})
    edges = {(e["from"], e["relation"], e["to"]) for e in got["visible_edges"]}
    # the view said INSIDE drawer; depth says ON table. The drawer's own edge is static structure
    assert ("cup", "ON", "table") in edges and ("cup", "INSIDE", "drawer") not in edges
    assert ("drawer", "IN_ROOM", "kitchen") in edges
    assert next(n for n in got["visible_nodes"] if n["id"] == "drawer")["open"] is True  # the view said closed
    # without a depth reading the agent says what to run
    with pytest.raises(AgentError, match="relations=true"):
        Perceiver().observe(obs, {"head": frame([CUP_BIG])})
    with pytest.raises(AgentError, match="relations must be one of"):
        Perceiver(relations="guess")


def test_frames_without_depth_are_refused_with_the_option_to_use():
    memory = ObjectPermanence()
    memory.update([frame([CUP_BIG], SEEN)])
    bare = Frame("head", np.zeros((20, 20, 3), np.uint8), pinhole(), 0.0,
                 segmentation=np.full((20, 20), TABLE, dtype=np.int64), labels=LABELS)
    with pytest.raises(SightError, match="relations=true"):
        seen_absent("cup", CUP_BOX, [bare])


def _obs():
    return {
        "visible_nodes": [{"id": "kitchen", "name": "kitchen", "category": "room"},
                          {"id": "cup", "name": "cup", "category": "cup"},
                          {"id": "table", "name": "table", "category": "table"},
                          {"id": "drawer", "name": "drawer", "category": "drawer", "open": False}],
        "visible_edges": [{"from": "cup", "to": "drawer", "relation": "INSIDE"},
                          {"from": "drawer", "to": "kitchen", "relation": "IN_ROOM"},
                          {"from": "table", "to": "kitchen", "relation": "IN_ROOM"}],
        "held_objects": [],
        "robot": {"hands": {"left": None, "right": None}},
    }


def _ids(obs):
    return {n["id"] for n in obs["visible_nodes"]}
