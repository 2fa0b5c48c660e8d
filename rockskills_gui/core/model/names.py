"""RockBot skill-name rules, .NET ordinal-ignore-case folding/ordering and prefix helpers.

Spec: rockbot-skills.md §3 (validation, messages) and §4 (List order, case-insensitive identity).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

# .NET Regex: `$` also matches before a final "\n" (as in Python's re.match with `$`).
_NAME_RE = re.compile(r"^[a-zA-Z0-9_\-]+(/[a-zA-Z0-9_\-]+)*$")

# .NET char.IsWhiteSpace: Zs/Zl/Zp plus U+0009-U+000D and U+0085 (U+001C-U+001F are NOT whitespace).
_DOTNET_WS = frozenset(
    "\t\n\x0b\x0c\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000 "
)


class InvalidNameError(ValueError):
    """A name RockBot's SkillStore would refuse (ArgumentException), with RockBot's message."""


def is_dotnet_whitespace(ch: str) -> bool:
    """True when .NET ``char.IsWhiteSpace`` would say so."""
    return ch in _DOTNET_WS


def is_null_or_whitespace(text: str | None) -> bool:
    """.NET ``string.IsNullOrWhiteSpace``."""
    return text is None or all(c in _DOTNET_WS for c in text)


def dotnet_trim(text: str) -> str:
    """.NET ``string.Trim()`` (removes .NET whitespace at both ends)."""
    start, end = 0, len(text)
    while start < end and text[start] in _DOTNET_WS:
        start += 1
    while end > start and text[end - 1] in _DOTNET_WS:
        end -= 1
    return text[start:end]


def dotnet_trim_end(text: str) -> str:
    """.NET ``string.TrimEnd()``."""
    end = len(text)
    while end > 0 and text[end - 1] in _DOTNET_WS:
        end -= 1
    return text[:end]


def rockbot_name_error(name: str | None) -> str | None:
    """Return RockBot's own error message for ``name``, or None when RockBot accepts it.

    Checks run in RockBot's order: empty/whitespace, rooted path, '..', character pattern.
    """
    if is_null_or_whitespace(name):
        return "Skill name cannot be empty or whitespace."
    assert name is not None
    if name.startswith("/"):
        return f"Skill name must be a relative path: '{name}'"
    if ".." in name:
        return f"Skill name cannot contain '..': '{name}'"
    if not _NAME_RE.match(name):
        return (
            f"Skill name contains invalid characters: '{name}'. "
            "Only alphanumeric, hyphens, underscores, and '/' are allowed."
        )
    return None


def name_error(name: str | None) -> str | None:
    """RockBot's rules plus ours: the GUI also refuses the trailing newline RockBot lets through.

    RockBot's regex `$` matches before a final newline, so it would save ``"name\\n"`` as a file
    whose name ends in a newline; we refuse that with our own message.
    """
    message = rockbot_name_error(name)
    if message is None and name is not None and name.endswith("\n"):
        return (
            f"Skill name ends with a line break: {name!r}. RockBot would accept it, "
            "but it would create a file name with a newline in it."
        )
    return message


def display_name(name: str, limit: int = 80) -> str:
    """``name`` for a one-line message: control and other unprintable characters escaped
    (``\\x00``, ``\\n``), cut to ``limit`` characters with the full length said."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in name[: limit + 1])
    if len(name) > limit or len(text) > limit:
        return f"{text[:limit]}… ({len(name):,} characters)"
    return text


def readable_name_error(name: str) -> str | None:
    """:func:`name_error` with the name shown by :func:`display_name` (one readable line)."""
    message = name_error(name)
    if message is None or not name:
        return message
    shown = display_name(name)
    if shown == name:
        return message
    return message.replace(repr(name), repr(shown)).replace(name, shown)


def validate_name(name: str | None) -> str:
    """Return ``name`` if valid, else raise :class:`InvalidNameError` with the message."""
    message = name_error(name)
    if message is not None:
        raise InvalidNameError(message)
    assert name is not None
    return name


# ---------------------------------------------------------------- ordinal-ignore-case

_SIMPLE_UPPER_EXCEPTIONS = {"\u0131", "\u017f"}  # dotless i, long s: .NET keeps them
_fold_cache: dict[str, str] = {}


def _upper_char(ch: str) -> str:
    cached = _fold_cache.get(ch)
    if cached is not None:
        return cached
    if ch in _SIMPLE_UPPER_EXCEPTIONS:
        result = ch
    else:
        up = ch.upper()
        result = up if len(up) == 1 else ch
    _fold_cache[ch] = result
    return result


def fold(name: str) -> str:
    """Case-fold the way .NET OrdinalIgnoreCase compares: simple per-character upper case."""
    if name.isascii():
        return name.upper()
    return "".join(_upper_char(c) for c in name)


def sort_key(name: str) -> bytes:
    """Sort key equal to StringComparer.OrdinalIgnoreCase: folded UTF-16 code units."""
    return fold(name).encode("utf-16-be", "surrogatepass")


def same_name(a: str, b: str) -> bool:
    """Case-insensitive name identity (ordinal-ignore-case)."""
    return fold(a) == fold(b)


def sorted_names(names: Iterable[str]) -> list[str]:
    """Names in RockBot's List order (stable)."""
    return sorted(names, key=sort_key)


def sorted_by_name(items: Iterable[T], name_of: Callable[[T], str]) -> list[T]:
    """Items in RockBot's List order of ``name_of(item)`` (stable)."""
    return sorted(items, key=lambda item: sort_key(name_of(item)))


# ---------------------------------------------------------------- prefixes and paths


def segments(name: str) -> list[str]:
    """The '/' segments of a name."""
    return name.split("/")


def prefixes(name: str) -> list[str]:
    """Every proper prefix of a name: ``a/b/c`` -> ``["a", "a/b"]``."""
    parts = name.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def parent_prefix(name: str) -> str:
    """The name without its last segment ("" for a top-level name)."""
    head, _, _ = name.rpartition("/")
    return head


def leaf(name: str) -> str:
    """The last segment of a name."""
    return name.rpartition("/")[2]


def first_duplicate_fold(names: Sequence[str]) -> tuple[str, str] | None:
    """The first pair of names in ``names`` that collide case-insensitively."""
    seen: dict[str, str] = {}
    for name in names:
        key = fold(name)
        if key in seen and seen[key] != name:
            return seen[key], name
        seen.setdefault(key, name)
    return None
