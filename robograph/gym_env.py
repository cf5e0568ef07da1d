"""Gymnasium wrapper: observation = the Appendix B payload as JSON text, action = a JSON reply.

Registered as `RoboGraph-v0` when `robograph` is imported. `gym.make("RoboGraph-v0")` plays the
built-in demo instance; `gym.make("RoboGraph-v0", instance="path/to/episode.json")` any file.
Reward is 1.0 on a successful stop and 0.0 otherwise (Succ of Eq. 5). The env owns its backend,
also one passed in: `close()` closes it (a physical backend holds a simulator and renderers).
"""

from __future__ import annotations

import json
import string
from importlib.resources import files
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from robograph.backend import Backend
from robograph.failures import ActionFailure, FailureType
from robograph.harness.parse import ParseFailure, parse_response
from robograph.harness.payload import build_payload
from robograph.instance import TaskInstance, load_instance
from robograph.registry import make_backend
from robograph.runtime import Episode
from robograph.view import observation

MAX_TEXT = 1_000_000
CHARSET = frozenset(string.printable)


def demo_instance_path() -> Path:
    return Path(str(files("robograph") / "data" / "demo_desk.json"))


class RoboGraphEnv(gym.Env[str, str]):
    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        instance: str | Path | TaskInstance | None = None,
        backend: str | Backend = "symbolic",
        render_mode: str | None = None,
        backend_options: dict[str, Any] | None = None,
    ) -> None:
        if instance is None:
            instance = demo_instance_path()
        self.instance = instance if isinstance(instance, TaskInstance) else load_instance(instance)
        self.backend = make_backend(backend, **(backend_options or {})) if isinstance(backend, str) else backend
        self.episode = Episode(self.instance, self.backend)
        self._closed = False
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_length=MAX_TEXT, charset=CHARSET)
        self.action_space = spaces.Text(max_length=MAX_TEXT, charset=CHARSET)

    def _obs(self) -> str:
        return json.dumps(build_payload(self.episode), sort_keys=False, ensure_ascii=True)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.episode.reset(seed if seed is not None else 0)
        return self._obs(), {"instance": self.instance.id, "goal": self.episode.goal.to_json()}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        parsed = parse_response(action, observation(self.episode.graph, self.episode.view))
        if isinstance(parsed, ParseFailure):
            rec = self.episode.fail_step(ActionFailure(FailureType.PARSE_ERROR, parsed.reason), raw=action)
        else:
            rec = self.episode.step(parsed.action, raw=action)
        reward = 1.0 if rec.success else 0.0
        info: dict[str, Any] = {"status": rec.status, "failure_type": rec.failure_type, "step": rec.step}
        if rec.info is not None:
            info["execution"] = rec.info  # the backend's Execution.info (seconds, assists, retries)
        return self._obs(), reward, self.episode.terminated, self.episode.truncated, info

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.backend.close()
        super().close()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        from robograph.play import format_view

        return format_view(self.episode)


def register() -> None:
    if "RoboGraph-v0" not in gym.registry:
        gym.register(id="RoboGraph-v0", entry_point="robograph.gym_env:RoboGraphEnv")
