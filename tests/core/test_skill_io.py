"""Skill files: byte-identical round trip and RockBot's reading rules (spec §2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.model.skill import (
    Skill,
    SkillParseError,
    skill_from_bytes,
    skill_from_text,
    skill_to_bytes,
    skill_to_json,
    utf16_len,
)
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp
from tests.conftest import AGENT, EXPECTED


def fixture_skill_files() -> list[Path]:
    return sorted((AGENT / "skills").rglob("*.json"))


@pytest.mark.parametrize("path", fixture_skill_files(), ids=lambda p: p.stem)
def test_every_fixture_skill_round_trips_byte_identical(path: Path) -> None:
    raw = path.read_bytes()
    assert skill_to_bytes(skill_from_bytes(raw)) == raw


def test_applied_consolidation_example_round_trips() -> None:
    raw = (EXPECTED / "apply-consolidation-example.meetings-plan-and-schedule.json").read_bytes()
    assert skill_to_bytes(skill_from_bytes(raw)) == raw


def test_writer_against_hand_checked_text() -> None:
    skill = Skill(
        name="recipes/caf-e",
        summary="Crème & <b>brûlée</b> 😀",
        content="line1\r\nline2\t'q' \"dq\" a+b `x`",
        created_at=Timestamp.parse("2026-10-05T20:15:00.0000001+00:00"),
        updated_at=Timestamp.parse("2026-10-05T20:15:07.4020000+00:00"),
        last_used_at=None,
        see_also=("mcp/calendar", "x"),
    )
    assert skill_to_json(skill) == (
        "{\n"
        '  "name": "recipes/caf-e",\n'
        '  "summary": "Cr\\u00E8me \\u0026 \\u003Cb\\u003Ebr\\u00FBl\\u00E9e\\u003C/b\\u003E '
        '\\uD83D\\uDE00",\n'
        '  "content": "line1\\r\\nline2\\t\\u0027q\\u0027 \\u0022dq\\u0022 a\\u002Bb '
        '\\u0060x\\u0060",\n'
        '  "createdAt": "2026-10-05T20:15:00.0000001+00:00",\n'
        '  "updatedAt": "2026-10-05T20:15:07.402+00:00",\n'
        '  "lastUsedAt": null,\n'
        '  "seeAlso": [\n'
        '    "mcp/calendar",\n'
        '    "x"\n'
        "  ]\n"
        "}"
    )
    assert skill_from_text(skill_to_json(skill)) == skill


def test_empty_see_also_and_nulls_are_written() -> None:
    skill = Skill(name="a", summary=None, content=None, see_also=())
    text = skill_to_json(skill)
    assert '"summary": null' in text and '"content": null' in text
    assert '"seeAlso": []' in text
    assert '"createdAt": "0001-01-01T00:00:00+00:00"' in text
    assert not text.endswith("\n")


def test_reader_tolerates_case_bom_and_unknown_properties() -> None:
    raw = ('\ufeff{"NAME": "a", "Summary": "s", "content": "c", "createdat": "2026-01-01T00:00:00Z",'
           ' "extra": {"x": [1]}, "seeALSO": ["b"]}').encode()
    skill = skill_from_bytes(raw)
    assert (skill.name, skill.summary, skill.see_also) == ("a", "s", ("b",))
    assert skill.created_at.isoformat() == "2026-01-01T00:00:00+00:00"


def test_missing_created_at_is_min_value() -> None:
    assert skill_from_text('{"name": "a"}').created_at == MIN_VALUE


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('{"name": "a", "content": "trunc', "parse-error"),
        ('{"summary": "no name"}', "missing-name"),
        ('{"name": null}', "missing-name"),
        ('{"name": 5}', "parse-error"),
        ('{"name": "a", "createdAt": null}', "parse-error"),
        ('{"name": "a", "createdAt": "not a date"}', "parse-error"),
        ('{"name": "a", "seeAlso": "b"}', "parse-error"),
        ('{"name": "a", "seeAlso": [1]}', "parse-error"),
        ('["name"]', "parse-error"),
    ],
)
def test_unreadable_files(text: str, kind: str) -> None:
    with pytest.raises(SkillParseError) as info:
        skill_from_text(text)
    assert info.value.kind == kind


def test_utf16_length_counts_surrogate_pairs() -> None:
    assert utf16_len("a😀é") == 4


def test_sparse_rule() -> None:
    now = Timestamp.parse("2026-11-22T12:00:00Z")
    old = Timestamp.parse("2026-11-10T12:00:00Z")
    new = Timestamp.parse("2026-11-19T12:00:00Z")
    assert Skill(name="a", content="x" * 199, created_at=old).is_sparse(now)
    assert not Skill(name="a", content="x" * 200, created_at=old).is_sparse(now)
    assert not Skill(name="a", content="x", created_at=new).is_sparse(now)
