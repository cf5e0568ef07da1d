"""At-most-once execution on the robot side: a request-id ledger kept on disk.

Each goal carries a request id. Before a skill moves anything the robot writes `started`; when it
ends it writes the result and the world after it. A goal whose id is already in the ledger is
answered from it and never executed again, including after the robot process restarts: an id
that was `started` but never finished (the process died mid-skill) is answered as interrupted.
One JSON object per line, appended and flushed, so a killed process loses at most the line it
was writing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Ledger:
    path: Path | None = None
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    world: dict[str, Any] | None = None  # the world graph (JSON) after the last finished request
    executions: dict[str, int] = field(default_factory=dict)  # times each id actually ran (tests)

    @classmethod
    def open(cls, path: Path | None) -> Ledger:
        ledger = cls(path=path)
        if path is None or not path.exists():
            return ledger
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a kill
            rid = rec["request_id"]
            if rec["event"] == "started":
                ledger.entries.setdefault(rid, {"state": "started"})
                ledger.executions[rid] = ledger.executions.get(rid, 0) + 1
            elif rec["event"] == "finished":
                ledger.entries[rid] = {"state": "finished", "result": rec["result"]}
                if rec.get("world") is not None:
                    ledger.world = rec["world"]
            elif rec["event"] == "reset":
                ledger.world = rec["world"]
        return ledger

    def _append(self, rec: dict[str, Any]) -> None:
        if self.path is None:
            return
        with self.path.open("a") as fh:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def lookup(self, request_id: str) -> dict[str, Any] | None:
        return self.entries.get(request_id)

    def start(self, request_id: str) -> None:
        self.entries[request_id] = {"state": "started"}
        self.executions[request_id] = self.executions.get(request_id, 0) + 1
        self._append({"event": "started", "request_id": request_id})

    def finish(self, request_id: str, result: dict[str, Any], world: dict[str, Any] | None) -> None:
        self.entries[request_id] = {"state": "finished", "result": result}
        if world is not None:
            self.world = world
        self._append({"event": "finished", "request_id": request_id, "result": result, "world": world})

    def reset(self, world: dict[str, Any]) -> None:
        self.world = world
        self._append({"event": "reset", "request_id": "", "world": world})
