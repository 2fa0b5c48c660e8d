"""A real HTTP server on 127.0.0.1 answering ``POST /v1/embeddings`` as OpenAI-compatible servers
do (``{"data": [{"embedding": [...], "index": 0}], "model", "object": "list"}``), for the hybrid
recall tests. ``vectors`` maps an input text to its vector (others get ``default``); a model not
in ``models`` gets OpenAI's 404; ``raw`` replaces the reply body. Requests are recorded."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class EmbeddingServer:
    vectors: dict[str, list[float]] = field(default_factory=dict)
    default: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 1.0])
    models: tuple[str, ...] = ("embed-model",)
    raw: bytes | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> EmbeddingServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "body": body})
                if self.path != "/v1/embeddings":
                    self._send(404, b'{"error": {"message": "no such route"}}')
                    return
                if body.get("model") not in server.models:
                    self._send(404, json.dumps({"error": {
                        "message": f"The model `{body.get('model')}` does not exist",
                        "type": "invalid_request_error", "code": "model_not_found"}}).encode())
                    return
                if server.raw is not None:
                    self._send(200, server.raw)
                    return
                text = body.get("input")
                vector = server.vectors.get(text, server.default) if isinstance(text, str) \
                    else server.default
                self._send(200, json.dumps({
                    "object": "list", "model": body["model"],
                    "data": [{"object": "embedding", "index": 0, "embedding": vector}],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode())

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> EmbeddingServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
