"""The built-in visual agent and the camera measurements (issue 14 items 4 and 7): sight on a
constructed segmentation, the perceived view cut from it, and the agent on rendered MuJoCo scenes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robograph.agents import make_agent
from robograph.agents.base import AgentError, Request
from robograph.agents.permanence import ObjectPermanence
from robograph.agents.sight import SightError, camera_coverage, pixel_counts, seen_nodes, self_occlusion
from robograph.agents.visual_explorer import perceived_observation
from robograph.backend import Frame

LABELS = ("cup", "drawer", "pen", "robot")


def _frame(camera: str, regions: dict[int, tuple[slice, slice]]) -> Frame:
    seg = np.full((20, 10), -1, dtype=np.int64)  # 200 pixels
    for label, (rows, cols) in regions.items():
        seg[rows, cols] = label
    return Frame(camera, np.zeros((20, 10, 3), np.uint8), None, 0.0, segmentation=seg, labels=LABELS)  # type: ignore[arg-type]


# head: cup 40 px, pen 29 px (below the threshold), robot 50 px; left: pen 20 px, drawer 30 px
HEAD = _frame("head", {0: (slice(0, 4), slice(0, 10)), 3: (slice(10, 15), slice(0, 10))})
HEAD.segmentation[5:8, 0:10].flat[:29] = 2
LEFT = _frame("left", {2: (slice(0, 2), slice(0, 10)), 1: (slice(5, 8), slice(0, 10))})


def test_pixel_counts_take_the_best_camera_and_the_threshold_is_inclusive():
    counts = pixel_counts([HEAD, LEFT])
    assert counts == {"cup": 40, "pen": 29, "robot": 50, "drawer": 30}
    assert seen_nodes([HEAD, LEFT]) == {"cup", "robot", "drawer"}
    assert seen_nodes([HEAD, LEFT], min_pixels=29) == {"cup", "robot", "drawer", "pen"}


def test_camera_coverage_counts_only_nodes_a_camera_could_show():
    # kitchen (a room) has no label: not counted; robot is not a scene object; pen is below 30 px
    assert camera_coverage(["kitchen", "cup", "pen", "drawer", "robot"], [HEAD, LEFT]) == pytest.approx(2 / 3)
    assert camera_coverage(["kitchen"], [HEAD]) is None


def test_self_occlusion_is_the_robot_share_of_one_camera():
    assert self_occlusion(HEAD) == pytest.approx(50 / 200)
    assert self_occlusion(LEFT) == 0.0
    bare = Frame("head", np.zeros((2, 2, 3), np.uint8), None, 0.0)  # type: ignore[arg-type]
    with pytest.raises(SightError, match="no node-labelled segmentation"):
        self_occlusion(bare)


OBS = {
    "visible_nodes": [{"id": n, "name": n, "category": "x"} for n in ("kitchen", "cup", "pen", "drawer", "apple")],
    "visible_edges": [{"from": "cup", "to": "drawer", "relation": "INSIDE"},
                      {"from": "pen", "to": "drawer", "relation": "ON"},
                      {"from": "drawer", "to": "kitchen", "relation": "IN_ROOM"}],
    "held_objects": [{"id": "apple", "name": "apple"}],
    "robot": {"hands": {"left": "apple", "right": None}},
}


def test_perceived_view_keeps_seen_held_and_unshowable_nodes_and_their_relations():
    frames = {"head": HEAD, "left": LEFT}
    got = perceived_observation(OBS, frames)
    # pen (29 px) is dropped with its edge; apple is held though labelled nowhere; kitchen has no pixels
    assert [n["id"] for n in got["visible_nodes"]] == ["kitchen", "cup", "drawer", "apple"]
    assert [(e["from"], e["to"]) for e in got["visible_edges"]] == [("cup", "drawer"), ("drawer", "kitchen")]
    assert got["robot"] == OBS["robot"] and got["held_objects"] == OBS["held_objects"]


def test_visual_explorer_names_what_it_needs_without_frames():
    agent = make_agent("visual_explorer")
    with pytest.raises(AgentError, match="--observation both"):
        agent.act(Request(system="", payload={"current_observation": OBS}))
    with pytest.raises(AgentError, match="min_pixels must be a positive integer"):
        make_agent("visual_explorer", min_pixels=0)


def test_a_worker_reuses_one_backend_and_gets_the_same_rollouts(tmp_path):
    from robograph.gym_env import demo_instance_path
    from robograph.harness.jobs import Job, WorkerBackends, run_job

    jobs = [Job(str(demo_instance_path()), seed, "explorer") for seed in (0, 1, 0)]
    fresh = [run_job(j, WorkerBackends()) for j in jobs]
    with WorkerBackends() as backends:
        reused = [run_job(j, backends) for j in jobs]
        assert backends.built == 1 and backends.backend is not None
        run_job(Job(jobs[0].instance_path, 0, "explorer", "symbolic", {}, {"no": 1}), backends)  # bad option
        assert backends.built == 1 and backends.backend is None  # a failed build leaves nothing live
    assert [_decisions(r) for r in fresh] == [_decisions(r) for r in reused]
    assert all(r.error is None for r in reused) and len(_decisions(reused[0])) > 2


def _decisions(result):
    """A job's replies, outcomes and metrics (no timings, which differ run to run)."""
    recs = [json.loads(line) for line in result.lines]
    return [(r.get("raw"), r.get("event"), r.get("metrics")) for r in recs]


