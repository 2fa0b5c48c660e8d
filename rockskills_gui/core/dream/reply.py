"""LLM replies parsed the way RockBot parses them, then validated with pydantic.

RockBot (rockbot-skills.md §10.1): trim; if ``<think>`` occurs and the first ``</think>`` comes after
it (both case-insensitive), drop everything through the end tag and trim the start; take the text
from the first ``{`` to the last ``}``; deserialize with case-insensitive property names and strict
JSON. A reply that fails any step is reported with the raw text and what was wrong, and nothing
from it is applied.

Validation is a little stricter than RockBot where RockBot would crash or silently do nothing:
wrong JSON types (RockBot: JsonException, pass skipped), a null item in ``toSave`` or a null name in
``toDelete``/``sourceNames`` (RockBot: exception, rest of the cycle aborted), and an object with
none of the expected properties (RockBot: an empty result) are all reported as failures.

A reply is also refused, with what it held, when it is larger than a review can take (issue 35,
item 15): over :data:`MAX_REPLY_CHARS` characters, over :data:`MAX_REPLY_ITEMS` entries in
``toSave`` or ``toDelete``, or over :data:`MAX_REPLY_NAMES` names in all the ``sourceNames`` and
``seeAlso`` lists (JSON nested too deep or a number of over 4,300 digits is invalid JSON).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.llm.body import MAX_REPLY_CHARS as MAX_REPLY_CHARS  # the reply's limit, shared
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.names import dotnet_trim, is_dotnet_whitespace

MAX_REPLY_ITEMS = 2_000  # entries in toSave, and in toDelete
MAX_REPLY_NAMES = 20_000  # names in all the sourceNames and seeAlso lists together

_THINK_OPEN = re.compile(re.escape("<think>"), re.IGNORECASE | re.ASCII)
_THINK_CLOSE = re.compile(re.escape("</think>"), re.IGNORECASE | re.ASCII)


def _trim_start(text: str) -> str:
    """.NET ``TrimStart()``."""
    start = 0
    while start < len(text) and is_dotnet_whitespace(text[start]):
        start += 1
    return text[start:]


def extract_json_object(reply: str) -> str | None:
    """RockBot's ``ExtractJsonObject`` after ``Trim()``: the outermost ``{...}`` or None."""
    text = dotnet_trim(reply)
    start = _THINK_OPEN.search(text)
    end = _THINK_CLOSE.search(text)
    if start is not None and end is not None and end.start() > start.start():
        text = _trim_start(text[end.end():])
    first = text.find("{")
    last = text.rfind("}")
    if first >= 0 and last > first:
        return text[first:last + 1]
    return None


# ---------------------------------------------------------------- schemas


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, populate_by_name=True)


class GapItem(_Strict):
    name: str | None = None
    summary: str | None = None
    content: str | None = None


class GapReply(_Strict):
    """``{ "toSave": [ { "name", "summary", "content" } ] }``."""

    to_save: list[GapItem] | None = Field(default=None, alias="toSave")


class SaveItem(_Strict):
    name: str | None = None
    summary: str | None = None
    content: str | None = None
    source_names: list[str] | None = Field(default=None, alias="sourceNames")
    see_also: list[str | None] | None = Field(default=None, alias="seeAlso")


class SkillReply(_Strict):
    """``{ "toDelete": [...], "toSave": [ { name, summary, content, sourceNames, seeAlso } ] }``."""

    to_delete: list[str] | None = Field(default=None, alias="toDelete")
    to_save: list[SaveItem] | None = Field(default=None, alias="toSave")


Reply = GapReply | SkillReply
R = TypeVar("R", GapReply, SkillReply)

_FIELDS: dict[type[BaseModel], dict[str, str]] = {
    GapReply: {"tosave": "toSave"},
    SkillReply: {"todelete": "toDelete", "tosave": "toSave"},
    GapItem: {"name": "name", "summary": "summary", "content": "content"},
    SaveItem: {"name": "name", "summary": "summary", "content": "content",
                "sourcenames": "sourceNames", "seealso": "seeAlso"},
}
_ITEM: dict[type[BaseModel], type[BaseModel]] = {GapReply: GapItem, SkillReply: SaveItem}


def schema_for(dream_pass: DreamPass) -> type[GapReply] | type[SkillReply]:
    return GapReply if dream_pass is DreamPass.GAP else SkillReply


def _plain(value: Any) -> Any:
    """dotnet_json pairs -> plain values (objects become dicts with their last duplicate)."""
    if dotnet_json.is_object(value):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _canonical(pairs: Any, model: type[BaseModel]) -> Any:
    """Map property names case-insensitively onto the model's (System.Text.Json's rule)."""
    if not dotnet_json.is_object(pairs):
        return _plain(pairs)
    names = _FIELDS[model]
    out: dict[str, Any] = {}
    for key, value in dotnet_json.case_insensitive_props(pairs).items():
        canonical = names.get(key)
        if canonical is None:
            continue
        item_model = _ITEM.get(model)
        if canonical == "toSave" and item_model is not None and isinstance(value, list):
            out[canonical] = [_canonical(v, item_model) for v in value]
        else:
            out[canonical] = _plain(value)
    return out


