"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
LM Studio...), spoken to through the official `openai` SDK.

Configuration comes from arguments or the environment: OPENAI_BASE_URL (default
https://api.openai.com/v1), OPENAI_API_KEY, ROBOGRAPH_MODEL. The SDK's own retries are switched
off (`max_retries=0`) so this module keeps one retry policy it can test: transient failures (HTTP
408/409/429 and 5xx, connection errors, timeouts, malformed bodies) are retried with exponential
backoff that honours Retry-After; when retries run out the agent raises `AgentUnavailable`, which
the runner records as an infrastructure error (the rollout is retried on resume, never scored).
Whatever the model says is returned as text with its token counts and latency: turning it into an
action is the parser's job, and a bad reply is a parse_error step that counts against the model.
"""

from __future__ import annotations

import base64
import json
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
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
    image_detail: str | None = None
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


def image_mime(data: bytes) -> str:
    """The media type of encoded image bytes, from their signature (PNG or JPEG)."""
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    return "image/png"


def build_messages(request: Request, detail: str | None = None) -> list[dict[str, Any]]:
    """System prompt + one user message: the payload as JSON text, then (visual mode) per camera
    a text part naming it and its image as a base64 data URL, in the payload's camera order."""
    text = json.dumps(request.payload, ensure_ascii=False, indent=2)
    if not request.images:
        user: Any = text
    else:
        user = [{"type": "text", "text": text}]
        for camera, data in request.images.items():
            url = f"data:{image_mime(data)};base64," + base64.b64encode(data).decode("ascii")
            image: dict[str, Any] = {"url": url}
            if detail:
                image["detail"] = detail
            user.append({"type": "text", "text": f"camera: {camera}"})
            user.append({"type": "image_url", "image_url": image})
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
        import openai  # a core dependency; imported here because it takes ~0.5 s
        self.config = config
        self.usage = Usage()
        self._sleep = sleep
        self._rng = rng or random.Random(0)
        self._slots = threading.Semaphore(max(1, config.concurrency))
        self._lock = threading.Lock()
        self._openai = openai
        # servers without authentication (vLLM, Ollama) accept any key; the SDK insists on one
        self._sdk = openai.OpenAI(
            base_url=config.base_url, api_key=config.api_key or "EMPTY", timeout=config.timeout, max_retries=0
        )

    @property
    def url(self) -> str:
        return self.config.base_url.rstrip("/") + "/chat/completions"

    def complete(self, messages: list[dict[str, Any]]) -> Reply:
        cfg = self.config
        last = ""
        for attempt in range(cfg.max_retries + 1):
            start = time.perf_counter()
            try:
                with self._slots:
                    reply = self._create(messages)
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
            reply = replace(reply, latency_s=time.perf_counter() - start, retries=attempt)
            with self._lock:
                self.usage.requests += 1
                self.usage.prompt_tokens += reply.prompt_tokens
                self.usage.completion_tokens += reply.completion_tokens
            return reply
        raise AgentUnavailable(f"{self.url}: gave up after {cfg.max_retries + 1} attempt(s): {last}")

    def _create(self, messages: list[dict[str, Any]]) -> Reply:
        cfg, oa = self.config, self._openai
        try:
            completion = self._sdk.chat.completions.create(
                model=cfg.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=cfg.temperature,
                max_tokens=cfg.max_tokens,
                extra_body=dict(cfg.extra_body) or None,
            )
        except oa.APIStatusError as exc:
            detail = exc.response.text[:300]
            if exc.status_code in RETRY_STATUSES or exc.status_code >= 500:
                wait = retry_after_seconds(exc.response.headers.get("Retry-After"))
                raise _Retryable(f"HTTP {exc.status_code}: {detail}", wait) from None
            raise AgentUnavailable(f"{self.url}: HTTP {exc.status_code}: {detail}") from None
        except oa.APITimeoutError:
            raise _Retryable(f"timed out after {cfg.timeout} s") from None
        except oa.APIConnectionError as exc:
            raise _Retryable(f"connection failed: {exc.__cause__ or exc}") from None
        except (ValueError, oa.APIResponseValidationError) as exc:  # JSONDecodeError is a ValueError
            raise _Retryable(f"malformed response body: {exc}") from None
        return _read_completion(completion)


def _read_completion(completion: Any) -> Reply:
    """The SDK validates loosely: a 200 body without choices gives `choices=None` or []."""
    try:
        message = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        raise _Retryable(f"malformed response body: {str(completion)[:200]}") from None
    content = getattr(message, "content", None)
    if isinstance(content, list):  # content-part replies
        content = "".join(getattr(p, "text", None) or (p.get("text", "") if isinstance(p, Mapping) else "")
                          for p in content)
    usage = getattr(completion, "usage", None)
    return Reply(
        text=content if isinstance(content, str) else "",
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
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
        return self.client.complete(build_messages(request, self.client.config.image_detail))
