"""The current agent's own skill tools and what RockBot (current) writes (issue 30).

Upstream (MarimerLLC/rockbot): ``src/RockBot.Skills/SkillTools.cs`` @ 150a84c (snake_case names,
#493 / PR #549; ``get_skill``'s resources block; ``save_skill`` with ``LastUsedAt: now``, #275;
``edit_skill``'s answers), ``src/RockBot.Host/FileSkillStore.cs`` @ 4105def (``EditContentAsync``:
summary, manifest, createdAt, lastUsedAt, seeAlso and the baseline carry through; its not-found
message; ``JsonOptions`` without an ignore condition, so nulls are written),
``src/RockBot.Host/TextEdit.cs`` (the newest stored version, id 61438258637: the edit rules and
messages), ``src/RockBot.Host.Abstractions/Skill.cs`` @ 2710fd9 (property order).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.cli import main
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.agent_tools import (
    agent_edit,
    agent_edit_to,
    agent_save,
    get_skill_result,
    save_skill_record,
    tool_names,
)
from rockskills_gui.core.storage.changes import LibraryError
from rockskills_gui.core.text.text_edit import apply_text_edit, edit_strings
from tests.property_budget import budgeted
from tests.rockbot_current_rules import SKILLS, make_rules_agent

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
ORDER = ["name", "summary", "content", "createdAt", "updatedAt", "lastUsedAt", "seeAlso", "manifest",
         "surfaceBaseline"]


@pytest.fixture
def library(tmp_path: Path) -> RockBotLibrary:
    lib = open_library(make_rules_agent(tmp_path / "agent"))
    assert isinstance(lib, RockBotLibrary)
    lib.clock = lambda: NOW
    return lib


def on_disk(library: RockBotLibrary, name: str) -> dict:
    return json.loads(library.skill_path(name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- TextEdit


@pytest.mark.parametrize(("content", "old", "new", "replace_all", "result", "error"), [
    ("a b a", "", "x", False, None, "oldText must not be empty \u2014 an empty match has no well-defined "
     "location. To append content, include the trailing text you want to insert before."),
    ("a b", "a", "a", False, None, "oldText and newText are identical \u2014 the edit would change nothing."),
    ("a b", "c", "d", False, None, "oldText was not found. It must match the content exactly, including "
     "whitespace and indentation. Read the current content and copy the text verbatim."),
    ("a b a", "a", "x", False, None, "oldText occurs 2 times \u2014 the edit target is ambiguous. Either "
     "include more surrounding text so the match is unique, or set replaceAll to change every occurrence."),
    ("a b a", "a", "x", True, ("x b x", 2), None),
    ("one\r\ntwo\r\n", "one\ntwo", "1\n2", False, ("1\r\n2\r\n", 1), None),  # LF text, CRLF content
    ("one\ntwo\n", "one\r\ntwo", "1\r\n2", False, ("1\n2\n", 1), None),  # and the reverse
    ("x\r\ny", "x", "p\nq", False, ("p\r\nq\r\ny", 1), None),  # new text takes the content's style
    ("a\r\nb", "a\nb", "a\r\nb", False, None, "oldText and newText differ only in line endings, which are "
     "normalized to the style the content already uses \u2014 the edit would change nothing."),
])
def test_text_edit(content, old, new, replace_all, result, error) -> None:
    found = apply_text_edit(content, old, new, replace_all)
    assert (found.content, found.replacements) == (result or (None, 0))
    assert found.error == error


# ---------------------------------------------------------------- edit_skill


def test_edit_like_the_agent_keeps_everything_but_the_content_and_updated_at(library) -> None:
    before = on_disk(library, "email/send")
    result = agent_edit(library, "Email/Send", "Draft the message.", "Draft the message in plain text.")
    edited = before["content"].replace("Draft the message.", "Draft the message in plain text.")
    sizes = f"{len(before['content'])} \u2192 {len(edited)}"
    assert result.message == (f"Skill 'Email/Send' edited \u2014 replaced 1 occurrence ({sizes} characters). "
                              "Summary and resources unchanged.")
    after = on_disk(library, "email/send")
    assert after["content"] == edited
    assert after["updatedAt"] == "2026-11-22T12:00:00+00:00"
    assert {k: v for k, v in after.items() if k not in ("content", "updatedAt")} == \
        {k: v for k, v in before.items() if k not in ("content", "updatedAt")}
    assert list(after) == ORDER
    library.undo()
    assert on_disk(library, "email/send") == before


def test_edit_skill_failures_write_nothing(library) -> None:
    files = {p: p.read_bytes() for p in library.skills_dir.rglob("*.json")}
    assert agent_edit(library, "nope", "a", "b").message == (
        "Edit failed on skill 'nope': Skill 'nope' not found. List skills to see what exists.")
    assert agent_edit(library, "email/send", "zzz", "b").message.startswith(
        "Edit failed on skill 'email/send': oldText was not found.")
    assert agent_edit(library, "email/triage", "a", "b", replace_all=True).change is not None
    library.undo()
    assert {p: p.read_bytes() for p in library.skills_dir.rglob("*.json")} == files


# ---------------------------------------------------------------- "Save Like the Agent"

LINES = st.lists(st.sampled_from(["a", "aa", "b", "", "step 1", "x y"]), max_size=8).map("\n".join)


@budgeted(200, 2000)
@given(before=LINES, after=LINES)
def test_one_exact_string_edit_turns_any_content_into_any_other(before: str, after: str) -> None:
    """The edit the app passes to edit_skill is unique in the old content and gives the new one
    (LF texts, non-empty old content: an empty one cannot be edited, by TextEdit's first rule)."""
    strings = edit_strings(before, after)
    assert (strings is None) is (before == after)
    if strings is not None and before:
        old, new = strings
        assert before.count(old) == 1
        assert apply_text_edit(before, old, new).content == after


def test_edit_strings_takes_whole_lines_and_grows_until_unique() -> None:
    assert edit_strings("a\nb\nc", "a\nB\nc") == ("b", "B")
    assert edit_strings("step\nx\nstep\ny", "step\nx\nstep!\ny") == ("x\nstep\ny", "x\nstep!\ny")
    assert edit_strings("a\na\na", "a\na\na!") == ("a\na\na", "a\na\na!")  # 'a\na' is first at 0
    assert edit_strings("same", "same") is None


def test_save_like_the_agent_writes_what_edit_skill_writes(library) -> None:
    before = on_disk(library, "email/send")
    wanted = before["content"].replace("2. Send it.", "2. Check the recipients.\n3. Send it.")
    result = agent_edit_to(library, "email/send", wanted)
    assert result.change is not None
    after = on_disk(library, "email/send")
    assert after["content"] == wanted and after["updatedAt"] == "2026-11-22T12:00:00+00:00"
    assert {k: v for k, v in after.items() if k not in ("content", "updatedAt")} == \
        {k: v for k, v in before.items() if k not in ("content", "updatedAt")}
    sizes = f"{len(before['content'])} \u2192 {len(wanted)}"
    assert result.message == (f"Skill 'email/send' edited \u2014 replaced 1 occurrence ({sizes} "
                              "characters). Summary and resources unchanged.")
    assert agent_edit_to(library, "email/send", wanted).change is None  # nothing left to edit
    library.undo()
    assert on_disk(library, "email/send") == before
    old = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc"))
    with pytest.raises(LibraryError, match="no edit_skill tool"):
        agent_edit_to(old, "email/send", wanted)


def test_the_64e82cc_agent_has_no_edit_skill(library) -> None:
    old = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc"))
    with pytest.raises(LibraryError, match="no edit_skill tool"):
        agent_edit(old, "email/send", "a", "b")


# ---------------------------------------------------------------- names, get_skill, save_skill


def test_tool_names_per_profile(library) -> None:
    old = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc"))
    assert list(tool_names(library.profile.injection.tools).values()) == [
        "get_skill", "get_skill_resource", "list_skills", "save_skill", "edit_skill", "delete_skill"]
    assert list(tool_names(old.profile.injection.tools).values()) == [
        "GetSkill", "ListSkills", "SaveSkill", "DeleteSkill"]


def test_get_skill_appends_the_resources_block_with_the_name_as_passed(library) -> None:
    tools = library.profile.injection.tools
    assert get_skill_result(library.get("email/send"), "EMAIL/send", tools) == (
        "# Send email\n\n1. Draft the message.\n2. Send it.\n---\n"
        '**Resources** (fetch with `get_skill_resource("EMAIL/send", "<filename>")`):\n'
        "- `send.py` (Python): Sends the message\n- `template.md` (Markdown): The message template")
    assert get_skill_result(library.get("web/search"), "web/search", tools) == SKILLS["web/search"]["content"]
    assert get_skill_result(None, "gone", tools) == (
        "Skill 'gone' not found. Call list_skills to see available skills.")
    old = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc"))
    assert get_skill_result(old.get("email/send"), "email/send", old.profile.injection.tools) == \
        SKILLS["email/send"]["content"]


def test_save_skill_stamps_last_used_and_keeps_the_manifest(library) -> None:
    result = agent_save(library, "email/send", "# New body")
    assert result.message.startswith("Skill 'email/send' saved. Summary is being generated.\n\n"
                                      f"Available skills ({len(SKILLS)}):\n")
    written = on_disk(library, "email/send")
    assert list(written) == ORDER
    assert written["summary"] == "" and written["content"] == "# New body"
    assert written["lastUsedAt"] == written["updatedAt"] == "2026-11-22T12:00:00+00:00"
    assert written["createdAt"] == SKILLS["email/send"]["createdAt"]
    assert written["seeAlso"] is None and written["surfaceBaseline"] is None
    assert written["manifest"] == SKILLS["email/send"]["manifest"]
    old_profile = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc")).profile
    record = save_skill_record(library.get("email/send"), "email/send", "x", NOW,
                               old_profile.injection.tools, old_profile.storage.null_properties)
    assert record.last_used_at is None and record.extra == ()


def test_a_new_skill_is_written_with_null_manifest_and_baseline(library, tmp_path: Path) -> None:
    library.create("notes/new", "A summary", "Body")
    written = on_disk(library, "notes/new")
    assert list(written) == ORDER and written["manifest"] is None and written["surfaceBaseline"] is None
    old = open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc"))
    old.create("notes/newer", "A summary", "Body")
    assert list(json.loads(old.skill_path("notes/newer").read_text())) == ORDER[:7]


def test_the_tool_command(library, capsysbinary) -> None:
    agent = str(library.agent_dir)
    assert main(["tool", agent, "tools"]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert out.startswith("get_skill\n  Load the full instructions for a named skill")
    assert main(["tool", agent, "get_skill", "email/send"]) == 0
    assert "**Resources**" in capsysbinary.readouterr().out.decode()
    before = library.skill_path("web/search").read_bytes()
    assert main(["tool", agent, "edit_skill", "web/search", "--old", "Search,", "--new", "Find,"]) == 0
    assert capsysbinary.readouterr().out.decode().startswith("Skill 'web/search' edited")
    assert library.skill_path("web/search").read_bytes() == before  # not without --write
    assert main(["tool", agent, "edit_skill", "web/search", "--old", "Search,", "--new", "Find,",
                 "--write"]) == 0
    assert "Find," in json.loads(library.skill_path("web/search").read_text())["content"]
    assert main(["tool", agent, "EditSkill", "web/search", "--old", "x", "--format", "rockbot-64e82cc"]) == 2
    assert "has no edit_skill tool (its skill tools: GetSkill, ListSkills, SaveSkill, DeleteSkill)" in \
        capsysbinary.readouterr().err.decode()
