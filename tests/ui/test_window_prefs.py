"""Preferences reach the window (editor font, preview layout, theme), layout memory (geometry,
docks, splitters), accessible names, and ``--theme`` on the command line."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QFont, QFontDatabase, QImage
from PySide6.QtWidgets import QApplication

from rockskills_gui.ui.common.accessibility import unnamed_controls
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import apply_theme
from rockskills_gui.ui.shell import app
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.shell.preferences import PreferencesDialog
from rockskills_gui.ui.usage.usage_pane import SIDE_SPLIT
from tests.ui.conftest import open_window


def test_editor_font_and_size_follow_the_settings(qtbot, window: MainWindow) -> None:
    """What the app asks Qt for (family, size, fixed pitch), not what the machine's fonts resolve
    it to: the test holds wherever it runs."""
    window.ctx.select_skill("mcp/email")
    editor = window.skill_pane.editor
    system_fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    assert editor.font().family() == system_fixed.family()  # no choice yet: the system's fixed font
    window.ctx.preferences.update(editor_font_size=17)
    assert editor.font().pointSize() == 17
    assert editor.document().defaultFont().pointSize() == 17  # the open skill's text too
    window.ctx.select_skill("mcp/calendar")  # another buffer gets the font as well
    assert editor.document().defaultFont().pointSize() == 17
    window.ctx.preferences.update(editor_font="Some Mono Font")  # installed or not
    font = editor.font()
    assert (font.family(), font.pointSize()) == ("Some Mono Font", 17)
    assert font.fixedPitch() and font.styleHint() == QFont.StyleHint.Monospace  # its fallback too
    assert editor.document().defaultFont().family() == "Some Mono Font"


def test_preview_layout_setting_and_view_menu_are_one_thing(qtbot, window: MainWindow) -> None:
    pane = window.skill_pane
    window.ctx.preferences.update(preview_layout="preview")
    assert pane.mode == "preview"
    window.commands["view.layout_editor"].trigger()
    assert pane.mode == "editor" and window.ctx.prefs.preview_layout == "editor"


def test_a_new_window_starts_with_the_saved_layout(qtbot, agent: Path) -> None:
    ctx = AppContext()
    ctx.preferences.update(preview_layout="editor")
    window = open_window(qtbot, agent, ctx)
    assert window.skill_pane.mode == "editor"


def test_window_geometry_and_splitters_are_remembered(qtbot, agent: Path,
                                                      no_quit_on_close: None) -> None:
    first = open_window(qtbot, agent)
    screen = first.screen().availableGeometry()  # restoring fits the window to the screen
    first.resize(min(1111, screen.width() - 40), min(777, screen.height() - 60))
    size = (first.width(), first.height())
    first.show_pane("recall")
    first.recall_pane.splitter.setSizes([300, 600])
    usage_splitter = first.usage_pane.splitter
    first.show_pane("heatmap")
    usage_splitter.setSizes([500, 300])
    recall_sizes = first.recall_pane.splitter.sizes()
    usage_sizes = usage_splitter.sizes()
    first.close()  # saves the layout

    second = MainWindow(AppContext(), interactive=True)  # restores before it is shown
    qtbot.addWidget(second)
    second.show()
    assert (second.width(), second.height()) == size
    second.show_pane("recall")
    qtbot.waitUntil(lambda: second.recall_pane.splitter.sizes() == recall_sizes, timeout=2000)
    second.show_pane("heatmap")
    # The side tabs keep their width; the matrix takes what the window gives it (the docks of a
    # window with no library open may be narrower than the first window's).
    qtbot.waitUntil(lambda: second.usage_pane.splitter.sizes()[1] == usage_sizes[1], timeout=2000)
    total = sum(second.usage_pane.splitter.sizes())
    assert second.usage_pane.splitter.sizes()[1] != total - int(total * SIDE_SPLIT)  # not the default
    keys = second.ctx.settings.allKeys()
    assert any(k.startswith("splitters/") and "recallSplitter" in k for k in keys)


def test_every_control_has_an_accessible_name(qtbot, window: MainWindow) -> None:
    # The names are given after the first paint, with the parts built then (window_deferred).
    qtbot.waitUntil(lambda: window.startup_finished, timeout=5000)
    assert [(type(w).__name__, w.objectName()) for w in unnamed_controls(window)] == []
    assert window.library_pane.view.accessibleName() == "Skills in the library"
    assert window.skill_pane.editor.accessibleName() == "Markdown source"
    window.commands["app.preferences"].trigger()
    dialog = window.findChild(PreferencesDialog)
    assert dialog is not None and dialog.isVisible()
    assert unnamed_controls(dialog) == []
    assert dialog.key_edit.accessibleName() == "API key"
    dialog.reject()


def test_preferences_change_the_theme_of_the_running_app(qtbot, window: MainWindow,
                                                         qapp: QApplication) -> None:
    try:
        window.commands["app.preferences"].trigger()
        dialog = window.findChild(PreferencesDialog)
        box = dialog.editors["theme"].widget
        box.setCurrentIndex(box.findData("dark"))
        assert dialog.apply()
        assert qapp.palette().color(qapp.palette().ColorRole.Window).lightness() < 100
        assert window.commands["view.theme_dark"].isChecked()
        dialog.reject()
    finally:
        apply_theme(qapp, "light")


def dark_share(image: QImage) -> float:
    pixels = [QColor(image.pixel(x, y)) for x in range(0, image.width(), 20)
              for y in range(0, image.height(), 20)]
    return sum(p.lightness() < 100 for p in pixels) / len(pixels)


def test_theme_option_on_the_command_line(agent: Path, tmp_path: Path, qapp: QApplication) -> None:
    try:
        assert app.main([str(agent), "--theme", "dark", "--select", "mcp/email",
                         "--screenshot", str(tmp_path / "dark.png")]) == 0
        assert app.main([str(agent), "--theme", "light", "--select", "mcp/email",
                         "--screenshot", str(tmp_path / "light.png")]) == 0
    finally:
        apply_theme(qapp, "light")
    assert dark_share(QImage(str(tmp_path / "dark.png"))) > 0.8
    assert dark_share(QImage(str(tmp_path / "light.png"))) < 0.1
    assert AppContext().prefs.theme == "system"  # --theme is for this run only
    assert app.main(["--theme", "purple"]) == 2
