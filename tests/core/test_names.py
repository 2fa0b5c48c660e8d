"""RockBot's name rules and .NET ordinal-ignore-case ordering (spec §3, §4)."""

from __future__ import annotations

import random

import pytest

from rockskills_gui.core.model.names import (
    InvalidNameError,
    fold,
    name_error,
    prefixes,
    rockbot_name_error,
    same_name,
    sort_key,
    sorted_names,
    validate_name,
)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Skill name cannot be empty or whitespace."),
        ("   ", "Skill name cannot be empty or whitespace."),
        ("\u3000\t", "Skill name cannot be empty or whitespace."),
        ("/etc/passwd", "Skill name must be a relative path: '/etc/passwd'"),
        ("a/../b", "Skill name cannot contain '..': 'a/../b'"),
        ("..", "Skill name cannot contain '..': '..'"),
        ("has space", "Skill name contains invalid characters: 'has space'. Only alphanumeric, "
                      "hyphens, underscores, and '/' are allowed."),
        ("a//b", "Skill name contains invalid characters: 'a//b'. Only alphanumeric, hyphens, "
                 "underscores, and '/' are allowed."),
        ("trailing/", "Skill name contains invalid characters: 'trailing/'. Only alphanumeric, "
                      "hyphens, underscores, and '/' are allowed."),
        ("café", "Skill name contains invalid characters: 'café'. Only alphanumeric, hyphens, "
                 "underscores, and '/' are allowed."),
        ("a.b", "Skill name contains invalid characters: 'a.b'. Only alphanumeric, hyphens, "
                "underscores, and '/' are allowed."),
        ("back\\slash", "Skill name contains invalid characters: 'back\\slash'. Only "
                        "alphanumeric, hyphens, underscores, and '/' are allowed."),
        ("\x1c", "Skill name contains invalid characters: '\x1c'. Only alphanumeric, hyphens, "
                 "underscores, and '/' are allowed."),
    ],
)
def test_rockbot_messages(name: str, message: str) -> None:
    assert rockbot_name_error(name) == message
    with pytest.raises(InvalidNameError, match="^" + __import__("re").escape(message) + "$"):
        validate_name(name)


@pytest.mark.parametrize("name", ["mcp/email", "Foo_Bar-9", "a", "x/y/z", "_", "-", "UPPER"])
def test_valid_names(name: str) -> None:
    assert validate_name(name) == name


def test_trailing_newline_rockbot_accepts_but_we_refuse() -> None:
    assert rockbot_name_error("name\n") is None
    assert name_error("name\n") is not None
    assert rockbot_name_error("name\n\n") is not None


def test_ordinal_ignore_case_order_examples() -> None:
    expected = ["a-b", "a/b", "a0", "aa", "ab", "a_b", "B", "Zeta", "zz", "_x", "été"]
    shuffled = expected[:]
    random.Random(4).shuffle(shuffled)
    assert sorted_names(shuffled) == expected
    assert sorted_names(["straße", "STRASSE"]) == ["STRASSE", "straße"]
    assert sort_key("\U0001F600") < sort_key("\uffe0")  # surrogates sort before U+FFE0


def test_python_lower_order_would_differ() -> None:
    names = ["a_b", "aa", "_x", "a-b"]
    assert sorted(names, key=str.lower) != sorted_names(names)


def test_case_folding_identity() -> None:
    assert same_name("MCP/Email", "mcp/email")
    assert fold("ı") == "ı" and fold("ſ") == "ſ"  # .NET keeps these
    assert fold("ß") == "ß"  # multi-character upper case is not applied
    assert not same_name("ss", "ß")


def test_prefixes() -> None:
    assert prefixes("a/b/c") == ["a", "a/b"]
    assert prefixes("top") == []
