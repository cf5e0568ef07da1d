"""Shared by the benchmark scripts: CPU time, which unlike wall time does not depend on how many
other jobs share the machine."""

from __future__ import annotations

import resource


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its child processes that have finished
    (a process pool's workers count once the pool has shut down)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
