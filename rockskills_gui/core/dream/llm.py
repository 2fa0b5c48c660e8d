"""An OpenAI-compatible chat client for the dream passes: retries, JSON mode, progress, cancel.

One request per pass with two messages (system = directive, user = prompt) and no temperature,
token limit or tools, as RockBot sends it; ``response_format`` asks for a JSON object and, when the
server refuses it (400/422), the request is repeated once as plain text. Retries (429, 5xx,
connection errors, timeouts) honour ``Retry-After``. The call runs on a worker thread so the caller
can report progress and cancel; a cancelled request is abandoned (its connection closed) and ends
at the client timeout at the latest.

A reply is read with a limit (issue 35, item 15): the response body stops being read past
:data:`MAX_RESPONSE_BYTES` and a reply over ``MAX_REPLY_CHARS`` characters is refused, as
:class:`LlmReplyTooLarge` (that pass fails, with the size said); a server's error text is cut to
:data:`MAX_ERROR_CHARS` characters.

The API key is passed in (the caller reads it from the OS keyring or the environment); it is never
written anywhere. :meth:`LlmClient.redact` masks it (and a password in the base URL), in any form
:func:`core.redact.redact` knows, out of every error message and every reply: a server that echoes
the Authorization header cannot put the key into a plan.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from rockskills_gui.core.dream.reply import MAX_REPLY_CHARS, too_large
from rockskills_gui.core.model.names import display_name
from rockskills_gui.core.text.redact import redact

DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
MAX_RETRY_AFTER = 30.0
# the reply's characters JSON-escaped (at most 6 bytes each) and the response around them
MAX_RESPONSE_BYTES = 6 * MAX_REPLY_CHARS + 1_000_000
MAX_ERROR_CHARS = 1_000
_CHUNK = 1 << 16
CONNECTION_RETRY_BUDGET = 3.0  # seconds of waiting to retry a server that cannot be reached
_POLL = 0.1


@dataclass(frozen=True)
class Endpoint:
    """Where and how to ask: base URL (e.g. ``http://127.0.0.1:11434/v1``), model, limits."""

    base_url: str
    model: str
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    json_mode: bool = True


@dataclass(frozen=True)
class LlmProgress:
    """A progress report: ``phase`` is sending, waiting, retrying, fallback or done."""

    phase: str
    message: str
    attempt: int
    elapsed: float


@dataclass(frozen=True)
class Completion:
    """A reply's text and how it was obtained."""

    text: str
    json_mode: bool
    attempts: int
    elapsed: float
    model: str | None = None
    finish_reason: str | None = None
    notes: list[str] = field(default_factory=list)


class LlmError(Exception):
    """A request that did not produce a reply (one sentence for the user)."""

    kind = "error"

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class LlmAuthError(LlmError):
    kind = "auth"


class LlmRateLimitError(LlmError):
    kind = "rate-limit"


class LlmTimeoutError(LlmError):
    kind = "timeout"


class LlmConnectionError(LlmError):
    kind = "connection"

    def __init__(self, message: str, refused_locally: bool = False) -> None:
        super().__init__(message)
        self.refused_locally = refused_locally  # nothing listens on this machine: no retry helps


class LlmServerError(LlmError):
    kind = "server"


class LlmRequestError(LlmError):
    kind = "request"


class LlmCancelled(LlmError):
    kind = "cancelled"


class LlmReplyTooLarge(LlmError):
    kind = "too-large"


@dataclass(frozen=True)
class _Reply:
    """What the response said: the first choice's text (None without choices), model, finish."""

    content: str | None
    model: str | None
    finish_reason: str | None


ProgressFn = Callable[[LlmProgress], None]


class _Refused(Exception):
    """The server refused ``response_format``."""

    def __init__(self, error: LlmError) -> None:
        super().__init__(str(error))
        self.error = error


class LlmClient:
    """Chat completions against one endpoint. Thread-safe: every call has its own HTTP client."""

    def __init__(self, endpoint: Endpoint, api_key: str | None = None) -> None:
        self.endpoint = endpoint
        self.__key = api_key or ""

    def __repr__(self) -> str:
        return f"LlmClient({self.endpoint!r})"

    def secrets(self) -> list[str]:
        """What must never be stored: the API key and a password in the base URL."""
        try:
            password = urlsplit(self.endpoint.base_url).password
        except ValueError:
            password = None
        return [s for s in (self.__key, password) if s]

    def redact(self, text: str) -> str:
        """``text`` with :meth:`secrets` masked in any form (see :mod:`core.redact`)."""
        return redact(text, self.secrets())

    _mask = redact

    def complete(self, system: str, user: str, progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None) -> Completion:
        """Send the two messages and return the reply text (raises :class:`LlmError`)."""
        started = time.monotonic()
        notify = progress or (lambda _p: None)
        json_mode = self.endpoint.json_mode
        notes: list[str] = []
        attempt = 0
        retries_left = max(0, self.endpoint.retries)
        connection_waits = 0.0  # seconds spent waiting to retry unreachable servers
        while True:
            attempt += 1
            if cancel is not None and cancel.is_set():
                raise LlmCancelled("cancelled")
            mode = "JSON mode" if json_mode else "plain text"
            notify(LlmProgress("sending", f"asking {self.endpoint.model} ({mode}), attempt {attempt}",
                               attempt, time.monotonic() - started))
            try:
                response = self._attempt(system, user, json_mode, attempt, started, notify, cancel)
            except _Refused as refused:
                if not json_mode:
                    raise refused.error from None
                json_mode = False
                notes.append(f"the server refused response_format ({refused.error}); asked again for "
                             "plain text")
                notify(LlmProgress("fallback", notes[-1], attempt, time.monotonic() - started))
                continue
            except (LlmRateLimitError, LlmServerError, LlmConnectionError, LlmTimeoutError) as exc:
                if retries_left <= 0:
                    raise
                delay = _retry_delay(exc, attempt)
                if isinstance(exc, LlmConnectionError):
                    # Refused on this machine: say so at once. Elsewhere: a short budget only.
                    if exc.refused_locally or connection_waits + delay > CONNECTION_RETRY_BUDGET:
                        raise
                    connection_waits += delay
                retries_left -= 1
                notes.append(f"attempt {attempt}: {str(exc).rstrip('.')}; retrying in {delay:.1f} s")
                notify(LlmProgress("retrying", notes[-1], attempt, time.monotonic() - started))
                if cancel is not None and cancel.wait(delay):
                    raise LlmCancelled("cancelled") from None
                if cancel is None:
                    time.sleep(delay)
                continue
            if response.content is None:
                raise LlmServerError("the server returned no choices")
            raw = response.content
            if len(raw) > MAX_REPLY_CHARS:
                raise LlmReplyTooLarge(too_large(len(raw)))
            text = self.redact(raw)
            if text != raw:
                notes.append("the reply contained the API key; it is masked as [redacted]")
            elapsed = time.monotonic() - started
            notify(LlmProgress("done", f"reply received ({len(text)} characters)", attempt, elapsed))
            return Completion(text=text, json_mode=json_mode, attempts=attempt, elapsed=elapsed,
                              model=response.model, finish_reason=response.finish_reason, notes=notes)

    def _attempt(self, system: str, user: str, json_mode: bool, attempt: int, started: float,
                 notify: ProgressFn, cancel: threading.Event | None) -> _Reply:
        import openai  # ~0.8 s to import: only when a request is sent

        client = openai.OpenAI(api_key=self.__key or "no-key", base_url=self.endpoint.base_url,
                               timeout=self.endpoint.timeout, max_retries=0)
        kwargs: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                with client.chat.completions.with_streaming_response.create(**kwargs) as response:
                    box["response"] = _read_reply(response)
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        worker = threading.Thread(target=work, name="rockskills-llm", daemon=True)
        worker.start()
        deadline = time.monotonic() + self.endpoint.timeout + 2.0
        try:
            while not done.wait(_POLL):
                if cancel is not None and cancel.is_set():
                    raise LlmCancelled("cancelled")
                if time.monotonic() > deadline:
                    raise LlmTimeoutError(f"no reply within {self.endpoint.timeout:g} s")
                notify(LlmProgress("waiting", f"waiting for {self.endpoint.model}", attempt,
                                   time.monotonic() - started))
        finally:
            if not done.is_set():
                threading.Thread(target=client.close, daemon=True).start()
        if "error" in box:
            client.close()
            raise self._translate(box["error"], json_mode) from None
        client.close()
        reply: _Reply = box["response"]
        return reply

    def _translate(self, exc: BaseException, json_mode: bool) -> BaseException:
        import openai

        if isinstance(exc, LlmError):  # read from the response (too large, not JSON)
            return exc
        if isinstance(exc, openai.APITimeoutError):
            return LlmTimeoutError(f"no reply within {self.endpoint.timeout:g} s")
        if isinstance(exc, openai.APIConnectionError):
            reason, refused = _unreachable(exc)
            url = self.endpoint.base_url
            if refused:
                return LlmConnectionError(self._mask(
                    f"nothing answers at {url} (connection refused): is the server running, and "
                    "is the port right?"), _is_loopback(url))
            return LlmConnectionError(self._mask(f"cannot reach {url}: {reason}"))
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = display_name(self._mask(_server_message(exc)), MAX_ERROR_CHARS)
            if status in (401, 403):
                return LlmAuthError(f"the server refused the API key ({status}): {detail}", status)
            retry_after = _retry_after(exc)
            if status == 429:
                return LlmRateLimitError(f"rate limited (429): {detail}", status, retry_after)
            if status in (400, 422) and json_mode:
                return _Refused(LlmRequestError(f"{status}: {detail}", status))
            if status in (408, 409) or status >= 500:
                return LlmServerError(f"server error ({status}): {detail}", status, retry_after)
            return LlmRequestError(f"request refused ({status}): {detail}", status)
        if isinstance(exc, openai.OpenAIError):
            return LlmServerError(display_name(self._mask(f"unexpected reply: {exc}"), MAX_ERROR_CHARS))
        if isinstance(exc, Exception):
            return LlmServerError(display_name(self._mask(f"{type(exc).__name__}: {exc}"),
                                               MAX_ERROR_CHARS))
        return exc


def _read_reply(response: Any) -> _Reply:
    """Read a chat completion's body, at most :data:`MAX_RESPONSE_BYTES` of it, and take the
    first choice's text out of it (raises :class:`LlmError` for a body too large, not JSON, or
    holding text that is not a string)."""
    limit = MAX_RESPONSE_BYTES
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise LlmReplyTooLarge(_body_too_large(int(declared)))
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise LlmReplyTooLarge(_body_too_large(size, more=True))
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks))
    except (ValueError, RecursionError) as exc:  # also a number of over 4,300 digits
        raise LlmServerError(f"the server's response is not readable JSON ({display_name(str(exc), 200)})") \
            from None
    if not isinstance(data, dict):
        raise LlmServerError("the server's response is not a JSON object")
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    model = data.get("model") if isinstance(data.get("model"), str) else None
    if choice is None:
        return _Reply(None, model, None)
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if content is not None and not isinstance(content, str):
        raise LlmServerError(f"the reply's text is not a string (it is a {type(content).__name__})")
    finish = choice.get("finish_reason")
    return _Reply(content or "", model, finish if isinstance(finish, str) else None)