def _describe(error: ValidationError) -> list[str]:
    messages: list[str] = []
    for item in error.errors():
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in item["loc"]).lstrip(".")
        got = type(item.get("input")).__name__ if "input" in item else "?"
        got = {"NoneType": "null", "dict": "an object", "list": "an array", "int": "a number",
               "float": "a number", "bool": "a boolean", "str": "a string"}.get(got, got)
        messages.append(f"{where or 'reply'}: {item['msg'].lower()} (got {got})")
    return messages


@dataclass(frozen=True)
class ParsedReply(Generic[R]):
    """A reply and what came of it: the validated value, or what was wrong (``errors``)."""

    raw: str
    json_text: str | None
    value: R | None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.value is not None and not self.errors


@overload
def parse_reply(raw: str | None, dream_pass: Literal[DreamPass.GAP]) -> ParsedReply[GapReply]: ...


@overload
def parse_reply(raw: str | None,
                dream_pass: Literal[DreamPass.CONSOLIDATE, DreamPass.OPTIMIZE, DreamPass.OFFLINE],
                ) -> ParsedReply[SkillReply]: ...


@overload
def parse_reply(raw: str | None,
                dream_pass: DreamPass) -> ParsedReply[GapReply] | ParsedReply[SkillReply]: ...


def parse_reply(raw: str | None, dream_pass: DreamPass) -> ParsedReply[GapReply] | ParsedReply[SkillReply]:
    """Parse an LLM reply for ``dream_pass`` (see the module doc); never raises."""
    if schema_for(dream_pass) is GapReply:
        return _parse_as(raw, GapReply)
    return _parse_as(raw, SkillReply)


def too_large(length: int) -> str:
    """The message for a reply of ``length`` characters over :data:`MAX_REPLY_CHARS`."""
    return (f"the reply is {length:,} characters long; replies over {MAX_REPLY_CHARS:,} characters "
            "are refused (nothing from it is proposed)")


def _too_many(data: dict[str, Any]) -> list[str]:
    """Why the reply lists more than a review can take (empty when it does not)."""
    errors: list[str] = []
    for key, what in (("toSave", "skills to save"), ("toDelete", "skills to delete")):
        value = data.get(key)
        if isinstance(value, list) and len(value) > MAX_REPLY_ITEMS:
            errors.append(f"{key}: the reply lists {len(value):,} {what}; at most {MAX_REPLY_ITEMS:,} "
                          "are read from one reply (nothing from it is proposed)")
    saves = data.get("toSave")
    names = sum(len(item.get(key) or ()) for item in (saves if isinstance(saves, list) else [])
                if isinstance(item, dict) for key in ("sourceNames", "seeAlso")
                if isinstance(item.get(key), list))
    if names > MAX_REPLY_NAMES:
        errors.append(f"toSave: the reply names {names:,} skills in sourceNames and seeAlso; at most "
                      f"{MAX_REPLY_NAMES:,} are read from one reply (nothing from it is proposed)")
    return errors


def _parse_as(raw: str | None, model: type[R]) -> ParsedReply[R]:
    """:func:`parse_reply` with the pass's reply schema ``model``."""
    raw = raw or ""
    if len(raw) > MAX_REPLY_CHARS:
        return ParsedReply(raw, None, None, [too_large(len(raw))])
    json_text = extract_json_object(raw)
    if json_text is None:
        return ParsedReply(raw, None, None, ["the reply contains no JSON object ({ ... })"])
    try:
        pairs = dotnet_json.loads_pairs(json_text)
    except dotnet_json.JsonReadError as exc:
        return ParsedReply(raw, json_text, None, [f"invalid JSON: {exc}"])
    except ValueError as exc:  # whatever else the reader refuses: this reply fails, not the run
        return ParsedReply(raw, json_text, None, [f"invalid JSON: {str(exc).split(';')[0]}"])
    if not dotnet_json.is_object(pairs):
        return ParsedReply(raw, json_text, None, ["the JSON is not an object"])
    data = _canonical(pairs, model)
    if not data:
        expected = " or ".join(f"'{n}'" for n in _FIELDS[model].values())
        return ParsedReply(raw, json_text, None, [f"the object has no {expected} property"])
    crowded = _too_many(data)
    if crowded:
        return ParsedReply(raw, json_text, None, crowded)
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        return ParsedReply(raw, json_text, None, _describe(exc))
    return ParsedReply(raw, json_text, value)
