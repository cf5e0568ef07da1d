"""Observation plumbing that needs no simulator: display names as node ids, the assisted
protocol's valid_actions cycle on a scripted I1 rollout, and the clear error a visual mode gets
from a backend without cameras."""

from __future__ import annotations

import json

import pytest

from robograph.actions import Action, check
from robograph.agents.base import Reply, Request
from robograph.events import EventSpec
from robograph.harness.observe import ObservationError, ObservationSpec
from robograph.harness.parse import name_table, parse_response, scene_names
from robograph.harness.payload import RECOVER_CONSTRAINT
from robograph.harness.rollout import RolloutOptions, run_rollout
from robograph_backends.symbolic import SymbolicBackend


def _reply(name: str, *ids: str) -> str:
    return json.dumps({"action": {"name": name, "node_ids": list(ids)}})


class Recording:
    """Plays back reply texts and keeps every request it was sent."""

    name = "recording"
    privileged = False

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.requests = list(replies), []

    def reset(self, seed: int) -> None:
        pass

    def act(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(self.replies.pop(0) if self.replies else _reply("stop"))


# name grounding --------------------------------------------------------------------------------
def test_a_unique_display_name_grounds_to_its_node(demo, episode_of):
    ep = episode_of(demo)
    names = scene_names(ep.graph)
    parsed = parse_response(_reply("grab", "Highlighter Body"), names=names)
    assert parsed.action == Action("grab", ("highlighter_body",))
    assert ep.step(parsed.action).ok


def test_unknown_and_ambiguous_names_fail_like_an_unknown_id(demo, episode_of):
    ep = episode_of(demo)
    pairs = [(nid, str(node.name)) for nid, node in ep.graph.nodes.items() if nid != "robot"]
    # a second node called "blue book" makes the name ambiguous: it must not pick either
    names = name_table([*pairs, ("pencil_case", "blue book")])
    assert "blue book" in scene_names(ep.graph)
    unknown_id = ep.step(parse_response(_reply("grab", "no_such_id"), names=names).action)
    unknown_name = ep.step(parse_response(_reply("grab", "purple unicorn"), names=names).action)
    ambiguous = ep.step(parse_response(_reply("grab", "blue book"), names=names).action)
    assert unknown_id.failure_type == "unknown_node"
    assert unknown_name.failure_type == ambiguous.failure_type == unknown_id.failure_type
    assert ambiguous.action.args == ("blue book",)  # left as written, so the message names it
    assert "'blue book'" in ambiguous.failure.message


def test_an_id_wins_over_another_nodes_display_name():
    names = name_table([("cup", "mug"), ("mug", "cup")])
    assert names["cup"] == "cup" and names["mug"] == "mug"


# assisted protocol -----------------------------------------------------------------------------
def test_assisted_protocol_valid_actions_through_an_injected_failure(demo):
    inst = demo.with_events([EventSpec("i1", "I1", 1, {"actions": ["grab"]})], condition="I1")
    agent = Recording([_reply("grab", "highlighter_body"), _reply("recover"), _reply("grab", "highlighter_body"), _reply("stop")])
    out = run_rollout(inst, agent, SymbolicBackend(), options=RolloutOptions(protocol="assisted"))
    valid = [r.payload["valid_actions"] for r in agent.requests]
    grab = Action("grab", ("highlighter_body",)).to_json()
    # before the failure: grounded actions whose preconditions hold, the chosen one among them
    assert grab in valid[0] and len(valid[0]) > 2
    for a in valid[0]:
        assert check(out.episode.instance.graph, _view(inst), Action(a["name"], tuple(a["node_ids"]))) is None
    assert valid[1] == [{"name": "recover", "node_ids": []}, {"name": "stop", "node_ids": []}]
    assert valid[2] == [grab]  # after recover: only the failed action
    assert {"name": "recover", "node_ids": []} not in valid[3]
    statuses = [(s.record.action.name, s.record.failure_type) for s in out.trace.states]
    assert statuses == [("grab", "execution_failed"), ("grab", None), ("stop", None)]  # recover is no step
    assert [len(i) for i in out.internal] == [0, 1, 0]
    assert all(RECOVER_CONSTRAINT in r.payload["action_constraints"] for r in agent.requests)


def test_recover_when_nothing_failed_is_a_parse_error(demo):
    agent = Recording([_reply("recover")])
    out = run_rollout(demo, agent, SymbolicBackend(), options=RolloutOptions(protocol="assisted"))
    assert out.trace.states[0].record.failure_type == "parse_error"


def test_standard_protocol_has_neither_valid_actions_nor_recover(demo):
    agent = Recording([])
    run_rollout(demo, agent, SymbolicBackend())
    payload = agent.requests[0].payload
    assert "valid_actions" not in payload and RECOVER_CONSTRAINT not in payload["action_constraints"]


def _view(inst):
    from robograph.view import compute_view

    return compute_view(inst.graph)


# visual mode needs cameras ----------------------------------------------------------------------
def test_visual_mode_on_the_symbolic_backend_is_a_clear_error(demo):
    with pytest.raises(ObservationError, match="needs a backend that renders.*'symbolic'"):
        run_rollout(demo, Recording([]), SymbolicBackend(), options=RolloutOptions(ObservationSpec("visual")))


def test_bad_observation_settings_are_typed_errors():
    with pytest.raises(ObservationError, match="valid: symbolic, visual, both"):
        ObservationSpec("pixels")
    with pytest.raises(ObservationError, match="valid: png, jpeg"):
        ObservationSpec("visual", image_format="gif")


def test_run_cli_refuses_visual_on_the_symbolic_backend_before_writing(tmp_path, capsys):
    from robograph.cli import main
    from robograph.gym_env import demo_instance_path

    out = tmp_path / "run"
    code = main(["run", "--instances", str(demo_instance_path()), "--out", str(out), "--observation", "visual",
                 "--no-progress"])
    assert code == 2 and not out.exists()
    assert "--observation visual needs a backend that renders camera images" in capsys.readouterr().err
