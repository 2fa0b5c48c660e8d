"""Library operations on real directories: lenient open, change sets, undo/redo, conflicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import NameTakenError, RockBotLibrary, UnknownSkillError
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.skill import skill_from_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ConflictError, LibraryError
from rockskills_gui.core.storage.layout import NotALibraryError
from tests.conftest import tree_hashes

NOW = Timestamp.parse("2026-11-22T12:00:00.5+00:00")


def clock() -> Timestamp:
    return NOW


def open_lib(path: Path) -> RockBotLibrary:
    return RockBotLibrary.open(path, clock=clock)


def no_temp_files(root: Path) -> bool:
    return not [p for p in root.rglob("*") if p.name.endswith(".rsg-tmp")]


# ---------------------------------------------------------------- opening


def test_opens_agent_dir_and_skills_folder(agent_copy: Path) -> None:
    a = open_lib(agent_copy)
    b = open_lib(agent_copy / "skills")
    assert len(a) == len(b) == 24
    assert a.agent_dir == b.agent_dir == agent_copy.resolve()
    assert a.problems == []


@pytest.mark.parametrize("make", ["missing", "file", "empty-dir"])
def test_not_a_library(tmp_path: Path, make: str) -> None:
    target = tmp_path / "x"
    if make == "file":
        target.write_text("hi")
    elif make == "empty-dir":
        target.mkdir()
    with pytest.raises(NotALibraryError) as info:
        RockBotLibrary.open(target)
    assert "\n" not in str(info.value)


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)


@pytest.fixture
def broken_library(agent_copy: Path) -> Path:
    skills = agent_copy / "skills"
    write(skills / "broken/truncated.json", '{\n  "name": "broken/truncated",\n  "summ')
    write(skills / "broken/no-name.json", '{"summary": "x", "content": "y"}')
    write(skills / "broken/bad name.json", '{"name": "broken/bad name", "content": "y"}')
    write(skills / "Mcp/Email.json", '{"name": "Mcp/Email", "content": "dup"}')
    write(skills / "broken/moved.json", '{"name": "elsewhere/original", "content": "y"}')
    write(skills / "notes.txt", "not a skill")
    return agent_copy


def test_lenient_open_lists_all_five_problems_and_changes_nothing(broken_library: Path) -> None:
    before = tree_hashes(broken_library)
    lib = open_lib(broken_library)
    kinds = {(p.path, p.kind) for p in lib.problems}
    assert kinds == {
        ("skills/broken/truncated.json", ProblemKind.PARSE_ERROR),
        ("skills/broken/no-name.json", ProblemKind.MISSING_NAME),
        ("skills/broken/bad name.json", ProblemKind.INVALID_NAME),
        ("skills/Mcp/Email.json", ProblemKind.CASE_COLLISION),
        ("skills/mcp/email.json", ProblemKind.CASE_COLLISION),
        ("skills/broken/moved.json", ProblemKind.NAME_MISMATCH),
    }
    assert "mcp/email" not in lib and len(lib) == 23
    bad = next(p for p in lib.problems if p.kind == ProblemKind.INVALID_NAME)
    assert "Skill name contains invalid characters: 'broken/bad name'" in bad.message
    assert tree_hashes(broken_library) == before


def test_problem_files_block_names_they_claim(broken_library: Path) -> None:
    lib = open_lib(broken_library)
    for name in ("mcp/email", "MCP/EMAIL", "elsewhere/original", "broken/truncated"):
        with pytest.raises(NameTakenError):
            lib.create(name, "s", "c")


# ---------------------------------------------------------------- create / save / delete


def test_create_writes_exact_record_and_undo_redo(agent_copy: Path) -> None:
    before = tree_hashes(agent_copy)
    lib = open_lib(agent_copy)
    change = lib.create("writing/tone-guide", "Keep replies short", "# Tone\n", ["mcp/email"])
    path = agent_copy / "skills/writing/tone-guide.json"
    assert change.created == ("writing/tone-guide",)
    assert path.read_bytes().decode() == (
        '{\n  "name": "writing/tone-guide",\n  "summary": "Keep replies short",\n'
        '  "content": "# Tone\\n",\n  "createdAt": "2026-11-22T12:00:00.5+00:00",\n'
        '  "updatedAt": "2026-11-22T12:00:00.5+00:00",\n  "lastUsedAt": null,\n'
        '  "seeAlso": [\n    "mcp/email"\n  ]\n}'
    )
    assert lib.get("WRITING/tone-guide") is not None
    lib.undo()
    assert tree_hashes(agent_copy) == before
    assert not (agent_copy / "skills/writing").exists()
    assert "writing/tone-guide" not in lib
    lib.redo()
    assert path.exists() and "writing/tone-guide" in lib
    assert no_temp_files(agent_copy)


def test_create_refuses_invalid_and_taken_names(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    before = tree_hashes(agent_copy)
    with pytest.raises(LibraryError, match="Only alphanumeric"):
        lib.create("bad name", "", "")
    with pytest.raises(LibraryError, match=r"cannot contain '\.\.'"):
        lib.create("a/../b", "", "")
    with pytest.raises(NameTakenError, match="'mcp/email' already exists"):
        lib.create("MCP/EMAIL", "", "")
    assert tree_hashes(agent_copy) == before
    assert not lib.history.can_undo


def test_unchanged_save_writes_nothing(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    path = agent_copy / "skills/mcp/email.json"
    stat = path.stat()
    change = lib.save(lib.get("mcp/email"))  # type: ignore[arg-type]
    assert change.empty
    assert path.stat().st_mtime_ns == stat.st_mtime_ns and path.stat().st_ino == stat.st_ino
    assert not lib.history.can_undo


def test_save_keeps_fields_sets_updated_and_undo_restores_bytes(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    path = agent_copy / "skills/mcp/email.json"
    original = path.read_bytes()
    old = lib.get("mcp/email")
    assert old is not None
    change = lib.update("mcp/email", content="New body")
    saved = skill_from_bytes(path.read_bytes())
    assert change.updated == ("mcp/email",)
    assert saved.content == "New body" and saved.updated_at == NOW
    assert (saved.created_at, saved.last_used_at, saved.see_also, saved.summary) == (
        old.created_at, old.last_used_at, old.see_also, old.summary)
    lib.undo()
    assert path.read_bytes() == original
    assert lib.get("mcp/email") == old
    lib.redo()
    assert skill_from_bytes(path.read_bytes()).content == "New body"


def test_load_order_kept_when_saving(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    order = lib.names()
    lib.update("memory", summary="changed")
    assert lib.names() == order


def test_delete_and_undo_restores_file_and_folder(agent_copy: Path) -> None:
    before = tree_hashes(agent_copy)
    lib = open_lib(agent_copy)
    change = lib.delete("travel/expense-report")
    assert change.deleted == ("travel/expense-report",)
    assert not (agent_copy / "skills/travel").exists()
    assert "travel/expense-report" not in lib
    lib.undo()
    assert tree_hashes(agent_copy) == before
    assert lib.get("travel/expense-report") is not None
    with pytest.raises(UnknownSkillError):
        lib.delete("no/such-skill")


# ---------------------------------------------------------------- rename


def test_rename_rewrites_see_also_everywhere_and_undoes_as_one_step(agent_copy: Path) -> None:
    before = tree_hashes(agent_copy)
    lib = open_lib(agent_copy)
    referrers = {r.referrer for r in lib.references_to(["mcp/calendar"])}
    assert referrers == {"mcp/email"}
    change = lib.rename("mcp/calendar", "tools/calendar")
    assert change.renamed == (("mcp/calendar", "tools/calendar"),)
    assert change.links_rewritten == ("mcp/email",)
    assert not (agent_copy / "skills/mcp/calendar.json").exists()
    moved = skill_from_bytes((agent_copy / "skills/tools/calendar.json").read_bytes())
    assert moved.name == "tools/calendar" and moved.updated_at == NOW
    email = skill_from_bytes((agent_copy / "skills/mcp/email.json").read_bytes())
    assert email.see_also == ("tools/calendar", "schedule-meeting")
    assert email.updated_at == lib.get("mcp/email").updated_at  # type: ignore[union-attr]
    assert lib.history.undo_label() == "Rename 'mcp/calendar' to 'tools/calendar'"
    lib.undo()
    assert tree_hashes(agent_copy) == before
    lib.redo()
    assert lib.get("tools/calendar") is not None and lib.get("mcp/calendar") is None


def test_rename_is_case_insensitive_on_references(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    lib.update("write-report", see_also=["MCP/CALENDAR", "mcp/calendar", "other"])
    lib.rename("mcp/calendar", "cal")
    assert lib.get("write-report").see_also == ("cal", "cal", "other")  # type: ignore[union-attr]


def test_rename_keeps_load_order_slot(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    order = lib.names()
    lib.rename("plan-meeting", "meetings/plan")
    assert lib.names() == [("meetings/plan" if n == "plan-meeting" else n) for n in order]


def test_rename_refuses_taken_and_invalid_targets(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    before = tree_hashes(agent_copy)
    with pytest.raises(NameTakenError):
        lib.rename("mcp/calendar", "MCP/Email")
    with pytest.raises(LibraryError, match="invalid characters"):
        lib.rename("mcp/calendar", "mcp calendar")
    assert tree_hashes(agent_copy) == before


def test_case_only_rename(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    lib.rename("web", "Web")
    assert (agent_copy / "skills/Web.json").exists()
    assert not (agent_copy / "skills/web.json").exists()
    assert lib.get("web").name == "Web"  # type: ignore[union-attr]
    lib.undo()
    assert (agent_copy / "skills/web.json").exists()


def test_swap_two_names_in_one_move(agent_copy: Path) -> None:
    before = tree_hashes(agent_copy)
    lib = open_lib(agent_copy)
    a, b = lib.get("plan-meeting"), lib.get("schedule-meeting")
    lib.rename_many({"plan-meeting": "schedule-meeting", "schedule-meeting": "plan-meeting"})
    assert lib.get("schedule-meeting").content == a.content  # type: ignore[union-attr]
    assert lib.get("plan-meeting").content == b.content  # type: ignore[union-attr]
    lib.undo()
    assert tree_hashes(agent_copy) == before


def test_folder_move_of_several_skills(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    change = lib.rename_many({"research/summarize-paper": "reading/summarize-paper",
                              "research/summarize-article": "reading/summarize-article"})
    assert len(change.renamed) == 2 and change.label == "Move 2 skills"
    assert not (agent_copy / "skills/research").exists()
    lib.undo()
    assert (agent_copy / "skills/research/summarize-paper.json").exists()


# ---------------------------------------------------------------- conflicts


def test_save_refuses_when_file_changed_on_disk(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    path = agent_copy / "skills/mcp/email.json"
    agent_version = path.read_bytes().replace(b"Email via MCP", b"Email (agent edit)")
    path.write_bytes(agent_version)
    with pytest.raises(ConflictError) as info:
        lib.update("mcp/email", content="mine")
    assert "skills/mcp/email.json changed on disk" in str(info.value)
    assert path.read_bytes() == agent_version
    assert not lib.history.can_undo


def test_rename_refuses_when_a_referrer_changed_and_writes_nothing(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    email = agent_copy / "skills/mcp/email.json"
    email.write_bytes(email.read_bytes() + b" ")
    before = tree_hashes(agent_copy)
    with pytest.raises(ConflictError):
        lib.rename("mcp/calendar", "tools/calendar")
    assert tree_hashes(agent_copy) == before


def test_create_refuses_when_agent_created_the_file_meanwhile(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    target = agent_copy / "skills/new-skill.json"
    target.write_text(json.dumps({"name": "new-skill"}))
    with pytest.raises(ConflictError):
        lib.create("new-skill", "", "")
    assert json.loads(target.read_text()) == {"name": "new-skill"}


def test_undo_refuses_when_file_changed_since(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    lib.update("mcp/email", content="mine")
    path = agent_copy / "skills/mcp/email.json"
    path.write_bytes(path.read_bytes() + b"\n")
    theirs = path.read_bytes()
    with pytest.raises(ConflictError):
        lib.undo()
    assert path.read_bytes() == theirs
    assert lib.history.can_undo  # still there to retry after reloading


def test_write_failure_rolls_back(agent_copy: Path) -> None:
    """A file where a folder must go makes the write fail after the old file was removed."""
    (agent_copy / "skills/blocker").write_text("a plain file, not a folder")
    lib = open_lib(agent_copy)
    before = tree_hashes(agent_copy)
    with pytest.raises(LibraryError, match="rolled back"):
        lib.rename("plan-meeting", "blocker/plan-meeting")
    assert tree_hashes(agent_copy) == before
    assert lib.get("plan-meeting") is not None and not lib.history.can_undo


def test_never_writes_outside_skills(agent_copy: Path) -> None:
    lib = open_lib(agent_copy)
    lib.create("a/b/c/d", "", "")
    assert (agent_copy / "skills/a/b/c/d.json").exists()
    assert no_temp_files(agent_copy)
