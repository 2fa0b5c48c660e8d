"""Rename, move and create in the window on a read-only library (issue 35, item 16): no uncaught
PermissionError (the crash dialog), one sentence naming the folder in the window, nothing
written, the tree unchanged. Real folders made read-only with chmod; as root the module runs again
without root's file capabilities (tests/permissions.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import tree_hashes
from tests.permissions import rerun_restricted, tree
from tests.ui.conftest import open_window

ACTIONS: dict[str, Callable[[MainWindow], object]] = {
    "rename": lambda w: w.library_pane.request_rename({"web": "web-tools"}),
    "move": lambda w: w.library_pane.request_rename({"mcp/weather": "forecast/weather"}),
    "create": lambda w: w.library_pane.create_skill("brand/new-skill", "New."),
}
READ_ONLY = {  # what is made read-only -> the start of the sentence the window shows
    "skills": "Cannot write in the folder 'skills",
    "agent": "Cannot write in the folder {agent} (where changes are journaled",
}


@pytest.fixture
def opened(qtbot, agent: Path) -> Iterator[tuple[MainWindow, Path]]:
    window = open_window(qtbot, agent)
    yield window, agent
    tree(agent, 0o755)
    window.loader.cancel()
    window.loader.wait()


@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize("folder", list(READ_ONLY))
def test_a_read_only_library_says_which_folder_and_writes_nothing(
        request: pytest.FixtureRequest, folder: str, action: str) -> None:
    if rerun_restricted(request):
        return
    window, agent = request.getfixturevalue("opened")
    if folder == "skills":
        tree(agent / "skills", 0o555)
    else:
        agent.chmod(0o555)  # the skills stay writable; the journal cannot be made
    failures: list[str] = []
    window.ctx.operationFailed.connect(failures.append)
    before = tree_hashes(agent)
    names = window.ctx.library.names() if window.ctx.library is not None else []
    ACTIONS[action](window)  # a raw PermissionError would escape here (the crash dialog)
    assert len(failures) == 1, failures
    assert failures[0].startswith(READ_ONLY[folder].format(agent=agent)), failures[0]
    assert "read-only (permission denied); nothing was changed." in failures[0]
    assert window.error_box is not None and window.error_box.text() == failures[0]  # the window says it
    assert window.statusBar().currentMessage().startswith("The library was not changed: Cannot write")
    assert tree_hashes(agent) == before
    assert window.ctx.library is not None and window.ctx.library.names() == names
