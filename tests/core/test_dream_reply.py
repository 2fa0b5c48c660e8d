"""RockBot's tolerant reply parsing and our pydantic validation (no network)."""

from __future__ import annotations

import pytest

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.reply import SkillReply, extract_json_object, parse_reply


@pytest.mark.parametrize("raw, expected", [
    ('  {"a": 1}  ', '{"a": 1}'),
    ('```json\n{"a": {"b": 2}}\n```', '{"a": {"b": 2}}'),
    ('<THINK>{"x": 1}</Think>\n\n{"a": 1}', '{"a": 1}'),
    ('</think> before <think> {"a": 1}', '{"a": 1}'),  # end before start: nothing dropped
    ('Note {curly} then {"a": 1}', '{curly} then {"a": 1}'),  # RockBot's outermost braces
    ("no object", None),
    ("} backwards {", None),
])
def test_extract_json_object_is_rockbots(raw: str, expected: str | None) -> None:
    assert extract_json_object(raw) == expected


def test_property_names_are_case_insensitive_and_last_wins() -> None:
    parsed = parse_reply('{"TODELETE": ["a"], "toDelete": ["b"], "ToSave": [{"NAME": "n", '
                         '"Content": "c", "SOURCENAMES": ["b"], "extra": 1}]}', DreamPass.CONSOLIDATE)
    assert parsed.ok
    assert isinstance(parsed.value, SkillReply)
    assert parsed.value.to_delete == ["b"]
    assert parsed.value.to_save[0].source_names == ["b"]


@pytest.mark.parametrize("raw, message", [
    ('{"toSave": [{"name": 5, "content": "x"}]}', "toSave[0].name"),
    ('{"toDelete": [null], "toSave": []}', "toDelete[0]"),
    ('{"toSave": [null]}', "toSave[0]"),
    ('{"toSave": [], "x": NaN}', "invalid JSON"),
    ('{"toSave": []} and {"toDelete": []}', "invalid JSON"),  # two objects break it
])
def test_what_rockbot_would_choke_on_is_reported(raw: str, message: str) -> None:
    parsed = parse_reply(raw, DreamPass.CONSOLIDATE)
    assert not parsed.ok and any(message in e for e in parsed.errors), parsed.errors
    assert parsed.raw == raw


def test_gap_schema_needs_to_save() -> None:
    assert parse_reply('{"toSave": []}', DreamPass.GAP).ok
    assert not parse_reply('{"toDelete": []}', DreamPass.GAP).ok
