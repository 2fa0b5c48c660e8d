"""The main window against real widgets (offscreen): opening, problems, recent, undo/redo."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QMessageBox

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.models import NAME_ROLE
from rockskills_gui.ui.common.workers import LoadControl
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.ui.conftest import make_writable, open_window


def list_names(window: MainWindow, parent: QModelIndex | None = None) -> list[str]:
    """Skill names shown in the Library tree, depth-first in display order."""
    model = window.library_pane.view.model()
    parent = parent or QModelIndex()
    names = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if index.data(NAME_ROLE):
            names.append(index.data(NAME_ROLE))
        names.extend(list_names(window, index))
    return names


def test_opens_the_fixture_with_counts_in_the_status_bar(window: MainWindow, agent: Path) -> None:
    assert window.skills_label.text() == "24 skills"
    assert window.problems_label.text() == "0 problems"
    assert window.path_label.text() == str(agent.resolve())
    assert window.windowTitle() == f"{agent.name}[*] — RockBot"  # [*]: the unsaved marker
    assert not window.problems_dock.isVisible()  # hidden when empty
    library = window.ctx.library
    assert library is not None
    assert sorted(list_names(window)) == sorted(s.name for s in library.listed())
    assert window.library_pane.count.text() == "24 skills · 8 folders"
    assert not window.progress.isVisible()


def test_broken_file_is_listed_in_the_problems_dock_and_left_alone(qtbot, agent: Path) -> None:
    broken = agent / "skills" / "notes" / "broken.json"
    broken.parent.mkdir()
    broken.write_bytes(b'{"name": "notes/broken", "summary": ')
    window = open_window(qtbot, agent)
    assert window.skills_label.text() == "24 skills"
    assert window.problems_label.text() == "1 file problem"
    assert window.problems_dock.isVisible()
    assert window.problems_dock.windowTitle() == "Problems (1)"
    model = window.problems_pane.model
    assert model.rowCount() == 1
    assert model.index(0, 0).data() == "skills/notes/broken.json"
    assert model.index(0, 1).data() == "parse-error"
    assert model.index(0, 2).data()
    assert broken.read_bytes() == b'{"name": "notes/broken", "summary": '
    # The View menu still hides and shows it.
    window.commands["view.problems"].trigger()
    assert not window.problems_dock.isVisible()
    window.commands["view.problems"].trigger()
    assert window.problems_dock.isVisible()


def test_selecting_a_skill_shows_it_in_the_skill_tab(window: MainWindow) -> None:
    assert window.ctx.select_skill("MCP/EMAIL")  # case-insensitive, like RockBot
    assert window.ctx.current_skill == "mcp/email"
    header = window.skill_pane.header
    assert header.name.text() == "mcp/email"
    assert "MCP" in header.summary.text()
    assert header.see_also.names == ["mcp/calendar", "schedule-meeting"]
    current = window.library_pane.view.currentIndex()
    assert current.data(NAME_ROLE) == "mcp/email"
    # and the other way: clicking in the list makes it current
    view = window.library_pane.view
    view.setCurrentIndex(view.model().index(0, 0))  # the tree's first row
    assert window.ctx.current_skill == "a2a"
    assert not window.ctx.select_skill("no-such-skill")


def test_filter_narrows_the_library_list(window: MainWindow, qtbot) -> None:
    qtbot.keyClicks(window.library_pane.filter, "research")
    assert list_names(window) == ["research/summarize-article", "research/summarize-paper"]


def test_open_recent_reopens_a_library(qtbot, agent: Path, tmp_path: Path) -> None:
    other = make_writable(Path(__import__("shutil").copytree(agent, tmp_path / "other")))
    window = open_window(qtbot, agent)
    with qtbot.waitSignal(window.loadFinished):
        window.open_path(other)
    assert window.ctx.library.agent_dir == other.resolve()
    window.edit_menus.fill_recent_menu()
    entries = [a for a in window.recent_menu.actions() if a.data()]
    assert [Path(a.data()) for a in entries] == [other.resolve(), agent.resolve()]
    with qtbot.waitSignal(window.loadFinished):
        entries[1].trigger()
    assert window.ctx.library.agent_dir == agent.resolve()
    assert window.ctx.recent.paths()[0] == agent.resolve()
    clear = next(a for a in window.recent_menu.actions() if a.objectName() == "file.recent.clear")
    assert clear.isEnabled()
    clear.trigger()
    assert window.ctx.recent.paths() == []
    assert not [a for a in window.recent_menu.actions() if a.data()]


def test_undo_redo_follow_core_operations_and_restore_bytes(window: MainWindow) -> None:
    undo, redo = window.commands["edit.undo"], window.commands["edit.redo"]
    assert not undo.isEnabled() and not redo.isEnabled()
    library = window.ctx.library
    path = library.entry("mcp/email").path
    before = path.read_bytes()

    window.ctx.apply(lambda lib: lib.update("mcp/email", summary="Read and send email"))
    after = path.read_bytes()
    assert after != before
    assert undo.isEnabled() and not redo.isEnabled()
    assert undo.text() == "&Undo Save 'mcp/email'"
    assert "a running agent must be restarted" in window.statusBar().full_message()

    undo.trigger()
    assert path.read_bytes() == before
    assert not undo.isEnabled() and redo.isEnabled()
    assert redo.text() == "&Redo Save 'mcp/email'"
    redo.trigger()
    assert path.read_bytes() == after
    assert undo.isEnabled() and not redo.isEnabled()


def test_new_skill_creates_through_the_core_and_undo_removes_it(window: MainWindow) -> None:
    window.new_skill("drafts/idea")
    library = window.ctx.library
    created = library.skills_dir / "drafts" / "idea.json"
    assert created.is_file()
    assert window.skills_label.text() == "25 skills"
    assert window.ctx.current_skill == "drafts/idea"
    assert window.tabs.currentWidget() is window.skill_pane
    assert "drafts/idea" in list_names(window)
    window.commands["edit.undo"].trigger()
    assert not created.exists()
    assert window.skills_label.text() == "24 skills"
    assert window.ctx.current_skill == ""
    assert "drafts/idea" not in list_names(window)


def test_refused_operation_shows_an_error_and_changes_nothing(window: MainWindow, qtbot) -> None:
    window.ctx.apply(lambda lib: lib.create("MCP/Email"))
    box = window.error_box
    assert isinstance(box, QMessageBox)
    assert box.isVisible()
    assert "already exists" in box.text()
    assert not window.commands["edit.undo"].isEnabled()
    box.close()
    qtbot.waitUntil(lambda: window.error_box is None)


def test_bad_path_shows_an_error_box_and_status_message(qtbot, tmp_path: Path) -> None:
    window = MainWindow(AppContext())
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.loadFinished) as blocker:
        window.open_path(tmp_path / "missing")
    assert "no such file or directory" in blocker.args[0]
    assert window.error_box is not None and window.error_box.isVisible()
    assert "no such file or directory" in window.statusBar().full_message()
    assert window.ctx.library is None
    assert window.path_label.text() == "No library open"
    assert not window.commands["file.new_skill"].isEnabled()
    window.error_box.close()


def test_loading_runs_off_the_ui_thread_and_can_be_cancelled(qtbot, agent: Path) -> None:
    window = MainWindow(AppContext())
    qtbot.addWidget(window)
    window.show()
    release = threading.Event()
    ui_thread = threading.get_ident()
    seen: list[int] = []

    def slow_open(control: LoadControl) -> RockBotLibrary:
        seen.append(threading.get_ident())
        release.wait(10)
        return RockBotLibrary.open(agent)

    window.loader.load(slow_open, "Opening a slow library…")
    assert window.progress.isVisible() and window.cancel_button.isVisible()
    qtbot.wait(50)  # the UI thread keeps processing events meanwhile
    assert seen and seen[0] != ui_thread
    with qtbot.waitSignal(window.loader.cancelled):
        window.cancel_button.click()
    assert not window.progress.isVisible()
    release.set()
    assert window.loader.wait(10_000)
    qtbot.wait(20)
    assert window.ctx.library is None  # the abandoned result was dropped


def test_panes_are_reachable_from_actions(window: MainWindow) -> None:
    window.commands["view.recall"].trigger()
    assert window.tabs.currentWidget() is window.recall_pane
    window.commands["view.usage"].trigger()
    assert window.tabs.currentWidget() is window.usage_pane
    window.commands["view.skill"].trigger()
    assert window.tabs.currentWidget() is window.skill_pane
    window.commands["tools.dream"].trigger()
    assert window.dream_wizard is not None and window.dream_wizard.isVisible()
    window.dream_wizard.reject()
    window.commands["view.library"].trigger()
    assert not window.library_dock.isVisible()
    window.show_pane("tree")
    assert window.library_dock.isVisible()


def test_layout_is_remembered(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    window.library_dock.hide()
    window.close()
    assert window.ctx.settings.contains("window/state")
    again = open_window(qtbot, agent)
    qtbot.wait(10)
    assert not again.library_dock.isVisible()


def test_open_recent_reopens_a_folder_in_the_format_the_user_chose(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    assert window.ctx.library.format == "rockbot"
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.reopen_as("agentskills")
    assert window.ctx.library.format == "agentskills"
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.open_path(agent)  # what Open Recent and `rockskills-gui PATH` do
    assert window.ctx.library.format == "agentskills"
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.reopen_as("rockbot")
    assert window.ctx.recent.format_of(agent) == "rockbot"
