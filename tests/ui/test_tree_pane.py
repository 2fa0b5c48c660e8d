"""The Library tree pane against real widgets: create, rename/move, drag and drop, delete, filter."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QModelIndex, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QPushButton

from rockskills_gui.core.library.archive import restore_skill
from rockskills_gui.core.library.archive_records import archived
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.model.skill import skill_from_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.library.tree_dialogs import (
    MoveDialog,
    NewSkillDialog,
    RawFileDialog,
    RenamePreviewDialog,
)
from rockskills_gui.ui.library.tree_model import BADGES_ROLE, Badge
from rockskills_gui.ui.library.tree_pane import TreePane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.ui.conftest import open_window

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")


def pane_of(window: MainWindow) -> TreePane:
    pane = window.library_pane
    assert isinstance(pane, TreePane)
    assert pane.wait_for_usage()
    return pane


def select(pane: TreePane, name: str) -> QModelIndex:
    assert pane.reveal(name), name
    return pane.view.currentIndex()


def shown_paths(pane: TreePane, parent: QModelIndex | None = None) -> list[str]:
    """Paths of rows the view would show (expanded folders only)."""
    model, view = pane.model, pane.view
    parent = parent or QModelIndex()
    out = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        out.append(model.node(index).path)
        if view.isExpanded(index):
            out.extend(shown_paths(pane, index))
    return out


def inline_editor(pane: TreePane) -> QLineEdit:
    """The open inline rename editor (a closed one may linger until deleted)."""
    editors = [e for e in pane.view.findChildren(QLineEdit, "inlineRename") if e.isVisible()]
    assert len(editors) == 1, editors
    return editors[0]


def see_also(window: MainWindow, name: str) -> tuple[str, ...] | None:
    return skill_from_bytes(window.ctx.library.entry(name).path.read_bytes()).see_also


def file_of(window: MainWindow, name: str) -> Path:
    return window.ctx.library.layout.path_for(name)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.json"))}


# ---------------------------------------------------------------- create


def test_new_skill_dialog_validates_live_and_creates_in_the_selected_folder(
        window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    select(pane, "research/summarize-paper")
    window.commands["file.new_skill"].trigger()
    dialog = pane.dialog
    assert isinstance(dialog, NewSkillDialog) and dialog.isVisible()
    assert dialog.name.text() == "research/"  # the selected skill's folder
    assert not dialog.ok.isEnabled()

    qtbot.keyClicks(dialog.name, "bad name")
    assert dialog.message.text() == (
        "Skill name contains invalid characters: 'research/bad name'. "
        "Only alphanumeric, hyphens, underscores, and '/' are allowed.")  # RockBot's own words
    assert not dialog.ok.isEnabled()
    dialog.name.setText("/research/x")
    assert dialog.message.text() == "Skill name must be a relative path: '/research/x'"
    dialog.name.setText("MCP/Email")
    assert "already exists" in dialog.message.text() and not dialog.ok.isEnabled()
    dialog.name.setText("research/new-one")
    assert dialog.ok.isEnabled() and not dialog.message.isVisible()
    qtbot.keyClicks(dialog.summary, "A brand new skill")
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    created = file_of(window, "research/new-one")
    assert created.is_file()
    assert window.ctx.library.get("research/new-one").summary == "A brand new skill"
    assert window.ctx.current_skill == "research/new-one"
    assert pane.view.currentIndex().data() == "new-one"
    assert pane.model.index_for("research").data(Qt.ItemDataRole.ToolTipRole).endswith(
        "3 skills in this folder")
    assert window.tabs.currentWidget() is window.skill_pane
    window.commands["edit.undo"].trigger()
    assert not created.exists()
    assert not pane.model.index_for("research/new-one").isValid()


# ---------------------------------------------------------------- rename and move


def test_inline_rename_previews_the_see_also_rewrite_and_undoes_in_one_step(
        window: MainWindow, qtbot, agent: Path) -> None:
    pane = pane_of(window)
    before = snapshot(agent / "skills")
    pane.view.setFocus()
    select(pane, "mcp/calendar")
    window.commands["tree.rename"].trigger()
    editor = inline_editor(pane)
    assert editor.text() == "mcp/calendar"  # the full name: moves too
    editor.selectAll()
    qtbot.keyClicks(editor, "mcp/cal endar")
    assert "invalid characters" in pane.message.text() and pane.message.isVisible()
    qtbot.keyClick(editor, Qt.Key.Key_Escape)  # cancelled: nothing asked, the hint goes away
    assert not pane.message.isVisible() and pane.dialog is None
    window.commands["tree.rename"].trigger()
    editor = inline_editor(pane)
    editor.selectAll()
    qtbot.keyClicks(editor, "google/calendar")
    assert not pane.message.isVisible()
    qtbot.keyClick(editor, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: isinstance(pane.dialog, RenamePreviewDialog))
    dialog = pane.dialog
    assert dialog.title.text() == "Move 'mcp/calendar' to 'google/calendar'"
    refs = dialog.references
    assert refs.topLevelItemCount() == 1
    assert [refs.topLevelItem(0).text(c) for c in (0, 1)] == [
        "mcp/email", "mcp/calendar → google/calendar"]
    assert file_of(window, "mcp/calendar").is_file()  # nothing written before the answer
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    assert not file_of(window, "mcp/calendar").exists()
    assert file_of(window, "google/calendar").is_file()
    assert see_also(window, "mcp/email") == ("google/calendar", "schedule-meeting")
    assert pane.view.currentIndex().data() == "calendar"
    assert pane.model.node(pane.view.currentIndex()).path == "google/calendar"
    assert pane.model.index_for("mcp").data(Qt.ItemDataRole.ToolTipRole).endswith(
        "2 skills in this folder")
    undo = window.commands["edit.undo"]
    assert undo.text() == "&Undo Rename 'mcp/calendar' to 'google/calendar'"
    undo.trigger()
    assert snapshot(agent / "skills") == before  # one step restores every file, byte for byte
    assert not undo.isEnabled()
    assert pane.model.index_for("mcp/calendar").isValid()
    assert not pane.model.index_for("google").isValid()


def test_a_rename_nothing_refers_to_applies_at_once_and_bad_names_are_refused(
        window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    pane.request_rename({"write-report": "writing/report"})
    assert pane.dialog is None
    assert window.ctx.library.get("writing/report") is not None
    assert pane.view.currentIndex().data() == "report"
    pane.request_rename({"writing/report": "Writing/../x"})
    assert window.error_box is not None
    assert window.error_box.text() == "Skill name cannot contain '..': 'Writing/../x'"
    window.error_box.close()
    qtbot.waitUntil(lambda: window.error_box is None)
    pane.request_rename({"writing/report": "MCP"})  # taken, case-insensitively
    assert "already exists" in window.error_box.text()
    assert window.ctx.library.get("writing/report") is not None


def test_a_rockbot_rename_is_checked_with_rockbots_rules(window: MainWindow) -> None:
    """RockBot's own messages (SkillStore) for the names it refuses, on rename as on create."""
    pane = pane_of(window)
    invalid = ("Skill name contains invalid characters: 'Brew Tea'. Only alphanumeric, hyphens, "
               "underscores, and '/' are allowed.")
    assert pane.edits._rename_error({"write-report": "Brew Tea"}) == invalid
    assert pane.edits.creation_error("Brew Tea") == invalid
    assert pane.edits._rename_error({"write-report": "writing/report"}) is None
    assert pane.edits._rename_error({"write-report": "MCP"}) == (
        "A skill named 'mcp' already exists (RockBot names are case-insensitive).")


