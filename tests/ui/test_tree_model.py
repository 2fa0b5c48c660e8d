"""The lazy tree model over the core tree, checked by pytest-qt's model tester."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.tree import SkillTree, TreeFilter
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.models import NAME_ROLE
from rockskills_gui.ui.library.tree_model import (
    BADGES_ROLE,
    COUNT_ROLE,
    KIND_ROLE,
    PATH_ROLE,
    SPANS_ROLE,
    Badge,
    SkillTreeModel,
)

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")


@pytest.fixture
def library(agent_copy: Path) -> RockBotLibrary:
    return RockBotLibrary.open(agent_copy, clock=lambda: NOW)


@pytest.fixture
def model(library: RockBotLibrary) -> SkillTreeModel:
    model = SkillTreeModel()
    model.set_library(library)
    return model


def rows(model: SkillTreeModel, parent: QModelIndex | None = None) -> list[str]:
    parent = parent or QModelIndex()
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def walk(model: SkillTreeModel, parent: QModelIndex | None = None) -> list[str]:
    parent = parent or QModelIndex()
    out = []
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        out.append(index.data(PATH_ROLE))
        out.extend(walk(model, index))
    return out


def test_model_tester_through_changes(qtmodeltester, model, library):
    qtmodeltester.check(model, force_py=True)
    # The tester stays connected: every insert/remove/change/reset below is checked as it happens.
    model.apply_change(library.create("tools/deep/new-skill"))
    model.apply_change(library.rename_many(model.move_mapping(model.tree.find("mcp"), "srv/mcp")))
    model.apply_change(library.delete("a2a"))
    model.set_filter(TreeFilter("summar"))
    model.apply_change(library.undo())
    model.set_filter(TreeFilter(never_used=True))
    model.apply_change(library.undo())
    model.set_filter(TreeFilter())
    model.apply_change(library.undo())
    assert walk(model) == [n.path for n in SkillTree(library.skills())]


def test_model_tester_while_filtered(qtmodeltester, model):
    model.set_filter(TreeFilter("mcp"))
    qtmodeltester.check(model, force_py=True)
    model.set_filter(TreeFilter("e", sparse=True))
    model.set_filter(TreeFilter("no-such-thing"))
    assert model.rowCount() == 0


def test_top_level_rows_counts_and_kinds(model: SkillTreeModel) -> None:
    top = rows(model)
    assert top[:4] == ["a2a", "daily-standup", "legacy", "mcp"]  # List order, folders inline
    mcp = model.index_for("MCP")
    assert mcp.data() == "mcp" and mcp.data(KIND_ROLE) == "skill+folder"
    assert mcp.data(COUNT_ROLE) == 3
    assert rows(model, mcp) == ["calendar", "email", "weather"]
    legacy = model.index_for("legacy")
    assert legacy.data(KIND_ROLE) == "folder" and legacy.data(NAME_ROLE) == ""
    email = model.index_for("mcp/email")
    assert email.data(NAME_ROLE) == "mcp/email" and email.data(COUNT_ROLE) is None
    assert email.parent() == mcp
    assert model.flags(legacy) & Qt.ItemFlag.ItemIsDropEnabled
    assert not model.flags(email) & Qt.ItemFlag.ItemIsDropEnabled
    assert model.flags(QModelIndex()) & Qt.ItemFlag.ItemIsDropEnabled  # the top level


def test_badges(model: SkillTreeModel, library: RockBotLibrary) -> None:
    def badges(name: str) -> tuple[Badge, ...]:
        return model.index_for(name).data(BADGES_ROLE)

    assert badges("mcp/email") == ()
    assert Badge.SUMMARY_PENDING in badges("travel/expense-report")
    assert Badge.NEVER_USED in badges("a2a")
    assert Badge.SPARSE in badges("legacy/fax-sender")  # 118 characters, created 2025
    assert Badge.SPARSE not in badges("daily-standup")  # short, but three days old
    model.set_dirty({"MCP/Email"})
    assert badges("mcp/email") == (Badge.UNSAVED,)
    model.set_dirty(set())
    assert badges("mcp/email") == ()
    model.set_last_used({"A2A": NOW})
    assert Badge.NEVER_USED not in badges("a2a")
    # A see-also naming no skill is a problem, shown until the name exists again.
    model.apply_change(library.update("web", see_also=["nowhere"]))
    assert Badge.PROBLEM in badges("web")
    assert "see-also names no skill: &#x27;nowhere&#x27;" in model.index_for("web").data(
        Qt.ItemDataRole.ToolTipRole)
    model.apply_change(library.create("nowhere"))
    assert Badge.PROBLEM not in badges("web")


def test_filter_shows_matches_with_ancestors_counts_and_spans(model: SkillTreeModel) -> None:
    result = model.set_filter(TreeFilter("mcp/e"))
    assert result is not None and len(result) == 1
    assert walk(model) == ["mcp", "mcp/email"]
    mcp = model.index_for("mcp")
    assert mcp.data(COUNT_ROLE) == 1  # matching skills below, while filtering
    assert model.index_for("mcp/email").data(SPANS_ROLE) == [(0, 1)]
    assert mcp.data(SPANS_ROLE) == []  # 'mcp/e' is not in 'mcp'
    assert not model.index_for("web").isValid()  # filtered out
    model.set_filter(TreeFilter("MCP"))
    assert model.index_for("mcp").data(SPANS_ROLE) == [(0, 3)]
    assert rows(model, model.index_for("mcp")) == ["calendar", "email", "weather"]
    model.set_filter(TreeFilter("academic"))  # a summary word
    assert walk(model) == ["research", "research/summarize-paper"]
    model.set_filter(TreeFilter())
    assert model.index_for("web").isValid()


def test_drop_asks_for_a_move_and_refuses_impossible_drops(qtbot, model: SkillTreeModel) -> None:
    email, research = model.index_for("mcp/email"), model.index_for("research")
    data = model.mimeData([email])
    move = Qt.DropAction.MoveAction
    with qtbot.waitSignal(model.moveRequested) as blocker:
        assert model.dropMimeData(data, move, -1, 0, research)
    assert blocker.args == [{"mcp/email": "research/email"}]
    assert not model.canDropMimeData(data, move, -1, 0, email)  # not a folder
    assert not model.canDropMimeData(data, move, -1, 0, model.index_for("mcp"))  # already there
    folder = model.mimeData([model.index_for("mcp")])
    assert not model.canDropMimeData(folder, move, -1, 0, model.index_for("mcp"))  # into itself
    assert model.canDropMimeData(data, move, -1, 0, QModelIndex())  # to the top level
    assert not model.canDropMimeData(data, Qt.DropAction.CopyAction, -1, 0, research)


# ---------------------------------------------------------------- top-level rows in batches


def small_batches(library: RockBotLibrary, batch: int = 3) -> SkillTreeModel:
    model = SkillTreeModel()
    model.batch = batch
    model.set_library(library)
    return model


def fetch_all(model: SkillTreeModel) -> None:
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())


def test_top_level_rows_arrive_in_batches(qtmodeltester, library: RockBotLibrary) -> None:
    model = small_batches(library)
    total = len(model.tree.root.children)
    assert total > 3 * 2  # several batches
    assert model.rowCount() == 3 and model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 6
    qtmodeltester.check(model, force_py=False)  # (the tester fetches the rest itself)
    fetch_all(model)
    assert model.rowCount() == total and not model.canFetchMore(QModelIndex())
    assert walk(model) == [n.path for n in SkillTree(library.skills())]


def test_index_for_fetches_up_to_a_skill_not_yet_shown(library: RockBotLibrary) -> None:
    model = small_batches(library)
    last = model.tree.root.children[-1]
    assert not model.index_of(last).isValid()  # not handed to the view yet
    index = model.index_for(last.path)
    assert index.isValid() and index.data(PATH_ROLE) == last.path
    assert model.rowCount() == len(model.tree.root.children)


def test_changes_in_the_unfetched_rows_stay_consistent(qtmodeltester, library: RockBotLibrary) -> None:
    model = small_batches(library)
    qtmodeltester.check(model, force_py=False)
    model.set_filter(TreeFilter())  # (a reset: back to one batch, the tester still watching)
    assert model.canFetchMore(QModelIndex())
    # created, renamed and deleted beyond the fetched rows, and inside them: the tester checks each
    model.apply_change(library.create("zzz-last"))
    model.apply_change(library.create("000-first"))
    last_top = model.tree.root.children[-2].path
    model.apply_change(library.rename_many(model.move_mapping(model.tree.find(last_top), "aaa-moved")))
    model.apply_change(library.delete("zzz-last"))
    model.apply_change(library.undo())
    assert model.rowCount() <= len(model.tree.root.children)
    fetch_all(model)
    assert walk(model) == [n.path for n in SkillTree(library.skills())]


def test_a_filter_also_starts_with_one_batch(library: RockBotLibrary) -> None:
    model = small_batches(library, batch=2)
    model.set_filter(TreeFilter(never_used=True))
    shown = len(model.child_nodes(model.tree.root))
    assert model.rowCount() == min(2, shown)
    fetch_all(model)
    assert model.rowCount() == shown
