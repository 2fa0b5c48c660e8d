"""What a new user hit (issue 35, items 1–8), each against the real window offscreen."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.ui.conftest import open_window
from tests.ui.test_editor_pane import editor_text, open_skill, type_at_end
from tests.ui.test_tree_pane import inline_editor, pane_of, select


def write_skill_md(folder: Path, name: str, description: str, body: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    return path


@pytest.fixture
def claude_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    skills = root / ".claude" / "skills"
    write_skill_md(skills, "foo", "Foo does foo things.", "# Foo\n\nThe foo body.")
    write_skill_md(skills, "bar", "Bar does bar things.", "# Bar\n\nThe bar body.")
    return root


@pytest.fixture
def md_window(qtbot, claude_project: Path) -> Iterator[MainWindow]:
    win = open_window(qtbot, claude_project)
    yield win
    win._close_confirmed = True
    win.loader.cancel()
    win.loader.wait()


# ---------------------------------------------------------------- 1. rename follows the editor


@pytest.mark.parametrize("edited", [False, True])
def test_skill_md_rename_keeps_the_renamed_skill_in_the_editor(md_window: MainWindow, qtbot,
                                                                edited: bool) -> None:
    editor = open_skill(md_window, "foo")
    if edited:
        type_at_end(qtbot, editor, "\nUnsaved line.")
    tree = pane_of(md_window)
    select(tree, "foo")
    tree.view.setFocus()
    md_window.commands["tree.rename"].trigger()
    line = inline_editor(tree)
    line.selectAll()
    qtbot.keyClicks(line, "foo2")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: md_window.ctx.library.get("foo2") is not None)
    qtbot.wait(50)
    assert md_window.ctx.current_skill == "foo2"
    assert tree.model.node(tree.view.currentIndex()).path == "foo2"
    assert editor.current is not None and editor.current.name == "foo2"
    assert "The foo body." in editor_text(editor)
    assert ("Unsaved line." in editor_text(editor)) is edited
    assert editor.current.dirty is edited


# ---------------------------------------------------------------- 2. F2 from any focus


def test_f2_in_the_editor_renames_the_skill_being_edited(md_window: MainWindow, qtbot) -> None:
    editor = open_skill(md_window, "foo")
    md_window.activateWindow()
    qtbot.waitActive(md_window)
    body = editor_text(editor)
    editor.editor.setFocus()
    qtbot.keyClick(editor.editor, Qt.Key.Key_F2)
    tree = pane_of(md_window)
    line = inline_editor(tree)  # the tree's inline rename of the skill in the editor
    assert line.text() == "foo" and line.hasFocus()
    line.selectAll()
    qtbot.keyClicks(line, "foo3")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: md_window.ctx.library.get("foo3") is not None)
    assert editor.current.name == "foo3"
    assert editor_text(editor) == body  # the body was not touched by the key presses


# ---------------------------------------------------------------- 3. a folded description


def test_appending_to_a_folded_description_keeps_the_block(qtbot, tmp_path: Path) -> None:
    root = tmp_path / "project"
    path = root / ".claude" / "skills" / "team" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: team\ndescription: >\n  Helps with team\n  collaboration.\n"
                    "license: MIT\n---\n\nBody.\n")
    window = open_window(qtbot, root)
    try:
        editor = open_skill(window, "team")
        field = editor.summary
        assert field.toPlainText() == "Helps with team collaboration."  # no line break shown
        field.setFocus()
        qtbot.keyClick(field, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(field, " Edited.")
        window.commands["file.save"].trigger()
        assert path.read_text() == ("---\nname: team\ndescription: >\n  Helps with team\n"
                                    "  collaboration. Edited.\nlicense: MIT\n---\n\nBody.\n")
        assert field.toPlainText() == "Helps with team collaboration. Edited."
    finally:
        window._close_confirmed = True
        window.loader.cancel()
        window.loader.wait()


# ---------------------------------------------------------------- 5. `rockskills undo` outside


def test_rockskills_undo_while_the_window_is_open_is_noticed(window: MainWindow, qtbot,
                                                             agent: Path) -> None:
    from rockskills_gui.core.dream.apply import apply_plan
    from tests.core.test_dream_apply import EXAMPLE, consolidation_plan

    plan = consolidation_plan(agent, EXAMPLE["llm_result"])
    merged = agent / "skills" / "meetings" / "plan-and-schedule.json"
    change = window.ctx.apply(lambda lib: apply_plan(lib, plan, plan.acceptable_ids()).change)
    assert change is not None and merged.is_file()
    undo, redo = window.commands["edit.undo"], window.commands["edit.redo"]
    assert undo.isEnabled() and "plan" in undo.text().lower()
    done = subprocess.run([sys.executable, "-m", "rockskills_gui.cli", "undo", str(agent)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not merged.exists()
    qtbot.waitUntil(lambda: not undo.isEnabled(), timeout=5000)  # nothing left to undo
    assert redo.isEnabled() and "plan" in redo.text().lower()
    assert "undone outside this window" in window.statusBar().full_message()
    assert window.ctx.library.get("meetings/plan-and-schedule") is None
    assert window.ctx.library.get("plan-meeting") is not None
    redo.trigger()  # applies the plan again, through the journal
    qtbot.waitUntil(merged.is_file, timeout=5000)
    assert undo.isEnabled() and window.error_box is None


# ---------------------------------------------------------------- 6. lint warnings show


def test_lint_warnings_show_without_load_problems(qtbot, tmp_path: Path) -> None:
    root = tmp_path / "project"
    skills = root / ".claude" / "skills"
    write_skill_md(skills, "install", "Installs the tool for the user when asked.",
                   "Run:\n\n```\ncurl -fsSL https://example.com/install.sh | sh\n```")
    write_skill_md(skills, "other", "Another skill that does other things.", "Body.")
    window = open_window(qtbot, root)
    try:
        assert not window.ctx.library.problems
        qtbot.waitUntil(lambda: window.problems_dock.isVisible(), timeout=10_000)
        assert window.problems_label.text() == "0 problems · 1 lint warning"
        assert window.problems_dock.windowTitle() == "Problems (1)"
        pane = window.problems_pane
        assert pane.pages.currentIndex() == 1  # the Lint group, where the warning is
        assert [f.kind for f in pane.findings if f.severity == "warning"] == ["pipe-to-shell"]
        # at 1400×900 the dock shows more than a few rows
        window.resize(1400, 900)
        qtbot.wait(50)
        rows = pane.lint_view.viewport().height() // max(1, pane.lint_view.sizeHintForRow(0))
        assert rows >= 5, rows
    finally:
        window.loader.cancel()
        window.loader.wait()


# ---------------------------------------------------------------- 8. "Why not?"


def why_pane(window: MainWindow):
    window.show_pane("recall")
    pane = window.recall_pane
    assert pane.recall is not None
    return pane


def test_one_enter_in_the_why_not_list_pins_the_skill(window: MainWindow, qtbot) -> None:
    pane = why_pane(window)
    pane.set_query("summarize the meeting notes", immediate=True)
    edit = pane.why_panel.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "calend")
    popup = edit.completer_.popup()
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Down)  # the list has the keyboard while it shows
    qtbot.keyClick(popup, Qt.Key.Key_Return)  # one press
    assert pane.pins == ["mcp/calendar"] and edit.text() == ""
    qtbot.keyClicks(edit, "write-rep")  # typed whole, no row chosen in the list
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert pane.pins == ["mcp/calendar", "write-report"]


def test_why_not_says_when_the_session_hides_the_skill(window: MainWindow) -> None:
    pane = why_pane(window)
    query = "summarize the meeting notes"
    pane.set_query(query, immediate=True)
    first = pane.hits[0].name
    pane.pin(first)
    [card] = pane.why_panel.card_widgets()
    assert "#1" in card.title.text() and "session" not in card.title.text()
    pane.add_turn()  # the agent injects it now: hidden for the rest of the session
    pane.set_query(query, immediate=True)
    [report] = pane.pin_reports
    assert report.rank == 1 and report.hidden is not None
    [card] = pane.why_panel.card_widgets()
    assert "this session hides it" in card.title.text()
    assert "injected on turn 1" in card.details.text()
    pane.reset_session()
    [card] = pane.why_panel.card_widgets()
    assert "session" not in card.title.text()


# ---------------------------------------------------------------- 8. each format's own notes


@pytest.mark.parametrize(("folder", "says"), [(".claude/skills", "Agent Skills"),
                                              (".picobot/skills", None)])
def test_the_agent_note_after_a_save_is_the_formats_own(qtbot, tmp_path: Path, folder: str,
                                                        says: str | None) -> None:
    root = tmp_path / "project"
    write_skill_md(root / folder, "foo", "Foo does foo things.", "Body.")
    window = open_window(qtbot, root)
    try:
        editor = open_skill(window, "foo")
        type_at_end(qtbot, editor, " More.")
        window.commands["file.save"].trigger()
        message = window.statusBar().full_message()
        assert message.startswith("Save") and "RockBot" not in editor.agent_notice.text.text()
        if says is None:  # PicoBot's agents: nothing is known, nothing is claimed
            assert not editor.agent_notice.isVisible() and "agent" not in message
        else:
            assert editor.agent_notice.isVisible() and says in editor.agent_notice.text.text()
            assert window.ctx.library.agent_note().short in message
    finally:
        window.loader.cancel()
        window.loader.wait()


# ---------------------------------------------------------------- 8. opening a skill's file


def test_opening_a_skill_md_file_opens_its_project_and_shows_the_skill(qtbot,
                                                                      claude_project: Path) -> None:
    skill_file = claude_project / ".claude" / "skills" / "bar" / "SKILL.md"
    window = open_window(qtbot, skill_file)
    try:
        assert window.ctx.library.agent_dir == claude_project.resolve()
        assert window.ctx.current_skill == "bar"
        assert window.skill_pane.current is not None and window.skill_pane.current.name == "bar"
        assert "showing 'bar'" in window.statusBar().full_message()
    finally:
        window.loader.cancel()
        window.loader.wait()


def test_opening_a_rockbot_skill_file_opens_its_agent_and_shows_the_skill(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent / "skills" / "mcp" / "email.json")
    try:
        assert window.ctx.library.format == "rockbot"
        assert window.ctx.library.agent_dir == agent.resolve()
        assert window.ctx.current_skill == "mcp/email"
        assert window.tabs.currentWidget() is window.skill_pane
    finally:
        window.loader.cancel()
        window.loader.wait()


# ---------------------------------------------------------------- 8. Dream… needs a library


def test_dream_is_offered_only_with_a_library(qtbot, tmp_path: Path, agent: Path) -> None:
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    dream = window.commands["tools.dream"]
    assert not dream.isEnabled()  # no library: nothing to dream over
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.open_path(agent)
    assert dream.isEnabled()
    window.loader.wait()


# ---------------------------------------------------------------- 8. Ctrl+P with a space


def test_go_to_skill_finds_words_separated_by_a_space(window: MainWindow, qtbot) -> None:
    open_skill(window, "a2a")
    window.commands["edit.goto_skill"].trigger()
    dialog = window.skill_pane.goto_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.keyClicks(dialog.query, "sched meet")
    qtbot.waitUntil(lambda: bool(dialog.model.matches))
    assert dialog.model.matches[0].name == "schedule-meeting"
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert window.ctx.current_skill == "schedule-meeting"


# ---------------------------------------------------------------- 8. a refused name, at the field


def test_a_refused_rename_is_said_at_the_inline_editor(window: MainWindow, qtbot) -> None:
    tree = pane_of(window)
    tree.view.setFocus()
    select(tree, "a2a")  # the first row: the message goes below the editor
    window.commands["tree.rename"].trigger()
    line = inline_editor(tree)
    line.selectAll()
    qtbot.keyClicks(line, "bad name")
    message = tree.message
    assert "invalid characters" in message.text() and message.isVisible()
    at = message.mapTo(tree.view.viewport(), message.rect().topLeft())
    editor = line.geometry()
    assert message.parentWidget() is tree.view.viewport()
    assert abs(at.y() - editor.bottom()) <= 4 and abs(at.x() - editor.left()) <= 4  # right there
    qtbot.keyClick(line, Qt.Key.Key_Return)  # refused: the editor stays, and so does the reason
    assert inline_editor(tree) is line and message.isVisible() and window.error_box is None
    qtbot.keyClick(line, Qt.Key.Key_Escape)
    assert not message.isVisible()
