"""Opening a library: a real progress bar, a cancel that stops the scan, and the tree and recall
index built on the loader's worker thread (the UI thread only installs them)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot import scan as rockbot
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.recall.skill_recall import RecallBuilder, SkillRecall
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.workers import LoadControl
from rockskills_gui.ui.recall.recall_pane import PreparedRecall
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.test_fileio_and_scan import make_library


def new_window(qtbot) -> MainWindow:
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.show()
    return window


def test_the_progress_bar_counts_files_and_the_panes_get_what_was_built_off_the_ui_thread(
        qtbot, tmp_path: Path) -> None:
    agent = make_library(tmp_path, 2500)
    window = new_window(qtbot)
    seen: list[tuple[int, int]] = []
    maxima: list[int] = []
    window.loader.progress.connect(lambda done, total: (seen.append((done, total)),
                                                        maxima.append(window.progress.maximum())))
    with qtbot.waitSignal(window.loadFinished, timeout=30_000) as blocker:
        window.open_path(agent)
    assert blocker.args == [""]
    assert seen and seen[-1] == (2502, 2502) and maxima[-1] == 2502
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert not window.progress.isVisible()
    prepared = window.ctx.prepared
    assert window.library_pane.model.tree is prepared["tree"]
    recall = prepared["recall"]
    assert isinstance(recall, PreparedRecall) and window.recall_pane.recall is recall.recall
    assert prepared["listed_names"][:2] == ["group-0/skill-00000", "group-0/skill-00007"]
    assert window.library_pane.model.tree.skill_count == 2500


def test_with_helper_processes_the_recall_index_is_built_while_reading(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big library (here: any) is read by helper processes and the recall index is fed the
    skills as they arrive; the pane gets the index a fresh build gives."""
    monkeypatch.setattr(rockbot, "PARALLEL_FROM", 1)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "2")
    agent = make_library(tmp_path, 2500)
    fed: list[int] = []
    original = RecallBuilder.feed
    monkeypatch.setattr(RecallBuilder, "feed", lambda self, skills: (fed.append(len(skills)),
                                                                     original(self, skills)))
    window = new_window(qtbot)
    with qtbot.waitSignal(window.loadFinished, timeout=30_000):
        window.open_path(agent)
    library = window.ctx.library
    assert library is not None and len(library) == 2500
    assert sum(fed) == 2500 and len(fed) >= 2  # chunk by chunk, during the scan
    recall = window.recall_pane.recall
    assert recall is not None
    fresh = SkillRecall(library.skills())
    assert [s.name for s in recall.skills()] == [s.name for s in fresh.skills()]
    for query in ("does thing 12", "group skill thing", "thing 2499"):
        assert [(h.skill.name, h.score) for h in recall.search(query, top=None)] == \
            [(h.skill.name, h.score) for h in fresh.search(query, top=None)]


def test_cancel_stops_the_scan_itself(qtbot, tmp_path: Path) -> None:
    agent = make_library(tmp_path, 6000)
    window = new_window(qtbot)
    reached: list[int] = []
    started = threading.Event()

    def opener(control: LoadControl) -> RockBotLibrary:
        def progress(done: int, total: int) -> None:
            reached.append(done)
            control.progress(done, total)
            if done:
                started.set()
                control.cancel_event.wait(5)  # hold the scan until the user has pressed Cancel
        return RockBotLibrary.open(agent, progress=progress, cancel=control.cancelled)

    window.loader.load(opener, "Opening a big library…")
    qtbot.waitUntil(started.is_set, timeout=10_000)
    with qtbot.waitSignal(window.loader.cancelled):
        window.cancel_button.click()
    assert window.loader.wait(10_000)
    qtbot.wait(20)
    assert window.ctx.library is None and not window.progress.isVisible()
    assert max(reached) < 6002  # stopped at the next chunk of files, not at the end
    with qtbot.waitSignal(window.loadFinished, timeout=30_000):
        window.open_path(agent)  # and the next load works
    assert window.ctx.library is not None and len(window.ctx.library) == 6000


def test_a_library_linked_outside_asks_once_then_writes_through_the_link(qtbot, agent_copy: Path,
                                                                        tmp_path: Path) -> None:
    """Issue 35 item 9: ``skills/`` is a symbolic link to a folder outside the library. The window
    names the target in one prompt; Allow is remembered, the library opens again with the target
    allowed (writes go there), and the tree says the skills are linked."""
    import shutil

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from rockskills_gui.core.storage.changes import LibraryError
    from tests.ui.conftest import open_window

    outside = tmp_path / "shared-skills"
    shutil.move(agent_copy / "skills", outside)
    (agent_copy / "skills").symlink_to(outside, target_is_directory=True)
    window = open_window(qtbot, agent_copy)
    boxes = [b for b in window.findChildren(QMessageBox, "linkTargetsBox") if b.isVisible()]
    assert len(boxes) == 1 and str(outside) in boxes[0].text()
    first = window.ctx.library
    assert first is not None
    with pytest.raises(LibraryError, match="--allow-link-target"):
        first.rename("schedule-meeting", "meetings/schedule")  # (refused until allowed)
    allow = next(b for b in boxes[0].buttons() if b.text() == "Allow")
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        allow.click()
    library = window.ctx.library
    assert library is not None and library is not first and library.unconfirmed_links() == {}
    assert not [b for b in window.findChildren(QMessageBox, "linkTargetsBox") if b.isVisible()]
    model = window.library_pane.model
    tip = model.data(model.index_for("schedule-meeting"), Qt.ItemDataRole.ToolTipRole)
    assert f"Linked to {outside}" in tip
    library.rename("schedule-meeting", "meetings/schedule")
    assert (outside / "meetings" / "schedule.json").is_file()
    again = open_window(qtbot, agent_copy)  # remembered: not asked again
    assert not [b for b in again.findChildren(QMessageBox, "linkTargetsBox") if b.isVisible()]
