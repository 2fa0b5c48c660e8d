"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for tests, replying from a script.

Each scripted step is a :class:`Step` (or a callable taking the request body and returning one).
Requests are recorded. Bounded: a step's delay waits on the stop event, and the server stops with
the test.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    status: int = 200
    content: str | None = None  # assistant text for a 200
    body: Any = None  # raw JSON body instead (for errors)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def ok(text: str) -> Step:
    return Step(content=text)


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Step:
    return Step(status=status, body={"error": {"message": message, "type": "test", "code": status}},
                headers=headers or {})


def refuses_json_mode(text: str) -> Callable[[dict[str, Any]], Step]:
    """400 when the request asks for response_format, else ``text``."""

    def step(body: dict[str, Any]) -> Step:
        if "response_format" in body:
            return error(400, "response_format is not supported by this server")
        return ok(text)

    return step


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ScriptedServer:
    def __init__(self) -> None:
        self.script: list[Step | Callable[[dict[str, Any]], Step]] = []
        self.requests: list[Recorded] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with server._lock:
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    server.requests.append(Recorded(self.path, headers, body))
                    item = server.script.pop(0) if server.script else error(500, "script exhausted")
                step = item(body) if callable(item) else item
                if step.delay:
                    server.stop.wait(step.delay)
                if step.status == 200 and step.body is None:
                    payload: Any = {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "test"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": step.content}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                else:
                    payload = step.body
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(step.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in step.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout/cancel)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def queue(self, *steps: Step | Callable[[dict[str, Any]], Step]) -> None:
        with self._lock:
            self.script.extend(steps)


@contextmanager
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join(timeout=5)
