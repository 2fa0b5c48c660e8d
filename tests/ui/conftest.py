"""UI test setup: Qt warnings fail tests; windows open a private, writable fixture copy."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.main_window import MainWindow

HERE = Path(__file__).resolve().parent

# Printed by Qt's offscreen platform plugin itself; not a problem in our code.
OFFSCREEN_NOISE = (
    r"This plugin does not support propagateSizeHints\(\)",
    r"This plugin does not support raise\(\)",
    r"This plugin does not support grabbing the keyboard",  # popups (e.g. a completer)
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test in tests/ui fails on a Qt warning (pytest-qt's qt_log_level_fail = WARNING)."""
    del config
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*OFFSCREEN_NOISE))


def make_writable(root: Path) -> Path:
    """The shared fixtures are read-only; a copy the tests change must not be."""
    for folder, _dirs, files in os.walk(root):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            os.chmod(name, os.stat(name).st_mode | stat.S_IWUSR)
    return root


@pytest.fixture
def agent(agent_copy: Path) -> Path:
    """A private, writable copy of the sample agent directory (24 skills, no problems)."""
    return make_writable(agent_copy)


def open_window(qtbot, path: Path, ctx: AppContext | None = None) -> MainWindow:
    window = MainWindow(ctx or AppContext(), interactive=True)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    with qtbot.waitSignal(window.loadFinished, timeout=10_000) as blocker:
        window.open_path(path)
    assert blocker.args == [""], blocker.args
    return window


@pytest.fixture
def window(qtbot, agent: Path) -> Iterator[MainWindow]:
    """The main window with the sample library open."""
    win = open_window(qtbot, agent)
    yield win
    win.loader.cancel()
    win.loader.wait()


@pytest.fixture
def no_quit_on_close(qapp) -> Iterator[None]:
    """Closing the last visible window must not quit the session's application (after a quit,
    queued signals stop arriving in later tests)."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)


@pytest.fixture
def current(tmp_path: Path) -> Path:
    """A generated "RockBot (current)" agent directory (resources, embeddings, ledger, MCP)."""
    from tests.rockbot_current import make_current_agent

    return make_current_agent(tmp_path / "agent")


@pytest.fixture
def cwindow(qtbot, current: Path) -> Iterator[MainWindow]:
    """The main window on ``current``."""
    win = open_window(qtbot, current)
    yield win
    win.loader.cancel()
    win.loader.wait()
