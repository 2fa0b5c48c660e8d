"""The System.Text.Json writer/reader rules, against hand-checked strings (spec §2)."""

from __future__ import annotations

import pytest

from rockskills_gui.core.model.dotnet_json import (
    JsonReadError,
    JsonWriteError,
    case_insensitive_props,
    dumps_compact,
    dumps_indented,
    escape_string,
    loads_pairs,
)
from rockskills_gui.core.model.timestamps import Timestamp


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It's <b>&</b> a+b", '"It\\u0027s \\u003Cb\\u003E\\u0026\\u003C/b\\u003E a\\u002Bb"'),
        ("`code`", '"\\u0060code\\u0060"'),
        ("café — ok", '"caf\\u00E9 \\u2014 ok"'),
        ("\U0001F600", '"\\uD83D\\uDE00"'),
        ("a\tb\nc\r\b\f", '"a\\tb\\nc\\r\\b\\f"'),
        ("back\\slash", '"back\\\\slash"'),
        ('say "hi"', '"say \\u0022hi\\u0022"'),
        ("mcp/email", '"mcp/email"'),
        ("\x01\x1f\x7f", '"\\u0001\\u001F\\u007F"'),
        ("\u2028\ufeff\uffff", '"\\u2028\\uFEFF\\uFFFF"'),
        ("", '""'),
        ("plain ASCII 0-9 ~!@#$%^*()_=[]{}|;:,.?", '"plain ASCII 0-9 ~!@#$%^*()_=[]{}|;:,.?"'),
    ],
)
def test_escape_string_matches_system_text_json(text: str, expected: str) -> None:
    assert escape_string(text) == expected


def test_lone_surrogate_is_refused() -> None:
    with pytest.raises(JsonWriteError):
        escape_string("bad \ud800 text")


def test_indented_layout() -> None:
    value = {
        "name": "a",
        "when": Timestamp.parse("2026-11-22T12:00:00.1200000+00:00"),
        "none": None,
        "empty": [],
        "list": ["x", "y"],
        "obj": {},
        "nested": {"k": [1, {"z": None}]},
    }
    assert dumps_indented(value) == (
        '{\n'
        '  "name": "a",\n'
        '  "when": "2026-11-22T12:00:00.12+00:00",\n'
        '  "none": null,\n'
        '  "empty": [],\n'
        '  "list": [\n'
        '    "x",\n'
        '    "y"\n'
        '  ],\n'
        '  "obj": {},\n'
        '  "nested": {\n'
        '    "k": [\n'
        '      1,\n'
        '      {\n'
        '        "z": null\n'
        '      }\n'
        '    ]\n'
        '  }\n'
        '}'
    )


def test_compact_form_has_no_spaces() -> None:
    value = {"id": "5c01a40c06f5", "skillName": "scripts/csv-processing",
             "sessionId": "cli-session", "signalType": 2,
             "timestamp": Timestamp.parse("2026-10-11T20:00:00.9+00:00")}
    assert dumps_compact(value) == (
        '{"id":"5c01a40c06f5","skillName":"scripts/csv-processing","sessionId":"cli-session",'
        '"signalType":2,"timestamp":"2026-10-11T20:00:00.9+00:00"}'
    )


@pytest.mark.parametrize(
    "text",
    ['{"a": NaN}', '{"a": Infinity}', '{"a": 1,}', '// c\n{"a": 1}', '{"a": 1', "",
     '{"a": "\\ud800"}', '{"a": "raw\ttab"}'],
)
def test_reader_rejects_what_system_text_json_rejects(text: str) -> None:
    with pytest.raises(JsonReadError):
        loads_pairs(text)


def test_reader_is_case_insensitive_and_last_wins() -> None:
    props = case_insensitive_props(loads_pairs('{"Name": "a", "NAME": "b", "other": 1}'))
    assert props["name"] == "b"
    assert props["other"] == 1


def test_reader_requires_an_object_for_properties() -> None:
    with pytest.raises(JsonReadError):
        case_insensitive_props(loads_pairs("[1, 2]"))
