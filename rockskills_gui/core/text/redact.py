"""Secrets out of everything we store or show: plan files, raw replies, error text, logs.

:func:`redact` is the one masking function. It finds a secret in any form it takes on the way
back to us: as is (also inside ``Bearer <key>``), JSON-escaped (``\\"``, ``\\/``, ``\\uXXXX``,
any number of backslashes for nested JSON), URL-encoded (``%XX`` in either case, ``+`` for a
space), or a mix of those character by character; in upper, lower or any other case; reversed;
hex-encoded (its UTF-8 bytes, either case); and base64-encoded (standard or URL-safe alphabet,
with or without padding), also inside a longer base64 text at any of the three byte alignments
(``Authorization: Basic`` of ``user:key``: the characters that only the key's bytes decide,
and the one or two either side that hold some of its bits). Each is replaced with
``[redacted]`` (issue 35, item 17).
"""

from __future__ import annotations

import base64
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


_B64 = "[A-Za-z0-9+/_-]"
_STANDARD = bytes.maketrans(b"-_", b"+/")


def _base64_cores(data: bytes) -> list[str]:
    """The base64 characters that ``data`` alone decides, at each of the three byte offsets it
    can start at in a longer text (standard alphabet; the URL-safe one is matched too)."""
    cores: list[str] = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        first = -(-8 * offset // 6)  # the first character whose 6 bits are all the secret's
        last = (8 * (offset + len(data))) // 6  # one past the last such character
        if last - first >= 4:
            cores.append(encoded[first:last])
    return cores


def _base64_form(core: str) -> str:
    """``core`` in either alphabet, with the characters either side that hold a few of its bits."""
    either = "".join(f"[{re.escape(c)}{re.escape(c.translate(str.maketrans('+/', '-_')))}]"
                     if c in "+/" else re.escape(c) for c in core)
    return f"{_B64}{{0,2}}{either}{_B64}{{0,2}}={{0,2}}"


@functools.lru_cache(maxsize=64)
def secret_pattern(secret: str) -> re.Pattern[str]:
    """The compiled pattern of every form of ``secret`` (see the module's doc)."""
    data = secret.encode("utf-8")
    texts = ["".join(_char_forms(c) for c in secret), "".join(_char_forms(c) for c in secret[::-1])]
    forms = [f"(?i:{t})" for t in texts]  # any case
    forms.append(f"(?i:{data.hex()})")
    forms += [_base64_form(core) for core in _base64_cores(data)]
    return re.compile("|".join(forms))


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
