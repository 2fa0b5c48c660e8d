"""The skill archive (issue 32): archive, restore (also under another name) and purge, byte for
byte, as journaled, undoable change sets; after a restart with the undo history gone; invisible to
the agents (RockBot's loader rules; a ``<root>/*/SKILL.md`` scan; Codex's dot-folder rule)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.archive import (
    ArchiveError,
    ArchiveInfo,
    RestoreNameTaken,
    archive_skills,
    purge_archive,
    restore_refusal,
    restore_skill,
)
from rockskills_gui.core.library.archive_records import archive_places, archived
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.library.stores.skill_dirs import SKIP_DIRS
from rockskills_gui.core.model.profile import Delete, FileKind
from rockskills_gui.core.model.profiles import AGENT_SKILLS, PROFILES
from rockskills_gui.core.model.timestamps import Timestamp
from tests.conftest import REPO, SHARED

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
CORPUS = SHARED / "corpora" / "anthropics-skills" / "skills"


def files(root: Path, skip: tuple[str, ...] = (".rockskills",)) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()
            and not any(part in skip for part in p.relative_to(root).parts)}


def rockbot_loads(agent: Path) -> set[str]:
    """What RockBot loads: every ``skills/**/*.json`` (outside ``*.resources/``), by the name
    in the file (rockbot-skills.md §4) -- written out here, not the app's scan."""
    names = set()
    for path in (agent / "skills").rglob("*.json"):
        if any(part.endswith(".resources") for part in path.relative_to(agent / "skills").parts[:-1]):
            continue
        names.add(json.loads(path.read_text(encoding="utf-8-sig"))["name"])
    return names


def one_level_scan(root: Path) -> set[str]:
    """Claude Code, Gemini CLI, Copilot: ``<root>/*/SKILL.md``."""
    return {p.parent.name for p in root.glob("*/SKILL.md")}


def codex_scan(root: Path) -> set[str]:
    """Codex: any depth, never into a folder whose name starts with '.'."""
    return {p.parent.name for p in root.rglob("SKILL.md")
            if not any(part.startswith(".") for part in p.relative_to(root).parts)}


@pytest.fixture
def rockbot(agent_copy: Path) -> RockBotLibrary:
    return RockBotLibrary.open(agent_copy, clock=lambda: NOW)


@pytest.fixture
def skill_md(tmp_path: Path) -> SkillMdLibrary:
    root = tmp_path / "skills"
    shutil.copytree(CORPUS, root)
    (root / "mcp-builder" / "scripts").mkdir(exist_ok=True)
    (root / "mcp-builder" / "scripts" / "check.py").write_bytes(b"print('ok')\r\n\x00\xff")
    library = open_library(root)
    assert isinstance(library, SkillMdLibrary)
    library.clock = lambda: NOW
    return library


def test_a_rockbot_skill_goes_to_the_archive_outside_skills_and_comes_back_byte_for_byte(
        rockbot: RockBotLibrary, agent_copy: Path) -> None:
    before = files(agent_copy)
    change = archive_skills(rockbot, ["mcp/email", "write-report"],
                            ArchiveInfo("delete", "by hand", proposal="c3"))
    assert set(change.deleted) == {"mcp/email", "write-report"}
    assert "mcp/email" not in rockbot and "mcp/email" not in rockbot_loads(agent_copy)
    assert "write-report" not in rockbot_loads(agent_copy)
    archive = agent_copy / ".rockskills" / "archive"
    assert (archive / "mcp.email" / "mcp" / "email.json").read_bytes() == \
        (SHARED / "fixtures/rockbot-agent/skills/mcp/email.json").read_bytes()
    assert not [p for p in (agent_copy / "skills").rglob("*") if ".archive" in p.name]  # nothing in skills/
    listed = {s.name: s for s in archived(rockbot, check=True)[0]}
    assert set(listed) == {"mcp/email", "write-report"}
    record = listed["mcp/email"].record
    assert record is not None and record.archived_at == NOW.isoformat() and record.proposal == "c3"
    assert listed["mcp/email"].damage is None
    # a restart: a new process, the undo history gone
    again = RockBotLibrary.open(agent_copy)
    assert again.history.undo_stack == [] and "mcp/email" not in again
    restore_skill(again, "mcp/email")
    restore_skill(again, "write-report")
    assert files(agent_copy) == before
    assert not archive.exists() or not any(archive.iterdir())
    assert "mcp/email" in RockBotLibrary.open(agent_copy)


