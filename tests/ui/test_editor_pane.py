"""The Skill tab's editor against real widgets and a real (temporary) library directory.

Edit, save (exact bytes), buffers across skill switches, text undo vs library undo, external
changes (clean reload, dirty: keep / take / merge, deleted), the quit prompt, preview safety,
the summary word counter, see-also chips, layouts, find and go-to-skill.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMessageBox

from rockskills_gui.core.model.skill import Skill, skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.buffers import document_text
from rockskills_gui.ui.editor.editor_pane import EditorPane
from rockskills_gui.ui.shell.main_window import MainWindow

NOW = Timestamp.parse("2026-11-22T12:00:00.5+00:00")
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def win(window: MainWindow) -> MainWindow:
    """The sample library open, with a fixed clock (so saved bytes are predictable)."""
    assert window.ctx.library is not None
    window.ctx.library.clock = lambda: NOW
    window.activateWindow()
    return window


def pane_of(window: MainWindow) -> EditorPane:
    pane = window.skill_pane
    assert isinstance(pane, EditorPane)
    return pane


def open_skill(window: MainWindow, name: str) -> EditorPane:
    assert window.ctx.select_skill(name)
    window.show_pane("editor")
    pane = pane_of(window)
    assert pane.current is not None and pane.current.name == name
    return pane


def type_at_end(qtbot, pane: EditorPane, text: str) -> None:
    pane.editor.setFocus()
    cursor = pane.editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    pane.editor.setTextCursor(cursor)
    for index, part in enumerate(text.split("\n")):
        if index:
            pane.editor.insertPlainText("\n")  # (Enter would continue a list item)
        qtbot.keyClicks(pane.editor, part)


def editor_text(pane: EditorPane) -> str:
    return document_text(pane.editor.document())


def write_externally(path: Path, skill: Skill) -> None:
    """What a running agent does: rewrite the file in place."""
    path.write_bytes(skill_to_bytes(skill))


def close_dirty(window: MainWindow) -> None:
    """Let the fixture's teardown close the window without a prompt."""
    window._close_confirmed = True


# ---------------------------------------------------------------- edit and save


