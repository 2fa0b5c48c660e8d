"""The main window's preferences: the theme commands, the Preferences and Shortcuts dialogs
and the log folder (the editor's font and preview layout are the editor's owner's:
``window_deferred``). A part of ``MainWindow``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QApplication, QWidget

from rockskills_gui.core.app.logs import log_dir
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import apply_theme, current_kind

if TYPE_CHECKING:  # built when first used
    from rockskills_gui.ui.shell.preferences import PreferencesDialog


class WindowPreferences(QObject):
    """The theme commands of ``host`` and the dialogs that shape it: Preferences, Shortcuts, the
    log folder. ``name_controls(dialog)`` gives a new dialog's controls their accessible names,
    ``message(text, ms)`` is the status bar's."""

    def __init__(self, ctx: AppContext, host: QWidget, commands: ActionRegistry,
                 name_controls: Callable[[QWidget], None],
                 message: Callable[[str, int], None]) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.commands = commands
        self._name_controls = name_controls
        self._message = message
        self.preferences_dialog: PreferencesDialog | None = None
        self.theme_override: str | None = None  # --theme for this run only
        group = QActionGroup(self)
        for mode in ("system", "light", "dark"):
            action = commands[f"view.theme_{mode}"]
            group.addAction(action)
            commands.on(f"view.theme_{mode}", partial(self.choose_theme, mode))
        ctx.preferencesChanged.connect(self._on_preferences_changed)
        self._check_theme_action()

    def _on_preferences_changed(self, changed: frozenset[str]) -> None:
        if "theme" in changed:
            self.theme_override = None
            self.apply_theme_mode(self.ctx.preferences.startup().theme)

    def choose_theme(self, mode: str) -> None:
        """The View menu's theme commands: save the choice (which applies it)."""
        if mode == self.ctx.prefs.theme and self.theme_override not in (None, mode):
            self.theme_override = None
            self.apply_theme_mode(mode)
        self.ctx.preferences.update(theme=mode)

    def apply_theme_mode(self, mode: str, override: bool = False, applied: bool = False) -> str:
        """Apply ``system``, ``light`` or ``dark`` to the whole application; returns light/dark.
        ``applied``: the application has it already (applied before this window was built, so
        that its widgets were made in its colours): only note it."""
        if override:
            self.theme_override = mode
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            kind = "light"
        else:
            kind = current_kind(app) if applied else apply_theme(app, mode)
        self._check_theme_action()
        return kind

    def _check_theme_action(self) -> None:
        mode = self.theme_override or self.ctx.preferences.startup().theme
        self.commands[f"view.theme_{mode}"].setChecked(True)

    def on_system_scheme_changed(self) -> None:
        """The system's light/dark scheme changed: followed when the theme is "system"."""
        if (self.theme_override or self.ctx.preferences.startup().theme) == "system":
            self.apply_theme_mode("system")

    def show_preferences(self) -> None:
        if self.preferences_dialog is None:
            from rockskills_gui.ui.shell.preferences import PreferencesDialog

            dialog = PreferencesDialog(self.ctx, self.host)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.destroyed.connect(self._forget_preferences)
            self._name_controls(dialog)
            self.preferences_dialog = dialog
        self.preferences_dialog.load(self.ctx.prefs)
        self.preferences_dialog.open()
        self.preferences_dialog.raise_()

    def _forget_preferences(self) -> None:
        self.preferences_dialog = None

    def show_shortcuts(self) -> None:
        from rockskills_gui.ui.shell.shortcuts import ShortcutsDialog

        dialog = ShortcutsDialog(self.commands, self.host)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def show_log_folder(self) -> None:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self._message(f"The log is in {folder}", 15000)
