"""Turn a model's raw reply into the output schema of Figure 12, or a typed parse failure.

Real models wrap JSON in code fences or prose, use typographic quotes, leave trailing commas and
name objects by their visible name ("red pen") instead of their id. All of that is accepted;
anything else becomes a `ParseFailure` (never an exception), which the runtime counts as a step.
Agent output is data: it is only ever decoded with `json.loads`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from robograph.actions import Action
from robograph.graph import ROBOT_ID, SceneGraph

_SMART = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'", "\u00a0": " "})
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_CALL = re.compile(r"^\s*([A-Za-z_]+)\s*\((.*)\)\s*$", re.DOTALL)


@dataclass(frozen=True)
class Recovery:
    required: bool = False
    failed_action: str | None = None
    failed_node_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedResponse:
    """A reply that decoded into the Figure 12 schema (the action may still be invalid: that is
    the runtime's precondition check, not a parse error)."""

    action: Action
    reason: str = ""
    recovery: Recovery = field(default_factory=Recovery)
    raw: str = ""

    ok = True

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "recovery": {
                "required": self.recovery.required,
                "failed_action": self.recovery.failed_action,
                "failed_node_ids": list(self.recovery.failed_node_ids),
            },
            "action": {"name": self.action.name, "node_ids": list(self.action.args)},
        }


@dataclass(frozen=True)
class ParseFailure:
    """A reply that could not be read as an action; the runner records it as a `parse_error`
    step that counts against the agent (`Episode.fail_step`)."""

    reason: str
    raw: str = ""

    ok = False


ParseResult = ParsedResponse | ParseFailure


def _candidates(text: str) -> list[str]:
    """Possible JSON object texts, most likely first: fenced blocks, then balanced braces."""
    out = [m.group(1) for m in _FENCE.finditer(text)]
    depth, start, in_str, esc = 0, -1, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(text[start : i + 1])
    out.append(text)
    return out


def _decode(text: str) -> Any:
    for cand in _candidates(text):
        cand = cand.strip()
        for variant in (cand, _TRAILING_COMMA.sub(r"\1", cand)):
            try:
                data = json.loads(variant)
            except (json.JSONDecodeError, RecursionError):
                continue
            if isinstance(data, dict):
                return data
    return None


def _as_ids(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence):
        return [str(v) for v in value if v not in (None, "")]
    return [str(value)]


def name_table(nodes: Iterable[tuple[str, str]], extra_ids: Iterable[str] = ()) -> dict[str, str]:
    """Lower-cased ids and display names -> ids. A name shared by several nodes is left out, so
    it stays unresolved and the runtime reports it exactly like an unknown id (`unknown_node`);
    an id always wins over another node's display name."""
    by_name: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    for nid, name in nodes:
        ids[nid.lower()] = nid
        by_name.setdefault(name.strip().lower(), set()).add(nid)
    for nid in extra_ids:
        ids[nid.lower()] = nid
    out = {name: next(iter(found)) for name, found in by_name.items() if len(found) == 1 and name}
    out.update(ids)
    return out


def scene_names(graph: SceneGraph) -> dict[str, str]:
    """Names an agent that sees camera images may use: every node of the scene (visual mode;
    display names are unique per scene, whether or not the node is in view)."""
    return name_table((nid, str(node.name)) for nid, node in graph.nodes.items() if nid != ROBOT_ID)


def _resolver(observation: Mapping[str, Any] | None) -> dict[str, str]:
    """Names an agent that reads the symbolic observation may use: the nodes in it."""
    if not observation:
        return {}
    nodes = list(observation.get("visible_nodes", [])) + list(observation.get("held_objects", []))
    robot = observation.get("robot") or {}
    rooms = [str(r) for r in [robot.get("current_room"), *robot.get("adjacent_rooms", [])] if r]
    return name_table(((str(n.get("id")), str(n.get("name", ""))) for n in nodes), rooms)


def parse_response(
    text: str, observation: Mapping[str, Any] | None = None, names: Mapping[str, str] | None = None
) -> ParseResult:
    """Parse one reply. Node ids may be given as display names: resolved through `names` (see
    `scene_names`) when given, else through `observation` (the symbolic current_observation)."""
    if not isinstance(text, str) or not text.strip():
        return ParseFailure("empty reply", text if isinstance(text, str) else "")
    # straight-quoted JSON may contain typographic quotes inside strings: try it as sent first
    data = _decode(text)
    if data is None:
        data = _decode(text.translate(_SMART))
    if data is None:
        return ParseFailure("no JSON object found in reply", text)
    action = data.get("action")
    if isinstance(action, str):
        action = {"name": action}
    if not isinstance(action, Mapping):
        return ParseFailure("reply has no 'action' object", text)
    name = action.get("name")
    if not isinstance(name, str) or not name.strip():
        return ParseFailure("action.name is missing or not a string", text)
    node_ids = _as_ids(action.get("node_ids"))
    if not node_ids:
        node_ids = _as_ids(action.get("object")) + _as_ids(action.get("target"))
    call = _CALL.match(name)
    if call and not node_ids:  # "grab(red_pen)" / "putin(pen, case)" written into the name
        name = call.group(1)
        node_ids = [a for a in (p.strip().strip("'\"") for p in call.group(2).split(",")) if a]
    resolve = names if names is not None else _resolver(observation)
    if resolve:
        node_ids = [resolve.get(n.strip().lower(), n) for n in node_ids]
    rec = data.get("recovery") if isinstance(data.get("recovery"), Mapping) else {}
    failed_action = rec.get("failed_action")
    recovery = Recovery(
        required=rec.get("required") in (True, "true", "True"),
        failed_action=str(failed_action) if failed_action else None,
        failed_node_ids=tuple(_as_ids(rec.get("failed_node_ids"))),
    )
    reason = data.get("reason")
    return ParsedResponse(
        action=Action(name.strip().lower(), tuple(n.strip() for n in node_ids)),
        reason=reason if isinstance(reason, str) else "",
        recovery=recovery,
        raw=text,
    )
