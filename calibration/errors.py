"""Errors of the calibration layer: one root (`CalibrationError`, itself a `RoboGraphError` so the
CLI prints it as one line); every message says what was wrong and what would be valid."""

from __future__ import annotations

from robograph.errors import RoboGraphError


class CalibrationError(RoboGraphError):
    """Root of every error this package raises on purpose."""


class ConventionError(CalibrationError, ValueError):
    """An unknown camera-frame convention name."""


class TooFewViews(CalibrationError):
    """A solve that would be under-determined (or unreliable) with the views that were usable."""

    def __init__(self, what: str, usable: int, needed: int, detail: str = "") -> None:
        self.usable, self.needed = usable, needed
        extra = f" ({detail})" if detail else ""
        super().__init__(f"{what}: {usable} usable view(s), at least {needed} needed{extra}")


class CalibrationFileError(CalibrationError):
    """A camera calibration YAML, rig file or pose file that is unreadable or inconsistent."""

