"""An agent backed by any OpenAI-compatible chat-completions endpoint (hosted APIs, vLLM,
Ollama), written on the standard library only so the core stays dependency-light.

Configuration comes from arguments or the environment: OPENAI_BASE_URL (default
https://api.openai.com/v1), OPENAI_API_KEY, ROBOGRAPH_MODEL. Transient failures (HTTP 429 and
5xx, connection errors, timeouts, malformed bodies) are retried with exponential backoff that
honours Retry-After; when retries run out the agent raises `AgentUnavailable`, which the runner
records as an infrastructure error (the rollout is retried on resume, never scored). Whatever the
model says is returned as text: turning it into an action is the parser's job, and a bad reply is
a parse_error step that counts against the model, not a crash.
"""

from __future__ import annotations

import base64
import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from robograph.agents.base import AgentError, AgentUnavailable, Reply, Request

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class ClientConfig:
    """Connection and sampling settings. Seconds for all times."""

    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = None
    model: str = ""
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float = 60.0
    max_retries: int = 5
    backoff: float = 1.0
    max_backoff: float = 60.0
    concurrency: int = 4
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> ClientConfig:
        env = os.environ if env is None else env
        values: dict[str, Any] = {
            "base_url": env.get("OPENAI_BASE_URL", DEFAULT_BASE_URL),
            "api_key": env.get("OPENAI_API_KEY"),
            "model": env.get("ROBOGRAPH_MODEL", ""),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


@dataclass
class Usage:
    """Token accounting summed over the calls of one client."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    retries: int = 0


def build_messages(request: Request) -> list[dict[str, Any]]:
    """System prompt + one user message: the payload as JSON text, then images as base64 PNG
    data URLs (visual mode)."""
    text = json.dumps(request.payload, ensure_ascii=False, indent=2)
    if not request.images:
        user: Any = text
    else:
        user = [{"type": "text", "text": text}]
        for camera, png in request.images.items():
            url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
            user.append({"type": "text", "text": f"camera: {camera}"})
            user.append({"type": "image_url", "image_url": {"url": url}})
    return [{"role": "system", "content": request.system}, {"role": "user", "content": user}]


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class _Retryable(Exception):
    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class ChatClient:
    """Thread-safe chat-completions client; at most `config.concurrency` requests in flight per
    instance (a semaphore owned by the instance, no global state)."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not config.model:
            raise AgentError("no model configured for agent 'openai': pass --agent-opt model=NAME or set ROBOGRAPH_MODEL")
        self.config = config
        self.usage = Usage()
        self._sleep = sleep
        self._rng = rng or random.Random(0)
        self._slots = threading.Semaphore(max(1, config.concurrency))
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.config.base_url.rstrip("/") + "/chat/completions"

    def complete(self, messages: list[dict[str, Any]]) -> Reply:
        cfg = self.config
        body = {
            "model": cfg.model,
            "messages": messages,
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
            **dict(cfg.extra_body),
        }
        data = json.dumps(body).encode("utf-8")
        last = ""
        for attempt in range(cfg.max_retries + 1):
            try:
                with self._slots:
                    reply = self._post(data)
            except _Retryable as exc:
                last = str(exc)
                if attempt == cfg.max_retries:
                    break
                delay = exc.wait
                if delay is None:
                    delay = min(cfg.max_backoff, cfg.backoff * 2**attempt) * (0.5 + self._rng.random() / 2)
                with self._lock:
                    self.usage.retries += 1
                self._sleep(min(delay, cfg.max_backoff))
                continue
            with self._lock:
                self.usage.requests += 1
                self.usage.prompt_tokens += reply.prompt_tokens
                self.usage.completion_tokens += reply.completion_tokens
            return reply
        raise AgentUnavailable(f"{self.url}: gave up after {cfg.max_retries + 1} attempt(s): {last}")

    def _post(self, data: bytes) -> Reply:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.config.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            if exc.code in RETRY_STATUSES or exc.code >= 500:
                raise _Retryable(f"HTTP {exc.code}: {detail}", retry_after_seconds(exc.headers.get("Retry-After"))) from None
            raise AgentUnavailable(f"{self.url}: HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            raise _Retryable(f"connection failed: {getattr(exc, 'reason', exc)}") from None
        return _read_completion(raw)


def _read_completion(raw: bytes) -> Reply:
    try:
        body = json.loads(raw)
        message = body["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise _Retryable(f"malformed response body: {raw[:200]!r}") from None
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, list):  # content-part replies
        content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    usage = body.get("usage") or {}
    return Reply(
        text=content if isinstance(content, str) else "",
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
    )


class OpenAIAgent:
    """A model behind the chat-completions API. Unprivileged: sees the payload only."""

    name = "openai"
    privileged = False

    def __init__(self, config: ClientConfig | None = None, client: ChatClient | None = None, **options: Any) -> None:
        self.client = client or ChatClient(config or ClientConfig.from_env(**options))

    def reset(self, seed: int) -> None:
        """Stateless between steps: the payload carries the history window."""

    def act(self, request: Request) -> Reply:
        return self.client.complete(build_messages(request))
