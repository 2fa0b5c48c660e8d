"""Nothing lost between features (issue 16): a dirty editor buffer whose skill another operation
rewrites (a dream apply, an undo) goes into the conflict state; a save never writes silently over a
version the edits did not start from."""

from __future__ import annotations

import shutil
from pathlib import Path

from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.buffers import document_text
from rockskills_gui.ui.editor.disk_conflict import DiskChoice, DiskResolution
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import REPO
from tests.ui.conftest import make_writable, open_window
from tests.ui.test_editor_pane import close_dirty, editor_text, open_skill, type_at_end

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
DEMO = REPO / "resources" / "demo-library"


def demo_window(qtbot, tmp_path: Path) -> tuple[MainWindow, Path]:
    agent = tmp_path / "demo"
    shutil.copytree(DEMO, agent)
    make_writable(agent)
    return open_window(qtbot, agent), agent


def merge_plan(window: MainWindow) -> tuple[Plan, list[str]]:
    """The offline dream's merge into writing/proofread and the deletion that goes with it."""
    plan = run_dream(window.ctx.library, RunOptions(offline=True, now=NOW))
    merge = next(p for p in plan.proposals if p.kind.value == "merge"
                 and p.record is not None and p.record.name == "writing/proofread")
    ids = [merge.id, *plan.dependents(merge.id)]
    return plan, ids


def test_a_dream_merge_into_an_edited_skill_asks_instead_of_losing_either(qtbot, tmp_path: Path) -> None:
    window, _agent = demo_window(qtbot, tmp_path)
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nMy own last step.")
    plan, ids = merge_plan(window)
    window.ctx.apply(lambda lib: apply_plan(lib, plan, ids).change)
    merged = window.ctx.library.get("writing/proofread").content
    assert "copy-edit" in merged.lower()  # the merge brought the other skill's steps in

    # The buffer did not silently follow, nor silently keep an old base: it asks.
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None, timeout=5000)
    dialog = pane.conflict_dialog
    assert dialog.by_app and "another operation" in dialog.windowTitle()
    assert editor_text(pane).endswith("My own last step.")
    assert not pane.save()  # Ctrl+S while the question is open writes nothing
    assert window.ctx.library.get("writing/proofread").content == merged
    dialog.resolved.emit(DiskResolution(DiskChoice.TAKE_DISK))
    qtbot.waitUntil(lambda: pane.conflict_dialog is None, timeout=5000)
    assert editor_text(pane) == merged.replace("\r\n", "\n")
    close_dirty(window)


def test_keeping_mine_after_a_merge_saves_only_on_purpose(qtbot, tmp_path: Path) -> None:
    window, _agent = demo_window(qtbot, tmp_path)
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nMine.")
    plan, ids = merge_plan(window)
    window.ctx.apply(lambda lib: apply_plan(lib, plan, ids).change)
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None, timeout=5000)
    pane.conflict_dialog.resolved.emit(DiskResolution(DiskChoice.KEEP_MINE))
    qtbot.waitUntil(lambda: pane.conflict_dialog is None, timeout=5000)
    assert pane.current.dirty and editor_text(pane).endswith("Mine.")
    assert pane.save()  # the user chose: their version replaces the merged one, knowingly
    assert window.ctx.library.get("writing/proofread").content.endswith("Mine.")
    window.commands["edit.undo"].trigger()  # and the merged version is one undo away
    assert "copy-edit" in window.ctx.library.get("writing/proofread").content.lower()
    close_dirty(window)


def test_an_undo_under_an_edited_skill_asks_too(qtbot, tmp_path: Path) -> None:
    window, _agent = demo_window(qtbot, tmp_path)
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nFirst.")
    assert pane.save()
    type_at_end(qtbot, pane, "\nSecond, unsaved.")
    window.commands["edit.undo"].trigger()  # takes "First." away under the unsaved "Second"
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None, timeout=5000)
    assert editor_text(pane).endswith("Second, unsaved.")
    pane.conflict_dialog.resolved.emit(DiskResolution(DiskChoice.KEEP_MINE))
    close_dirty(window)


