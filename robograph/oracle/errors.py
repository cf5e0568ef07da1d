"""Errors of the exact oracle."""

from __future__ import annotations

from robograph.errors import RoboGraphError


class OracleError(RoboGraphError):
    """The oracle cannot produce a plan: the goal is unreachable under the action semantics, the
    search ran over its expansion budget, or the input is outside what the oracle models."""
