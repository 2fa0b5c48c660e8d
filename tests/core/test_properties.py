"""Property-based tests (hypothesis) for the readers and writers that see untrusted input.

Each reader may only fail with its documented error: the RockBot JSON reader with SkillParseError
or JsonReadError, Timestamp.parse with TimestampError, name validation with InvalidNameError, the
SKILL.md frontmatter parser with FrontmatterError, the LLM-reply parser never (it reports errors
in the result). Writers round-trip exactly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.reply import parse_reply
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.names import InvalidNameError, name_error, validate_name
from rockskills_gui.core.model.skill import (
    Skill,
    SkillParseError,
    skill_from_bytes,
    skill_from_text,
    skill_to_bytes,
)
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.storage.layout import Layout
from tests.property_budget import budgeted

EXAMPLES = budgeted(60, 300, suppress_health_check=[HealthCheck.too_slow])
NAME = st.from_regex(r"[a-zA-Z0-9_-]{1,12}(/[a-zA-Z0-9_-]{1,12}){0,3}", fullmatch=True)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)
TICKS = st.integers(min_value=0, max_value=3_155_378_975_999_999_999)  # 0001 .. 9999-12-31
STAMP = st.builds(Timestamp, TICKS, st.integers(min_value=-14 * 60, max_value=14 * 60))
JSON_SCALAR = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False,
                                                                                  allow_infinity=False) | TEXT
JSON = st.recursive(JSON_SCALAR, lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(TEXT, kids, max_size=4), max_leaves=20)
KEYS = st.sampled_from(["name", "Name", "NAME", "summary", "content", "createdAt", "updatedAt",
                        "lastUsedAt", "seeAlso", "SEEALSO", "other"])


@EXAMPLES
@given(NAME, st.none() | TEXT, st.none() | TEXT, STAMP, st.none() | STAMP, st.none() | STAMP,
       st.none() | st.lists(TEXT, max_size=4))
def test_skill_json_round_trips_exactly(name, summary, content, created, updated, used, see) -> None:
    # RockBot writes offsets as given but the text of a non-UTC value must stay inside year 1..9999
    skill = Skill(name=name, summary=summary, content=content, created_at=created, updated_at=updated,
                  last_used_at=used, see_also=tuple(see) if see is not None else None)
    try:
        data = skill_to_bytes(skill)
    except dotnet_json.JsonWriteError:
        return
    assert data.isascii() and not data.endswith(b"\n")
    back = skill_from_bytes(data)
    assert back == skill
    assert skill_to_bytes(back) == data


@EXAMPLES
@given(st.text(max_size=400))
def test_skill_reader_on_any_text_only_raises_its_error(text: str) -> None:
    try:
        skill_from_text(text)
    except SkillParseError:
        pass


@EXAMPLES
@given(st.dictionaries(KEYS, JSON, max_size=8))
def test_skill_reader_on_any_json_object_only_raises_its_error(record: dict) -> None:
    text = json.dumps(record)
    try:
        skill = skill_from_text(text)
    except SkillParseError:
        return
    assert isinstance(skill.name, str)


@EXAMPLES
@given(st.binary(max_size=300))
def test_skill_reader_on_any_bytes_only_raises_its_error(data: bytes) -> None:
    try:
        skill_from_bytes(data)
    except SkillParseError:
        pass


@EXAMPLES
@given(st.text(max_size=300))
def test_json_reader_only_raises_json_read_error(text: str) -> None:
    try:
        dotnet_json.loads_pairs(text)
    except dotnet_json.JsonReadError:
        pass


@EXAMPLES
@given(JSON)
def test_compact_writer_reads_back(value) -> None:
    try:
        text = dotnet_json.dumps_compact(value)
    except dotnet_json.JsonWriteError:
        return
    assert text.isascii()
    parsed = json.loads(text)
    assert parsed == json.loads(json.dumps(value))


@EXAMPLES
@given(st.text(max_size=40))
def test_timestamp_parse_only_raises_timestamp_error(text: str) -> None:
    try:
        Timestamp.parse(text)
    except TimestampError:
        pass


@EXAMPLES
@given(STAMP)
def test_timestamp_text_round_trips(stamp: Timestamp) -> None:
    assert Timestamp.parse(stamp.isoformat()) == stamp


@EXAMPLES
@given(st.text(max_size=60))
def test_name_rules_never_crash_and_valid_names_stay_inside_the_folder(name: str) -> None:
    message = name_error(name)
    try:
        validate_name(name)
    except InvalidNameError as exc:
        assert str(exc) == message
        return
    assert message is None
    layout = Layout(Path("/agent"), Path("/agent/skills"))
    path = layout.path_for(name)
    assert os.path.normpath(path) == str(path)  # no '..', no '.', no '//'
    assert path.is_relative_to(layout.skills_dir) and path != layout.skills_dir
    assert "\\" not in name and "\0" not in name


@EXAMPLES
@given(st.text(max_size=300))
def test_frontmatter_parser_only_raises_its_error(text: str) -> None:
    try:
        fm.parse_frontmatter(text)
    except fm.FrontmatterError:
        pass


@EXAMPLES
@given(st.binary(max_size=300))
def test_document_split_never_loses_a_byte(data: bytes) -> None:
    try:
        doc = fm.split_document(data)
    except UnicodeDecodeError:
        return
    assert doc.to_bytes() == data


@EXAMPLES
@given(st.text(max_size=400), st.sampled_from(list(DreamPass)))
def test_reply_parser_never_raises(text: str, dream_pass: DreamPass) -> None:
    parsed = parse_reply(text, dream_pass)
    assert parsed.ok == (parsed.value is not None and not parsed.errors)
    assert parsed.ok or parsed.errors


@EXAMPLES
@given(st.dictionaries(st.sampled_from(["toSave", "toDelete", "TOSAVE", "x"]),
                       JSON | st.lists(st.dictionaries(st.sampled_from(
                           ["name", "summary", "content", "sourceNames", "seeAlso", "NAME"]), JSON,
                           max_size=5), max_size=3), max_size=3),
       st.sampled_from(list(DreamPass)), st.text(max_size=30))
def test_reply_parser_on_any_structure_never_raises(obj: dict, dream_pass: DreamPass, noise: str) -> None:
    parsed = parse_reply(f"{noise}\n{json.dumps(obj)}\n{noise}", dream_pass)
    assert parsed.ok or parsed.errors


def _plain(value):
    if dotnet_json.is_object(value):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@EXAMPLES
@given(st.lists(st.tuples(st.sampled_from(["name", "Name", "NAME", "content", "x", "X", "é"]), JSON),
                max_size=8))
def test_the_fast_property_reader_agrees_with_the_pair_reader(pairs: list) -> None:
    text = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs) + "}"
    pairs_props = dotnet_json.case_insensitive_props(dotnet_json.loads_pairs(text))
    slow = {k: _plain(v) for k, v in pairs_props.items()}
    assert {k: _plain(v) for k, v in dotnet_json.loads_props(text).items()} == slow
