"""Issue #18: counts that agree, empty states that say what to do, Cut/Copy/Paste and the unsaved
marker, readable struck-through text in the dark theme."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QTextCursor
from PySide6.QtWidgets import QApplication, QLineEdit

from rockskills_gui.core.library.tree import TreeFilter
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import apply_theme, build_palette
from rockskills_gui.ui.dream.diffview import DiffColours
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.ui.conftest import open_window


def dangle(agent: Path, name: str = "a2a", summary: str | None = None) -> None:
    path = agent / "skills" / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["seeAlso"] = ["no-such-skill"]
    if summary is not None:
        data["summary"] = summary
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def empty(qtbot) -> Iterator[MainWindow]:
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.resize(1100, 700)
    window.show()
    yield window
    if window.dream_wizard is not None:
        window.dream_wizard.close()


# ---------------------------------------------------------------- counts that agree


def test_a_dangling_see_also_is_counted_where_the_filter_finds_it(qtbot, agent: Path) -> None:
    dangle(agent)
    window = open_window(qtbot, agent)
    window.library_pane.model.set_filter(TreeFilter(has_problems=True))
    assert len(window.library_pane.model.result) == 1  # what Flags ▸ Has problems lists
    assert window.problems_label.text() == "1 skill with problems"
    assert window.problems_dock.windowTitle() == "Problems (1)"
    assert window.problems_dock.isVisible()
    pane = window.problems_pane
    assert pane.skill_rows() == [("a2a", "see-also names no skill: 'no-such-skill'")]
    assert pane.count() == 0  # no file failed to load
    with qtbot.waitSignal(pane.openSkillRequested):
        pane.skills_view.itemActivated.emit(pane.skills_view.topLevelItem(0), 0)
    assert window.ctx.current_skill == "a2a"
    assert window.tabs.currentWidget() is window.skill_pane


def test_file_and_skill_problems_are_counted_apart(qtbot, agent: Path) -> None:
    dangle(agent)
    broken = agent / "skills" / "notes" / "broken.json"
    broken.parent.mkdir()
    broken.write_bytes(b'{"name": "notes/broken", "summary": ')
    window = open_window(qtbot, agent)
    assert window.problems_label.text() == "1 file problem · 1 skill with problems"
    assert window.problems_dock.windowTitle() == "Problems (2)"


def test_session_index_counts_skills_not_lines(qtbot, agent: Path) -> None:
    dangle(agent, "mcp", summary="MCP servers.\nOne line more.\n- and a bullet")
    window = open_window(qtbot, agent)
    pane = window.recall_pane
    pane.set_query("check my calendar", immediate=True)
    qtbot.waitUntil(lambda: pane.session_panel.tree.topLevelItemCount() > 0, timeout=5000)
    preview = pane.session_panel.tree.topLevelItem(0)
    assert preview.child(0).text(0) == "Session index"
    assert preview.child(0).text(1) == "24 skills, first turn only"


# ---------------------------------------------------------------- empty states


def test_empty_problems_dock_says_so(window: MainWindow, qtbot) -> None:
    pane = window.problems_pane
    window.problems_dock.show()
    qtbot.waitUntil(pane.isVisible)
    assert pane.empty_label.isVisible()
    assert "No problems" in pane.empty_label.text()
    assert not pane.view.isVisible() and not pane.skills_view.isVisible()
    pane.grab().save("/tmp/problems-empty.png")


def test_no_library_says_how_to_open_one(empty: MainWindow) -> None:
    page = empty.empty_page
    assert page.isVisible() and not empty.tabs.isVisible()
    text = page.text.text()
    assert "Ctrl+O" in text and "Open Recent" in text and "demo" in text
    assert "Ctrl+P" not in text
    assert empty.empty_demo.isEnabled()
    empty.grab().save("/tmp/empty-window.png")


def test_the_dream_wizard_without_a_library_is_disabled(empty: MainWindow) -> None:
    empty.show_pane("dream")
    wizard = empty.dream_wizard
    assert wizard is not None
    setup = wizard.setup
    assert "library" in setup.library_label.text().lower()
    for control in (setup.llm_radio, setup.offline_radio, setup.base_url, setup.prune_box,
                    setup.protected, setup.load_button, *setup.pass_boxes.values()):
        assert not control.isEnabled(), control.objectName()
    assert not wizard.button(wizard.WizardButton.NextButton).isEnabled()


# ---------------------------------------------------------------- edit menu and title


def test_cut_copy_paste_act_on_the_focused_text_widget(window: MainWindow, qtbot) -> None:
    edit_menu = window.menus["edit"]
    ids = [a.objectName() for a in edit_menu.actions()]
    assert {"edit.cut", "edit.copy", "edit.paste"} <= set(ids)
    cut, copy, paste = (window.commands[f"edit.{n}"] for n in ("cut", "copy", "paste"))
    assert cut.shortcut().toString() == "Ctrl+X" and paste.shortcut().toString() == "Ctrl+V"
    window.activateWindow()
    line = window.recall_pane.query
    line.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is line)
    line.setText("hello world")
    line.setSelection(0, 5)
    window.update_clipboard_actions()
    assert cut.isEnabled() and copy.isEnabled()
    cut.trigger()
    assert line.text() == " world"
    assert QGuiApplication.clipboard().text() == "hello"
    line.deselect()
    window.update_clipboard_actions()
    assert not copy.isEnabled() and paste.isEnabled()
    line.setCursorPosition(len(line.text()))
    paste.trigger()
    assert line.text() == " worldhello"
    window.library_pane.view.setFocus()
    qtbot.waitUntil(lambda: not isinstance(QApplication.focusWidget(), QLineEdit))
    window.update_clipboard_actions()
    assert not cut.isEnabled() and not copy.isEnabled() and not paste.isEnabled()


def test_the_title_marks_unsaved_edits(window: MainWindow, qtbot, agent: Path) -> None:
    assert "[*]" in window.windowTitle()
    assert not window.isWindowModified()
    assert window.ctx.select_skill("mcp/email")
    window.show_pane("editor")
    editor = window.skill_pane.editor
    editor.setFocus()
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    qtbot.keyClicks(editor, " more")
    assert window.ctx.dirty_names == {"mcp/email"}
    assert window.isWindowModified()
    assert window.skill_pane.save()
    assert not window.isWindowModified()


# ---------------------------------------------------------------- dark theme struck text


def luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("kind", ["dark", "light"])
def test_struck_through_text_is_readable(kind: str) -> None:
    colours = DiffColours.of(build_palette(kind))  # type: ignore[arg-type]
    assert contrast(colours.struck_text, colours.removed_word) >= 4.5
    assert contrast(colours.removed_text, colours.removed_line) >= 4.5
    assert contrast(colours.removed_word, colours.removed_line) > 1.2  # the word stands out


def test_screenshot_of_the_dark_review(qtbot, agent: Path, tmp_path: Path, qapp) -> None:
    from tests.ui.test_dream_wizard import EXAMPLE, scripted_plan

    path = tmp_path / "plan.json"
    scripted_plan(agent, EXAMPLE["llm_result"], path)
    window = open_window(qtbot, agent)
    try:
        apply_theme(qapp, "dark")
        window.show_pane("dream")
        wizard = window.dream_wizard
        assert wizard is not None and wizard.open_plan(path)
        wizard.resize(1400, 900)
        qtbot.wait(50)
        wizard.grab().save("/tmp/dream-review-dark.png")
        view = wizard.review.view.columns[0].view
        struck = DiffColours.of(view.palette()).struck_text
        block = view.document().begin()
        formats = []
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                formats.append(fragments.fragment().charFormat())
                fragments += 1
            block = block.next()
        struck_formats = [f for f in formats if f.fontStrikeOut()]
        assert struck_formats  # the source loses words in the merge
        assert all(f.foreground().color() == struck for f in struck_formats)
    finally:
        apply_theme(qapp, "light")
        if window.dream_wizard is not None:
            window.dream_wizard.close()


def test_the_text_field_behind_each_kind_of_focused_widget(qtbot) -> None:
    """Cut, Copy and Paste find the text field of a combo box, a spin box, a plain or rich text
    editor (asked by class name: the classes are not loaded at start), and none elsewhere."""
    from PySide6.QtWidgets import QComboBox, QPlainTextEdit, QPushButton, QSpinBox, QTextEdit

    from rockskills_gui.ui.shell.window_menus import _text_widget

    combo, spin = QComboBox(), QSpinBox()
    combo.setEditable(True)
    plain, rich, button, line = QPlainTextEdit(), QTextEdit(), QPushButton("x"), QLineEdit()
    for widget in (combo, spin, plain, rich, button, line):
        qtbot.addWidget(widget)
    assert _text_widget(combo) is combo.lineEdit()
    assert _text_widget(spin) is spin.findChild(QLineEdit)
    assert _text_widget(plain) is plain and _text_widget(rich) is rich
    assert _text_widget(line) is line
    assert _text_widget(button) is None and _text_widget(None) is None
    assert _text_widget(QComboBox()) is None  # not editable: no text field
