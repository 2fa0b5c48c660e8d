"""SKILL.md frontmatter: exact split/join, lenient parsing, edits that touch only edited keys."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.model import frontmatter as fm
from tests.property_budget import budgeted

KEYS = st.from_regex(r"[a-z][a-z0-9_-]{0,12}", fullmatch=True)
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60)
VALUES = st.one_of(TEXT, st.lists(TEXT, max_size=3), st.dictionaries(KEYS, TEXT, max_size=3))


@budgeted(20, 100)
@given(st.text(max_size=300), st.booleans())
def test_split_and_join_is_the_identity(text: str, bom: bool) -> None:
    raw = (fm.BOM if bom else b"") + text.encode("utf-8", "surrogatepass")
    try:
        doc = fm.split_document(raw)
    except UnicodeDecodeError:
        return
    assert doc.to_bytes() == raw


@budgeted(40, 200)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n"]),
       st.sampled_from(["yaml", "line"]))
def test_rendered_frontmatter_reads_back(values: dict, newline: str, plain: str) -> None:
    text = fm.render_frontmatter(values, newline, plain)
    if plain == "line":  # line style may leave ': ' unquoted: the lenient retry must recover it
        parsed = fm.parse_frontmatter(text).values
    else:
        parsed = yaml.load(text, Loader=fm._Loader)
    assert parsed == values
    assert "\n" not in text.replace(newline, "") or newline == "\n"


@budgeted(40, 200)
@given(st.dictionaries(KEYS, TEXT, min_size=2, max_size=6), st.data())
def test_editing_one_key_leaves_every_other_line_alone(values: dict, data: st.DataObject) -> None:
    text = fm.render_frontmatter(values)
    key = data.draw(st.sampled_from(sorted(values)))
    new_value = data.draw(TEXT)
    edited = fm.edit_frontmatter(text, {key: new_value})
    parsed = fm.parse_frontmatter(edited).values
    assert parsed == {**values, key: new_value}
    assert list(parsed) == list(values)  # key order kept
    own = (f"{key}:", f'"{key}":', f"'{key}':")  # YAML may quote a key such as "no"
    others = [line for line in text.splitlines() if not line.startswith(own)]
    assert [line for line in edited.splitlines() if not line.startswith(own)] == others
    assert fm.edit_frontmatter(text, {}) == text


def test_edit_keeps_comments_unknown_keys_quoting_and_crlf() -> None:
    text = ("name: x\r\n# a comment\r\nauthor: 'Ann'\r\ndescription: old\r\nmetadata:\r\n"
            "  version: \"1.0\"\r\nallowed-tools: Bash(git:*) Read\r\n")
    edited = fm.edit_frontmatter(text, {"description": "new: with colon"}, "\r\n")
    assert edited == text.replace("description: old", 'description: "new: with colon"')
    assert fm.edit_frontmatter(text, {"metadata": fm.DELETE}, "\r\n") == \
        text.replace('metadata:\r\n  version: "1.0"\r\n', "")
    added = fm.edit_frontmatter(text, {"license": "MIT"}, "\r\n")
    assert added == text + "license: MIT\r\n"


def test_block_scalar_description_is_replaced_whole_in_its_own_style() -> None:
    text = "name: x\ndescription: |\n  line one\n\n  line two\nlicense: MIT\n"
    edited = fm.edit_frontmatter(text, {"description": "short"})
    assert edited == "name: x\ndescription: |-\n  short\nlicense: MIT\n"


def test_a_folded_description_stays_folded_and_gains_nothing() -> None:
    """Issue 35 item 3: appending to a ``>`` block kept the text but wrote it double-quoted."""
    text = "name: x\ndescription: >\n  Helps with team\n  collaboration.\nlicense: MIT\n"
    value = "Helps with team collaboration. Edited.\n"
    edited = fm.edit_frontmatter(text, {"description": value})
    assert edited == ("name: x\ndescription: >\n  Helps with team\n  collaboration. Edited.\n"
                      "license: MIT\n")
    assert fm.parse_frontmatter(edited).values["description"] == value
    assert fm.edit_frontmatter(text, {"description": "No line break at the end."}) == (
        "name: x\ndescription: >-\n  No line break at the end.\nlicense: MIT\n")


@pytest.mark.parametrize("old", ["'it''s'", '"quoted"', ">\n    folded\n", "|+\n  kept\n\n"])
def test_quoted_and_block_styles_are_kept(old: str) -> None:
    text = f"name: x\ndescription: {old}\nlicense: MIT\n"
    edited = fm.edit_frontmatter(text, {"description": "it's new\n" if "\n" in old else "it's new"})
    line = edited.splitlines()[1]
    assert line[len("description: ")] == old[0]
    assert edited.endswith("license: MIT\n")


@budgeted(60, 300)
@given(st.sampled_from([">", "|", ">-", "|+", "'x'", '"x"', "x"]), TEXT, st.sampled_from(["\n", "\r\n"]))
def test_any_value_written_over_any_style_reads_back(style: str, value: str, newline: str) -> None:
    old = f"{style}{newline}  old text{newline}" if style[0] in "|>" else f"{style}{newline}"
    text = f"name: x{newline}description: {old}license: MIT{newline}"
    edited = fm.edit_frontmatter(text, {"description": value}, newline)
    assert yaml.load(edited, Loader=fm._Loader) == {"name": "x", "description": value, "license": "MIT"}


def test_unquoted_colon_is_repaired_with_a_note() -> None:
    text = "name: pdf\ndescription: Use when: the user asks for PDFs\n"
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)
    parsed = fm.parse_frontmatter(text)
    assert parsed.values["description"] == "Use when: the user asks for PDFs"
    assert parsed.repaired_lines == (1,)


@pytest.mark.parametrize("text", [
    "name: x\ndescription: [unclosed\n",
    "name: x\n  bad indent: y\n",
    "- a list\n- not a mapping\n",
    "name: x\ndescription: \"unterminated\n",
    "key: value\n\tname: tab\n",
])
def test_malformed_yaml_raises_with_a_line(text: str) -> None:
    with pytest.raises(fm.FrontmatterError) as info:
        fm.parse_frontmatter(text)
    assert info.value.line is None or info.value.line >= 2


def test_timestamps_stay_strings_and_duplicates_are_reported() -> None:
    parsed = fm.parse_frontmatter("created: 2026-01-02T03:04:05Z\nname: a\nname: b\n")
    assert parsed.values == {"created": "2026-01-02T03:04:05Z", "name": "b"}
    assert parsed.duplicate_keys == ("name",)


def test_documents_without_frontmatter_or_closing_line() -> None:
    for text in ["# Title\n", "---\nname: x\n", "", "--- \nname: x\n---"]:
        doc = fm.split_text(text)
        assert doc.text == text
    assert fm.split_text("--- \nname: x\n---").frontmatter == "name: x\n"
    assert not fm.split_text("---\nname: x\n").has_frontmatter
