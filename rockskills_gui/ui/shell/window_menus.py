"""The main window's Edit menu (Cut, Copy and Paste for the focused text field, Undo and Redo
labels), File ▸ Open Recent and File ▸ Reopen As. A part of ``MainWindow``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from rockskills_gui.core.library.formats import OPEN_FORMAT_LABELS, OPEN_FORMATS, open_format_of
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.workers import LibraryLoader


def _escape_mnemonic(text: str) -> str:
    return text.replace("&", "&&")


if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QPlainTextEdit, QTextEdit

    TextWidget = QLineEdit | QPlainTextEdit | QTextEdit

# Asked by class name (QObject.inherits): the classes themselves, a few enum sets each, are not
# loaded into Python for this at start (issue 19).
TEXT_CLASSES = ("QLineEdit", "QPlainTextEdit", "QTextEdit")


def _text_widget(widget: QWidget | None) -> TextWidget | None:
    """The text field Cut, Copy and Paste act on for the focused ``widget``, if any."""
    if widget is None:
        return None
    if widget.inherits("QComboBox"):
        widget = cast("QComboBox", widget).lineEdit()
    elif widget.inherits("QAbstractSpinBox"):
        widget = widget.findChild(QLineEdit)
    if widget is not None and any(widget.inherits(name) for name in TEXT_CLASSES):
        return cast("TextWidget", widget)
    return None


def _can_edit(widget: TextWidget) -> tuple[bool, bool, bool]:
    """Whether cut, copy and paste apply to ``widget`` now."""
    if isinstance(widget, QLineEdit):
        selected = widget.hasSelectedText() and widget.echoMode() == QLineEdit.EchoMode.Normal
        writable = not widget.isReadOnly()
        pastes = bool(QGuiApplication.clipboard().text())
    else:
        selected = widget.textCursor().hasSelection()
        writable = not widget.isReadOnly()
        pastes = widget.canPaste()
    return selected and writable, selected, writable and pastes


class WindowMenus(QObject):
    """The Edit menu's clipboard commands and Undo/Redo labels, File ▸ Open Recent and File ▸
    Reopen As of ``host``.

    ``open_path(path, format)`` opens a library (``reopen_as(format)`` the open one again),
    ``show_error(title, message)`` reports a failure.
    """

    def __init__(self, ctx: AppContext, host: QWidget, commands: ActionRegistry,
                 loader: LibraryLoader, open_path: Callable[[Path], None],
                 reopen_as: Callable[[str], None],
                 show_error: Callable[[str, str], None]) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.commands = commands
        self.loader = loader
        self._open_path = open_path
        self._reopen_as = reopen_as
        self._show_error = show_error
        self._text_target: TextWidget | None = None  # the text field Cut, Copy and Paste act on
        self.recent_menu = commands.submenu("file.recent")
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        self.fill_recent_menu()
        self.reopen_menu = commands.submenu("file.reopen_as")
        self.reopen_menu.aboutToShow.connect(self.fill_reopen_menu)
        self.fill_reopen_menu()
        commands.on("edit.cut", lambda: self._edit_text("cut"))
        commands.on("edit.copy", lambda: self._edit_text("copy"))
        commands.on("edit.paste", lambda: self._edit_text("paste"))
        ctx.historyChanged.connect(self.update_history_actions)
        ctx.recentChanged.connect(self.fill_recent_menu)
        loader.busyChanged.connect(lambda busy: self.recent_menu.setEnabled(not busy))

    # ---------------------------------------------------------------- cut, copy, paste

    def on_focus_changed(self, new: QWidget | None) -> None:
        """The application's focus moved (to ``new``): follow the focused text field."""
        target = _text_widget(new) if new is not None and self.host.isAncestorOf(new) else None
        if target is not self._text_target:
            previous = self._text_target
            if previous is not None:
                try:
                    previous.selectionChanged.disconnect(self.update_clipboard_actions)
                except (RuntimeError, TypeError):  # already deleted
                    pass
            self._text_target = target
            if target is not None:
                target.selectionChanged.connect(self.update_clipboard_actions)
        self.update_clipboard_actions()

    def update_clipboard_actions(self) -> None:
        """Enable Cut, Copy and Paste as the focused text field allows."""
        focused = QApplication.focusWidget()
        target = _text_widget(focused) if focused is not None and self.host.isAncestorOf(focused) \
            else None
        can = _can_edit(target) if target is not None else (False, False, False)
        for action_id, enabled in zip(("edit.cut", "edit.copy", "edit.paste"), can, strict=True):
            self.commands[action_id].setEnabled(enabled)

    def _edit_text(self, operation: str) -> None:
        focused = QApplication.focusWidget()
        target = _text_widget(focused)
        if target is not None and self.host.isAncestorOf(target):
            getattr(target, operation)()
        self.update_clipboard_actions()

    def update_history_actions(self) -> None:
        library = self.ctx.library
        history = library.history if library is not None else None
        for action_id, word, label in (
            ("edit.undo", "&Undo", history.undo_label() if history else None),
            ("edit.redo", "&Redo", history.redo_label() if history else None),
        ):
            action = self.commands[action_id]
            action.setEnabled(label is not None)
            action.setText(f"{word} {_escape_mnemonic(label)}" if label else word)

    # ---------------------------------------------------------------- recent and reopen

    def fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        paths = self.ctx.recent.paths()
        for index, path in enumerate(paths, start=1):
            prefix = f"&{index} " if index < 10 else ""
            action = menu.addAction(f"{prefix}{_escape_mnemonic(str(path))}")
            action.setData(str(path))
            action.triggered.connect(lambda _checked=False, p=path: self._open_path(p))
        if not paths:
            menu.addAction("No recent libraries").setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("&Clear List")
        clear.setObjectName("file.recent.clear")
        clear.setEnabled(bool(paths))
        clear.triggered.connect(self.clear_recent)

    def fill_reopen_menu(self) -> None:
        """One checkable entry per format, RockBot's two profiles by name besides "RockBot"
        (the profile the directory's evidence says); the open library's format (for RockBot:
        its profile) is checked."""
        menu = self.reopen_menu
        menu.clear()
        library = self.ctx.library
        opened_as = open_format_of(library) if library is not None else None
        for format in OPEN_FORMATS:
            label = OPEN_FORMAT_LABELS[format]
            if format == "rockbot":
                label += " (profile detected)"
            action = menu.addAction(_escape_mnemonic(label))
            action.setObjectName(f"file.reopen_as.{format}")
            action.setCheckable(True)
            action.setChecked(opened_as == format)
            action.setEnabled(library is not None and not self.loader.busy)
            action.triggered.connect(lambda _checked=False, f=format: self._reopen_as(f))

    def clear_recent(self) -> None:
        try:
            self.ctx.recent.clear()
        except OSError as exc:
            self._show_error("Could not clear the recent list", str(exc.strerror or exc))
        self.fill_recent_menu()