def test_a_taken_name_is_refused_with_the_way_out_and_restore_as_renames_only(
        rockbot: RockBotLibrary, agent_copy: Path) -> None:
    original = json.loads((agent_copy / "skills" / "write-report.json").read_text())
    archive_skills(rockbot, ["write-report"])
    rockbot.create("write-report", "A new one", "Other steps.")
    before = files(agent_copy)
    with pytest.raises(RestoreNameTaken) as caught:
        restore_skill(rockbot, "write-report")
    message = str(caught.value)
    assert "the library has a skill named 'write-report' now" in message
    assert "--as" in message and "Restore As" in message
    assert files(agent_copy) == before  # nothing written
    assert restore_refusal(rockbot, "write-report") == message
    restore_skill(rockbot, "write-report", as_name="reports/write-report-old")
    restored = json.loads((agent_copy / "skills" / "reports" / "write-report-old.json").read_text())
    assert restored == {**original, "name": "reports/write-report-old"}
    assert archived(rockbot)[0] == []


def test_undo_and_redo_of_an_archive_and_a_restore(rockbot: RockBotLibrary, agent_copy: Path) -> None:
    before = files(agent_copy)
    archive_skills(rockbot, ["plan-meeting"])
    archived_state = files(agent_copy)
    rockbot.undo()
    assert files(agent_copy) == before and "plan-meeting" in rockbot
    rockbot.redo()
    assert files(agent_copy) == archived_state
    restore_skill(rockbot, "plan-meeting")
    rockbot.undo()
    assert files(agent_copy) == archived_state and "plan-meeting" not in rockbot


def test_archiving_the_last_skill_keeps_the_skills_folder(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "skills").mkdir(parents=True)
    library = RockBotLibrary.open(agent)
    library.create("only", "The only skill", "Steps.")
    archive_skills(library, ["only"])
    assert (agent / "skills").is_dir() and not list((agent / "skills").iterdir())
    assert len(RockBotLibrary.open(agent)) == 0
    restore_skill(RockBotLibrary.open(agent), "only")
    assert not any((agent / ".rockskills" / "archive").iterdir())
    assert "only" in RockBotLibrary.open(agent)


def test_a_skill_md_skill_goes_to_root_archive_as_hermes_keeps_it_and_agents_never_see_it(
        skill_md: SkillMdLibrary) -> None:
    root = skill_md.skills_dir
    folder_before = files(root / "mcp-builder")
    before = files(root)
    archive_skills(skill_md, ["mcp-builder"], ArchiveInfo("merge", absorbed_into="skill-creator"))
    assert files(root / ".archive" / "mcp-builder") == folder_before  # the folder, byte for byte
    assert (root / ".archive" / "mcp-builder.archived.json").is_file()
    assert "mcp-builder" not in one_level_scan(root) and "mcp-builder" not in codex_scan(root)
    reopened = open_library(root)
    assert "mcp-builder" not in reopened and not reopened.problems
    listed = archived(reopened, check=True)[0]
    assert [(s.name, s.why(), s.damage) for s in listed] == \
        [("mcp-builder", "merged away absorbed into 'skill-creator'", None)]
    restore_skill(reopened, "mcp-builder")
    assert files(root) == before


def test_a_skill_md_restore_as_changes_only_the_name(skill_md: SkillMdLibrary) -> None:
    root = skill_md.skills_dir
    text = (root / "theme-factory" / "SKILL.md").read_text(encoding="utf-8")
    archive_skills(skill_md, ["theme-factory"])
    skill_md.create("theme-factory", "Another", "Body.")
    with pytest.raises(RestoreNameTaken):
        restore_skill(skill_md, "theme-factory")
    restore_skill(skill_md, "theme-factory", as_name="theme-factory-2")
    assert (root / "theme-factory-2" / "SKILL.md").read_text(encoding="utf-8") == \
        text.replace("name: theme-factory", "name: theme-factory-2", 1)
    assert skill_md.get("theme-factory-2") is not None


def test_a_folder_archived_by_hermes_without_a_record_is_listed_and_restored(
        skill_md: SkillMdLibrary) -> None:
    root = skill_md.skills_dir
    (root / ".archive").mkdir()
    shutil.move(root / "webapp-testing", root / ".archive" / "webapp-testing")
    library = open_library(root)
    assert "webapp-testing" not in library
    listed = archived(library)[0]
    assert [(s.name, s.record) for s in listed] == [("webapp-testing", None)]
    restore_skill(library, "webapp-testing")
    assert "webapp-testing" in open_library(root)


def test_an_entry_holding_a_link_or_changed_files_is_reported_and_never_followed(
        rockbot: RockBotLibrary, agent_copy: Path, tmp_path: Path) -> None:
    archive_skills(rockbot, ["mcp/email", "write-report"])
    entry = agent_copy / ".rockskills" / "archive" / "mcp.email" / "mcp" / "email.json"
    entry.write_bytes(entry.read_bytes() + b" ")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    (agent_copy / ".rockskills" / "archive" / "write-report" / "evil.json").symlink_to(secret)
    listed = {s.name: s for s in archived(rockbot, check=True)[0]}
    assert "changed since it was archived" in (listed["mcp/email"].damage or "")
    assert "symbolic link" in (listed["write-report"].damage or "")
    before = files(agent_copy)
    with pytest.raises(ArchiveError, match="symbolic link"):
        restore_skill(rockbot, "write-report")
    assert files(agent_copy) == before


