"""Typed errors of the compiler (all derive from RoboGraphError)."""

from __future__ import annotations

from robograph.errors import RoboGraphError


class CompileError(RoboGraphError):
    """A scene could not be compiled (no verified sample within the retry budget)."""


class AssetError(RoboGraphError):
    """An asset file is missing or inconsistent; the message names the file and the field."""
