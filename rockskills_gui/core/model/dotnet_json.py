"""JSON text exactly as System.Text.Json writes it (default encoder), and a reader with its rules.

Writer (rockbot-skills.md §2): every non-ASCII UTF-16 unit as ``\\uXXXX`` (upper-case hex),
the ASCII characters ``" & ' + < > ``` escaped as ``\\u00XX``, short escapes for ``\\n \\r \\t
\\b \\f \\\\``, other controls and DEL as ``\\u00XX``; indented form with 2 spaces, no trailing
newline; compact form with no spaces at all. Reader: strict JSON (no NaN/Infinity, comments or
trailing commas), duplicate properties resolved last-wins by the caller.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rockskills_gui.core.model.size_limits import JSON_MAX_DEPTH
from rockskills_gui.core.model.timestamps import Timestamp

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\\": "\\\\"}
_ESCAPED_ASCII = set("\"&'+<>`")
_SAFE = "".join(
    chr(c) for c in range(0x20, 0x7F) if chr(c) not in _ESCAPED_ASCII and chr(c) != "\\"
)
_NEEDS_ESCAPE = re.compile("[^" + re.escape(_SAFE) + "]")


class JsonWriteError(ValueError):
    """A value System.Text.Json would refuse to write (e.g. a lone surrogate)."""


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    short = _SHORT.get(ch)
    if short is not None:
        return short
    cp = ord(ch)
    if 0xD800 <= cp <= 0xDFFF:
        raise JsonWriteError(f"lone surrogate U+{cp:04X} cannot be written as UTF-16 text")
    if cp < 0x10000:
        return f"\\u{cp:04X}"
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04X}\\u{0xDC00 + (cp & 0x3FF):04X}"


_BIG = 64 * 1024  # characters from which the C-speed paths below are worth their setup
_ASCII_TABLE = {ord(c): _escape_char(m) for c in map(chr, range(0x80))
                if (m := _NEEDS_ESCAPE.match(c)) is not None}
_FIXUPS = (('\\"', "\\u0022"), ("&", "\\u0026"), ("'", "\\u0027"), ("+", "\\u002B"), ("<", "\\u003C"),
           (">", "\\u003E"), ("`", "\\u0060"), ("\x7f", "\\u007F"))
_LOWER_HEX_ESCAPE = re.compile(r"\\u[0-9a-f]{4}")


def escape_string(text: str) -> str:
    """A JSON string literal (with quotes) as System.Text.Json's default encoder writes it."""
    if len(text) < _BIG:
        return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'
    lone = _LONE_SURROGATE.search(text)
    if lone is not None:
        raise JsonWriteError(f"lone surrogate U+{ord(lone.group()):04X} cannot be written as UTF-16 text")
    if "\\" not in text:
        # json.dumps escapes in C (lower-case hex, \\"); then the quote, the six other characters
        # and DEL, then upper-case hex. Without a backslash in the text, every backslash in the
        # output starts an escape, so these replacements cannot touch the text itself.
        out = json.dumps(text)
        for char, escaped in _FIXUPS:
            if char in out:
                out = out.replace(char, escaped)
        for lower in set(_LOWER_HEX_ESCAPE.findall(out)):
            upper = "\\u" + lower[2:].upper()
            if upper != lower:
                out = out.replace(lower, upper)
        return out
    table = dict(_ASCII_TABLE)
    for char in set(text):
        if ord(char) > 0x7E and ord(char) not in table:
            table[ord(char)] = _escape_char(_NEEDS_ESCAPE.match(char))  # type: ignore[arg-type]
    return '"' + text.translate(table) + '"'


class Rendered(str):
    """JSON text already written (e.g. a preserved property value): emitted as it is."""


class DateText(str):
    """A DateTimeOffset's text as RockBot wrote it: written without string escaping (its ``+``
    stays literal, as the date formatter writes it), see :data:`DATE_TEXT`."""


