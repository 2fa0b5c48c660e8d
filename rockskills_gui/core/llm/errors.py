"""What can go wrong with a request, as one sentence for the user with the secrets masked, and the
translation of the ``openai`` package's exceptions into it. A server's own text in it is cut to
:data:`MAX_ERROR_CHARS` characters on one line (issue 35, item 15)."""

from __future__ import annotations

import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any

from rockskills_gui.core.llm.endpoint import Endpoint, is_loopback
from rockskills_gui.core.model.names import display_name

MAX_RETRY_AFTER = 30.0
MAX_ERROR_CHARS = 1_000


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


class LlmReplyError(LlmError):
    """A reply that came but cannot be read (not JSON, no choices, too large)."""

    kind = "reply"


class LlmReplyTooLarge(LlmReplyError):
    """A reply larger than the client reads (its body, or its text)."""

    kind = "too-large"


RETRYABLE = (LlmRateLimitError, LlmServerError, LlmConnectionError, LlmTimeoutError)
Mask = Callable[[str], str]


def status_error(status: int, detail: str, retry_after: float | None = None) -> LlmError:
    """The error for an HTTP ``status`` whose body said ``detail`` (already masked)."""
    if status in (401, 403):
        return LlmAuthError(f"the server refused the API key ({status}): {detail}", status)
    if status == 429:
        return LlmRateLimitError(f"rate limited (429): {detail}", status, retry_after)
    if status in (408, 409) or status >= 500:
        return LlmServerError(f"server error ({status}): {detail}", status, retry_after)
    return LlmRequestError(f"request refused ({status}): {detail}", status)


def translate(exc: BaseException, endpoint: Endpoint, mask: Mask) -> BaseException:
    """``exc`` (raised by the ``openai`` package) as an :class:`LlmError`; an :class:`LlmError`
    (raised while reading the reply) and anything that is not an ``Exception`` (KeyboardInterrupt,
    a cancelled task) are returned as they are."""
    import openai

    if isinstance(exc, LlmError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return LlmTimeoutError(f"no reply within {endpoint.timeout:g} s")
    if isinstance(exc, openai.APIConnectionError):
        reason, refused = unreachable(exc)
        url = endpoint.base_url
        if refused:
            return LlmConnectionError(mask(
                f"nothing answers at {url} (connection refused): is the server running, and "
                "is the port right?"), is_loopback(url))
        return LlmConnectionError(mask(f"cannot reach {url}: {reason}"))
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, server_detail(exc, mask), _retry_after_of(exc))
    if isinstance(exc, openai.OpenAIError):
        return LlmServerError(display_name(mask(f"unexpected reply: {exc}"), MAX_ERROR_CHARS))
    if isinstance(exc, Exception):
        return LlmServerError(display_name(mask(f"{type(exc).__name__}: {exc}"), MAX_ERROR_CHARS))
    return exc


def unreachable(exc: BaseException) -> tuple[str, bool]:
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


def server_message(exc: Any) -> str:
    """The message of an error reply (OpenAI's ``{"error": {"message": ...}}``, a top-level
    ``message``, or an ``error`` string), else the exception's own message."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
        if isinstance(error, str):
            return error
    return str(getattr(exc, "message", exc))


def server_detail(exc: Any, mask: Mask) -> str:
    """:func:`server_message` masked, on one line and cut to :data:`MAX_ERROR_CHARS` characters."""
    return display_name(mask(server_message(exc)), MAX_ERROR_CHARS)


def retry_after(header: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (a number or an HTTP date), at most 30 s."""
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


def _retry_after_of(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    return retry_after(response.headers.get("retry-after") if response is not None else None)
