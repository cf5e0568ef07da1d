"""parse_response: what real models emit is accepted; everything else is a typed ParseFailure."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robograph.actions import Action
from robograph.harness import ParsedResponse, ParseFailure, parse_response
from robograph.harness.payload import ACTION_CONSTRAINTS, OUTPUT_SCHEMA, SYSTEM_PROMPT, build_payload

OBS = {
    "visible_nodes": [
        {"id": "red_pen", "name": "red pen", "category": "pen"},
        {"id": "pencil_case", "name": "pencil case", "category": "pencil_case", "open": True},
        {"id": "drawer_1", "name": "drawer", "category": "drawer", "open": False},
        {"id": "drawer_2", "name": "drawer", "category": "drawer", "open": False},
    ],
    "visible_edges": [],
    "held_objects": [{"id": "eraser", "name": "eraser"}],
    "robot": {"hands": {"left": "eraser", "right": None}},
}
GOOD = {
    "reason": "the pen is visible",
    "recovery": {"required": False, "failed_action": None, "failed_node_ids": []},
    "action": {"name": "grab", "object": "red_pen", "target": None, "node_ids": ["red_pen"]},
}


def ok(text: str, obs=OBS) -> ParsedResponse:
    res = parse_response(text, obs)
    assert isinstance(res, ParsedResponse), res
    return res


def test_plain_json():
    res = ok(json.dumps(GOOD))
    assert res.action == Action("grab", ("red_pen",)) and res.reason == "the pen is visible"
    assert res.ok and not res.recovery.required


def test_fenced_json_with_prose_around():
    text = "Sure! Here is my decision:\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\nGood luck."
    assert ok(text).action == Action("grab", ("red_pen",))


def test_unlabelled_fence_and_bare_object_in_prose():
    assert ok("```\n" + json.dumps(GOOD) + "\n```").action.name == "grab"
    assert ok("I think " + json.dumps(GOOD) + " is right").action.name == "grab"


def test_smart_quotes_and_trailing_commas():
    text = '{\u201caction\u201d: {\u201cname\u201d: \u201cputin\u201d, \u201cnode_ids\u201d: [\u201ceraser\u201d, \u201cpencil_case\u201d,],},}'
    assert ok(text).action == Action("putin", ("eraser", "pencil_case"))


def test_typographic_quotes_inside_straight_json_strings_survive():
    data = dict(GOOD, reason="the \u201cred pen\u201d is in view, isn\u2019t it")
    res = ok(json.dumps(data, ensure_ascii=False))
    assert res.reason == "the \u201cred pen\u201d is in view, isn\u2019t it"


def test_visible_names_resolve_to_ids_when_unambiguous():
    text = json.dumps({"action": {"name": "putin", "object": "Eraser", "target": "pencil case"}})
    assert ok(text).action == Action("putin", ("eraser", "pencil_case"))


def test_ambiguous_names_are_left_as_they_are():
    text = json.dumps({"action": {"name": "open", "node_ids": ["drawer"]}})
    assert ok(text).action == Action("open", ("drawer",))  # two visible nodes are called "drawer"


def test_names_are_not_resolved_without_an_observation():
    assert ok(json.dumps({"action": {"name": "grab", "object": "red pen"}}), None).action.args == ("red pen",)


def test_ids_win_over_names_and_case_is_normalized():
    text = json.dumps({"action": {"name": "GRAB", "node_ids": ["RED_PEN"]}})
    assert ok(text).action == Action("grab", ("red_pen",))


def test_action_given_as_call_or_string():
    assert ok('{"action": {"name": "grab(red_pen)"}}').action == Action("grab", ("red_pen",))
    assert ok('{"action": "stop"}').action == Action("stop")


def test_recovery_fields():
    data = dict(GOOD, recovery={"required": "true", "failed_action": "open", "failed_node_ids": "drawer_1"})
    res = ok(json.dumps(data))
    assert res.recovery.required and res.recovery.failed_action == "open"
    assert res.recovery.failed_node_ids == ("drawer_1",)
    assert res.to_json()["recovery"] == {"required": True, "failed_action": "open", "failed_node_ids": ["drawer_1"]}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("I will grab the pen.", "no JSON"),
        ('{"reason": "no action here"}', "no 'action'"),
        ('{"action": {"node_ids": ["red_pen"]}}', "action.name"),
        ('{"action": {"name": 3}}', "action.name"),
        ("[1, 2, 3]", "no JSON"),
        ('{"action": {"name": "grab"', "no JSON"),
    ],
)
def test_failures_are_typed_never_raised(text, why):
    res = parse_response(text, OBS)
    assert isinstance(res, ParseFailure) and not res.ok
    assert why in res.reason and res.raw == text


def test_non_string_input_is_a_failure():
    assert isinstance(parse_response(None), ParseFailure)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_fuzz_arbitrary_text_never_raises(text):
    res = parse_response(text, OBS)
    assert isinstance(res, (ParsedResponse, ParseFailure))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["action", "reason", "recovery", "x"]), json_values, max_size=4))
def test_fuzz_schema_shaped_json_never_raises(data):
    res = parse_response(json.dumps(data), OBS)
    assert isinstance(res, (ParsedResponse, ParseFailure))
    if isinstance(res, ParsedResponse):
        assert all(isinstance(a, str) for a in res.action.args)


def test_deeply_nested_braces_do_not_crash():
    assert isinstance(parse_response("{" * 5000 + "}" * 5000), ParseFailure)


# payload: Appendix B verbatim ---------------------------------------------------------------------
def test_payload_matches_appendix_b(demo, episode_of):
    ep = episode_of(demo)
    payload = build_payload(ep)
    assert list(payload) == [
        "task", "task_type", "settings", "success_criterion", "step", "action_catalog",
        "action_constraints", "observation_timing", "recent_history", "current_observation",
        "output_schema",
    ]
    assert SYSTEM_PROMPT.splitlines() == [
        "You are a policy for high-level embodied task evaluation.",
        "Choose exactly one semantic action using the action catalog and the provided observation.",
        "Output strict JSON only.",
    ]
    # the standard protocol has no `recover`, so its constraint text is not sent (assisted only)
    assert len(ACTION_CONSTRAINTS) == 8 and not any("recover as" in c for c in payload["action_constraints"])
    assert set(OUTPUT_SCHEMA) == {"reason", "recovery", "action"}
    assert set(OUTPUT_SCHEMA["action"]) == {"name", "object", "target", "node_ids"}
    assert "walk" not in payload["action_catalog"] and len(payload["action_catalog"]) == 10
    assert set(payload["current_observation"]) == {"visible_nodes", "visible_edges", "held_objects", "robot"}
    assert payload["step"] == 1 and payload["recent_history"] == []


def test_history_window_is_16(demo, episode_of):
    ep = episode_of(demo)
    for _ in range(20):
        ep.step(Action("observe"))
    hist = build_payload(ep)["recent_history"]
    assert [h["step"] for h in hist] == list(range(5, 21))
    assert hist[-1] == {"step": 20, "action": {"name": "observe", "node_ids": []},
                        "event": {"status": "success", "failure_type": None}}
