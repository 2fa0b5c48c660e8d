"""Talk to the configured OpenAI-compatible endpoint for the Preferences dialog: list its models and
test the connection with a real request, turning each failure into one plain sentence.

Failures are classified as ``unreachable``, ``tls``, ``auth`` (401/403), ``model`` (404 for the
model), ``not-found`` (no OpenAI API at that URL), ``timeout``, ``server`` (any other status) or
``config`` (nothing to try yet). The API key is passed in, sent only to the endpoint and masked
out of every message.
"""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import openai

from rockskills_gui.core.llm.errors import server_message
from rockskills_gui.core.text.redact import redact

CHECK_PROMPT = "Reply with the single word OK."


class EndpointError(Exception):
    """A request that failed; ``kind`` names the failure, ``str()`` is the sentence to show."""

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status


@dataclass(frozen=True)
class CheckResult:
    """What "Test connection" found."""

    ok: bool
    kind: str
    message: str
    models: list[str] = field(default_factory=list)
    elapsed: float = 0.0


def _client(base_url: str, api_key: str | None, timeout: float) -> openai.OpenAI:
    return openai.OpenAI(api_key=api_key or "no-key", base_url=base_url, timeout=timeout,
                         max_retries=0)


def _where(base_url: str) -> str:
    parts = urlsplit(base_url)
    return parts.netloc or base_url


def _mask(text: str, api_key: str | None) -> str:
    return redact(text, [api_key])


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 20:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def classify(exc: BaseException, base_url: str, api_key: str | None, timeout: float) -> EndpointError:
    """One :class:`EndpointError` for anything the openai client raised."""
    where = _where(base_url)
    if isinstance(exc, openai.APITimeoutError):
        return EndpointError("timeout", f"No reply from {where} within {timeout:g} s. The server may "
                                        "be busy (a local server loads the model on first use): "
                                        "try again, or raise the timeout.")
    if isinstance(exc, openai.APIConnectionError):
        chain = _causes(exc)
        tls = next((c for c in chain if isinstance(c, ssl.SSLError)), None)
        text = " ".join(str(c) for c in chain)
        if tls is not None or "SSL" in text or "certificate" in text.lower():
            reason = getattr(tls, "reason", None) or (str(tls) if tls is not None else text)
            if "CERTIFICATE_VERIFY_FAILED" in text or "certificate" in text.lower():
                detail = ("its certificate is not trusted by this system (self-signed, expired or "
                          "for another host name)")
            elif "WRONG_VERSION_NUMBER" in text or "record layer" in text.lower():
                detail = "the server does not speak HTTPS on this port (try http://)"
            else:
                detail = f"TLS error: {reason}"
            return EndpointError("tls", _mask(f"The secure (HTTPS) connection to {where} failed: "
                                              f"{detail}.", api_key))
        root = chain[-1]
        reason = getattr(root, "strerror", None) or str(root) or type(root).__name__
        return EndpointError("unreachable", _mask(f"Cannot reach {where} ({reason}). Is the server "
                                                  "running, and are the host and port right?",
                                                  api_key))
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _mask(server_message(exc), api_key)
        if status in (401, 403):
            if not api_key:
                return EndpointError("auth", f"{where} needs an API key ({status}): enter one above.",
                                     status)
            return EndpointError("auth", f"{where} refused the API key ({status}): {detail}", status)
        if status == 404:
            return EndpointError("not-found", f"{where} answered 404 ({detail}). Check the base URL: "
                                              "it usually ends in /v1.", status)
        return EndpointError("server", f"{where} answered {status}: {detail}", status)
    if isinstance(exc, openai.OpenAIError):
        return EndpointError("server", _mask(f"Unexpected reply from {where}: {exc}", api_key))
    return EndpointError("server", _mask(f"{type(exc).__name__}: {exc}", api_key))


def list_models(base_url: str, api_key: str | None, timeout: float) -> list[str]:
    """``GET /models``: the model ids the server offers, sorted (raises :class:`EndpointError`)."""
    if not base_url:
        raise EndpointError("config", "No base URL: choose an endpoint or enter a custom URL.")
    client = _client(base_url, api_key, timeout)
    try:
        return sorted({m.id for m in client.models.list()}, key=str.casefold)
    except Exception as exc:
        raise classify(exc, base_url, api_key, timeout) from None
    finally:
        client.close()


def check_connection(base_url: str, model: str, api_key: str | None, timeout: float) -> CheckResult:
    """List the models, then ask ``model`` for one short reply; say plainly what failed."""
    started = time.monotonic()
    if not base_url:
        return CheckResult(False, "config", "No base URL: choose an endpoint or enter a custom URL.")
    models: list[str] = []
    try:
        models = list_models(base_url, api_key, timeout)
    except EndpointError as error:
        if error.kind != "not-found":  # some servers have no /models; the chat request decides
            return CheckResult(False, error.kind, str(error), elapsed=time.monotonic() - started)
    if not model:
        listed = f" It offers: {_some(models)}." if models else ""
        return CheckResult(False, "config", f"Connected to {_where(base_url)}, but no model is "
                                            f"chosen.{listed}", models, time.monotonic() - started)
    client = _client(base_url, api_key, timeout)
    try:
        client.chat.completions.create(model=model,
                                       messages=[{"role": "user", "content": CHECK_PROMPT}])
    except Exception as exc:
        failure = classify(exc, base_url, api_key, timeout)
        elapsed = time.monotonic() - started
        if failure.kind == "not-found" and (models or "model" in str(failure).lower()):
            offered = f" It offers: {_some(models)}." if models else ""
            return CheckResult(False, "model", f"{_where(base_url)} does not know the model "
                                               f"'{model}' (404).{offered}", models, elapsed)
        return CheckResult(False, failure.kind, str(failure), models, elapsed)
    finally:
        client.close()
    elapsed = time.monotonic() - started
    return CheckResult(True, "ok", f"Connected to {_where(base_url)}: '{model}' replied in "
                                   f"{elapsed:.1f} s.", models, elapsed)


def _some(names: list[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