# What System.Text.Json's DateTimeOffset formatter writes (round-trip form, explicit offset).
DATE_TEXT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?(Z|[+-]\d\d:\d\d)$")


def _scalar(value: Any) -> str | None:
    if isinstance(value, Rendered):
        return str(value)
    if isinstance(value, DateText):
        return '"' + value + '"' if DATE_TEXT.match(value) else escape_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return escape_string(value)
    if isinstance(value, Timestamp):
        return '"' + value.isoformat() + '"'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _double(value)
    return None


def _double(value: float) -> str:
    """A double as .NET Core 3.0+ writes it (shortest round-trip; ``E+XX`` exponents).
    Assumed from .NET's documented "R" behaviour; only used for preserved unknown properties."""
    if value != value or value in (float("inf"), float("-inf")):
        raise JsonWriteError("NaN and infinities cannot be written as JSON")
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if mantissa.endswith(".0"):
            mantissa = mantissa[:-2]
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}E{sign}{int(exponent.lstrip('+-')):02d}"
    return text[:-2] if text.endswith(".0") else text


def dumps_indented(value: Any, indent: int = 0) -> str:
    """Indented form (``WriteIndented = true``): 2 spaces, ``"key": value``, ``\\n``, no final newline."""
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    pad = "  " * (indent + 1)
    close = "  " * indent
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        items = [f"{pad}{escape_string(str(k))}: {dumps_indented(v, indent + 1)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + close + "}"
    if isinstance(value, Sequence):
        if not value:
            return "[]"
        items = [pad + dumps_indented(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + close + "]"
    raise JsonWriteError(f"cannot write {type(value).__name__} as JSON")


def dumps_compact(value: Any) -> str:
    """Compact form (JSONL lines, conversation files): no whitespace at all."""
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{escape_string(str(k))}:{dumps_compact(v)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(dumps_compact(v) for v in value) + "]"
    raise JsonWriteError(f"cannot write {type(value).__name__} as JSON")


# ---------------------------------------------------------------- reading


class JsonReadError(ValueError):
    """What System.Text.Json would raise as a JsonException."""


def _reject_constant(name: str) -> Any:
    raise JsonReadError(f"invalid JSON token {name}")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A lone surrogate can only come from a \\uD800-\\uDFFF escape (or be in the text already): texts
# without either skip the walk over every parsed string.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
MAX_DEPTH = JSON_MAX_DEPTH  # System.Text.Json's default JsonSerializerOptions.MaxDepth
INT_DIGITS = 4300  # Python's default int-string limit (sys.get_int_max_str_digits)


def _has_lone_surrogate(text: str) -> bool:
    return _LONE_SURROGATE.search(text) is not None


def _check_strings(value: Any) -> None:
    """Raise JsonReadError for a lone surrogate in any key or string of ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _has_lone_surrogate(item):
                raise JsonReadError("invalid UTF-16 (lone surrogate) in a string")
        elif isinstance(item, _Pairs):
            for key, val in item:
                stack.append(key)
                stack.append(val)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _depth(value: Any) -> int:
    """Nesting depth of arrays/objects (a scalar is 0)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list | dict):  # _Pairs is a list too
            depth += 1
            deepest = max(deepest, depth)
            values = (v for _, v in item) if isinstance(item, _Pairs) else (
                item.values() if isinstance(item, dict) else item)
            stack.extend((v, depth) for v in values if isinstance(v, list | dict))
    return deepest


def loads_pairs(text: str) -> Any:
    """Parse strict JSON; objects come back as lists of (key, value) pairs (order and duplicates kept).

    Raises :class:`JsonReadError` for anything System.Text.Json would reject: invalid JSON,
    NaN/Infinity, a lone surrogate in any string, nesting deeper than :data:`MAX_DEPTH`.
    """
    value = _loads(text, _Pairs)
    _check(text, value)
    return value


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object as its (key, value) pairs, to apply .NET's case-insensitive last-wins rule."""


_DECODERS = {  # reused: json.loads(text, **options) builds a new decoder on every call
    None: json.JSONDecoder(parse_constant=_reject_constant),
    _Pairs: json.JSONDecoder(object_pairs_hook=_Pairs, parse_constant=_reject_constant),
}


def _loads(text: str, hook: Any) -> Any:
    try:
        if text.startswith("\ufeff"):  # what json.loads says (the caller strips a file's BOM)
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODERS[hook].decode(text)
    except JsonReadError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonReadError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise JsonReadError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        raise JsonReadError(_number_error(exc)) from None


def _number_error(exc: ValueError) -> str:
    if "integer string conversion" in str(exc):
        return f"a number with more than {INT_DIGITS:,} digits"
    return str(exc).splitlines()[0] if str(exc) else "invalid JSON"


def loads_untrusted(data: str | bytes) -> Any:
    """``json.loads`` for a file from a library or a home folder, which may be hostile: any JSON
    value (NaN and duplicate names as ``json`` reads them), but :class:`JsonReadError` (a
    ValueError with a readable message) for invalid JSON, nesting deeper than :data:`MAX_DEPTH`
    (never a RecursionError) and a number with more than 4,300 digits (never Python's
    int-string limit error). Bytes are decoded as ``json.loads`` does (UTF-8/16/32)."""
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        raise JsonReadError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise JsonReadError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # the int-string limit, or bytes json cannot decode
        raise JsonReadError(_number_error(exc)) from None
    brackets = data.count(b"[") + data.count(b"{") if isinstance(data, bytes) else \
        data.count("[") + data.count("{")
    if brackets > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise JsonReadError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def _check(text: str, value: Any) -> None:
    # (the quick tests first: no "\u" means no escaped surrogate, ASCII text no lone one)
    if ("\\u" in text and _ESCAPED_SURROGATE.search(text) is not None) or \
            (not text.isascii() and _LONE_SURROGATE.search(text) is not None):
        _check_strings(value)
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise JsonReadError(f"JSON nested deeper than {MAX_DEPTH} levels")


try:
    from json.scanner import c_make_scanner as _make_scanner  # type: ignore[attr-defined]
except ImportError:  # (a Python without the C scanner)
    _make_scanner = None
_SCAN = _make_scanner(_DECODERS[None]) if _make_scanner is not None else None


def _scan_object(text: str) -> Any:
    """The value of ``text`` when it is exactly one JSON object without surrounding whitespace
    (a log line), read by the C scanner alone: half the time of ``JSONDecoder.decode`` (1,000,000
    usage events); None otherwise, or for anything wrong with it (the caller's full parse then
    says what)."""
    if _SCAN is None or not text.startswith("{") or not text.endswith("}"):
        return None
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError, RecursionError, JsonReadError):
        return None
    return value if end == len(text) else None


def loads_props(text: str) -> dict[str, Any]:
    """A JSON object's properties by lower-cased ASCII name, the last duplicate winning, as
    ``case_insensitive_props(loads_pairs(text))`` gives them (nested objects may come back as
    dicts). Fast path: a plain parse, unless two names differ only by case."""
    value = _scan_object(text)
    if value is None:
        value = _loads(text, None)
    if not isinstance(value, dict):
        raise JsonReadError("expected a JSON object")
    props = {key.lower(): item for key, item in value.items()}
    if len(props) != len(value):  # "Name" and "name": the order of all pairs decides
        return case_insensitive_props(loads_pairs(text))
    _check(text, value)
    return props


def is_object(value: Any) -> bool:
    """A JSON object as :func:`loads_pairs` returns it (``loads_props`` gives nested dicts)."""
    return isinstance(value, _Pairs)


def case_insensitive_props(pairs: Any) -> dict[str, Any]:
    """Properties by lower-cased ASCII name; a later duplicate wins (as System.Text.Json does)."""
    if not isinstance(pairs, _Pairs):
        raise JsonReadError("expected a JSON object")
    result: dict[str, Any] = {}
    for key, value in pairs:
        result[key.lower()] = value
    return result
