"""Whole-file writes that a kill cannot tear.

A reader (a resumed run, `report`, a benchmark reused from disk) must see either the old file or
the new one, never a truncated mix: the text goes to a temporary file in the same directory, is
flushed (and fsynced when `durable`), then renamed over the target, which POSIX makes atomic.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | Path, text: str, durable: bool = True) -> None:
    """Replace `path` with `text` (UTF-8) in one rename; the directory must exist."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
