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
