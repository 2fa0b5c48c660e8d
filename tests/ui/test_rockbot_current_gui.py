"""The "RockBot (current)" profile in the window (issue 20): File ▸ Reopen As offers both RockBot
profiles, the Library tree shows a skill's resources under it, the editor shows them read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.tree import TreeFilter
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from rockskills_gui.ui.library.tree_model import KIND_ROLE, RESOURCE_ROLE, SNIPPET_ROLE, SkillTreeModel
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.rockbot_current import RESOURCES, snapshot


def reopen(qtbot, window: MainWindow, format: str) -> str:
    with qtbot.waitSignal(window.loadFinished, timeout=10_000) as blocker:
        window.reopen_menu.aboutToShow.emit()
        action = next(a for a in window.reopen_menu.actions()
                      if a.objectName() == f"file.reopen_as.{format}")
        action.trigger()
    return blocker.args[0]


def checked(window: MainWindow) -> list[str]:
    window.reopen_menu.aboutToShow.emit()
    return [a.objectName() for a in window.reopen_menu.actions() if a.isChecked()]


def test_reopen_as_offers_both_rockbot_profiles(qtbot, cwindow: MainWindow, current: Path) -> None:
    before = snapshot(current)
    assert cwindow.ctx.library.rules is ROCKBOT_CURRENT
    assert cwindow.windowTitle().endswith("RockBot (current)")
    names = [a.objectName() for a in cwindow.reopen_menu.actions()]
    assert names[:3] == ["file.reopen_as.rockbot", "file.reopen_as.rockbot-current",
                         "file.reopen_as.rockbot-64e82cc"]
    assert checked(cwindow) == ["file.reopen_as.rockbot-current"]
    assert reopen(qtbot, cwindow, "rockbot-64e82cc") == ""
    assert cwindow.ctx.library.rules is ROCKBOT_64E82CC
    assert cwindow.windowTitle().endswith("— RockBot")
    assert checked(cwindow) == ["file.reopen_as.rockbot-64e82cc"]
    assert cwindow.ctx.recent.format_of(current) == "rockbot-64e82cc"  # remembered
    with qtbot.waitSignal(cwindow.loadFinished, timeout=10_000):
        cwindow.open_path(current)  # Open Recent: the chosen profile again
    assert cwindow.ctx.library.rules is ROCKBOT_64E82CC
    assert reopen(qtbot, cwindow, "rockbot") == ""  # the profile the evidence says
    assert cwindow.ctx.library.rules is ROCKBOT_CURRENT
    assert snapshot(current) == before


def test_the_window_command_line_takes_the_profile_values() -> None:
    from rockskills_gui.ui.shell.app import build_parser
    assert build_parser().parse_args(["X", "--format", "rockbot-64e82cc"]).format == "rockbot-64e82cc"


# ---------------------------------------------------------------- the tree's resource rows


def resource_rows(model, name: str) -> list[tuple[str, str]]:
    parent = model.index_for(name)
    out = []
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        if index.data(KIND_ROLE) == "resource":
            out.append((index.data(), index.data(SNIPPET_ROLE)[0]))
    return out


@pytest.fixture
def current_lib(current: Path) -> RockBotLibrary:
    lib = open_library(current)
    assert isinstance(lib, RockBotLibrary) and lib.rules is ROCKBOT_CURRENT
    return lib


def test_tree_shows_resources_under_their_skill(qtmodeltester, current_lib: RockBotLibrary) -> None:
    model = SkillTreeModel()
    model.set_library(current_lib)
    qtmodeltester.check(model, force_py=True)
    assert resource_rows(model, "scripts/csv-report") == [
        ("report.py", "Python"), ("schema.json", "JsonSchema"), ("missing.md", "Markdown · missing"),
        ("logo.png", "not in the manifest")]
    assert resource_rows(model, "web/search") == []
    skill = model.index_for("scripts/csv-report")
    assert model.hasChildren(skill) and not model.hasChildren(model.index_for("web/search"))
    first = model.index(0, 0, skill)
    assert first.parent() == skill
    assert first.data(RESOURCE_ROLE) == ("scripts/csv-report", "report.py")
    assert model.resource_row(first).resource.type == "Python"
    assert model.node(first) is None  # not a skill: rename, move, delete and drag ignore it
    assert not first.flags() & Qt.ItemFlag.ItemIsEditable
    assert not first.flags() & Qt.ItemFlag.ItemIsDragEnabled
    assert "Builds the report" in first.data(Qt.ItemDataRole.ToolTipRole)
    assert model.index_for_resource("scripts/csv-report", "logo.png").data() == "logo.png"


def test_resource_rows_follow_changes(qtmodeltester, current_lib: RockBotLibrary) -> None:
    model = SkillTreeModel()
    model.set_library(current_lib)
    qtmodeltester.check(model, force_py=True)  # checks every signal below as it happens
    assert len(resource_rows(model, "scripts/csv-report")) == 4
    model.apply_change(current_lib.rename_many({"scripts/csv-report": "tools/csv-report"}))
    assert model.index_for("scripts/csv-report").isValid() is False
    assert len(resource_rows(model, "tools/csv-report")) == 4
    model.apply_change(current_lib.undo())
    assert len(resource_rows(model, "scripts/csv-report")) == 4
    model.set_filter(TreeFilter("csv"))
    assert len(resource_rows(model, "scripts/csv-report")) == 4
    model.apply_change(current_lib.delete("scripts/csv-report"))
    model.set_filter(TreeFilter())
    model.apply_change(current_lib.undo())
    assert len(resource_rows(model, "scripts/csv-report")) == 4
    model.apply_change(current_lib.delete("scripts/csv-report"))  # unfiltered, rows shown
    assert not model.index_for("scripts/csv-report").isValid()
    model.apply_change(current_lib.undo())
    assert len(resource_rows(model, "scripts/csv-report")) == 4


def test_the_64e82cc_profile_shows_no_resource_rows(qtmodeltester, current: Path) -> None:
    lib = open_library(current, OpenOptions(format="rockbot-64e82cc"))
    model = SkillTreeModel()
    model.set_library(lib)
    qtmodeltester.check(model, force_py=True)
    assert resource_rows(model, "scripts/csv-report") == []


# ---------------------------------------------------------------- the read-only resource view


def select_resource(window: MainWindow, filename: str) -> None:
    pane = window.library_pane
    pane.reveal("scripts/csv-report")
    index = pane.model.index_for_resource("scripts/csv-report", filename)
    assert index.isValid()
    pane.view.setCurrentIndex(index)


def test_the_editor_shows_a_resource_read_only(qtbot, cwindow: MainWindow, current: Path) -> None:
    before = snapshot(current)
    editor = cwindow.skill_pane
    view = editor.resource_view
    select_resource(cwindow, "report.py")
    assert editor.stack.currentWidget() is view
    assert cwindow.ctx.current_skill == "scripts/csv-report"  # the owner is the current skill
    assert cwindow.library_pane.model.resource_row(cwindow.library_pane.view.currentIndex())
    assert view.text.toPlainText() == "import csv\nprint('report')\n"
    assert view.text.isReadOnly() and not view.editable
    assert "Python" in view.detail.text() and "read-only" in view.detail.text()
    assert "Builds the report" in view.detail.text()
    qtbot.keyClicks(view.text, "typed")  # a read-only view takes no text
    assert view.text.toPlainText() == "import csv\nprint('report')\n"

    select_resource(cwindow, "logo.png")
    assert view.body.currentWidget() is view.note
    assert view.note.text() == f"binary, {len(RESOURCES['scripts/csv-report']['logo.png'])} bytes"
    assert "not in the manifest" in view.detail.text()

    select_resource(cwindow, "missing.md")
    assert view.note.text().startswith("Missing:")

    cwindow.library_pane.view.setCurrentIndex(
        cwindow.library_pane.model.index_for("scripts/csv-report"))
    assert editor.stack.currentWidget() is editor.page  # back to the skill itself
    assert snapshot(current) == before


def test_the_resource_view_follows_a_rename(qtbot, cwindow: MainWindow) -> None:
    select_resource(cwindow, "report.py")
    view = cwindow.skill_pane.resource_view
    cwindow.ctx.apply(lambda lib: lib.rename_many({"scripts/csv-report": "tools/csv-report"}))
    assert view.skill == "tools/csv-report"
    assert view.text.toPlainText() == "import csv\nprint('report')\n"


# ---------------------------------------------------------------- the hybrid recall panel


def test_the_recall_playground_explains_the_hybrid_score(qtbot, cwindow: MainWindow) -> None:
    cwindow.show_pane("recall")
    pane = cwindow.recall_pane
    assert pane.recall is not None
    pane.set_query("csv report with python", immediate=True)
    panel = pane.hybrid_panel
    assert pane.side.tabText(pane.side.indexOf(panel)) == "Hybrid"
    pane.side.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.explanation is not None)
    hits = pane.recall.search("csv report with python", top=None)
    rows = [[panel.tree.topLevelItem(i).text(c) for c in range(6)]
            for i in range(panel.tree.topLevelItemCount())]
    assert [r[0] for r in rows] == [h.name for h in hits]
    first = rows[0]
    assert first[0] == "scripts/csv-report" and first[2] == "1.000"  # the top BM25 score: 1
    assert first[3] == "4 dims" and first[4] == "unavailable offline" and first[5] == "1.000"
    assert "query vector unavailable offline" in panel.header.text()
    assert "3 skill(s) have a stored vector." in panel.notes.text()


def test_no_hybrid_or_resources_tab_for_64e82cc(qtbot, window: MainWindow) -> None:
    window.show_pane("recall")
    pane = window.recall_pane
    pane.set_query("email", immediate=True)
    assert pane.side.indexOf(pane.hybrid_panel) == -1  # RockBot 64e82cc ranks by BM25 alone
    window.show_pane("heatmap")
    assert window.usage_pane.side.indexOf(window.usage_pane.resources_view) == -1


# ---------------------------------------------------------------- resource reads in the Usage tab


def test_the_usage_tab_lists_resource_reads_per_skill(qtbot, cwindow: MainWindow) -> None:
    cwindow.show_pane("heatmap")
    pane = cwindow.usage_pane
    view = pane.resources_view
    assert pane.side.tabText(pane.side.indexOf(view)) == "Resources"
    pane.side.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.usage is not None)
    top = view.tree.topLevelItem(0)
    assert top.text(0) == "scripts/csv-report" and top.text(1) == "1" and top.text(2) == "1"
    files = {top.child(i).text(0): top.child(i).text(1) for i in range(top.childCount())}
    assert files == {"report.py": "1", "schema.json": "0", "missing.md": "0", "logo.png": "0"}
    assert "1 resource read(s)" in view.title.text()
