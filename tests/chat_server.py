"""A real HTTP server on 127.0.0.1 (random port, own thread) that speaks the OpenAI
chat-completions protocol, scripted per request: for the client and runner tests."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Script = list[Callable[[BaseHTTPRequestHandler, dict], None]]


def completion(text: str, prompt: int = 11, completion_tokens: int = 7) -> Callable:
    def respond(handler: BaseHTTPRequestHandler, body: dict) -> None:
        data = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens,
                      "total_tokens": prompt + completion_tokens},
        }
        send(handler, 200, json.dumps(data).encode())

    return respond


def status(code: int, headers: dict[str, str] | None = None, body: bytes = b'{"error": "x"}') -> Callable:
    def respond(handler: BaseHTTPRequestHandler, _body: dict) -> None:
        send(handler, code, body, headers)

    return respond


def hang(seconds: float) -> Callable:
    def respond(handler: BaseHTTPRequestHandler, body: dict) -> None:
        time.sleep(seconds)
        completion("late")(handler, body)

    return respond


def send(handler: BaseHTTPRequestHandler, code: int, data: bytes, headers: dict[str, str] | None = None) -> None:
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client timed out
        handler.wfile.write(data)


class Server:
    def __init__(self) -> None:
        self.script: Script = []
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            _counted = False  # this handler's request is counted in `owner.in_flight`

            def log_message(self, *args: object) -> None:
                pass

            def end_headers(self) -> None:
                # A request stops counting as in flight before its reply can reach the client:
                # counted after the body is written, a client that got its reply and sent the
                # next request could be seen with one more in flight than it ever had.
                self._done()
                super().end_headers()

            def _done(self) -> None:
                with owner.lock:
                    if self._counted:
                        owner.in_flight -= 1
                        self._counted = False

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with owner.lock:
                    owner.requests.append(body)
                    owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                    owner.in_flight += 1
                    owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
                    self._counted = True
                    step = owner.script.pop(0) if owner.script else completion("{}")
                assert self.path == "/v1/chat/completions"
                try:
                    step(self, body)
                finally:
                    self._done()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


def serve() -> Iterator[Server]:
    """Generator for a pytest fixture: a started server, shut down afterwards."""
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


