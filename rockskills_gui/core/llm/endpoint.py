"""Where and how to ask: the endpoint, progress reports, and what must never be stored."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2


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


ProgressFn = Callable[[LlmProgress], None]


def endpoint_secrets(base_url: str, api_key: str | None) -> list[str]:
    """What must never be stored: the API key and a password in the base URL."""
    try:
        password = urlsplit(base_url).password
    except ValueError:
        password = None
    return [s for s in (api_key, password) if s]


def is_loopback(base_url: str) -> bool:
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
