"""The MuJoCo kitchen backend against the backend contract: the conformance check on compiled
indoor scenes, deadlines and cancel between physics steps, its options and its frames."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from robograph.backend import deadline_in
from robograph.failures import FailureType
from robograph.registry import BackendOptionError, make_backend

pytestmark = pytest.mark.usefixtures("requires_mujoco")


def test_mode_option_replaces_grasp_and_bad_values_name_the_valid_ones():
    with pytest.raises(BackendOptionError, match="mode must be one of physics, assisted, got 'fast'"):
        make_backend("mujoco", mode="fast")
    with pytest.raises(BackendOptionError, match=r"unknown option\(s\) 'grasp'.*mode \(default 'physics'\)"):
        make_backend("mujoco", grasp="assisted")
    with pytest.raises(BackendOptionError, match="cameras: unknown"):
        make_backend("mujoco", cameras=["head", "tail"])
    with pytest.raises(BackendOptionError, match="width must be a positive integer"):
        make_backend("mujoco", width="wide")
    be = make_backend("mujoco", mode="assisted", cameras="head")
    caps = be.capabilities
    assert (caps.mode, caps.modes, caps.deadlines, caps.camera_names) == ("assisted", ("physics", "assisted"), True, ("head",))
    assert caps.cameras[0].model is None  # no world yet: the head's pose is not known


@pytest.mark.slow
def test_mujoco_backend_passes_the_conformance_check():
    from robograph.backend_check import RULES, check_backend, conformance_instances

    scenes = conformance_instances(2, "indoor")
    report = check_backend(lambda: make_backend("mujoco"), scenes, steps=2)
    assert report.passed == list(RULES)
    assert not [s for s in report.skipped if "set_attr" in s or "move_node" in s]


@pytest.mark.slow
def test_deadline_and_cancel_stop_a_motion_between_physics_steps():
    from robograph.actions import Action, effects
    from robograph.backend_check import conformance_instances
    from robograph.rewrite import apply_all

    inst = conformance_instances(1, "indoor")[0]
    be = make_backend("mujoco")
    be.reset(inst.graph, seed=0)
    g = inst.graph
    room = next(e.dst for e in g.edges if e.rel == "ADJACENT" and e.src == g.robot_room())
    walk = Action("walk", (room,))
    expected = apply_all(g, effects(g, walk))
    result = be.execute(g, walk, expected, deadline=deadline_in(0.05))
    assert result.failure is not None and result.failure.type is FailureType.DEADLINE_EXCEEDED
    assert result.info["steps"] > 0 and result.info["wall_s"] < 1.0  # stopped early, mid-walk
    be.reconcile(expected)  # the world is read back as it is, wherever the base stopped
    cancel = threading.Event()
    threading.Timer(0.05, cancel.set).start()
    result = be.execute(g, walk, expected, cancel=cancel)
    assert result.failure is not None and result.failure.type is FailureType.CANCELLED
    assert be.world.interrupt is None  # the hook does not outlive the call
    frames = be.render()
    assert [f.camera for f in frames] == ["head", "left", "right"]
    for f in frames:
        assert f.image.shape == (240, 320, 3) and f.image.dtype == np.uint8
        assert f.timestamp == pytest.approx(float(be.world.data.time))
        assert f.model.T_world_cam.shape == (4, 4)
    assert be.capabilities.cameras[0].model is not None
    be.close()


@pytest.mark.slow
def test_render_command_passes_backend_options(tmp_path, capsys):
    import struct

    from robograph.cli import main
    from robograph_backends.mujoco_kitchen.samples import food_packing

    path = tmp_path / "scene.json"
    food_packing().save(path)
    out = tmp_path / "views"
    assert main(["render", str(path), "--out", str(out), "--backend-opt", "cameras=[head, left]",
                 "--width", "160", "--height", "120"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["head.png", "left.png"]
    width, height = struct.unpack(">II", (out / "head.png").read_bytes()[16:24])
    assert (width, height) == (160, 120)
    assert main(["render", str(path), "--out", str(out), "--backend-opt", "mode=turbo"]) == 2
    assert "mode must be one of physics, assisted" in capsys.readouterr().err
