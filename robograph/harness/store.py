"""Results storage: an append-only JSONL log that survives being killed.

Each rollout's lines (its step records, then its rollout record) are written with one
`os.write` on an O_APPEND descriptor, so concurrent writers never interleave and a rollout lands
all-or-nothing: a kill can only leave a torn *tail*, which `recover_log` trims back to the end of
the last complete rollout record before a run resumes. Infrastructure errors go to a separate
file and never mark a rollout done. When a run completes, `write_results` writes the canonical
results file (rollouts sorted by key, deterministic bytes), so an interrupted-and-resumed run
and an uninterrupted one give the same file. The run file (`run.json`) records the configuration,
a digest of the instance set and seeds, and every planned rollout key: the runner refuses to
resume into a different experiment, and `report` counts what is missing against it. Whole-file
writes (run, timing, results) go through `robograph.fileio.write_text_atomic`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from robograph.fileio import write_text_atomic

LOG = "log.jsonl"
RESULTS = "results.jsonl"
ERRORS = "errors.jsonl"
CONFIG = "run.json"
TIMING = "timing.json"
# wall-clock figures of a step (timing breakdown, agent latency): kept in the log, left out of the
# results file so that it stays byte-identical across reruns
MEASURED = "measured"


def dumps(record: dict[str, Any]) -> str:
    """One canonical JSON line (sorted keys, no NaN)."""
    return json.dumps(record, sort_keys=True, allow_nan=False, separators=(",", ":"))


def append_atomic(path: Path, lines: Iterable[str], durable: bool = True) -> None:
    """Append whole lines with a single write on an O_APPEND descriptor (then fsync)."""
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def recover_log(path: Path) -> set[str]:
    """Trim a torn or unfinished tail and return the keys of complete rollouts."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    keep = 0
    done: set[str] = set()
    pos = 0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        line = data[pos:end]
        pos = end + 1
        try:
            rec = json.loads(line)
        except ValueError:
            break  # corrupt line: everything from here on is unreliable
        if isinstance(rec, dict) and rec.get("type") == "rollout":
            done.add(str(rec["key"]))
            keep = pos
    if keep != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(keep)
    return done


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except ValueError:
                return


def write_results(run: Path) -> Path:
    """Canonical results: for each rollout key (sorted), its step lines then its rollout line
    (without the step's wall-clock `measured` figures)."""
    groups: dict[str, list[str]] = {}
    pending: list[dict[str, Any]] = []
    for rec in read_jsonl(run / LOG):
        if rec.get("type") == "step":
            rec.pop(MEASURED, None)
            pending.append(rec)
            continue
        if rec.get("type") == "rollout":
            key = str(rec["key"])
            lines = [dumps(r) for r in pending if r.get("key") == key] + [dumps(rec)]
            groups.setdefault(key, lines)
            pending = [r for r in pending if r.get("key") != key]
    out = run / RESULTS
    write_text_atomic(out, "".join("\n".join(groups[key]) + "\n" for key in sorted(groups)))
    return out


def expected_rollouts(run: Path) -> list[str] | None:
    """Keys of every rollout the run was planned with, from its run file (None when the run file
    is missing or predates the list)."""
    path = run / CONFIG
    if not path.is_file():
        return None
    keys = json.loads(path.read_text(encoding="utf-8")).get("rollouts")
    return [str(k) for k in keys] if isinstance(keys, list) else None


def error_keys(run: Path) -> set[str]:
    """Keys of rollouts that hit an infrastructure error at least once (retried on resume)."""
    return {str(r["key"]) for r in read_jsonl(run / ERRORS) if "key" in r}


def rollout_records(run: Path) -> list[dict[str, Any]]:
    """Rollout records of a run: the canonical file when complete, else the log so far."""
    path = run / RESULTS if (run / RESULTS).exists() else run / LOG
    return [r for r in read_jsonl(path) if r.get("type") == "rollout"]
