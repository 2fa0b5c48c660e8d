"""The Skill record and its exact RockBot JSON reader/writer (rockbot-skills.md §2)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.names import is_null_or_whitespace
from rockskills_gui.core.model.record import ImmutableRecord
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp, TimestampError

SPARSE_CONTENT_UNITS = 200
SPARSE_MIN_AGE_DAYS = 7


@dataclass(frozen=True, slots=True)
class Skill(ImmutableRecord):
    """One RockBot skill record. Immutable: edits make a new value with ``model_copy(update=...)``.

    A slotted dataclass rather than a pydantic model: a library holds one per skill (100,000 at
    scale), and the record is filled from already-checked parses, so validation would only cost
    start-up time and memory (issue 19). ``see_also`` given as a list is kept as a tuple.
    """

    name: str
    summary: str | None = ""
    content: str | None = ""
    created_at: Timestamp = MIN_VALUE
    updated_at: Timestamp | None = None
    last_used_at: Timestamp | None = None
    see_also: tuple[str, ...] | None = None
    # Properties this record does not model (e.g. RockBot (current)'s ``manifest`` and
    # ``surfaceBaseline``), in file order: (name as spelled in the file, its JSON text as the
    # writer renders it at this nesting level). Written back after ``seeAlso``, unchanged.
    extra: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.see_also is not None and type(self.see_also) is not tuple:
            object.__setattr__(self, "see_also", tuple(self.see_also))

    def extra_value(self, key: str) -> Any:
        """The parsed value of the unmodelled property ``key`` (case-insensitive), else None."""
        for name, text in reversed(self.extra):
            if name.lower() == key.lower():
                return json.loads(text)
        return None

    @property
    def summary_pending(self) -> bool:
        """RockBot shows ``(summary pending)`` for a null/empty/whitespace summary."""
        return is_null_or_whitespace(self.summary)

    @property
    def content_units(self) -> int:
        """Content length in UTF-16 code units (what .NET's ``string.Length`` counts)."""
        return utf16_len(self.content or "")

    def last_activity(self) -> Timestamp:
        """``lastUsedAt ?? updatedAt ?? createdAt`` (the prune rule's clock, §10.3)."""
        return self.last_used_at or self.updated_at or self.created_at

    def is_sparse(self, now: Timestamp) -> bool:
        """RockBot's sparse rule: content < 200 UTF-16 units and created more than 7 days ago."""
        return (self.content_units < SPARSE_CONTENT_UNITS
                and now.total_days_since(self.created_at) > SPARSE_MIN_AGE_DAYS)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


# ---------------------------------------------------------------- writer


def skill_to_json(skill: Skill) -> str:
    """The exact text RockBot's FileSkillStore writes for ``skill`` (no trailing newline)."""
    record: dict[str, Any] = {
        "name": skill.name,
        "summary": skill.summary,
        "content": skill.content,
        "createdAt": skill.created_at,
        "updatedAt": skill.updated_at,
        "lastUsedAt": skill.last_used_at,
        "seeAlso": list(skill.see_also) if skill.see_also is not None else None,
    }
    for key, text in skill.extra:
        record[key] = dotnet_json.Rendered(text)
    return dotnet_json.dumps_indented(record)


KNOWN_PROPS = frozenset({"name", "summary", "content", "createdat", "updatedat", "lastusedat",
                         "seealso"})


def _keep(value: Any, key: str = "") -> Any:
    """A parsed JSON value made ready for the writer: objects as ordered dicts (last duplicate
    wins, case-insensitively, in the place of the first), date texts under ``…At`` keys kept
    unescaped (RockBot's date formatter writes them)."""
    if dotnet_json.is_object(value):
        out: dict[str, Any] = {}
        spelled: dict[str, str] = {}
        for k, v in value:
            first = spelled.setdefault(k.lower(), k)
            out[first] = _keep(v, k)
        return out
    if isinstance(value, list):
        return [_keep(v) for v in value]
    if isinstance(value, str) and key.lower().endswith("at") and dotnet_json.DATE_TEXT.match(value):
        return dotnet_json.DateText(value)
    return value


def extra_props(text: str) -> tuple[tuple[str, str], ...]:
    """The unmodelled properties of a skill file's text (see :attr:`Skill.extra`)."""
    pairs = dotnet_json.loads_pairs(text)
    kept: dict[str, tuple[str, Any]] = {}
    for key, value in pairs:
        if key.lower() in KNOWN_PROPS:
            continue
        first = kept.get(key.lower(), (key, None))[0]
        kept[key.lower()] = (first, value)
    return tuple((k, dotnet_json.dumps_indented(_keep(v, k), 1)) for k, v in kept.values())


def with_property(skill: Skill, key: str, value: Any) -> Skill:
    """``skill`` with the unmodelled property ``key`` set to ``value`` (a JSON value): in its
    place when the skill has it (any case), else added after the others."""
    (rendered,) = extra_props(json.dumps({key: value}))
    return with_rendered_property(skill, key, rendered[1])


def with_rendered_property(skill: Skill, key: str, text: str) -> Skill:
    """:func:`with_property` with the value's text as the writer renders it (from another skill's
    :attr:`Skill.extra`, kept byte for byte)."""
    extra = list(skill.extra)
    at = next((i for i, (k, _v) in enumerate(extra) if k.lower() == key.lower()), None)
    if at is None:
        extra.append((key, text))
    else:
        extra[at] = (extra[at][0], text)
    return skill.model_copy(update={"extra": tuple(extra)})


def rendered_property(skill: Skill, key: str) -> str | None:
    """The rendered text of the unmodelled property ``key`` (any case; the last), or None."""
    return next((text for k, text in reversed(skill.extra) if k.lower() == key.lower()), None)


def with_null_properties(skill: Skill, keys: tuple[str, ...]) -> Skill:
    """``skill`` with each of ``keys`` it lacks (any case) added as ``null``, in that order: what a
    writer that writes nulls (System.Text.Json without an ignore condition) puts in the file."""
    if not keys:
        return skill
    have = {k.lower() for k, _v in skill.extra}
    missing = tuple((k, "null") for k in keys if k.lower() not in have)
    return skill.model_copy(update={"extra": skill.extra + missing}) if missing else skill


def skill_to_bytes(skill: Skill) -> bytes:
    """UTF-8 bytes (no BOM) of :func:`skill_to_json`; the text is pure ASCII by construction."""
    return skill_to_json(skill).encode("utf-8")


# ---------------------------------------------------------------- reader


class SkillParseError(ValueError):
    """The file would be skipped by RockBot (a JsonException), or has no usable name."""

    def __init__(self, message: str, kind: str = "parse-error") -> None:
        super().__init__(message)
        self.kind = kind


def decode_file_text(raw: bytes) -> tuple[str, bool]:
    """Decode like .NET ``File.ReadAllText``: strip a UTF-8 BOM; invalid bytes become U+FFFD.

    Returns the text and whether any byte was invalid UTF-8.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


def _opt_str(props: dict[str, Any], key: str, default: str | None) -> str | None:
    if key not in props:
        return default
    value = props[key]
    if value is None or isinstance(value, str):
        return value
    raise SkillParseError(f"'{key}' must be a string, not {_json_type(value)}")


def _timestamp(props: dict[str, Any], key: str, nullable: bool) -> Timestamp | None:
    if key not in props:
        return None if nullable else MIN_VALUE
    value = props[key]
    if value is None:
        if nullable:
            return None
        raise SkillParseError(f"'{key}' cannot be null")
    if not isinstance(value, str):
        raise SkillParseError(f"'{key}' must be a date string, not {_json_type(value)}")
    try:
        return Timestamp.parse(value)
    except TimestampError as exc:
        raise SkillParseError(f"'{key}': {exc}") from None


def _json_type(value: Any) -> str:
    if dotnet_json.is_object(value) or isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "null"


def skill_from_text(text: str) -> Skill:
    """Parse a skill file's text with System.Text.Json's rules (case-insensitive, last wins).

    Raises :class:`SkillParseError`: kind ``parse-error`` for what RockBot skips, ``missing-name``
    for a file without a name (which breaks RockBot's store, §2).
    """
    try:
        props = dotnet_json.loads_props(text)
    except dotnet_json.JsonReadError as exc:
        raise SkillParseError(str(exc)) from None
    name = _opt_str(props, "name", None)
    summary = _opt_str(props, "summary", None)
    content = _opt_str(props, "content", None)
    created = _timestamp(props, "createdat", nullable=False)
    updated = _timestamp(props, "updatedat", nullable=True)
    last_used = _timestamp(props, "lastusedat", nullable=True)
    see_also: tuple[str, ...] | None = None
    if props.get("seealso") is not None:
        raw = props["seealso"]
        if not isinstance(raw, list) or dotnet_json.is_object(raw):
            raise SkillParseError(f"'seeAlso' must be an array, not {_json_type(raw)}")
        if not all(isinstance(item, str) for item in raw):
            raise SkillParseError("'seeAlso' entries must all be strings")
        see_also = tuple(raw)
    if name is None:
        raise SkillParseError("the file has no 'name' (RockBot's store fails on it)", "missing-name")
    assert created is not None
    extra: tuple[tuple[str, str], ...] = ()
    if len(props) > len(KNOWN_PROPS & props.keys()):
        try:
            extra = extra_props(text)
        except dotnet_json.JsonWriteError as exc:
            raise SkillParseError(f"an unknown property cannot be kept as it is: {exc}") from None
    return Skill.model_construct(
        name=name, summary=summary, content=content, created_at=created,
        updated_at=updated, last_used_at=last_used, see_also=see_also, extra=extra,
    )


def skill_from_bytes(raw: bytes) -> Skill:
    """Parse a skill file's bytes (see :func:`skill_from_text`)."""
    text, _ = decode_file_text(raw)
    return skill_from_text(text)
