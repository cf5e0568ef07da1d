"""Agents behind one protocol: what each sees, that replies parse, and how they behave."""

from __future__ import annotations

import json

import pytest
from builders import Scene

from robograph.actions import Action
from robograph.agents import AGENTS, Agent, AgentError, Reply, Request, make_agent
from robograph.agents.random_agent import grounded_actions
from robograph.events import EventSpec
from robograph.harness import parse_response
from robograph.harness.payload import build_payload
from robograph.harness.rollout import run_rollout
from robograph_backends.symbolic import SymbolicBackend


def rollout(instance, agent, seed=0):
    return run_rollout(instance, agent, SymbolicBackend(), seed=seed)


def test_every_agent_satisfies_the_protocol():
    for name in ("oracle", "explorer", "visual_explorer", "random"):
        agent = make_agent(name)
        assert isinstance(agent, Agent) and agent.name == name
    assert make_agent("oracle").privileged and not make_agent("explorer").privileged
    with pytest.raises(AgentError, match="valid: oracle, explorer, visual_explorer, random, openai"):
        make_agent("gpt")
    with pytest.raises(AgentError, match="unknown --agent-opt colour .*valid: memory, exploration, recheck, seed"):
        make_agent("explorer", colour="red")
    assert set(AGENTS) == {"oracle", "explorer", "visual_explorer", "random", "openai"}


class Spy:
    """An unprivileged agent that records what it was given."""

    name = "spy"
    privileged = False

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def reset(self, seed: int) -> None:
        pass

    def act(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply('{"action": {"name": "stop"}}')


def test_only_privileged_agents_get_the_latent_episode(demo):
    spy = Spy()
    rollout(demo, spy)
    assert spy.requests and all(r.latent is None for r in spy.requests)
    assert "graph" not in json.dumps(spy.requests[0].payload)


def test_oracle_refuses_to_run_without_latent(demo, episode_of):
    with pytest.raises(AgentError, match="privileged"):
        make_agent("oracle").act(Request("s", build_payload(episode_of(demo))))


def test_oracle_solves_demo_optimally(demo):
    from robograph.oracle import solve

    out = rollout(demo, make_agent("oracle"))
    assert out.trace.success
    assert len(out.trace.states) - 1 == solve(demo.graph, demo.goal, demo.actions).length


def events_demo(demo, kind, **params):
    return demo.with_events([EventSpec(kind.lower(), kind, 2, params)], condition=kind)


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("I1", {}),
        ("I2", {}),
        ("I3", {"staging": ["desk"]}),
        ("I5", {"pairs": [["book", "eraser"], ["stapler", "red_pen"]]}),
    ],
)
def test_oracle_and_explorer_recover_from_interventions(demo, kind, params):
    inst = events_demo(demo, kind, **params)
    for name in ("oracle", "explorer"):
        out = rollout(inst, make_agent(name))
        assert any(s.record.events for s in out.trace.states), (name, kind)
        assert out.trace.success, (name, kind)


def test_oracle_marks_recovery_after_injected_failure(demo):
    out = rollout(events_demo(demo, "I1"), make_agent("oracle"))
    failed = [i for i, s in enumerate(out.trace.states) if s.record.failure_type == "execution_failed"]
    nxt = out.trace.states[failed[0] + 1]
    assert nxt.parsed.recovery.required and nxt.parsed.recovery.failed_action == out.trace.states[failed[0]].action.name


def test_explorer_sees_only_the_payload_and_succeeds(demo):
    out = rollout(demo, make_agent("explorer"))
    assert out.trace.success
    assert all(s.record.failure_type is None for s in out.trace.states)


def test_explorer_replies_follow_the_output_schema(demo, episode_of):
    agent = make_agent("explorer")
    ep = episode_of(demo)
    text = agent.act(Request("s", build_payload(ep))).text
    data = json.loads(text)
    assert set(data) == {"reason", "recovery", "action"}
    assert set(data["recovery"]) == {"required", "failed_action", "failed_node_ids"}
    assert not isinstance(parse_response(text), type(None))


def test_explorer_walks_rooms_to_find_objects():
    scene = (
        Scene()
        .room("kitchen").room("hall").room("bedroom")
        .adjacent("kitchen", "hall").adjacent("hall", "bedroom")
        .robot_in("kitchen")
        .surface("counter").in_room("counter", "kitchen")
        .surface("bed").in_room("bed", "bedroom")
        .item("pillow").on("pillow", "bed")
    )
    out = rollout(scene.instance(["ON(pillow, counter)"]), make_agent("explorer"))
    assert out.trace.success
    assert [s.action.name for s in out.trace.states].count("walk") == 4


def test_explorer_deficits_change_behaviour(demo):
    full = rollout(demo, make_agent("explorer"))
    no_explore = rollout(demo, make_agent("explorer", exploration=False))
    assert not no_explore.trace.success and no_explore.trace.states[-1].action.name == "stop"
    assert len(no_explore.trace.states) < len(full.trace.states)
    no_memory = rollout(demo, make_agent("explorer", memory=False))
    repeats = len(no_memory.trace.states) - len({s.action for s in no_memory.trace.states})
    assert repeats > 10
    inst = events_demo(demo, "I3", staging=["desk"])
    assert rollout(inst, make_agent("explorer")).trace.success
    assert not rollout(inst, make_agent("explorer", recheck=False)).trace.success


def test_random_agent_is_seeded_and_grounded(demo, episode_of):
    payload = build_payload(episode_of(demo))
    actions = grounded_actions(payload)
    visible = {n["id"] for n in payload["current_observation"]["visible_nodes"]}
    assert Action("stop") in actions and Action("observe") in actions
    assert all(set(a.args) <= visible for a in actions)
    assert all(a.name != "walk" for a in actions)
    a = [s.action for s in rollout(demo, make_agent("random"), seed=3).trace.states]
    b = [s.action for s in rollout(demo, make_agent("random"), seed=3).trace.states]
    c = [s.action for s in rollout(demo, make_agent("random"), seed=4).trace.states]
    assert a == b and a != c
