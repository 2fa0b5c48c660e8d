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
:data:`MAX_ERROR_CHARS` characters. The endpoint, the errors, the retries and the body's limit
live in :mod:`core.llm` (shared with trigger evals); their names are kept here.

The API key is passed in (the caller reads it from the OS keyring or the environment); it is never
written anywhere. :meth:`LlmClient.redact` masks it (and a password in the base URL), in any form
:func:`core.redact.redact` knows, out of every error message and every reply: a server that echoes
the Authorization header cannot put the key into a plan.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rockskills_gui.core.dream.reply import too_large
from rockskills_gui.core.llm.body import MAX_REPLY_CHARS, MAX_RESPONSE_BYTES, read_body
from rockskills_gui.core.llm.endpoint import (
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    Endpoint,
    LlmProgress,
    ProgressFn,
    endpoint_secrets,
)
from rockskills_gui.core.llm.errors import (
    MAX_ERROR_CHARS,
    RETRYABLE,
    LlmAuthError,
    LlmCancelled,
    LlmConnectionError,
    LlmError,
    LlmRateLimitError,
    LlmReplyTooLarge,
    LlmRequestError,
    LlmServerError,
    LlmTimeoutError,
    server_detail,
    translate,
)
from rockskills_gui.core.llm.retry import CONNECTION_RETRY_BUDGET, Retries
from rockskills_gui.core.model.names import display_name
from rockskills_gui.core.text.redact import redact

__all__ = [  # the endpoint, the errors and the limits live in core.llm (shared with trigger evals)
    "CONNECTION_RETRY_BUDGET", "DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "MAX_ERROR_CHARS", "MAX_REPLY_CHARS",
    "MAX_RESPONSE_BYTES", "Completion", "Endpoint", "LlmAuthError", "LlmCancelled", "LlmClient",
    "LlmConnectionError", "LlmError", "LlmProgress", "LlmRateLimitError", "LlmReplyTooLarge",
    "LlmRequestError", "LlmServerError", "LlmTimeoutError", "ProgressFn",
]

_POLL = 0.1


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


@dataclass(frozen=True)
class _Reply:
    """What the response said: the first choice's text (None without choices), model, finish."""

    content: str | None
    model: str | None
    finish_reason: str | None


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
        return endpoint_secrets(self.endpoint.base_url, self.__key)

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
        retries = Retries(self.endpoint.retries)
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
            except RETRYABLE as exc:
                # Refused on this machine: said at once. Unreachable elsewhere: a short budget only.
                delay = retries.delay(exc, attempt)
                if delay is None:
                    raise
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

        if isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 422) and json_mode:
            status = exc.status_code
            return _Refused(LlmRequestError(f"{status}: {server_detail(exc, self._mask)}", status))
        return translate(exc, self.endpoint, self._mask)


def _read_reply(response: Any) -> _Reply:
    """Read a chat completion's body, at most :data:`MAX_RESPONSE_BYTES` of it, and take the
    first choice's text out of it (raises :class:`LlmError` for a body too large, not JSON, or
    holding text that is not a string)."""
    body = read_body(response, MAX_RESPONSE_BYTES, f"replies over {MAX_REPLY_CHARS:,} characters are "
                                                   "refused (nothing from it is proposed)")
    try:
        data = json.loads(body)
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
