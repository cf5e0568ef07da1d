"""Agents behind one protocol (`Agent`): the privileged oracle, the view-only explorer, the
random baseline and OpenAI-compatible model clients. `AGENTS` is the plain-data registry that
feeds the CLI's choices; `make_agent(name, **options)` builds one."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from robograph.agents.base import (
    Agent,
    AgentError,
    AgentUnavailable,
    Reply,
    Request,
    reply_text,
)


def _oracle(**options: Any) -> Agent:
    from robograph.agents.oracle_agent import OracleAgent

    return OracleAgent(**options)


def _explorer(**options: Any) -> Agent:
    from robograph.agents.explorer import ExplorerAgent

    return ExplorerAgent(**options)


def _visual_explorer(**options: Any) -> Agent:
    from robograph.agents.visual_explorer import VisualExplorerAgent

    return VisualExplorerAgent(**options)


def _random(**options: Any) -> Agent:
    from robograph.agents.random_agent import RandomAgent

    return RandomAgent(**options)


def _openai(**options: Any) -> Agent:
    from robograph.agents.openai_agent import OpenAIAgent

    return OpenAIAgent(**options)


AGENTS: Mapping[str, Callable[..., Agent]] = {
    "oracle": _oracle,
    "explorer": _explorer,
    "visual_explorer": _visual_explorer,
    "random": _random,
    "openai": _openai,
}


def _keyword_options(cls: type) -> tuple[str, ...]:
    params = inspect.signature(cls).parameters.values()
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def option_names(name: str) -> tuple[str, ...]:
    """The `--agent-opt` keys agent `name` accepts (for fail-fast checks and error messages)."""
    if name == "openai":  # its options are the client settings
        from robograph.agents.openai_agent import ClientConfig

        return tuple(f.name for f in fields(ClientConfig))
    return _keyword_options(type(AGENTS[name]()))


def make_agent(name: str, **options: Any) -> Agent:
    factory = AGENTS.get(name)
    if factory is None:
        raise AgentError(f"unknown agent {name!r}; valid: {', '.join(AGENTS)}")
    if options:
        valid = option_names(name)
        unknown = sorted(set(options) - set(valid))
        if unknown:
            raise AgentError(
                f"unknown --agent-opt {', '.join(unknown)} for agent {name!r}; valid: {', '.join(valid) or 'none'}"
            )
    try:
        return factory(**options)
    except TypeError as exc:
        raise AgentError(f"bad options for agent {name!r}: {exc}") from None


__all__ = [
    "AGENTS", "Agent", "AgentError", "AgentUnavailable", "Reply", "Request", "make_agent", "option_names", "reply_text",
]
