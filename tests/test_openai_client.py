"""The chat-completions client against a real local HTTP server speaking the protocol."""

from __future__ import annotations

import base64
import json
import threading
import time

import pytest
from chat_server import Server, completion, hang, serve, status

from robograph.agents import AgentUnavailable, Request
from robograph.agents.openai_agent import (
    ChatClient,
    ClientConfig,
    OpenAIAgent,
    build_messages,
    retry_after_seconds,
)


@pytest.fixture
def server():
    yield from serve()


def client(server: Server, sleeps: list[float] | None = None, **kw) -> ChatClient:
    kw.setdefault("backoff", 0.01)
    cfg = ClientConfig(base_url=server.base_url, api_key="sk-test", model="test-model", **kw)
    return ChatClient(cfg, sleep=(sleeps.append if sleeps is not None else time.sleep))


REQ = Request("system prompt", {"task": "tidy"})


def test_request_shape_and_token_accounting(server):
    server.script = [completion('{"action": {"name": "stop"}}', 120, 30)]
    c = client(server, temperature=0.3, max_tokens=64)
    reply = OpenAIAgent(client=c).act(REQ)
    assert reply.text == '{"action": {"name": "stop"}}'
    assert (reply.prompt_tokens, reply.completion_tokens) == (120, 30)
    body = server.requests[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.3 and body["max_tokens"] == 64
    assert body["messages"][0] == {"role": "system", "content": "system prompt"}
    assert json.loads(body["messages"][1]["content"]) == {"task": "tidy"}
    assert server.headers[0]["authorization"] == "Bearer sk-test"
    assert (c.usage.prompt_tokens, c.usage.completion_tokens, c.usage.requests) == (120, 30, 1)


def test_images_are_sent_as_base64_png_data_urls(server):
    server.script = [completion("ok")]
    req = Request("s", {"task": "t"}, images={"head": b"\x89PNG\r\n\x1a\nfake"})
    OpenAIAgent(client=client(server)).act(req)
    parts = server.requests[0]["messages"][1]["content"]
    assert parts[0]["type"] == "text" and json.loads(parts[0]["text"]) == {"task": "t"}
    url = parts[2]["image_url"]["url"]
    assert parts[2]["type"] == "image_url" and url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == b"\x89PNG\r\n\x1a\nfake"


def test_429_then_success_honours_retry_after(server):
    sleeps: list[float] = []
    server.script = [status(429, {"Retry-After": "2"}), completion("fine")]
    c = client(server, sleeps)
    assert c.complete(build_messages(REQ)).text == "fine"
    assert sleeps == [2.0] and c.usage.retries == 1 and len(server.requests) == 2


def test_5xx_backs_off_exponentially_then_succeeds(server):
    sleeps: list[float] = []
    server.script = [status(500), status(502), status(503), completion("fine")]
    c = client(server, sleeps, backoff=1.0)
    assert c.complete(build_messages(REQ)).text == "fine"
    assert len(sleeps) == 3
    for i, s in enumerate(sleeps):  # jittered in [0.5, 1] x 2^i
        assert 0.5 * 2**i <= s <= 2**i


def test_retries_exhausted_is_agent_unavailable(server):
    server.script = [status(500)] * 3
    with pytest.raises(AgentUnavailable, match="gave up after 3"):
        client(server, [], max_retries=2).complete(build_messages(REQ))


def test_client_errors_are_not_retried(server):
    server.script = [status(401, body=b'{"error": "bad key"}')]
    with pytest.raises(AgentUnavailable, match="401"):
        client(server, []).complete(build_messages(REQ))
    assert len(server.requests) == 1


def test_malformed_bodies_are_retried(server):
    sleeps: list[float] = []
    server.script = [status(200, body=b"not json"), status(200, body=b'{"choices": []}'), completion("ok")]
    assert client(server, sleeps).complete(build_messages(REQ)).text == "ok"
    assert len(sleeps) == 2


def test_timeout_is_retried_then_reported(server):
    server.script = [hang(1.0), hang(1.0)]
    with pytest.raises(AgentUnavailable, match="attempt"):
        client(server, [], timeout=0.2, max_retries=1).complete(build_messages(REQ))


def test_connection_refused_is_agent_unavailable():
    cfg = ClientConfig(base_url="http://127.0.0.1:9/v1", model="m", max_retries=1, backoff=0.0)
    with pytest.raises(AgentUnavailable):
        ChatClient(cfg, sleep=lambda s: None).complete(build_messages(REQ))


def test_concurrency_limit_per_client(server):
    server.script = [hang(0.15) for _ in range(6)]
    c = client(server, concurrency=2)
    threads = [threading.Thread(target=c.complete, args=(build_messages(REQ),)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert server.max_in_flight == 2 and c.usage.requests == 6


def test_config_from_env():
    cfg = ClientConfig.from_env(
        {"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "k", "ROBOGRAPH_MODEL": "m"}, temperature=0.7
    )
    assert (cfg.base_url, cfg.api_key, cfg.model, cfg.temperature) == ("http://h/v1", "k", "m", 0.7)


def test_retry_after_forms():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def test_latency_and_retries_are_recorded_per_reply(server):
    server.script = [status(503), hang(0.05)]
    reply = client(server, []).complete(build_messages(REQ))
    assert reply.retries == 1 and reply.latency_s >= 0.05  # the successful call only, not the backoff


def test_jpeg_images_get_a_jpeg_data_url_and_optional_detail(server):
    server.script = [completion("ok")]
    jpeg = b"\xff\xd8\xff\xe0fake"
    OpenAIAgent(client=client(server, image_detail="low")).act(Request("s", {"t": 1}, images={"left": jpeg}))
    part = server.requests[0]["messages"][1]["content"][2]["image_url"]
    assert part["url"].startswith("data:image/jpeg;base64,") and part["detail"] == "low"