@pytest.mark.slow
@pytest.mark.usefixtures("requires_mujoco")
def test_perception_sees_what_the_head_faces_and_nothing_the_view_hides():
    from robograph.backend_check import conformance_instances
    from robograph.registry import make_backend
    from robograph.view import compute_view

    inst = conformance_instances(1, "indoor")[0]
    be = make_backend("mujoco", segmentation=True)
    try:
        be.reset(inst.graph, seed=0)
        frames = be.render()
    finally:
        be.close()
    labels = frames[0].labels
    assert len(set(labels)) == len(labels) and labels[-1] == "robot"
    visible = compute_view(inst.graph).visible
    seen = seen_nodes(frames) - {"robot"}
    # cameras never show what the symbolic view hides (other rooms, closed containers' contents)
    assert seen and seen <= visible
    # the furniture the robot starts at fills the head view
    station = max((n for n in pixel_counts([frames[0]]) if n != "robot"), key=pixel_counts([frames[0]]).get)
    assert inst.graph.nodes[station].kind == "furniture"
    assert 0.0 < self_occlusion(frames[0]) < 0.5
    assert all(f.depth is not None and f.depth.shape == f.segmentation.shape for f in frames)


@pytest.mark.slow
@pytest.mark.usefixtures("requires_mujoco")
def test_visual_explorer_solves_an_easy_mujoco_episode_from_the_cameras():
    pytest.importorskip("open3d")
    from robograph.harness.observe import ObservationSpec
    from robograph.harness.rollout import RolloutOptions, run_rollout
    from robograph.instance import TaskInstance
    from robograph.metrics.rollout import rollout_metrics
    from robograph.registry import make_backend
    from robograph_backends.mujoco_kitchen.samples import buffet_tray

    data = buffet_tray().to_json()
    data["goal"] = ["ON(muffin, serving_tray)", "ON(croissant, serving_tray)"]
    easy = TaskInstance.from_json(data, source="easy-buffet")
    seen_per_step = []

    class Recording:  # what the agent was handed each step
        name, privileged = "recording", False

        def __init__(self):
            self.agent = make_agent("visual_explorer")

        def reset(self, seed):
            self.agent.reset(seed)

        def act(self, request):
            seen_per_step.append(seen_nodes(request.frames.values()))
            return self.agent.act(request)

    backend = make_backend("mujoco", relations=True)
    try:
        out = run_rollout(easy, Recording(), backend, seed=0, options=RolloutOptions(ObservationSpec("both")))
    finally:
        backend.close()
    metrics = rollout_metrics(out.trace)
    assert metrics["SR"] == 100.0, [s.record.to_json() for s in out.trace.states]
    assert len(seen_per_step) == metrics["steps"] and {"muffin", "serving_tray"} <= seen_per_step[0]


@pytest.mark.slow
@pytest.mark.usefixtures("requires_mujoco")
def test_backend_reads_relations_from_its_frames_depth_without_moving_the_world():
    pytest.importorskip("open3d")
    import numpy as np

    from robograph.registry import make_backend
    from robograph_backends.mujoco_kitchen.perception import ground_truth
    from robograph_backends.mujoco_kitchen.samples import buffet_tray

    inst = buffet_tray()
    be = make_backend("mujoco", relations=True)
    try:
        be.reset(inst.graph, seed=0)
        be.world.step(50)  # something in motion: velocities the reading must not touch
        d = be.world.data
        before = (d.qpos.copy(), d.qvel.copy())
        frames = be.render()
        assert np.array_equal(d.qpos, before[0]) and np.array_equal(d.qvel, before[1])
        truth, truth_open = ground_truth(be.world, inst.graph)
        # object permanence on real frames: the muffin taken away behind the graph's back is seen
        # gone (the counter shows through its place); the croissant, untouched, stays believed
        memory = ObjectPermanence()
        assert {"muffin", "croissant"} <= memory.update(frames)
        be.world.set_free_pose(be.world.plan.node_body["muffin"], [0.0, 0.0, 8.0])
        be.world.forward()
        after = memory.update(be.render())
        assert "muffin" not in after and "croissant" in after
    finally:
        be.close()
    percept = frames[0].percept
    assert percept is not None and all(f.percept is percept for f in frames)
    seen = seen_nodes(frames)
    # every object the cameras show well has a location, and it is the simulator's own reading
    assert {"muffin", "serving_tray"} <= set(percept.locations) <= set(percept.movable)
    assert all(percept.locations[n] == truth[n] for n in percept.locations), (percept.locations, truth)
    assert set(percept.locations) >= (seen & set(percept.movable)) - {"robot"}
    assert all(percept.open[n] == truth_open[n] for n in percept.open)
    centre, half = percept.boxes["muffin"]
    assert len(centre) == 3 and all(h > 0 for h in half)


@pytest.mark.usefixtures("requires_mujoco")
def test_the_relations_option_is_checked_before_anything_is_built():
    from robograph.registry import BackendOptionError, make_backend

    with pytest.raises(BackendOptionError, match="option relations must be true or false"):
        make_backend("mujoco", relations="yes")
