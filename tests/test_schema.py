"""The published JSON Schemas: they are valid draft 2020-12 schemas, the shipped and compiled files
conform, structural and semantic problems are reported together, each with its JSON path, and
`robograph schema` prints what `validate` checks against."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from robograph.cli import main
from robograph.compiler.assets import load_assets
from robograph.compiler.compile import compile_scene
from robograph.errors import InstanceError
from robograph.gym_env import demo_instance_path
from robograph.instance import TaskInstance, validate_data
from robograph.schema import SCHEMA_NAMES, schema


@pytest.fixture(scope="module")
def compiled_text() -> str:
    return compile_scene(load_assets(), "desk", "tabletop", 1).instances["I4"].dumps()


@pytest.fixture
def compiled(compiled_text) -> dict:
    return json.loads(compiled_text)  # a fresh copy per test: tests break it on purpose


def demo_data() -> dict:
    return json.loads(demo_instance_path().read_text())


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schemas_are_valid_draft_2020_12(name):
    Draft202012Validator.check_schema(schema(name))


def test_schema_is_a_fresh_copy_each_call():
    first = schema("instance")
    first["properties"].clear()
    assert schema("instance")["properties"], "callers must not be able to change the published schema"


def test_shipped_demo_is_an_instance_but_not_a_compiled_episode():
    assert validate_data(demo_data()) == []
    paths = {p.path for p in validate_data(demo_data(), "episode")}
    assert {"$.metadata.oracle_plan", "$.metadata.tsh", "$.actions"} <= paths


def test_compiled_episode_conforms_to_the_episode_schema(compiled):
    assert validate_data(compiled, "episode") == []
    del compiled["metadata"]["tsh"]["maintain"]
    compiled["metadata"]["reference_rollout"]["fired"] = ["I9"]
    problems = [str(p) for p in validate_data(compiled, "episode")]
    assert any(p.startswith("$.metadata.tsh.maintain: missing") for p in problems)
    assert any(p.startswith("$.metadata.reference_rollout.fired[0]:") and "I9" in p for p in problems)


def test_structural_and_semantic_problems_come_together_each_with_its_path():
    data = demo_data()
    data["graph"]["nodes"][3]["kind"] = "vehicle"          # schema: closed vocabulary
    data["graph"]["nodes"][1]["capacity"] = -1              # schema: minimum
    data["graph"]["edges"][0]["to"] = "ghost"               # code: reference
    data["graph"]["edges"].append({"from": "desk", "relation": "ON"})  # schema: required key
    data["goal"].append("INSIDE(book, nowhere)")             # code: fact reference
    data["metadata"] = {"condition": "I7"}
    problems = validate_data(data)
    paths = [p.path for p in problems]
    n_edges = len(data["graph"]["edges"])
    expected = ["$.graph.nodes[1].capacity", "$.graph.nodes[3].kind", "$.graph.edges[0].to",
                f"$.graph.edges[{n_edges - 1}].to", "$.metadata.condition"]
    for path in expected:
        assert path in paths, (path, paths)
    structural = [expected[i] for i in (3, 0, 1, 4)]  # schema problems, sorted by path
    assert [p for p in paths if p in structural] == structural
    assert [p.path for p in problems if p.path.startswith("$.goal")] == [f"$.goal[{len(data['goal']) - 1}]"]
    assert "vehicle" in str(problems[paths.index("$.graph.nodes[3].kind")])
    with pytest.raises(InstanceError, match=r"\$\.graph\.nodes\[3\]\.kind"):
        TaskInstance.from_json(data)


def test_list_indices_are_ordered_as_numbers():
    data = demo_data()
    for i in (2, 10):
        data["graph"]["nodes"][i]["kind"] = "vehicle"
    paths = [p.path for p in validate_data(data)]
    assert paths.index("$.graph.nodes[2].kind") < paths.index("$.graph.nodes[10].kind")


def test_schema_cli_prints_the_schema_validate_uses(capsys, tmp_path):
    assert main(["schema", "episode"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == schema("episode")
    out = tmp_path / "instance.schema.json"
    assert main(["schema", "instance", "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == schema("instance")


def test_validate_cli_checks_against_the_episode_schema(capsys, tmp_path, compiled):
    path = tmp_path / "ep.json"
    path.write_text(json.dumps(compiled))
    assert main(["validate", "--schema", "episode", str(path)]) == 0
    assert main(["validate", "--schema", "episode", str(demo_instance_path())]) == 1
    assert "$.metadata.oracle_plan: missing" in capsys.readouterr().err


MUTATIONS = {
    "kind": lambda d: d["graph"]["nodes"][1].update(kind="vehicle"),
    "capacity": lambda d: d["graph"]["nodes"][1].update(capacity=-2),
    "edge_missing_to": lambda d: d["graph"]["edges"][0].pop("to"),
    "relation": lambda d: d["graph"]["edges"][0].update(relation="HOVERS"),
    "goal_type": lambda d: d.update(goal="INSIDE(a, b)"),
    "empty_nodes": lambda d: d["graph"].update(nodes=[]),
    "event_kind": lambda d: d.update(events=[{"kind": "I9"}]),
    "budget": lambda d: d.update(step_budget=0),
    "null_metadata": lambda d: d.update(metadata=None),
    "unchanged": lambda d: None,
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_fast_check_and_reference_validator_agree(name):
    from fastjsonschema import JsonSchemaException

    from robograph.schema import _accepts, _validator

    data = demo_data()
    MUTATIONS[name](data)
    reference_ok = not list(_validator("instance").iter_errors(data))
    try:
        _accepts("instance")(data)
        fast_ok = True
    except JsonSchemaException:
        fast_ok = False
    assert fast_ok == reference_ok
    assert reference_ok == (name in ("unchanged", "null_metadata"))