def test_purge_removes_only_what_is_older_than_the_setting_and_is_undoable(
        rockbot: RockBotLibrary, agent_copy: Path) -> None:
    archive_skills(rockbot, ["mcp/email"])
    rockbot.clock = lambda: NOW.add_days(10)
    archive_skills(rockbot, ["write-report"])
    kept = files(agent_copy)
    change = purge_archive(rockbot, 5, NOW.add_days(12))
    assert [s.name for s in archived(rockbot)[0]] == ["write-report"]
    assert "1 archived skill older than 5 days" in change.label
    rockbot.undo()
    assert files(agent_copy) == kept


def test_the_cli_lists_and_restores_and_refuses_a_taken_name(agent_copy: Path) -> None:
    library = RockBotLibrary.open(agent_copy)
    archive_skills(library, ["daily-standup"], ArchiveInfo("delete", "Delete 'daily-standup'"))
    library.create("daily-standup", "Someone else's", "New.")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rockskills_gui.cli", *args], cwd=REPO,
                              capture_output=True, text=True, timeout=60)

    listed = run("archived", str(agent_copy), "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["archived"]
    assert [(r["name"], r["action"], r["origin"]) for r in rows] == \
        [("daily-standup", "delete", "skills/daily-standup.json")]
    refused = run("restore", str(agent_copy), "daily-standup")
    assert refused.returncode == 1 and "is taken" not in refused.stdout
    assert "the library has a skill named 'daily-standup' now" in refused.stderr
    assert "--as" in refused.stderr
    done = run("restore", str(agent_copy), "daily-standup", "--as", "daily-standup-old")
    assert done.returncode == 0, done.stderr
    assert "daily-standup-old" in RockBotLibrary.open(agent_copy)


@pytest.mark.parametrize("delete", [Delete.ARCHIVE, Delete.REMOVE])
def test_what_a_dreams_delete_means_is_asked_of_the_profile(tmp_path: Path, delete: Delete) -> None:
    """``curation.delete``: ARCHIVE keeps the deleted skill in the archive, REMOVE only removes it
    (undo still brings it back); the same library, plan and apply otherwise."""
    root = tmp_path / "skills"
    shutil.copytree(CORPUS, root)
    profile = dataclasses.replace(AGENT_SKILLS, curation=dataclasses.replace(AGENT_SKILLS.curation,
                                                                             delete=delete))
    library = open_library(root, OpenOptions(profile=profile))
    library.clock = lambda: NOW
    kept = (root / "slack-gif-creator" / "SKILL.md").read_text(encoding="utf-8")
    reply = {"toDelete": ["canvas-design"],
             "toSave": [{"name": "slack-gif-creator", "summary": "Make animated GIFs for Slack.",
                         "content": kept.split("---", 2)[2].strip(), "sourceNames": ["slack-gif-creator"]}]}
    plan = run_dream(library, RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW),
                     PastedReplies([json.dumps(reply)]))
    ids = [p.id for p in plan.proposals if p.deletes == ["canvas-design"]]
    assert ids, [(p.id, p.kind, p.deletes) for p in plan.proposals]
    apply_plan(library, plan, ids)
    assert not (root / "canvas-design").exists()
    names = [s.name for s in archived(library)[0]]
    assert names == (["canvas-design"] if delete is Delete.ARCHIVE else [])


@pytest.mark.parametrize("profile_id", sorted(PROFILES))
def test_every_archiving_profile_names_an_archive_its_agent_never_loads(profile_id: str) -> None:
    """Where ``curation.delete`` archives, ``storage.archive_dir`` says where: inside a SKILL.md
    root a folder the scan skips (and Codex, never entering a '.' folder, too); for RockBot a
    folder outside ``skills/``, which RockBot loads recursively."""
    profile = PROFILES[profile_id]
    if profile.curation.delete is not Delete.ARCHIVE:
        return
    folder = profile.storage.archive_dir
    assert folder, profile_id
    if FileKind.ROCKBOT_JSON in profile.storage.file_kinds:
        assert not folder.startswith("skills"), folder
    else:
        assert folder in SKIP_DIRS and folder.startswith("."), folder


def test_the_archive_folder_is_the_profiles(rockbot: RockBotLibrary, skill_md: SkillMdLibrary) -> None:
    assert archive_places(rockbot) == [rockbot.agent_dir / rockbot.profile.storage.archive_dir]
    assert archive_places(skill_md) == [root / ".archive" for root in skill_md.skill_roots()]
