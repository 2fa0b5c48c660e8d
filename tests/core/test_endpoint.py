"""Fetch models and Test connection against a real HTTP server on 127.0.0.1 speaking the OpenAI
protocol: one clear message per failure (unreachable, TLS, 401, 404 model, timeout)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from rockskills_gui.core.app.endpoint import EndpointError, check_connection, list_models
from tests.openai_server import OpenAIServer

KEY = "sk-test-Hq2p9Vv7mS3cr3t"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_models_are_listed_sorted(openai_server: OpenAIServer) -> None:
    openai_server.models = ["zeta", "Alpha", "mid"]
    assert list_models(openai_server.base_url, None, 5) == ["Alpha", "mid", "zeta"]
    assert openai_server.requests[-1].path == "/v1/models"


def test_a_good_connection(openai_server: OpenAIServer) -> None:
    openai_server.api_key = KEY
    result = check_connection(openai_server.base_url, "test-model", KEY, 5)
    assert result.ok and result.kind == "ok"
    assert "'test-model' replied" in result.message
    chat = openai_server.requests[-1]
    assert chat.path == "/v1/chat/completions" and chat.body["model"] == "test-model"
    assert chat.headers["authorization"] == f"Bearer {KEY}"


def test_unreachable_server() -> None:
    port = closed_port()
    result = check_connection(f"http://127.0.0.1:{port}/v1", "m", None, 3)
    assert (result.ok, result.kind) == (False, "unreachable")
    assert f"Cannot reach 127.0.0.1:{port}" in result.message
    assert "Is the server running" in result.message


def test_untrusted_tls_certificate(tmp_path: Path) -> None:
    pytest.importorskip("cryptography", reason="makes the self-signed test certificate")
    from tests.openai_server import self_signed_certificate

    cert, key = self_signed_certificate(tmp_path)
    with OpenAIServer(tls_cert=cert, tls_key=key) as server:
        result = check_connection(server.base_url, "test-model", None, 5)
    assert result.kind == "tls"
    assert "secure (HTTPS) connection" in result.message and "not trusted" in result.message


def test_https_to_a_plain_http_port(openai_server: OpenAIServer) -> None:
    url = openai_server.base_url.replace("http://", "https://")
    result = check_connection(url, "test-model", None, 5)
    assert result.kind == "tls"
    assert "does not speak HTTPS" in result.message


def test_wrong_key_is_401_and_the_key_is_masked(openai_server: OpenAIServer) -> None:
    openai_server.api_key = "sk-the-right-one"
    result = check_connection(openai_server.base_url, "test-model", KEY, 5)
    assert result.kind == "auth"
    assert "refused the API key (401)" in result.message
    assert KEY not in result.message  # the server echoed it; we must not
    with pytest.raises(EndpointError) as caught:
        list_models(openai_server.base_url, KEY, 5)
    assert caught.value.kind == "auth" and KEY not in str(caught.value)


def test_missing_key_is_401_with_advice(openai_server: OpenAIServer) -> None:
    openai_server.api_key = "sk-needed"
    result = check_connection(openai_server.base_url, "test-model", None, 5)
    assert result.kind == "auth" and "needs an API key" in result.message


def test_unknown_model_is_404_with_the_models_offered(openai_server: OpenAIServer) -> None:
    result = check_connection(openai_server.base_url, "gpt-9", None, 5)
    assert result.kind == "model"
    assert "does not know the model 'gpt-9' (404)" in result.message
    assert "test-model" in result.message and result.models == ["other-model", "test-model"]


def test_wrong_path_is_404_not_found(openai_server: OpenAIServer) -> None:
    url = openai_server.base_url.removesuffix("/v1") + "/api"
    result = check_connection(url, "test-model", None, 5)
    assert result.kind == "not-found"
    assert "usually ends in /v1" in result.message


def test_server_without_a_models_route_still_passes(openai_server: OpenAIServer) -> None:
    openai_server.models_status = 404
    result = check_connection(openai_server.base_url, "test-model", None, 5)
    assert result.ok


def test_timeout(openai_server: OpenAIServer) -> None:
    openai_server.delay = 2.0
    result = check_connection(openai_server.base_url, "test-model", None, 0.5)
    assert result.kind == "timeout"
    assert "No reply from" in result.message and "within 0.5 s" in result.message


def test_no_model_or_no_url_says_what_is_missing(openai_server: OpenAIServer) -> None:
    result = check_connection(openai_server.base_url, "", None, 5)
    assert result.kind == "config" and "no model is chosen" in result.message
    assert "test-model" in result.message
    assert check_connection("", "m", None, 5).kind == "config"