def test_move_to_folder_from_the_menu(window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    select(pane, "legacy")
    dialog = pane.move_selected()
    assert isinstance(dialog, MoveDialog)
    dialog.folder.setText("archive/old")
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    preview = pane.dialog
    assert isinstance(preview, RenamePreviewDialog)  # two skills move: always previewed
    assert preview.renames.topLevelItemCount() == 2
    assert preview.references.isHidden()
    preview.accept()
    library = window.ctx.library
    assert library.get("archive/old/legacy/fax-sender") is not None
    assert library.get("legacy/fax-sender") is None
    assert pane.model.node(pane.view.currentIndex()).path == "archive/old/legacy"


def drop_on(view, index: QModelIndex, data: QMimeData) -> None:
    """What the view receives while a drag moves over ``index`` and drops there."""
    pos = view.visualRect(index).center()
    viewport = view.viewport()
    action = Qt.DropAction.MoveAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    for event in (QDragEnterEvent(pos, action, data, buttons, mods),
                  QDragMoveEvent(pos, action, data, buttons, mods)):
        QApplication.sendEvent(viewport, event)
        assert event.isAccepted()
    drop = QDropEvent(pos.toPointF(), action, data, buttons, mods)
    QApplication.sendEvent(viewport, drop)
    assert drop.isAccepted()


def test_drag_and_drop_a_folder_onto_a_folder_moves_it_as_one_undo_step(
        window: MainWindow, qtbot, agent: Path) -> None:
    pane = pane_of(window)
    before = snapshot(agent / "skills")
    view, model = pane.view, pane.model
    data = model.mimeData([model.index_for("mcp")])  # a skill that is also a folder: all four
    drop_on(view, model.index_for("web"), data)
    qtbot.waitUntil(lambda: isinstance(pane.dialog, RenamePreviewDialog))
    dialog = pane.dialog
    assert dialog.windowTitle() == "Move 4 skills"
    moved = {dialog.renames.topLevelItem(i).text(0): dialog.renames.topLevelItem(i).text(1)
             for i in range(dialog.renames.topLevelItemCount())}
    assert moved == {"mcp": "web/mcp", "mcp/calendar": "web/mcp/calendar",
                     "mcp/email": "web/mcp/email", "mcp/weather": "web/mcp/weather"}
    assert dialog.references.topLevelItemCount() == 2  # email → calendar, calendar → email
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    assert see_also(window, "web/mcp/email") == ("web/mcp/calendar", "schedule-meeting")
    assert not (agent / "skills" / "mcp.json").exists()
    assert model.index_for("web").data(Qt.ItemDataRole.ToolTipRole).endswith(
        "5 skills in this folder")
    assert pane.model.node(view.currentIndex()).path == "web/mcp"
    window.commands["edit.undo"].trigger()
    assert snapshot(agent / "skills") == before


def test_drops_that_make_no_sense_are_refused(window: MainWindow) -> None:
    pane = pane_of(window)
    model = pane.model
    data = model.mimeData([model.index_for("mcp")])
    pos = pane.view.visualRect(model.index_for("mcp/email")).center()
    move = QDragMoveEvent(pos, Qt.DropAction.MoveAction, data, Qt.MouseButton.LeftButton,
                          Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(pane.view.viewport(), move)
    assert not move.isAccepted()  # into itself
    text = QMimeData()
    text.setText("mcp/email")
    assert not model.canDropMimeData(text, Qt.DropAction.MoveAction, -1, 0,
                                     model.index_for("web"))


# ---------------------------------------------------------------- delete


def test_delete_a_folder_after_confirming_and_undo(window: MainWindow, qtbot, agent: Path) -> None:
    pane = pane_of(window)
    before = snapshot(agent / "skills")
    pane.view.setFocus()
    select(pane, "mcp/calendar")
    qtbot.keyClick(pane.view, Qt.Key.Key_Delete)  # Del acts in the tree
    box = pane.dialog
    assert isinstance(box, QMessageBox)
    assert box.text() == "Delete 'mcp/calendar'?"
    assert "1 see-also reference to it will be kept and name nothing." in box.informativeText()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert file_of(window, "mcp/calendar").is_file()

    select(pane, "research")
    window.commands["tree.delete"].trigger()
    box = pane.dialog
    assert box.text() == "Delete 2 skills?"
    box.findChild(QPushButton, "confirmDelete").click()
    assert not (agent / "skills" / "research" / "summarize-paper.json").exists()
    assert not (agent / "skills" / "research" / "summarize-article.json").exists()
    assert not pane.model.index_for("research").isValid()
    assert window.skills_label.text() == "22 skills"
    window.commands["edit.undo"].trigger()
    assert snapshot(agent / "skills") == before
    assert pane.model.index_for("research/summarize-paper").isValid()


def test_delete_in_the_tree_archives_and_the_archive_restores_byte_for_byte(
        window: MainWindow, qtbot, agent: Path) -> None:
    """Removing a skill archives it (nothing outside skills/ ends in .json: RockBot loads every
    one); the confirmation says so; after undo history is gone the archive brings it back."""
    pane = pane_of(window)
    original = file_of(window, "mcp/calendar").read_bytes()
    select(pane, "mcp/calendar")
    window.commands["tree.delete"].trigger()
    box = pane.dialog
    assert isinstance(box, QMessageBox) and "skill archive" in box.informativeText()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.findChild(QPushButton, "confirmDelete").click()
    qtbot.waitUntil(lambda: window.ctx.library.get("mcp/calendar") is None)
    assert not any(p.suffix == ".json" and "archive" in p.as_posix()
                   for p in (agent / "skills").rglob("*"))
    window.close()
    library = open_library(agent, OpenOptions())  # a later session: no undo history
    listed = {a.name: a for a in archived(library)[0]}
    assert "mcp/calendar" in listed, listed
    restore_skill(library, listed["mcp/calendar"])
    assert library.layout.path_for("mcp/calendar").read_bytes() == original


def test_delete_key_in_the_filter_box_edits_text_not_the_library(window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    select(pane, "a2a")
    pane.filter.setFocus()
    qtbot.keyClicks(pane.filter, "ab")
    qtbot.keyClick(pane.filter, Qt.Key.Key_Home)
    qtbot.keyClick(pane.filter, Qt.Key.Key_Delete)
    assert pane.filter.text() == "b"
    assert pane.dialog is None


# ---------------------------------------------------------------- filter


def test_filter_expands_ancestors_of_matches_and_restores_the_tree_after(
        window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    view, model = pane.view, pane.model
    view.expand(model.index_for("legacy"))  # the user's own expansion
    assert "legacy/fax-sender" in shown_paths(pane)
    qtbot.keyClicks(pane.filter, "summar")
    assert shown_paths(pane) == ["mcp", "mcp/email",  # "Send, search and summarize email…"
                                 "research", "research/summarize-article",
                                 "research/summarize-paper"]
    assert pane.count.text() == "3 of 24 skills match"
    qtbot.keyClick(pane.filter, Qt.Key.Key_Escape)
    assert pane.filter.text() == ""
    shown = shown_paths(pane)
    assert "legacy/fax-sender" in shown and "research/summarize-paper" not in shown
    assert pane.count.text() == "24 skills · 8 folders"


def test_flag_filters_from_the_menu(window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    window.ctx.library.clock = lambda: NOW  # the fixture's "today"
    pane.sparse_action.trigger()
    assert pane.flags_button.text() == "Flags (1)"
    sparse = [p for p in shown_paths(pane) if pane.model.tree.find(p).uid in pane.model.result.matches]
    assert sparse == ["legacy/fax-sender", "mcp/weather", "write-report"]
    pane.sparse_action.trigger()
    pane.problems_action.trigger()
    assert shown_paths(pane) == []
    assert pane.count.text() == "0 of 24 skills match · with problems"
    pane.set_flags(never_used=True)
    assert pane.flags_button.text() == "Flags (1)"
    never = [p for p in shown_paths(pane) if pane.model.tree.find(p).uid in pane.model.result.matches]
    assert "a2a" in never and "mcp/email" not in never
    pane.set_flags(unused_days=90)
    assert "legacy/fax-sender" in shown_paths(pane) and "mcp/email" not in shown_paths(pane)
    pane.clear_filter()
    assert pane.flags_button.text() == "Flags"
    assert pane.model.result is None


def test_usage_events_count_as_use_and_dirty_buffers_show(qtbot, agent: Path) -> None:
    log = agent / "skill-usage" / "extra.jsonl"
    log.write_text(json.dumps({"id": "x", "skillName": "A2A", "sessionId": "s1",
                               "timestamp": "2026-11-21T10:00:00+00:00"}) + "\n")
    window = open_window(qtbot, agent)
    pane = pane_of(window)
    qtbot.waitUntil(lambda: Badge.NEVER_USED not in pane.model.index_for("a2a").data(BADGES_ROLE))
    assert Badge.NEVER_USED in pane.model.index_for("subagent").data(BADGES_ROLE)
    window.ctx.set_dirty("subagent", True)
    assert pane.model.index_for("subagent").data(BADGES_ROLE)[0] == Badge.UNSAVED
    window.ctx.set_dirty("subagent", False)
    assert Badge.UNSAVED not in pane.model.index_for("subagent").data(BADGES_ROLE)


# ---------------------------------------------------------------- selection and keys


def test_current_skill_and_tree_selection_follow_each_other(window: MainWindow, qtbot) -> None:
    pane = pane_of(window)
    window.ctx.select_skill("MCP/WEATHER")
    index = pane.view.currentIndex()
    assert pane.model.node(index).path == "mcp/weather"
    assert pane.view.isExpanded(index.parent())  # its folder was opened to show it
    pane.view.setFocus()
    qtbot.keyClick(pane.view, Qt.Key.Key_Up)
    assert window.ctx.current_skill == "mcp/email"
    window.tabs.setCurrentIndex(1)
    qtbot.keyClick(pane.view, Qt.Key.Key_Return)  # Enter opens it in the Skill tab
    assert window.tabs.currentWidget() is window.skill_pane
    window.library_dock.hide()
    window.commands["view.focus_tree"].trigger()
    assert window.library_dock.isVisible()


def test_context_menu_offers_the_registry_commands(window: MainWindow) -> None:
    pane = pane_of(window)
    select(pane, "mcp/email")
    menu = pane.build_context_menu()
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts[:2] == ["&Open", "&New Skill Here…"]
    assert window.commands["tree.rename"] in menu.actions()
    assert window.commands["tree.delete"] in menu.actions()
    assert window.commands["tree.delete"].isEnabled()
    menu.deleteLater()


# ---------------------------------------------------------------- problems


def test_double_click_on_a_problem_shows_the_raw_file_read_only(qtbot, agent: Path) -> None:
    broken = agent / "skills" / "notes" / "broken.json"
    broken.parent.mkdir()
    raw = b'{"name": "notes/broken", "summary": \xff'
    broken.write_bytes(raw)
    window = open_window(qtbot, agent)
    problems = window.problems_pane
    index = problems.model.index(0, 0)
    center = problems.view.visualRect(index).center()
    qtbot.mouseClick(problems.view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    qtbot.mouseDClick(problems.view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    viewer = problems.viewer
    assert isinstance(viewer, RawFileDialog) and viewer.isVisible()
    assert viewer.text.isReadOnly()
    assert viewer.text.toPlainText() == '{"name": "notes/broken", "summary": \ufffd'
    assert "parse-error" in viewer.reason.text()
    assert "not valid UTF-8" in viewer.note.text()
    viewer.close()
    assert broken.read_bytes() == raw


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs (POSIX)")
def test_the_raw_view_of_a_fifo_problem_says_why_and_never_blocks(qtbot, agent: Path) -> None:
    """Double-clicking a FIFO's problem opened it for reading: the window froze until something
    wrote into it (issue 35). A writer knocks after 10 s, so that a regression fails, not hangs."""
    import threading

    fifo = agent / "skills" / "pipe.json"
    os.mkfifo(fifo)

    def knock() -> None:  # (only a reader blocked in open() lets a non-blocking writer in)
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    timer = threading.Timer(10, knock)
    timer.start()
    try:
        viewer = RawFileDialog(fifo, "skills/pipe.json", "unreadable")
        qtbot.addWidget(viewer)
    finally:
        timer.cancel()
    assert "cannot be read" in viewer.note.text() and "not a regular file" in viewer.note.text()
    assert viewer.text.toPlainText() == ""


def test_screenshot_of_the_tree_pane_with_a_selection(agent: Path, tmp_path: Path, qapp) -> None:
    from PySide6.QtGui import QImage, QPalette

    from rockskills_gui.ui.shell import app

    out = tmp_path / "tree.png"
    assert app.main([str(agent), "--pane", "tree", "--select", "MCP/Weather",
                     "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    highlight = qapp.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight).rgb()
    in_tree = [(x, y) for x in range(0, 290, 2) for y in range(60, 860, 2)
               if image.pixel(x, y) == highlight]
    assert in_tree, "no selected row in the Library tree"
    rows = {y for _, y in in_tree}
    assert max(rows) - min(rows) < 30  # one row: the selected skill, its folder expanded above


def test_an_empty_tree_says_why(qtbot, tmp_path: Path) -> None:
    """0 skills loaded with problems: the tree says so (issue 17), and a filter with no match too."""
    from tests.ui.conftest import open_window

    agent = tmp_path / "agent"
    (agent / "skills").mkdir(parents=True)
    (agent / "skills" / "broken.json").write_text('{"name": "broken", "content": ')
    window = open_window(qtbot, agent)
    pane = window.library_pane
    assert "No skill loaded: 1 file could not be loaded" in pane.view.empty_text
    (agent / "skills" / "broken.json").write_text('{"name": "broken", "summary": "s", "content": "c"}')
    window.ctx.apply(lambda lib: lib.create("fine", "A fine skill.", "1. Go."))
    assert pane.view.empty_text == ""


def test_a_skill_md_rename_is_checked_with_its_own_rules_as_typed(qtbot, tmp_path: Path) -> None:
    """The inline editor's hint uses the open library's agent rules (a SKILL.md skill is a folder),
    not RockBot's, which refuse a space and accept '.x'-less names only."""
    root = tmp_path / "lib"
    for name in ("brew-tea", "pour-tea"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: How to {name.replace('-', ' ')} well.\n---\n\nSteps.\n")
    window = open_window(qtbot, root)
    assert window.ctx.library is not None and window.ctx.library.profile.format == "agentskills"
    pane = pane_of(window)
    pane.view.setFocus()
    select(pane, "brew-tea")
    window.commands["tree.rename"].trigger()
    editor = inline_editor(pane)
    editor.selectAll()
    qtbot.keyClicks(editor, ".brew")
    expected = window.ctx.library.name_rule_error(".brew")
    assert expected and "skill folder" in expected
    assert pane.message.isVisible() and pane.message.text() == expected
    editor.selectAll()
    qtbot.keyClicks(editor, "brew green tea")  # RockBot would refuse the spaces
    assert not pane.message.isVisible()
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    window.close()
