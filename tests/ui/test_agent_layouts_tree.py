"""The Library tree of a plugin marketplace and of a category collection (issue 31): plugins and
categories are folders, a skill sits under its plugin, and a folder move in the tree moves the
skill's folder on disk (the tree's own move mapping, as a drag does)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex

from rockskills_gui.core.library.open import open_library
from rockskills_gui.ui.library.tree_model import SkillTreeModel
from tests.conftest import SHARED
from tests.skill_layouts import category_tree, claude_marketplace

PLUGINS = SHARED / "corpora" / "anthropics-claude-plugins-official"


def rows(model: SkillTreeModel, parent: QModelIndex | None = None) -> list[str]:
    parent = parent or QModelIndex()
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def child(model: SkillTreeModel, name: str, parent: QModelIndex | None = None) -> QModelIndex:
    parent = parent or QModelIndex()
    (index,) = [model.index(r, 0, parent) for r in range(model.rowCount(parent))
                if model.index(r, 0, parent).data() == name]
    return index


def test_the_official_claude_marketplace_is_a_tree_of_plugins(qtmodeltester) -> None:
    model = SkillTreeModel()
    model.set_library(open_library(PLUGINS))
    qtmodeltester.check(model, force_py=True)
    top = rows(model)
    assert {"discord", "telegram", "imessage", "plugin-dev", "mcp-server-dev"} <= set(top)
    for plugin in ("discord", "telegram", "imessage"):  # the same two names in three plugins
        assert rows(model, child(model, plugin)) == ["access", "configure"]


def test_a_tree_move_carries_the_folder_between_plugins_and_categories(tmp_path: Path) -> None:
    root = claude_marketplace(tmp_path / "market")
    lib = open_library(root)
    model = SkillTreeModel()
    model.set_library(lib)
    model.apply_change(lib.rename_many(model.move_mapping(model.tree.find("deploy-kit/rollback"),
                                                          "notes/rollback")))
    assert rows(model, child(model, "notes")) == ["rollback", "take-notes"]
    assert (root / "plugins" / "notes" / "skills" / "rollback" / "SKILL.md").is_file()
    assert not (root / "plugins" / "deploy-kit" / "skills" / "rollback").exists()
    collection = category_tree(tmp_path / "collection")
    lib = open_library(collection)
    model.set_library(lib)
    assert rows(model) == ["engineering", "marketing-skill"]
    model.apply_change(lib.rename_many(model.move_mapping(model.tree.find("engineering/frontend"),
                                                          "marketing-skill/frontend")))
    assert (collection / "marketing-skill" / "frontend" / "a11y-check" / "SKILL.md").is_file()
    assert rows(model, child(model, "marketing-skill")) == ["frontend", "launch-plan", "seo-audit"]
