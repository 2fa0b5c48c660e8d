"""Inputs that must not lose or glue what the user typed (issue #18), driven with real keys:
the see-also field after a completion, F2 rename with an invalid name, the New Skill folder
prefix, and the dialogs' wrapped labels (never clipped)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit

from rockskills_gui.ui.editor.editor_pane import EditorPane
from rockskills_gui.ui.editor.skill_header import SeeAlsoEditor
from rockskills_gui.ui.library.tree_dialogs import MoveDialog, NewSkillDialog
from rockskills_gui.ui.library.tree_pane import TreePane
from rockskills_gui.ui.shell.main_window import MainWindow

ORIGINAL = ["mcp/calendar", "schedule-meeting"]  # mcp/email's see-also in the sample library


@pytest.fixture
def win(window: MainWindow) -> MainWindow:
    window.activateWindow()
    return window


def see_also_of(window: MainWindow, name: str = "mcp/email") -> SeeAlsoEditor:
    assert window.ctx.select_skill(name)
    window.show_pane("editor")
    pane = window.skill_pane
    assert isinstance(pane, EditorPane)
    assert pane.current is not None and pane.current.name == name
    field = pane.header.see_also.input
    field.setFocus()
    return pane.header.see_also


def tree_of(window: MainWindow) -> TreePane:
    pane = window.library_pane
    assert isinstance(pane, TreePane)
    assert pane.wait_for_usage()
    return pane


def type_inline_rename(qtbot, win: MainWindow, name: str, text: str) -> tuple[TreePane, QLineEdit]:
    """F2 on skill ``name`` in the tree, then ``text`` typed over its path."""
    pane = tree_of(win)
    pane.view.setFocus()
    assert pane.reveal(name)
    qtbot.keyClick(pane.view, Qt.Key.Key_F2)
    editor = inline_editor(pane)
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    return pane, editor


def inline_editor(pane: TreePane) -> QLineEdit:
    editors = [e for e in pane.view.findChildren(QLineEdit, "inlineRename") if e.isVisible()]
    assert len(editors) == 1, editors
    return editors[0]


# ---------------------------------------------------------------- see-also chips


def test_see_also_down_enter_adds_the_chip_once_and_empties_the_field(
        win: MainWindow, qtbot) -> None:
    see_also = see_also_of(win)
    field, popup = see_also.input, see_also.completer.popup()
    edits: list[tuple] = []
    see_also.edited.connect(edits.append)
    qtbot.keyClicks(field, "a2")
    assert popup.isVisible()
    qtbot.keyClick(popup, Qt.Key.Key_Down)  # the popup has the keyboard while it is open
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: field.text() == "")
    assert see_also.names == [*ORIGINAL, "a2a"]
    assert edits == [(*ORIGINAL, "a2a")]  # added once
    # the next name starts from an empty field: nothing glued, no dangling chip
    qtbot.keyClicks(field, "write-report")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: field.text() == "")
    assert see_also.names == [*ORIGINAL, "a2a", "write-report"]
    assert not any(chip.dangling for chip in see_also.chips)


def test_see_also_mouse_click_on_a_completion_empties_the_field(win: MainWindow, qtbot) -> None:
    see_also = see_also_of(win)
    field, popup = see_also.input, see_also.completer.popup()
    qtbot.keyClicks(field, "a2")
    assert popup.isVisible()
    index = popup.model().index(0, 0)
    assert index.data() == "a2a"
    qtbot.mouseClick(popup.viewport(), Qt.MouseButton.LeftButton,
                     pos=popup.visualRect(index).center())
    qtbot.waitUntil(lambda: field.text() == "")
    assert see_also.names == [*ORIGINAL, "a2a"]


def test_see_also_comma_ends_a_name_like_enter(win: MainWindow, qtbot) -> None:
    see_also = see_also_of(win)
    field, popup = see_also.input, see_also.completer.popup()
    qtbot.keyClicks(field, "a2a")
    assert popup.isVisible()
    qtbot.keyClick(popup, ",")  # the popup has the keyboard; the completer forwards the comma
    assert field.text() == "" and see_also.names == [*ORIGINAL, "a2a"]
    qtbot.keyClicks(field, "write-report")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: field.text() == "")
    assert see_also.names == [*ORIGINAL, "a2a", "write-report"]
    assert not any(chip.dangling for chip in see_also.chips)


# ---------------------------------------------------------------- F2 rename


def test_f2_rename_with_an_invalid_name_keeps_the_editor_and_the_text(
        win: MainWindow, qtbot) -> None:
    pane, editor = type_inline_rename(qtbot, win, "mcp/calendar", "mcp/cal endar")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # refused with RockBot's message; still editing what was typed
    assert inline_editor(pane) is editor and editor.text() == "mcp/cal endar"
    assert pane.message.isVisible() and pane.message.text() == (
        "Skill name contains invalid characters: 'mcp/cal endar'. "
        "Only alphanumeric, hyphens, underscores, and '/' are allowed.")
    assert win.error_box is None and pane.dialog is None
    assert win.ctx.library.get("mcp/calendar") is not None
    # a name the library already has is refused the same way
    editor.selectAll()
    qtbot.keyClicks(editor, "MCP/Email")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert inline_editor(pane) is editor and editor.text() == "MCP/Email"
    assert "already exists" in pane.message.text()
    # fixed, then Enter renames
    editor.selectAll()
    qtbot.keyClicks(editor, "mcp/calendar-two")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pane.dialog is not None)  # mcp/email names it: previewed
    pane.dialog.accept()
    assert win.ctx.library.get("mcp/calendar-two") is not None
    assert not pane.message.isVisible()


def test_f2_rename_invalid_then_escape_cancels(win: MainWindow, qtbot) -> None:
    pane = tree_of(win)
    pane.view.setFocus()
    assert pane.reveal("write-report")
    qtbot.keyClick(pane.view, Qt.Key.Key_F2)
    editor = inline_editor(pane)
    editor.selectAll()
    qtbot.keyClicks(editor, "a/../b")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert inline_editor(pane).text() == "a/../b"
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert not [e for e in pane.view.findChildren(QLineEdit, "inlineRename") if e.isVisible()]
    assert not pane.message.isVisible() and win.error_box is None
    assert win.ctx.library.get("write-report") is not None


# ---------------------------------------------------------------- New Skill prefix


def new_skill_dialog(win: MainWindow, folder_skill: str) -> NewSkillDialog:
    pane = tree_of(win)
    assert pane.reveal(folder_skill)
    win.commands["file.new_skill"].trigger()
    dialog = pane.dialog
    assert isinstance(dialog, NewSkillDialog) and dialog.isVisible()
    return dialog


def test_new_skill_typing_a_bare_name_lands_in_the_selected_folder(win: MainWindow,
                                                                    qtbot) -> None:
    dialog = new_skill_dialog(win, "research/summarize-paper")
    assert dialog.name.text() == "research/"
    qtbot.keyClicks(dialog.name, "notes")
    assert dialog.name.text() == "research/notes" and dialog.ok.isEnabled()


def test_new_skill_typing_the_full_name_does_not_double_the_prefix(win: MainWindow,
                                                                    qtbot) -> None:
    dialog = new_skill_dialog(win, "research/summarize-paper")
    qtbot.keyClicks(dialog.name, "research/notes")
    assert dialog.name.text() == "research/notes"
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert win.ctx.library.get("research/notes") is not None
    assert win.ctx.library.get("research/research/notes") is None


def test_new_skill_pasting_the_full_name_does_not_double_the_prefix(win: MainWindow,
                                                                     qtbot, qapp) -> None:
    dialog = new_skill_dialog(win, "research/summarize-paper")
    qapp.clipboard().setText("Research/notes")
    qtbot.keyClick(dialog.name, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert dialog.name.text() == "Research/notes"


def test_new_skill_select_all_then_typing_is_taken_as_typed(win: MainWindow, qtbot) -> None:
    dialog = new_skill_dialog(win, "research/summarize-paper")
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "research/research/x")  # the user's own, explicit name
    assert dialog.name.text() == "research/research/x"


# ---------------------------------------------------------------- wrapped labels


def assert_fits(dialog: QDialog, label: QLabel) -> None:
    """The label gets the height its wrapped text needs (nothing clipped top or bottom)."""
    assert label.isVisible() and label.wordWrap()
    needed = label.heightForWidth(label.width())
    assert label.height() >= needed, (label.text(), label.height(), needed)
    assert label.geometry().bottom() <= dialog.height()


def test_new_skill_hint_and_message_are_not_clipped(win: MainWindow, qtbot,
                                                    tmp_path: Path) -> None:
    dialog = new_skill_dialog(win, "research/summarize-paper")
    hint = dialog.findChild(QLabel, "newSkillHint")
    assert hint is not None
    qtbot.waitUntil(lambda: hint.height() >= hint.heightForWidth(hint.width()))
    assert_fits(dialog, hint)
    qtbot.keyClicks(dialog.name, "bad name with a long tail of words")
    qtbot.waitUntil(lambda: dialog.message.height()
                    >= dialog.message.heightForWidth(dialog.message.width()))
    assert_fits(dialog, dialog.message)
    assert_fits(dialog, hint)
    dialog.grab().save(str(tmp_path / "new_skill.png"))


def test_move_dialog_error_is_not_clipped(win: MainWindow, qtbot, tmp_path: Path) -> None:
    pane = tree_of(win)
    assert pane.reveal("legacy")
    dialog = pane.move_selected()
    assert isinstance(dialog, MoveDialog)
    qtbot.keyClicks(dialog.folder, "a folder name with spaces in it")
    message = dialog.message
    qtbot.waitUntil(lambda: message.height() >= message.heightForWidth(message.width()))
    assert_fits(dialog, message)
    dialog.grab().save(str(tmp_path / "move.png"))


def test_an_inline_rename_keeps_its_text_when_the_row_changes(win: MainWindow, qtbot) -> None:
    """Last-use times and lint marks arrive after the tree's first paint; a save elsewhere marks
    rows: each repaints the row being renamed, and what was typed stays."""
    pane, editor = type_inline_rename(qtbot, win, "mcp/calendar", "mcp/calendar-renamed")
    pane.model.set_last_used({"mcp/calendar": win.ctx.library.get("mcp/email").created_at})
    pane.model.set_lint({"mcp/calendar": ["a lint mark"]})
    pane.model.set_dirty(["mcp/calendar"])
    assert inline_editor(pane) is editor and editor.text() == "mcp/calendar-renamed"
