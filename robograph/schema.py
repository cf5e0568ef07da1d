"""Published JSON Schemas (draft 2020-12) of the two file formats: a task instance (hand-written or
compiled) and a compiled benchmark episode (an instance whose metadata carries the compiler's
record: scene, condition, oracle plan, C_distance, TSH, reference rollout).

The schemas check structure only: types, required keys and the closed vocabularies (node kinds,
affordances, relations, actions, intervention kinds, conditions), all taken from the code's own
constants so the schema cannot drift from what the loader accepts. What a schema cannot express
(edges and facts naming existing nodes, one location per node, location cycles, the robot's hands)
stays as code in `robograph.instance.validate_data`, which reports both kinds of problem together.
`robograph schema instance|episode` prints them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator

from robograph.actions import ACTION_NAMES
from robograph.errors import Problem
from robograph.events import CONDITIONS, INTERVENTIONS
from robograph.graph import AFFORDANCES, NODE_KINDS, RELATIONS

SCHEMA_NAMES: tuple[str, ...] = ("instance", "episode")
DIALECT = "https://json-schema.org/draft/2020-12/schema"

_STRINGS = {"type": "array", "items": {"type": "string"}}


def _defs() -> dict[str, Any]:
    return {
        "node": {
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "string", "minLength": 1},
                "name": {"type": "string"},
                "category": {"type": "string"},
                "kind": {"enum": sorted(NODE_KINDS)},
                "affordances": {"type": "array", "items": {"enum": sorted(AFFORDANCES)}},
                "capacity": {"type": "integer", "minimum": 0},
                "attrs": {"type": "object", "description": "mutable state: open, pressed, room, left, right, ..."},
                "props": {"type": "object", "description": "static per-node extras (e.g. rgba) for backends"},
            },
        },
        "edge": {
            "type": "object",
            "required": ["from", "relation", "to"],
            "properties": {
                "from": {"type": "string"},
                "relation": {"enum": sorted(RELATIONS)},
                "to": {"type": "string"},
                "when": {"type": "object", "description": "attribute values under which the edge is active"},
            },
        },
        "event": {
            "type": "object",
            "required": ["kind"],
            "properties": {
                "id": {"type": "string"},
                "kind": {"enum": list(INTERVENTIONS)},
                "min_step": {"type": "integer", "minimum": 0},
                "params": {"type": "object"},
            },
        },
    }


def instance_schema() -> dict[str, Any]:
    """The task-instance format (`robograph validate`, `load_instance`). A fresh dict per call."""
    return {
        "$schema": DIALECT,
        "$id": "urn:robograph:schema:instance",
        "title": "RoboGraph task instance",
        "description": "I = (G0, goal, action catalog, view rules, events) plus metadata; facts are "
                       "strings like 'INSIDE(pen, pencil_case)'.",
        "type": "object",
        "required": ["graph", "goal"],
        "properties": {
            "id": {"type": "string"},
            "task": {"type": "string"},
            "task_type": {"type": "string"},
            "settings": _STRINGS,
            "graph": {
                "type": "object",
                "required": ["nodes"],
                "properties": {
                    "nodes": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/node"}},
                    "edges": {"type": "array", "items": {"$ref": "#/$defs/edge"}},
                },
            },
            "goal": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            "actions": {"type": ["array", "null"], "items": {"enum": list(ACTION_NAMES)},
                        "description": "catalog subset; default: the scene's (walk only with rooms)"},
            "events": {"type": ["array", "null"], "items": {"$ref": "#/$defs/event"}},
            "step_budget": {"type": "integer", "minimum": 1},
            "view": {"type": "object"},
            "metadata": {
                "type": ["object", "null"],
                "properties": {"condition": {"enum": list(CONDITIONS)}},
            },
        },
        "$defs": _defs(),
    }


def episode_schema() -> dict[str, Any]:
    """A compiled benchmark episode file (`robograph compile --benchmark`): an instance with every
    top-level key present and the compiler's metadata."""
    schema = instance_schema()
    schema.update({
        "$id": "urn:robograph:schema:episode",
        "title": "RoboGraph compiled benchmark episode",
        "description": "A task instance written by the compiler: one scene in one condition, with "
                       "the oracle plan, C_distance, TSH and the verifying reference rollout.",
        "required": ["id", "task", "task_type", "settings", "graph", "goal", "actions", "events",
                     "step_budget", "metadata"],
    })
    count = {"type": "integer", "minimum": 0}
    schema["properties"]["metadata"] = {
        "type": "object",
        "required": ["scene_id", "family", "domain", "condition", "seed", "subgoals", "oracle_length",
                     "oracle_plan", "action_distance", "tsh", "reference_rollout"],
        "properties": {
            "scene_id": {"type": "string"},
            "family": {"type": "string"},
            "domain": {"enum": ["tabletop", "indoor"]},
            "variant": {"type": ["string", "null"]},
            "condition": {"enum": list(CONDITIONS)},
            "seed": count,
            "subgoals": count,
            "target_subgoals": count,
            "oracle_length": count,
            "target_oracle_length": count,
            "oracle_plan": _STRINGS,
            "action_distance": count,
            "tsh": {"type": "object", "required": ["explore", "maintain", "update"],
                    "properties": {k: count for k in ("explore", "maintain", "update")}},
            "reference_rollout": {
                "type": "object",
                "required": ["steps", "success", "fired", "goal_size"],
                "properties": {"steps": count, "success": {"type": "boolean"},
                               "fired": {"type": "array", "items": {"enum": list(INTERVENTIONS)}},
                               "goal_size": count},
            },
        },
    }
    return schema


