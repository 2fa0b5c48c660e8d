"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for tests, replying from a script.

Each scripted step is a :class:`Step` (or a callable taking the request body and returning one):
a text reply, tool calls (:func:`tool_call`), raw bytes (a broken reply) or an error. With
:attr:`ScriptedServer.responder` set (e.g. :func:`by_query`: "which tool call per query"), every
request is answered by it instead, whatever the order concurrent requests arrive in. Requests are
recorded. Bounded: a step's delay waits on the stop event, and the server stops with the test.
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
    tool_calls: list[dict[str, Any]] | None = None  # the assistant message's tool_calls
    raw: bytes | None = None  # these bytes as the body (a reply that is not JSON, a huge one)


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


def tool_call(name: str, arguments: dict[str, Any] | str, content: str | None = None) -> Step:
    """A reply calling tool ``name`` (``arguments`` an object, or the raw arguments text)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Step(content=content, tool_calls=[{"id": "call_1", "type": "function",
                                              "function": {"name": name, "arguments": text}}])


def activate(skill: str | None, tool: str = "activate_skill", argument: str = "name") -> Step:
    """The model activates ``skill`` with ``tool`` (None: it answers without a tool call)."""
    return ok("I can answer that directly.") if skill is None else tool_call(tool, {argument: skill})


def user_message(body: dict[str, Any]) -> str:
    """The content of the request's last user message ("" when there is none)."""
    users = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    return content if isinstance(content, str) else ""


def by_query(answers: dict[str, list[Step]], default: Step | None = None,
             delay: float = 0.0) -> Callable[[dict[str, Any]], Step]:
    """A responder answering the n-th request for a query with its n-th step (cycling): with
    ``[activate("a"), activate("a"), activate(None)]`` a query triggers ``a`` in 2 of 3 runs, in
    whatever order the runs arrive. Unknown queries get ``default`` (a plain answer)."""
    lock = threading.Lock()
    seen: dict[str, int] = {}
    fallback = default or activate(None)

    def respond(body: dict[str, Any]) -> Step:
        query = user_message(body)
        steps = answers.get(query)
        if not steps:
            step = fallback
        else:
            with lock:
                n = seen.get(query, 0)
                seen[query] = n + 1
            step = steps[n % len(steps)]
        return step if not delay else Step(**{**step.__dict__, "delay": delay})

    return respond


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many concurrent clients (trigger evals) must not wait on a backlog
    daemon_threads = True


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ScriptedServer:
    def __init__(self) -> None:
        self.script: list[Step | Callable[[dict[str, Any]], Step]] = []
        self.responder: Callable[[dict[str, Any]], Step] | None = None
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
                    if server.responder is not None:
                        item: Step | Callable[[dict[str, Any]], Step] = server.responder
                    else:
                        item = server.script.pop(0) if server.script else error(500, "script exhausted")
                step = item(body) if callable(item) else item
                if step.delay:
                    server.stop.wait(step.delay)
                if step.status == 200 and step.body is None:
                    message: dict[str, Any] = {"role": "assistant", "content": step.content}
                    if step.tool_calls is not None:
                        message["tool_calls"] = step.tool_calls
                    payload: Any = {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "test"),
                        "choices": [{"index": 0, "message": message,
                                     "finish_reason": "tool_calls" if step.tool_calls else "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                else:
                    payload = step.body
                data = step.raw if step.raw is not None else json.dumps(payload).encode("utf-8")
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

        self.httpd = _Server(("127.0.0.1", 0), Handler)
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
