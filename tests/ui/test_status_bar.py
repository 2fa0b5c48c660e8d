"""A long status message is elided before the permanent widgets, whole in the tooltip."""

from __future__ import annotations

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.main_window import MainWindow


def test_a_long_message_is_elided_not_cut_into_the_path_label(qtbot, window: MainWindow) -> None:
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.path_label.isVisible() and window.path_label.width() > 0)
    bar = window.statusBar()
    text = "Opened " + "/a/very/long/agent/directory" * 12 + " as RockBot (current) — and more"
    bar.showMessage(text, 5000)
    shown = bar.currentMessage()
    head, tail = shown.split("…")
    assert text.startswith(head) and text.endswith(tail) and tail.endswith("and more")
    assert bar.fontMetrics().horizontalAdvance(shown) < window.path_label.geometry().left()
    assert bar.toolTip() == text
    bar.showMessage("Saved", 5000)
    assert bar.currentMessage() == "Saved" and bar.toolTip() == ""
    bar.clearMessage()
    assert bar.toolTip() == ""


def test_a_message_shown_before_the_window_keeps_clear_of_a_long_path(qtbot, tmp_path,
                                                                    agent_copy) -> None:
    """Issue 35 item 8: the opening message was elided for a width the bar did not have yet,
    and a long path pushed it (and the counts) aside."""
    import shutil

    from tests.ui.conftest import make_writable

    deep = tmp_path / ("a-rather-long-folder-name-for-an-agent-directory-" * 2) / "agent"
    shutil.copytree(agent_copy, deep)
    make_writable(deep)
    (deep / "skills" / "extra").mkdir()  # a SKILL.md beside: the message says what else it saw
    (deep / "skills" / "extra" / "SKILL.md").write_text("---\nname: extra\ndescription: x\n---\n")
    window = MainWindow(AppContext(), interactive=False)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    with qtbot.waitSignal(window.loadFinished, timeout=10_000):
        window.open_path(deep)  # the message arrives while the window is hidden
    window.show()
    bar = window.statusBar()

    def clear() -> bool:  # clear of the path, and with room to be read
        shown = bar.currentMessage()
        width = bar.fontMetrics().horizontalAdvance(shown)
        return (bool(shown) and bar.contentsMargins().left() + width < window.path_label.geometry().left()
                and width > bar.width() * 0.3)

    qtbot.waitUntil(clear, timeout=3000)
    assert "Reopen As" in bar.full_message()
    assert window.path_label.width() <= bar.width() * 0.4 + 1
    assert window.problems_label.geometry().right() <= bar.width()  # the counts stay in view
    window.resize(900, 720)  # narrower: elided again
    qtbot.waitUntil(clear, timeout=3000)
    window.loader.wait()
