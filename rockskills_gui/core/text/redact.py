"""Secrets out of everything we store or show: plan files, raw replies, error text, logs.

:func:`redact` is the one masking function. It finds a secret in any form it takes on the way
back to us: as is (also inside ``Bearer <key>``), JSON-escaped (``\\"``, ``\\/``, ``\\uXXXX``,
any number of backslashes for nested JSON), URL-encoded (``%XX`` in either case, ``+`` for a
space), or a mix of those character by character, and replaces it with ``[redacted]``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

MIN_SECRET = 4  # shorter strings would redact ordinary words
REDACTED = "[redacted]"


def _char_forms(ch: str) -> str:
    """A regular expression matching ``ch`` as is, JSON-escaped or URL-encoded."""
    forms = [re.escape(ch)]
    code = ord(ch)
    if code <= 0xFFFF:
        forms.append(r"\\+u" + f"(?i:{code:04x})")
    else:
        high, low = divmod(code - 0x10000, 0x400)
        forms.append(r"\\+u" + f"(?i:{0xD800 + high:04x})" + r"\\+u" + f"(?i:{0xDC00 + low:04x})")
    short = {'"': '"', "\\": "\\", "/": "/", "\n": "n", "\r": "r", "\t": "t", "\b": "b", "\f": "f"}
    if ch in short:
        forms.append(r"\\+" + re.escape(short[ch]))
    encoded = ch.encode("utf-8")
    forms.append("".join(f"%(?i:{b:02x})" for b in encoded))
    if ch == " ":
        forms.append(r"\+")
    return "(?:" + "|".join(forms) + ")"


@functools.lru_cache(maxsize=64)
def secret_pattern(secret: str) -> re.Pattern[str]:
    """The compiled pattern of every form of ``secret``."""
    return re.compile("".join(_char_forms(c) for c in secret))


def _usable(secrets: Iterable[str | None]) -> list[str]:
    found = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_SECRET}
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every secret (at least 4 characters, longest first) replaced, in any form."""
    for secret in _usable(secrets):
        if secret in text:
            text = text.replace(secret, REDACTED)
        text = secret_pattern(secret).sub(REDACTED, text)
    return text


def redact_data(value: Any, secrets: Iterable[str | None], skip: frozenset[str] = frozenset()) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with every string and key redacted; the values
    of keys in ``skip`` are kept as they are."""
    usable = _usable(secrets)
    if not usable:
        return value

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return redact(item, usable)
        if isinstance(item, dict):
            return {(redact(k, usable) if isinstance(k, str) else k): (v if k in skip else walk(v))
                    for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        return item

    return walk(value)
