"""Rename and move carry a SKILL.md skill's folder in every layout (issue 31): inside a plugin,
between plugins, between categories, out of a category; its frontmatter name follows, lint finds
no name/folder mismatch, undo puts it back, and the multi-file change is journaled with the new
folder written before the old one goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.archive import archive_skills, remove_skills, restore_skill
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.lint.linter import lint_library
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.changes import LibraryError
from tests.corpus_sweep import skill_md_files
from tests.skill_layouts import category_tree, claude_marketplace, codex_marketplace, hermes_home

MISMATCH = "name-folder-mismatch"


def test_renaming_a_plugin_skill_moves_its_folder(tmp_path: Path) -> None:
    root = claude_marketplace(tmp_path / "market")
    skills = root / "external_plugins" / "discord" / "skills"
    (skills / "access" / "references").mkdir()
    (skills / "access" / "references" / "policy.md").write_text("# Policy\n")
    before = skill_md_files(root)
    lib = open_library(root)
    change = lib.rename("discord/access", "discord/access-control")
    assert not (skills / "access").exists()
    moved = skills / "access-control" / "SKILL.md"
    assert moved.read_text().startswith("---\nname: access-control\n")
    assert (skills / "access-control" / "references" / "policy.md").read_text() == "# Policy\n"
    assert lib.entry("discord/access-control").agent_name == "discord:access-control"
    assert MISMATCH not in {f.kind for f in lint_library(lib)}
    gone = [fc.path for fc in change.files if fc.after is None]
    assert gone == [skills / "access" / "SKILL.md", skills / "access" / "references" / "policy.md"]
    lib.undo()
    assert skill_md_files(root) == before and not (skills / "access-control").exists()


def test_moving_a_skill_to_another_plugin_moves_it_there(tmp_path: Path) -> None:
    root = claude_marketplace(tmp_path / "market")
    lib = open_library(root)
    lib.rename("deploy-kit/rollback", "telegram/rollback")
    target = root / "external_plugins" / "telegram" / "skills" / "rollback" / "SKILL.md"
    assert target.is_file() and not (root / "plugins" / "deploy-kit" / "skills" / "rollback").exists()
    assert lib.entry("telegram/rollback").agent_name == "telegram:rollback"
    reopened = open_library(root)
    assert "telegram/rollback" in reopened.names() and "deploy-kit/rollback" not in reopened.names()


def test_a_name_claude_code_would_not_find_is_refused_with_why(tmp_path: Path) -> None:
    lib = open_library(claude_marketplace(tmp_path / "market"))
    with pytest.raises(LibraryError, match="Claude Code would not find 'discord/ops/access'"):
        lib.rename("discord/access", "discord/ops/access")
    with pytest.raises(LibraryError, match="names no plugin"):
        lib.create("loose", "A skill outside every plugin.")
    assert lib.name_rule_error("discord/ops/x") is not None and lib.name_rule_error("discord/x") is None
    lib.create("notes/summarize", "Summarize notes.", "Steps.\n")
    assert (tmp_path / "market" / "plugins" / "notes" / "skills" / "summarize" / "SKILL.md").is_file()


def test_moving_between_categories_and_out_of_one(tmp_path: Path) -> None:
    root = category_tree(tmp_path / "collection")
    lib = open_library(root)
    original = (root / "engineering" / "code-review" / "SKILL.md").read_bytes()
    lib.rename("engineering/code-review", "marketing-skill/code-review")
    assert (root / "marketing-skill" / "code-review" / "SKILL.md").read_bytes() == original  # same name
    lib.rename("engineering/frontend/a11y-check", "a11y-check")
    assert (root / "a11y-check" / "SKILL.md").is_file()
    assert not (root / "engineering" / "frontend").exists()  # the emptied category goes too
    lib.create("ops/runbooks/restart", "Restart a service.")
    assert (root / "ops" / "runbooks" / "restart" / "SKILL.md").read_text().startswith("---\nname: restart\n")
    assert sorted(open_library(root).names()) == sorted(lib.names())
    assert MISMATCH not in {f.kind for f in lint_library(lib)}


def test_codex_and_hermes_categories_move_too(tmp_path: Path) -> None:
    codex_root = codex_marketplace(tmp_path / "plugins-repo")
    codex = open_library(codex_root)
    codex.rename("writing/style/tone", "writing/voice")
    assert (codex_root / ".agents" / "skills" / "writing" / "voice" / "SKILL.md").read_text() \
        .startswith("---\nname: voice\n")
    hermes = hermes_home(tmp_path / "home")
    lib = open_library(hermes)
    lib.rename("mlops/vllm", "research/vllm")
    assert (hermes / "skills" / "research" / "vllm" / "SKILL.md").is_file()
    assert lib.names() == ["mlops/axolotl", "research/arxiv", "research/vllm"]


def test_a_folder_move_is_journaled_new_folder_first(tmp_path: Path) -> None:
    """The rename's change set, replayed by the journal and stopped after its creations: both
    folders exist (nothing was lost at any instant), and the next open finishes the move."""
    root = claude_marketplace(tmp_path / "market")
    skills = root / "plugins" / "deploy-kit" / "skills"
    lib = open_library(root)
    change = lib.rename("deploy-kit/deploy", "deploy-kit/ship")
    lib.undo()
    created = sum(fc.after is not None for fc in change.files)
    with pytest.raises(journal.SimulatedCrash):
        journal.run(lib.journal_layout(fc.path for fc in change.files), change.files, "library",
                    change.label, crash_after=created)
    assert (skills / "ship" / "SKILL.md").is_file() and (skills / "deploy" / "SKILL.md").is_file()
    reopened = open_library(root)
    assert "deploy-kit/ship" in reopened.names() and "deploy-kit/deploy" not in reopened.names()
    assert not (skills / "deploy").exists()


def test_archive_and_restore_keep_a_plugin_or_category_skill_in_its_place(tmp_path: Path) -> None:
    """Issue 32's archive in issue 31's layouts: the archive is the root's ``.archive`` (no agent
    reads it); restoring puts the skill back in its plugin or category under its name, byte for
    byte, and a folder archived by hand (no record) comes back at the top of its root."""
    root = claude_marketplace(tmp_path / "market")
    before = skill_md_files(root)
    lib = open_library(root)
    archive_skills(lib, ["discord/access"])
    skills = root / "external_plugins" / "discord" / "skills"
    assert (skills / ".archive" / "access" / "SKILL.md").is_file() and not (skills / "access").exists()
    assert "discord/access" not in open_library(root).names()
    restore_skill(open_library(root), "access")
    assert skill_md_files(root) == before and "discord/access" in open_library(root).names()
    collection = category_tree(tmp_path / "collection")
    before = skill_md_files(collection)
    archive_skills(open_library(collection), ["engineering/frontend/a11y-check"])
    restore_skill(open_library(collection), "a11y-check")
    assert skill_md_files(collection) == before
    codex_root = codex_marketplace(tmp_path / "plugins-repo")
    remove_skills(open_library(codex_root), ["github/triage"])  # the tree's Delete archives (issue 32)
    assert (codex_root / "plugins" / "github" / "skills" / ".archive" / "triage" / "SKILL.md").is_file()
    hermes = hermes_home(tmp_path / "home")
    restore_skill(open_library(hermes), "old-tool")  # Hermes archived it: no record
    assert "old-tool" in open_library(hermes).names()
    assert (hermes / "skills" / "old-tool" / "SKILL.md").is_file()