def test_a_dream_deletion_under_edits_keeps_the_buffer_open_marked_and_restorable(
        qtbot, tmp_path: Path) -> None:
    window, agent = demo_window(qtbot, tmp_path)
    pane = open_skill(window, "writing/copy-edit")
    type_at_end(qtbot, pane, "\nStill mine.")
    plan, ids = merge_plan(window)  # the merge deletes writing/copy-edit
    window.ctx.apply(lambda lib: apply_plan(lib, plan, ids).change)
    assert "writing/copy-edit" not in window.ctx.library
    # Not parked out of sight: the editor still shows it, with the banner and the edits.
    assert pane.current is not None and pane.current.name == "writing/copy-edit"
    assert pane.deleted_bar.isVisible()
    assert "deleted by an operation" in pane.deleted_bar.text.text()
    assert pane.deleted_bar.buttons["closeSkill"].text() == "&Discard"
    assert editor_text(pane).endswith("Still mine.")
    assert [b.name for b in pane.unsaved_buffers()] == ["writing/copy-edit"]
    assert window.commands["file.save"].isEnabled()
    assert pane.save()  # Save restores the skill, with the edits
    restored = window.ctx.library.get("writing/copy-edit")
    assert restored is not None and restored.content.endswith("Still mine.")
    assert not pane.deleted_bar.isVisible() and not pane.current.dirty
    assert (agent / "skills" / "writing" / "copy-edit.json").is_file()


def test_discarding_a_skill_deleted_under_edits_lets_it_go(qtbot, tmp_path: Path) -> None:
    window, _agent = demo_window(qtbot, tmp_path)
    change = window.ctx.apply(lambda lib: lib.create("notes/new", "A new skill.", "Steps."))
    assert change is not None
    pane = open_skill(window, "notes/new")
    type_at_end(qtbot, pane, "\nTyped.")
    window.commands["edit.undo"].trigger()  # the undo of the create deletes it
    assert pane.current is not None and pane.current.deleted_by == "Undid: Create 'notes/new'"
    pane.deleted_bar.buttons["closeSkill"].click()
    assert pane.current is None and pane.unsaved_buffers() == []
    assert window.ctx.dirty_names == set()


def test_a_rename_onto_the_name_of_a_skill_deleted_under_edits_loses_neither(
        qtbot, tmp_path: Path) -> None:
    """Found by the stateful test: the renamed skill's buffer took the name and the deleted
    skill's buffer, with its unsaved text, was dropped."""
    window, _agent = demo_window(qtbot, tmp_path)
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nDeleted but typed.")
    window.ctx.apply(lambda lib: lib.delete("writing/proofread"))
    open_skill(window, "web/price-check")
    type_at_end(qtbot, pane, "\nMoving too.")
    window.ctx.apply(lambda lib: lib.rename("web/price-check", "writing/proofread"))
    texts = [editor_text_of(b) for b in pane.unsaved_buffers()]
    assert any(t.endswith("Deleted but typed.") for t in texts)
    assert any(t.endswith("Moving too.") for t in texts)
    close_dirty(window)


def test_a_clean_buffer_renamed_onto_a_deleted_name_gives_way_and_the_edits_ask(
        qtbot, tmp_path: Path) -> None:
    window, _agent = demo_window(qtbot, tmp_path)
    pane = open_skill(window, "writing/proofread")
    type_at_end(qtbot, pane, "\nDeleted but typed.")
    window.ctx.apply(lambda lib: lib.delete("writing/proofread"))
    open_skill(window, "web/price-check")
    window.ctx.apply(lambda lib: lib.rename("web/price-check", "writing/proofread"))
    qtbot.waitUntil(lambda: pane.conflict_dialog is not None, timeout=5000)
    assert pane.conflict_dialog.by_app
    assert next(editor_text_of(b) for b in pane.unsaved_buffers()).endswith("Deleted but typed.")
    pane.conflict_dialog.resolved.emit(DiskResolution(DiskChoice.KEEP_MINE))
    close_dirty(window)


def editor_text_of(buffer) -> str:
    return document_text(buffer.document)