_SCHEMAS = {"instance": instance_schema, "episode": episode_schema}


def schema(name: str) -> dict[str, Any]:
    """The named schema (`instance` or `episode`) as a fresh dict."""
    try:
        return _SCHEMAS[name]()
    except KeyError:
        from robograph.errors import RoboGraphError

        raise RoboGraphError(f"unknown schema {name!r}; valid: {', '.join(SCHEMA_NAMES)}") from None


@lru_cache(maxsize=len(SCHEMA_NAMES))
def _validator(name: str) -> Draft202012Validator:
    # built once per process: compiling the schema costs more than checking a file with it
    return Draft202012Validator(schema(name))


@lru_cache(maxsize=len(SCHEMA_NAMES))
def _accepts(name: str) -> Any:
    """A fast yes/no check of the same schema, compiled to Python by fastjsonschema (about 5x
    faster than jsonschema here; every episode load and every compiled file goes through it).
    The schemas use only keywords whose meaning is the same in draft-07, which fastjsonschema
    implements, and 2020-12; jsonschema, the reference, writes the report when it says no."""
    return fastjsonschema.compile({**schema(name), "$schema": "http://json-schema.org/draft-07/schema#"})


def structural_problems(data: Mapping[str, Any], name: str = "instance") -> list[Problem]:
    """Every schema violation of `data`, located by JSON path, sorted by path (indices as numbers)."""
    try:
        _accepts(name)(data)
        return []
    except fastjsonschema.JsonSchemaException:
        pass
    problems: list[Problem] = []
    for error in _validator(name).iter_errors(data):
        if error.validator == "required":
            # one error per missing key, each named by its own path like every other problem
            missing = [k for k in error.validator_value if isinstance(error.instance, Mapping) and k not in error.instance]
            for key in missing:
                problem = Problem(f"{error.json_path}.{key}", "missing (a required key)")
                if problem not in problems:
                    problems.append(problem)
        else:
            problems.append(Problem(error.json_path, error.message))
    return sorted(problems, key=lambda p: _path_order(p.path))


def _path_order(path: str) -> tuple[tuple[int, int, str], ...]:
    parts = path.replace("[", ".[").split(".")[1:]
    return tuple((0, int(p[1:-1]), "") if p.startswith("[") else (1, 0, p) for p in parts)
