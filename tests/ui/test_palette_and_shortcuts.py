"""Command palette (fuzzy over every command) and the Help > Keyboard Shortcuts list."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget

from rockskills_gui.ui.common.actions import ACTIONS, ActionRegistry
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.shell.palette import CommandPalette, palette_commands, plain, rank
from rockskills_gui.ui.shell.shortcuts import ShortcutsDialog, shortcut_rows


@pytest.fixture
def registry(qtbot) -> ActionRegistry:
    """Every command of the registry, all enabled (as if everything were possible now)."""
    owner = QWidget()
    qtbot.addWidget(owner)
    reg = ActionRegistry(owner)
    for _spec, action in reg:
        action.setEnabled(True)
    return reg


def test_every_command_is_declared_once_with_a_title_and_a_place() -> None:
    assert len({s.id for s in ACTIONS}) == len(ACTIONS)
    for spec in ACTIONS:
        assert plain(spec.title), spec.id
        assert spec.menu is not None, f"{spec.id} is in no menu"


def test_the_palette_offers_every_command_but_itself(registry: ActionRegistry) -> None:
    offered = {c.spec.id for c in palette_commands(registry)}
    expected = {s.id for s in ACTIONS if s.palette}
    assert offered == expected
    assert "edit.palette" not in offered and "file.recent" not in offered


def test_every_command_is_found_first_by_its_title(registry: ActionRegistry) -> None:
    commands = palette_commands(registry)
    for command in commands:
        found = rank(commands, command.title)
        assert found and found[0].spec.id == command.spec.id, (command.title, found[:3])


@pytest.mark.parametrize(("query", "expected"), [
    ("nsk", "file.new_skill"), ("prefs", "app.preferences"), ("usgheat", "view.usage"),
    ("kbd", "help.shortcuts"), ("thd", "view.theme_dark"), ("fltr", "tree.filter"),
    ("goto", "edit.goto_skill"), ("NEW SKILL", "file.new_skill"),
])
def test_fuzzy_abbreviations(registry: ActionRegistry, query: str, expected: str) -> None:
    assert rank(palette_commands(registry), query)[0].spec.id == expected


def test_nonsense_matches_nothing(registry: ActionRegistry) -> None:
    assert rank(palette_commands(registry), "zzqx") == []


def test_the_dialog_runs_the_best_match(qtbot, registry: ActionRegistry) -> None:
    ran: list[str] = []
    registry.on("help.shortcuts", lambda: ran.append("shortcuts"))
    palette = CommandPalette(registry)
    qtbot.addWidget(palette)
    palette.show()
    assert len(palette.shown_ids()) == len(palette_commands(registry))
    qtbot.keyClicks(palette.query, "kbd")
    assert palette.shown_ids()[0] == "help.shortcuts"
    index = palette.list.currentIndex()
    assert "Help" in index.data(Qt.ItemDataRole.AccessibleTextRole)
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    assert ran == ["shortcuts"]


def test_arrow_keys_move_through_the_results(qtbot, registry: ActionRegistry) -> None:
    palette = CommandPalette(registry)
    qtbot.addWidget(palette)
    palette.show()
    qtbot.keyClicks(palette.query, "theme")
    assert len(palette.shown_ids()) == 3
    qtbot.keyClick(palette.query, Qt.Key.Key_Down)
    qtbot.keyClick(palette.query, Qt.Key.Key_Down)
    qtbot.keyClick(palette.query, Qt.Key.Key_Down)  # stops at the last row
    assert palette.list.currentIndex().row() == 2


def test_ctrl_shift_p_opens_the_palette(qtbot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitActive(window)
    action = window.commands["edit.palette"]
    assert action.shortcut() == QKeySequence("Ctrl+Shift+P")
    qtbot.keyClick(window.library_pane.view, Qt.Key.Key_P,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is not None, timeout=3000)
    palette = window.findChild(CommandPalette)
    assert palette.isVisible()
    palette.reject()


def test_the_shortcuts_list_has_every_command_and_its_shortcut(qtbot, window: MainWindow) -> None:
    rows = shortcut_rows(window.commands)
    assert len(rows) == len(ACTIONS)
    menus = [r[0] for r in rows]
    assert menus == sorted(menus, key=["File", "Edit", "View", "Tools", "Help"].index)
    dialog = ShortcutsDialog(window.commands, window)
    qtbot.addWidget(dialog)
    shown = dict(dialog.visible_commands())
    for spec, action in window.commands:
        native = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        assert shown[plain(spec.title)] == native
    assert shown["Command Palette"] == "Ctrl+Shift+P"
    assert shown["Preferences"] == "Ctrl+,"
    dialog.filter.setText("theme")
    assert [c for c, _ in dialog.visible_commands()] == ["Follow System Theme", "Light Theme",
                                                         "Dark Theme"]


def test_help_menu_offers_the_shortcuts_list(qtbot, window: MainWindow) -> None:
    names = [a.objectName() for a in window.menus["help"].actions()]
    assert "help.shortcuts" in names and "help.logs" in names
    window.commands["help.shortcuts"].trigger()
    dialog = window.findChild(ShortcutsDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.reject()
