"""Agents behind one protocol (`Agent`): the privileged oracle, the view-only explorer, the
random baseline and OpenAI-compatible model clients. `AGENTS` is the plain-data registry that
feeds the CLI's choices; `make_agent(name, **options)` builds one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


def _random(**options: Any) -> Agent:
    from robograph.agents.random_agent import RandomAgent

    return RandomAgent(**options)


def _openai(**options: Any) -> Agent:
    from robograph.agents.openai_agent import OpenAIAgent

    return OpenAIAgent(**options)


AGENTS: Mapping[str, Callable[..., Agent]] = {
    "oracle": _oracle,
    "explorer": _explorer,
    "random": _random,
    "openai": _openai,
}


def make_agent(name: str, **options: Any) -> Agent:
    factory = AGENTS.get(name)
    if factory is None:
        raise AgentError(f"unknown agent {name!r}; valid: {', '.join(AGENTS)}")
    try:
        return factory(**options)
    except TypeError as exc:
        raise AgentError(f"bad options for agent {name!r}: {exc}") from None


__all__ = ["AGENTS", "Agent", "AgentError", "AgentUnavailable", "Reply", "Request", "make_agent", "reply_text"]