def _body_too_large(size: int, more: bool = False) -> str:
    return (f"the server's response is {'over ' if more else ''}{size / 1e6:,.1f} MB; replies over "
            f"{MAX_REPLY_CHARS:,} characters are refused (nothing from it is proposed)")
def _unreachable(exc: BaseException) -> tuple[str, bool]:
    """Why a connection failed, in a few words without a final full stop ("connection refused"),
    and whether it was refused (nothing listens at that port)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 20:
        chain.append(current)
        current = current.__cause__ or current.__context__
    refused = any(isinstance(c, ConnectionRefusedError) or "refused" in str(c).lower()
                  for c in chain)
    if refused:
        return "connection refused", True
    root = chain[-1]
    reason = getattr(root, "strerror", None) or str(root) or type(root).__name__
    return str(reason).strip().rstrip(".") or "connection failed", False


def _is_loopback(base_url: str) -> bool:
    """The URL names this machine (localhost, 127.0.0.0/8, ::1)."""
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _server_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return str(getattr(exc, "message", exc))


def _retry_after(exc: Any) -> float | None:
    """The ``Retry-After`` header in seconds (a number or an HTTP date), at most 30 s."""
    response = getattr(exc, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    if not header:
        return None
    try:
        return min(MAX_RETRY_AFTER, max(0.0, float(header)))
    except ValueError:
        pass
    try:
        return min(MAX_RETRY_AFTER, max(0.0, parsedate_to_datetime(header).timestamp() - time.time()))
    except (TypeError, ValueError):
        return None


def _retry_delay(exc: LlmError, attempt: int) -> float:
    """``Retry-After`` when the server sent one, else 0.5 s doubling up to 8 s."""
    if exc.retry_after is not None:
        return exc.retry_after
    return min(8.0, 0.5 * 2.0 ** (attempt - 1))