def test_edit_then_ctrl_s_writes_exactly_content_and_updated_at(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    lib = win.ctx.library
    path = lib.entry("mcp/email").path
    before = path.read_bytes()
    original = skill_from_bytes(before)
    assert editor_text(pane) == original.content
    assert not pane.current.dirty and not win.commands["file.save"].isEnabled()

    type_at_end(qtbot, pane, " Always cc the user's assistant.")
    assert pane.current.dirty
    assert win.ctx.dirty_names == {"mcp/email"}
    assert pane.header.badge.text() == "unsaved" and pane.header.badge.isVisible()
    assert win.commands["file.save"].isEnabled()
    assert path.read_bytes() == before  # nothing written yet
    qtbot.waitUntil(lambda: "Always cc the user" in pane.preview.toPlainText())

    qtbot.keyClick(pane.editor, Qt.Key.Key_S, CTRL)
    expected = original.model_copy(update={
        "content": original.content + " Always cc the user's assistant.", "updated_at": NOW})
    assert path.read_bytes() == skill_to_bytes(expected)
    saved = skill_from_bytes(path.read_bytes())
    assert saved.created_at == original.created_at
    assert saved.last_used_at == original.last_used_at
    assert saved.see_also == original.see_also and saved.summary == original.summary
    assert not pane.current.dirty and win.ctx.dirty_names == set()
    assert not pane.header.badge.isVisible()
    assert not win.commands["file.save"].isEnabled()
    assert win.commands["edit.undo"].text() == "&Undo Save 'mcp/email'"
    # first save: the one-time notice about a running agent
    assert pane.agent_notice.isVisible()
    assert "restart" in pane.agent_notice.text.text()


def test_library_undo_of_a_save_shows_the_earlier_text(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    path = win.ctx.library.entry("mcp/email").path
    before_bytes, before_text = path.read_bytes(), editor_text(pane)
    type_at_end(qtbot, pane, " saved")
    assert pane.save()
    win.commands["edit.undo"].trigger()
    assert path.read_bytes() == before_bytes
    assert editor_text(pane) == before_text and not pane.current.dirty
    win.commands["edit.redo"].trigger()
    assert editor_text(pane) == before_text + " saved"


def test_summary_and_see_also_edits_are_saved_too(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    path = win.ctx.library.entry("mcp/email").path
    original = skill_from_bytes(path.read_bytes())
    pane.header.summary.selectAll()
    qtbot.keyClicks(pane.header.summary, "Read and send email")
    field = pane.header.see_also.input
    qtbot.keyClicks(field, "a2a")
    assert pane.header.see_also.completer.popup().isVisible()  # offered from the library
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert field.text() == ""
    assert pane.header.see_also.names == ["mcp/calendar", "schedule-meeting", "a2a"]
    pane.header.see_also.chips[0].remove_button.click()
    assert pane.current.dirty
    assert pane.save()
    saved = skill_from_bytes(path.read_bytes())
    assert saved == original.model_copy(update={
        "summary": "Read and send email", "see_also": ("schedule-meeting", "a2a"),
        "updated_at": NOW})


def test_unsaved_edits_survive_switching_skills(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    path = win.ctx.library.entry("mcp/email").path
    before = path.read_bytes()
    type_at_end(qtbot, pane, "\nDraft line")
    pane.header.summary.setText("draft summary")
    pane.header.summary.textEdited.emit("draft summary")

    # switch by clicking in the Library list
    view = win.library_pane.view
    view.setCurrentIndex(view.model().index(0, 0))
    assert win.ctx.current_skill == "a2a"
    assert pane.header.name.text() == "a2a"
    assert "Draft line" not in editor_text(pane)
    assert win.ctx.dirty_names == {"mcp/email"}

    open_skill(win, "mcp/email")
    assert editor_text(pane).endswith("\nDraft line")
    assert pane.header.summary.text() == "draft summary"
    assert pane.header.badge.text() == "unsaved"
    assert path.read_bytes() == before
    # the text keeps its own undo history across the switch
    pane.editor.setFocus()
    pane.editor.undo()
    assert not editor_text(pane).endswith("Draft line")
    close_dirty(win)


def test_ctrl_z_in_the_editor_undoes_text_not_the_library(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "a2a")
    win.ctx.apply(lambda lib: lib.update("mcp/email", summary="changed through the core"))
    undo = win.commands["edit.undo"]
    assert undo.isEnabled()
    email = win.ctx.library.entry("mcp/email").path.read_bytes()
    type_at_end(qtbot, pane, "xyz")
    qtbot.keyClick(pane.editor, Qt.Key.Key_Z, CTRL)
    assert not editor_text(pane).endswith("xyz")
    assert win.ctx.library.entry("mcp/email").path.read_bytes() == email  # library untouched
    assert undo.isEnabled()
    # from the Edit menu, Undo is the library's
    undo.trigger()
    assert b"changed through the core" not in win.ctx.library.entry("mcp/email").path.read_bytes()


# ---------------------------------------------------------------- changes on disk


def test_clean_buffer_reloads_silently_when_the_file_changes(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    lib = win.ctx.library
    entry = lib.entry("mcp/email")
    agent_version = entry.skill.model_copy(update={
        "content": "# Email\n\nRewritten by the agent.", "last_used_at": NOW})
    write_externally(entry.path, agent_version)
    qtbot.waitUntil(lambda: editor_text(pane) == "# Email\n\nRewritten by the agent.", timeout=5000)
    assert not pane.current.dirty
    assert "changed on disk and was reloaded" in win.statusBar().full_message()
    assert lib.get("mcp/email") == agent_version
    assert pane.conflict_dialog is None
    qtbot.waitUntil(lambda: "Rewritten by the agent." in pane.preview.toPlainText())


def _dirty_then_external_change(win: MainWindow, qtbot) -> tuple[EditorPane, Path, Skill, Skill]:
    """Unsaved edits to mcp/email, then the agent rewrites its file: the dialog opens."""
    pane = open_skill(win, "mcp/email")
    entry = win.ctx.library.entry("mcp/email")
    type_at_end(qtbot, pane, "\nMy unsaved line.")
    disk = entry.skill.model_copy(update={
        "content": entry.skill.content.replace("# Email via MCP", "# Email (agent's edit)"),
        "summary": "Summary written by the agent", "last_used_at": NOW})
    write_externally(entry.path, disk)
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None and pane.conflict_dialog.isVisible(),
                    timeout=5000)
    diff = pane.conflict_dialog.diff.toPlainText()
    assert "-# Email (agent's edit)" in diff and "+# Email via MCP" in diff
    assert "+My unsaved line." in diff
    assert "-Summary: Summary written by the agent" in diff
    return pane, entry.path, disk, entry.skill


def test_dirty_buffer_external_change_keep_mine(win: MainWindow, qtbot) -> None:
    pane, path, disk, original = _dirty_then_external_change(win, qtbot)
    mine = editor_text(pane)
    pane.conflict_dialog.keep_button.click()
    assert pane.conflict_dialog is None
    assert editor_text(pane) == mine and pane.current.dirty
    assert path.read_bytes() == skill_to_bytes(disk)  # nothing written yet
    assert pane.save()  # overwrites knowingly: no conflict error
    saved = skill_from_bytes(path.read_bytes())
    assert saved.content == mine
    assert saved.summary == original.summary  # "my version" is the whole buffer
    assert saved.last_used_at == NOW  # the agent's lastUsedAt is kept (not an editable field)
    assert saved.updated_at == NOW
    assert not pane.current.dirty and win.ctx.dirty_names == set()


def test_dirty_buffer_external_change_take_disk(win: MainWindow, qtbot) -> None:
    pane, path, disk, _original = _dirty_then_external_change(win, qtbot)
    pane.conflict_dialog.take_button.click()
    assert editor_text(pane) == disk.content
    assert pane.header.summary.text() == "Summary written by the agent"
    assert not pane.current.dirty and win.ctx.dirty_names == set()
    assert path.read_bytes() == skill_to_bytes(disk)
    # the user's text is one editor undo away
    pane.editor.undo()
    assert "My unsaved line." in editor_text(pane)


def test_dirty_buffer_external_change_merge(win: MainWindow, qtbot) -> None:
    pane, path, _disk, _original = _dirty_then_external_change(win, qtbot)
    dialog = pane.conflict_dialog
    dialog.merge_button.click()
    result = dialog.result_edit.toPlainText()
    assert "# Email (agent's edit)" in result and "My unsaved line." in result
    assert "<<<<<<<" not in result
    assert dialog.merge_summary.text() == "Summary written by the agent"
    dialog.result_edit.appendPlainText("Merged by hand.")
    dialog.use_button.click()
    assert pane.current.dirty
    assert editor_text(pane) == result + "\nMerged by hand."
    assert pane.save()
    saved = skill_from_bytes(path.read_bytes())
    assert saved.content == result + "\nMerged by hand."
    assert saved.summary == "Summary written by the agent"


def test_dates_only_change_keeps_dirty_edits_without_asking(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    entry = win.ctx.library.entry("mcp/email")
    type_at_end(qtbot, pane, " extra")
    write_externally(entry.path, entry.skill.model_copy(update={"last_used_at": NOW}))
    qtbot.waitUntil(lambda: win.ctx.library.get("mcp/email").last_used_at == NOW, timeout=5000)
    assert pane.conflict_dialog is None and pane.current.dirty
    assert pane.save()
    assert skill_from_bytes(entry.path.read_bytes()).last_used_at == NOW


def test_skill_deleted_on_disk_is_marked_and_can_be_restored(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    entry = win.ctx.library.entry("mcp/email")
    type_at_end(qtbot, pane, " (kept)")
    entry.path.unlink()
    qtbot.waitUntil(lambda: pane.deleted_bar.isVisible(), timeout=5000)
    assert pane.header.badge.text() == "deleted on disk"
    assert "mcp/email" not in win.ctx.library
    assert pane.current is not None and editor_text(pane).endswith(" (kept)")
    assert win.commands["file.save"].isEnabled()
    pane.deleted_bar.buttons["restoreSkill"].click()
    restored = skill_from_bytes(entry.path.read_bytes())
    assert restored.content.endswith(" (kept)")
    assert restored.created_at == entry.skill.created_at and restored.updated_at == NOW
    assert not pane.deleted_bar.isVisible() and not pane.current.dirty


def test_save_notices_an_unseen_disk_change_instead_of_failing(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    pane.watcher.blockSignals(True)  # as if the change had not been reported yet
    entry = win.ctx.library.entry("mcp/email")
    type_at_end(qtbot, pane, " mine")
    write_externally(entry.path, entry.skill.model_copy(update={"content": "theirs"}))
    assert not pane.save()
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None)
    assert skill_from_bytes(entry.path.read_bytes()).content == "theirs"
    pane.conflict_dialog.reject()  # closing = keep mine
    assert pane.current.dirty
    assert pane.save()
    assert skill_from_bytes(entry.path.read_bytes()).content.endswith(" mine")


# ---------------------------------------------------------------- quit prompt


def _edit_two(win: MainWindow, qtbot) -> tuple[bytes, bytes]:
    lib = win.ctx.library
    before = lib.entry("mcp/email").path.read_bytes(), lib.entry("a2a").path.read_bytes()
    type_at_end(qtbot, open_skill(win, "mcp/email"), " one")
    type_at_end(qtbot, open_skill(win, "a2a"), " two")
    assert win.ctx.dirty_names == {"mcp/email", "a2a"}
    return before


def test_quit_prompt_lists_unsaved_skills_and_cancel_keeps_the_window(win: MainWindow,
                                                                      qtbot) -> None:
    _edit_two(win, qtbot)
    pane = pane_of(win)
    assert not win.close()
    box = pane.unsaved_prompt
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "2 skills have unsaved changes" in box.text()
    assert box.informativeText().splitlines() == ["• mcp/email", "• a2a"]
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert win.isVisible() and pane.unsaved_prompt is None
    assert win.ctx.dirty_names == {"mcp/email", "a2a"}
    close_dirty(win)


def test_quit_prompt_discard_closes_without_writing(win: MainWindow, qtbot) -> None:
    before = _edit_two(win, qtbot)
    lib = win.ctx.library
    win.commands["file.quit"].trigger()
    pane_of(win).unsaved_prompt.button(QMessageBox.StandardButton.Discard).click()
    qtbot.waitUntil(lambda: not win.isVisible())
    assert (lib.entry("mcp/email").path.read_bytes(), lib.entry("a2a").path.read_bytes()) == before


def test_quit_prompt_save_all_writes_then_closes(win: MainWindow, qtbot) -> None:
    _edit_two(win, qtbot)
    lib = win.ctx.library
    win.close()
    pane_of(win).unsaved_prompt.button(QMessageBox.StandardButton.SaveAll).click()
    qtbot.waitUntil(lambda: not win.isVisible())
    assert skill_from_bytes(lib.entry("mcp/email").path.read_bytes()).content.endswith(" one")
    assert skill_from_bytes(lib.entry("a2a").path.read_bytes()).content.endswith(" two")


def test_save_all_action(win: MainWindow, qtbot) -> None:
    _edit_two(win, qtbot)
    assert win.commands["file.save_all"].isEnabled()
    win.commands["file.save_all"].trigger()
    assert win.ctx.dirty_names == set()
    assert not win.commands["file.save_all"].isEnabled()


# ---------------------------------------------------------------- preview and header


def test_preview_shows_raw_html_as_text(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "a2a")
    pane.current.set_content("# Title\n\n<script>alert('x')</script>\n\n<b>not bold</b>\n\n"
                             "![logo](https://example.com/logo.png)")
    qtbot.waitUntil(lambda: "<script>alert('x')</script>" in pane.preview.toPlainText())
    text = pane.preview.toPlainText()
    assert "<b>not bold</b>" in text and "[image: logo]" in text
    html = pane.preview.toHtml()
    assert "<script" not in html and "<img" not in html
    close_dirty(win)


def test_summary_word_count_warns_past_fifteen(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "a2a")
    summary = pane.header.summary
    summary.clear()
    qtbot.keyClicks(summary, " ".join(["word"] * 15))
    assert pane.header.word_count.text() == "15/15 words"
    assert not pane.header.word_limit_exceeded
    qtbot.keyClicks(summary, " sixteen")
    assert pane.header.word_count.text() == "16/15 words"
    assert pane.header.word_limit_exceeded and pane.header.word_warning.isVisible()
    assert "15 words or fewer" in pane.header.word_count.toolTip()
    close_dirty(win)


def test_header_dates_are_local_with_utc_on_hover(win: MainWindow) -> None:
    pane = open_skill(win, "mcp/email")
    skill = win.ctx.library.get("mcp/email")
    local = skill.created_at.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")
    assert pane.header.created.text() == f"created {local}"
    assert skill.created_at.to_utc().isoformat() in pane.header.created.toolTip()
    never = win.ctx.library.get("a2a")
    assert never is not None and never.last_used_at is None
    open_skill(win, "a2a")
    assert pane.header.last_used.text() == "last used never"


def test_see_also_chips_mark_dangling_names_and_open_skills(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    pane.current.set_see_also(("mcp/calendar", "no-such-skill"))
    chips = pane.header.see_also.chips
    assert [(c.name, c.dangling) for c in chips] == [("mcp/calendar", False),
                                                     ("no-such-skill", True)]
    assert "Dangling" in chips[1].toolTip()
    qtbot.mouseClick(chips[0], Qt.MouseButton.LeftButton)
    assert win.ctx.current_skill == "mcp/calendar"
    # autocomplete offers existing names
    completer = pane.header.see_also.completer
    completer.setCompletionPrefix("summarize")
    assert completer.completionCount() == 2
    close_dirty(win)


# ---------------------------------------------------------------- layout, keyboard


def test_layout_modes_and_focus_actions(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    assert pane.mode == "split" and pane.editor.isVisible() and pane.preview.isVisible()
    assert win.commands["view.layout_split"].isChecked()
    win.commands["view.layout_preview"].trigger()
    assert not pane.editor.isVisible() and pane.preview.isVisible()
    assert win.commands["view.layout_preview"].isChecked()
    win.commands["view.focus_editor"].trigger()  # shows the editor again
    assert pane.mode == "split" and QApplication.focusWidget() is pane.editor
    win.commands["view.layout_editor"].trigger()
    assert pane.editor.isVisible() and not pane.preview.isVisible()
    assert win.ctx.settings.value("editor/mode") == "editor"
    win.commands["view.focus_preview"].trigger()
    assert pane.mode == "split" and QApplication.focusWidget() is pane.preview
    win.commands["view.focus_tree"].trigger()
    assert QApplication.focusWidget() is win.library_pane.view


def test_scroll_sync_both_ways(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "a2a")
    sections = "\n\n".join(f"## Section {i}\n\nText of section {i}." for i in range(80))
    pane.current.set_content(sections)
    pane._render_preview()
    qtbot.wait(20)
    editor_bar, preview_bar = pane.editor.verticalScrollBar(), pane.preview.verticalScrollBar()
    assert editor_bar.maximum() > 0 and preview_bar.maximum() > 0
    line = sections.splitlines().index("## Section 40")
    pane.editor.scroll_to_line(line)
    assert abs(pane.preview.top_line() - line) < 2
    preview_bar.setValue(0)
    assert editor_bar.value() == 0
    preview_bar.setValue(preview_bar.maximum())
    assert editor_bar.value() == editor_bar.maximum()
    close_dirty(win)


def test_typing_does_not_move_the_editor_when_the_preview_re_renders(win: MainWindow,
                                                                      qtbot) -> None:
    pane = open_skill(win, "a2a")
    pane.current.set_content("\n\n".join(f"## Section {i}\n\nText {i}." for i in range(80)))
    pane._render_preview()
    block = pane.current.document.findBlockByNumber(160)
    cursor = pane.editor.textCursor()
    cursor.setPosition(block.position())
    pane.editor.setTextCursor(cursor)
    pane.editor.centerCursor()
    pane.editor.setFocus()
    scroll = pane.editor.verticalScrollBar().value()
    assert scroll > 0
    qtbot.keyClicks(pane.editor, "typed")
    qtbot.waitUntil(lambda: "typed" in pane.preview.toPlainText())
    assert pane.editor.verticalScrollBar().value() == scroll
    close_dirty(win)


def test_find_in_skill(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key.Key_F, CTRL)
    assert pane.find_bar.isVisible()
    qtbot.keyClicks(pane.find_bar.query, "accountId")
    total = pane.current.document.toPlainText().count("accountId")
    assert pane.find_bar.count.text() == f"1 of {total}"
    assert pane.editor.textCursor().selectedText() == "accountId"
    qtbot.keyClick(pane.find_bar.query, Qt.Key.Key_Return)
    assert pane.find_bar.count.text() == f"2 of {total}"
    assert len(pane.editor.find_matches) == total
    qtbot.keyClick(pane.find_bar.query, Qt.Key.Key_Escape)
    assert not pane.find_bar.isVisible() and pane.editor.find_matches == []


def test_go_to_skill_with_fuzzy_matching(win: MainWindow, qtbot) -> None:
    open_skill(win, "a2a")
    pane = pane_of(win)
    win.commands["edit.goto_skill"].trigger()
    dialog = pane.goto_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.keyClicks(dialog.query, "mcem")
    assert dialog.model.matches[0].name == "mcp/email"
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert win.ctx.current_skill == "mcp/email"
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.editor)


def test_enter_continues_lists(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "a2a")
    pane.current.set_content("1. first")
    type_at_end(qtbot, pane, "")
    qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
    qtbot.keyClicks(pane.editor, "second")
    qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
    qtbot.keyClick(pane.editor, Qt.Key.Key_Return)  # an empty item ends the list
    assert editor_text(pane) == "1. first\n2. second\n"
    close_dirty(win)


def test_renaming_a_skill_keeps_its_unsaved_buffer(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    type_at_end(qtbot, pane, " unsaved")
    win.ctx.apply(lambda lib: lib.rename("mcp/email", "mcp/mail"))
    assert win.ctx.dirty_names == {"mcp/mail"}
    open_skill(win, "mcp/mail")
    assert editor_text(pane).endswith(" unsaved") and pane.current.dirty
    assert pane.save()
    assert skill_from_bytes(win.ctx.library.entry("mcp/mail").path.read_bytes()).content \
        .endswith(" unsaved")


def test_deleting_in_the_app_keeps_the_edits_open_marked_until_undo(win: MainWindow, qtbot) -> None:
    pane = open_skill(win, "mcp/email")
    type_at_end(qtbot, pane, " kept")
    win.ctx.apply(lambda lib: lib.delete("mcp/email"))
    # Not silently parked: still open, marked, listed as unsaved (the quit prompt asks about it).
    assert win.ctx.current_skill == "mcp/email" and win.ctx.dirty_names == {"mcp/email"}
    assert pane.current is not None and pane.current.deleted_by == "Delete 'mcp/email'"
    assert pane.deleted_bar.isVisible() and "deleted by an operation" in pane.deleted_bar.text.text()
    assert [b.name for b in pane.unsaved_buffers()] == ["mcp/email"]
    win.commands["edit.undo"].trigger()
    assert win.ctx.dirty_names == {"mcp/email"} and not pane.deleted_bar.isVisible()
    open_skill(win, "mcp/email")
    assert editor_text(pane).endswith(" kept") and pane.current.dirty
    close_dirty(win)


def test_screenshot_of_the_editor_pane(agent: Path, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    from rockskills_gui.ui.shell import app

    out = tmp_path / "editor.png"
    assert app.main([str(agent), "--pane", "editor", "--select", "mcp/email",
                     "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)

    def colours(x0: int, x1: int) -> int:
        return len({image.pixel(x, y) for x in range(x0, x1, 7) for y in range(200, 850, 7)})

    # source on the left of the Skill tab, rendered preview on the right: both hold text
    assert colours(320, 840) > 8 and colours(870, 1390) > 8
