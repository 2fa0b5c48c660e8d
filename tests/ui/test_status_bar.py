"""A long status message is elided before the permanent widgets, whole in the tooltip."""

from __future__ import annotations

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
