"""The Gymnasium wrapper: RoboGraph-v0 passes check_env, and bad replies are counted steps."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import pytest
from builders import DEMO_SOLUTION, act, desk_scene
from gymnasium.utils.env_checker import check_env

import robograph  # noqa: F401 - registers RoboGraph-v0
from robograph.errors import EpisodeError, InstanceError


def reply(text: str) -> str:
    action = act(text)
    return json.dumps({"reason": "test", "recovery": {"required": False},
                       "action": {"name": action.name, "node_ids": list(action.args)}})


@pytest.fixture
def env():
    e = gym.make("RoboGraph-v0").unwrapped
    e.reset(seed=0)
    return e


def quiet_check(env) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # render_fps is meaningless for a text env
        check_env(env, skip_render_check=True)


def test_check_env_on_the_demo():
    quiet_check(gym.make("RoboGraph-v0").unwrapped)


def test_check_env_on_an_instance_file(tmp_path):
    path = tmp_path / "desk.json"
    desk_scene().instance(["PRESSED(lamp)"]).save(path)
    env = gym.make("RoboGraph-v0", instance=str(path)).unwrapped
    quiet_check(env)
    obs, info = env.reset(seed=3)
    assert info["goal"] == ["PRESSED(lamp)"]
    assert json.loads(obs)["success_criterion"] == ["PRESSED(lamp)"]


def test_observation_is_the_appendix_b_payload(env):
    obs = json.loads(env.reset(seed=0)[0])
    assert list(obs) == ["task", "task_type", "settings", "success_criterion", "step", "action_catalog",
                         "action_constraints", "observation_timing", "recent_history",
                         "current_observation", "output_schema"]
    assert obs["step"] == 1 and len(obs["action_catalog"]) == 10
    assert list(obs["current_observation"]) == ["visible_nodes", "visible_edges", "held_objects", "robot"]


@pytest.mark.parametrize("bad", ["", "not json at all", "{\"action\": 3}", "{\"action\": {\"name\": \"\"}}",
                                 "[1, 2]", "{\"reason\": \"no action\"", "\x00\x01"])
def test_unparseable_replies_are_parse_error_steps(env, bad):
    obs, reward, terminated, truncated, info = env.step(bad)
    assert info == {"status": "failure", "failure_type": "parse_error", "step": 1}
    assert reward == 0.0 and not terminated and not truncated
    history = json.loads(obs)["recent_history"]
    assert history[-1]["event"] == {"status": "failure", "failure_type": "parse_error"}


@pytest.mark.parametrize("text, kind", [("fly desk", "unknown_action"), ("grab ghost", "unknown_node"),
                                        ("grab red_pen", "not_visible"), ("grab", "invalid_arguments")])
def test_bad_actions_are_typed_failures(env, text, kind):
    _, _, _, _, info = env.step(reply(text))
    assert info["failure_type"] == kind


def test_names_resolve_to_ids_and_fenced_json_is_accepted(env):
    _, _, _, _, info = env.step('```json\n{"action": {"name": "open", "object": "pencil case"}}\n```')
    assert info["status"] == "success"
    assert env.episode.graph.is_open("pencil_case")


def test_demo_solution_earns_the_reward(env):
    for text in DEMO_SOLUTION:
        _, reward, terminated, truncated, info = env.step(reply(text))
        assert info["status"] == "success", text
    assert reward == 1.0 and terminated and not truncated
    with pytest.raises(EpisodeError):  # stepping a finished episode is a typed error
        env.step(reply("observe"))


def test_broken_instance_file_is_a_typed_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"graph": {"nodes": []}, "goal": []}')
    with pytest.raises(InstanceError, match=r"\$\.graph\.nodes"):
        gym.make("RoboGraph-v0", instance=str(path))


def test_render_ansi():
    env = gym.make("RoboGraph-v0", render_mode="ansi").unwrapped
    env.reset(seed=0)
    text = env.render()
    assert "pencil_case" in text and "hands: left=None right=None" in text
