"""A real HTTP server on 127.0.0.1 that speaks enough of the OpenAI protocol for our tests.

``GET /v1/models`` lists :attr:`OpenAIServer.models`; ``POST /v1/chat/completions`` answers with
the next of :attr:`OpenAIServer.replies` (or "OK"), 404 for an unknown model (with OpenAI's
``model_not_found`` body) and 401 when :attr:`OpenAIServer.api_key` is set and the request's
bearer token differs (the message quotes the token it got, as careless servers do, so tests see
whether we mask it). ``echo`` is how the 401 quotes it (as is by default; a test of our redaction gives
another encoding, e.g. base64). ``delay`` holds every reply back; ``tls`` serves HTTPS with a
self-signed certificate. Every request is recorded in :attr:`OpenAIServer.requests`.

Use it through the ``openai_server`` fixture (tests/conftest.py) or as a context manager.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a timeout test) is not an error here."""


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: Any


@dataclass
class OpenAIServer:
    """Configure, then ``start()``; ``base_url`` is ``http(s)://127.0.0.1:<port>/v1``."""

    models: list[str] = field(default_factory=lambda: ["test-model", "other-model"])
    replies: list[str] = field(default_factory=list)
    api_key: str | None = None
    delay: float = 0.0
    models_status: int = 200  # e.g. 404 for servers without /v1/models
    tls_cert: Path | None = None
    tls_key: Path | None = None
    requests: list[Recorded] = field(default_factory=list)
    echo: Callable[[str], str] = str  # the token as the 401's message quotes it

    def __post_init__(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start() first"
        scheme = "https" if self.tls_cert else "http"
        return f"{scheme}://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> OpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _body(self) -> Any:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self) -> bool:
                if server.api_key is None:
                    return True
                given = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
                if given == server.api_key:
                    return True
                self._send(401, {"error": {"message": f"Incorrect API key provided: {server.echo(given)}.",
                                           "type": "invalid_request_error",
                                           "code": "invalid_api_key"}})
                return False

            def _record(self, body: Any) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append(Recorded(self.command, self.path, headers, body))

            def do_GET(self) -> None:
                self._record(None)
                if server.delay:
                    time.sleep(server.delay)
                if not self._authorised():
                    return
                if self.path.rstrip("/") == "/v1/models" and server.models_status == 200:
                    self._send(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "tests"}
                        for m in server.models]})
                else:
                    status = server.models_status if server.models_status != 200 else 404
                    self._send(status, {"error": {"message": f"no route {self.path}",
                                                  "type": "not_found"}})

            def do_POST(self) -> None:
                body = self._body()
                self._record(body)
                if server.delay:
                    time.sleep(server.delay)
                if not self._authorised():
                    return
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                model = body.get("model") if isinstance(body, dict) else None
                if model not in server.models:
                    self._send(404, {"error": {
                        "message": f"The model `{model}` does not exist or you do not have access "
                                   "to it.",
                        "type": "invalid_request_error", "code": "model_not_found"}})
                    return
                text = server.replies.pop(0) if server.replies else "OK"
                self._send(200, {
                    "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })

        httpd = _QuietServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        if self.tls_cert is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.tls_cert, self.tls_key)
            httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.02,),
                                        name="openai-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A throw-away certificate for 127.0.0.1 (needs the ``cryptography`` package)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(
                "127.0.0.1"))]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path
