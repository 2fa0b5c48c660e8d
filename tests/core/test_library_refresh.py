"""Library.refresh / refresh_skill (files changed by others) and Library.restore."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import NameTakenError, RockBotLibrary
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.skill import skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import LibraryError

NOW = Timestamp.parse("2026-11-22T12:00:00.5+00:00")


def open_lib(path: Path) -> RockBotLibrary:
    return RockBotLibrary.open(path, clock=lambda: NOW)


def test_refresh_reloads_a_changed_file_in_its_slot(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    order = lib.names()
    entry = lib.entry("mcp/email")
    changed = entry.skill.model_copy(update={"content": "new text from the agent"})
    entry.path.write_bytes(skill_to_bytes(changed))
    news = lib.refresh_skill("mcp/email")
    assert news.updated == ("mcp/email",) and not news.created and not news.deleted
    assert lib.get("mcp/email").content == "new text from the agent"
    assert lib.entry("mcp/email").raw == entry.path.read_bytes()
    assert lib.names() == order
    # the next save works (no conflict) and keeps what the agent wrote elsewhere
    lib.update("mcp/email", summary="edited")
    assert skill_from_bytes(entry.path.read_bytes()).content == "new text from the agent"


def test_refresh_without_changes_reports_nothing(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    assert lib.refresh([lib.skills_dir, lib.skills_dir / "mcp"]).empty
    assert lib.refresh([agent_copy / "memory"]).empty  # outside the skills folder: ignored


def test_refresh_of_a_folder_sees_new_and_vanished_files(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    folder = lib.skills_dir / "mcp"
    lib.entry("mcp/weather").path.unlink()
    new = lib.entry("mcp/email").skill.model_copy(update={"name": "mcp/notes"})
    (folder / "notes.json").write_bytes(skill_to_bytes(new))
    news = lib.refresh([folder])
    assert news.deleted == ("mcp/weather",)
    assert news.created == ("mcp/notes",)
    assert "mcp/weather" not in lib and "mcp/notes" in lib
    assert lib.names()[-1] == "mcp/notes"
    assert news.as_change_set().empty  # the app wrote nothing
    assert news.as_change_set().touched_names() == {"mcp/weather", "mcp/notes"}
    # a folder stands for files appearing or vanishing; a file changed in place is named itself
    calendar = lib.entry("mcp/calendar")
    calendar.path.write_bytes(skill_to_bytes(calendar.skill.model_copy(update={"summary": "x"})))
    assert lib.refresh([folder]).empty
    assert lib.refresh([calendar.path]).updated == ("mcp/calendar",)


def test_refresh_turns_a_broken_file_into_a_problem_and_back(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    path = lib.entry("a2a").path
    good = path.read_bytes()
    path.write_bytes(b'{"name": "a2a", "summ')
    news = lib.refresh([path])
    assert news.deleted == ("a2a",) and news.problems_changed
    assert [(p.path, p.kind) for p in lib.problems] == [("skills/a2a.json", ProblemKind.PARSE_ERROR)]
    path.write_bytes(good)
    news = lib.refresh([lib.skills_dir])
    assert news.created == ("a2a",) and news.problems_changed
    assert lib.problems == []


def test_refresh_keeps_the_first_of_two_names_differing_by_case(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    twin = lib.entry("a2a").skill.model_copy(update={"name": "A2A"})
    (lib.skills_dir / "A2A.json").write_bytes(skill_to_bytes(twin))
    news = lib.refresh([lib.skills_dir])
    assert news.created == () and news.problems_changed
    assert lib.get("a2a").name == "a2a"
    assert lib.problems[0].kind is ProblemKind.CASE_COLLISION


def test_restore_writes_a_deleted_skill_back_keeping_its_dates(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    entry = lib.entry("mcp/email")
    skill = entry.skill.model_copy(update={"content": "kept in the editor"})
    entry.path.unlink()
    lib.refresh([entry.path])
    change = lib.restore(skill)
    assert change.created == ("mcp/email",)
    written = skill_from_bytes(entry.path.read_bytes())
    assert written == skill.model_copy(update={"updated_at": NOW})
    assert entry.path.read_bytes() == skill_to_bytes(skill.model_copy(update={"updated_at": NOW}))
    lib.undo()
    assert not entry.path.exists()
    with pytest.raises(NameTakenError):
        lib.restore(lib.entry("a2a").skill)
    with pytest.raises(LibraryError):
        lib.restore(skill.model_copy(update={"name": "bad name"}))
