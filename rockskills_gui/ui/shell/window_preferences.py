"""The main window's preferences: the theme commands, the editor font and preview layout,
the Preferences and Shortcuts dialogs and the log folder. A mixin of ``MainWindow``."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QActionGroup, QGuiApplication
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.app.logs import log_dir
from rockskills_gui.ui.common.theme import apply_theme, current_kind
from rockskills_gui.ui.shell.window_state import WindowState

if TYPE_CHECKING:  # built when first used (the dream pages, the usage analysis: numpy, scipy)
    from rockskills_gui.ui.editor.editor_pane import EditorPane
    from rockskills_gui.ui.shell.preferences import PreferencesDialog


class WindowPreferences(WindowState):
    """Theme and preferences of ``MainWindow``."""

    # ---------------------------------------------------------------- preferences

    def _wire_preferences(self) -> None:
        """Theme actions, and the preferences that shape this window (font, preview layout)."""
        self.preferences_dialog: PreferencesDialog | None = None
        self.theme_override: str | None = None  # --theme for this run only
        group = QActionGroup(self)
        for mode in ("system", "light", "dark"):
            action = self.commands[f"view.theme_{mode}"]
            group.addAction(action)
            self.commands.on(f"view.theme_{mode}", partial(self.choose_theme, mode))
        self.ctx.preferencesChanged.connect(self._on_preferences_changed)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme_changed)
        self._check_theme_action()

    def _on_preferences_changed(self, changed: frozenset[str]) -> None:
        prefs = self.ctx.preferences.startup()  # (all it uses; no schema before the first paint)
        if self._skill_pane is not None:  # (a pane built later takes them as it is built)
            self._apply_editor_prefs(self._skill_pane, changed)
        if "theme" in changed:
            self.theme_override = None
            self.apply_theme_mode(prefs.theme)

    def _apply_editor_prefs(self, pane: EditorPane, changed: frozenset[str]) -> None:
        """The editor font and the preview layout, where ``changed`` names them."""
        prefs = self.ctx.preferences.startup()
        if changed & {"editor_font", "editor_font_size"}:
            from rockskills_gui.ui.editor.editor_font import apply_editor_font  # (with the editor)

            apply_editor_font(pane.editor, prefs)
        if "preview_layout" in changed and pane.mode != prefs.preview_layout:
            pane.set_mode(prefs.preview_layout)

    def _remember_preview_layout(self, mode: str) -> None:
        if self.interactive and mode != self.ctx.preferences.startup().preview_layout:
            self.ctx.preferences.update(preview_layout=mode)

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

    def _on_system_scheme_changed(self) -> None:
        if (self.theme_override or self.ctx.preferences.startup().theme) == "system":
            self.apply_theme_mode("system")

    def show_preferences(self) -> None:
        if self.preferences_dialog is None:
            from rockskills_gui.ui.shell.preferences import PreferencesDialog

            dialog = PreferencesDialog(self.ctx, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.destroyed.connect(self._forget_preferences)
            self._name_controls_of(dialog)
            self.preferences_dialog = dialog
        self.preferences_dialog.load(self.ctx.prefs)
        self.preferences_dialog.open()
        self.preferences_dialog.raise_()

    def _forget_preferences(self) -> None:
        self.preferences_dialog = None

    def show_shortcuts(self) -> None:
        from rockskills_gui.ui.shell.shortcuts import ShortcutsDialog

        dialog = ShortcutsDialog(self.commands, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def show_log_folder(self) -> None:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self.statusBar().showMessage(f"The log is in {folder}", 15000)
