"""Uncaught exceptions: write them to the log and show a dialog naming the log, instead of vanishing.

:class:`CrashReporter` replaces ``sys.excepthook`` (which also receives exceptions raised in Qt
slots) and ``threading.excepthook``. Exceptions from other threads are handed to the UI thread
through a queued signal. The traceback shown and logged passes the same redaction as the log, so
a crash report never carries the API key. One dialog at a time: later errors while it is open
are only logged.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication

from rockskills_gui.core.app.logs import redact

if TYPE_CHECKING:  # (the dialog's classes load with the first crash, not at start)
    from PySide6.QtWidgets import QMessageBox, QWidget

log = logging.getLogger("rockskills_gui.crash")
ExcHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


class CrashReporter(QObject):
    """Installs the hooks; :meth:`report` logs one exception and shows (at most) one dialog.

    Signals:
        reported(str): an exception was reported; carries its one-line summary.
    """

    reported = Signal(str)
    _fromThread = Signal(str, str)

    def __init__(self, log_path: Path, secrets: Callable[[], Iterable[str | None]],
                 parent_window: Callable[[], QWidget | None] = lambda: None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.log_path = log_path
        self._secrets = secrets
        self._parent_window = parent_window
        self.dialog: QMessageBox | None = None
        self.count = 0
        self._previous: ExcHook | None = None
        self._previous_thread: Callable[[threading.ExceptHookArgs], object] | None = None
        self._fromThread.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self) -> None:
        self._previous = sys.excepthook
        self._previous_thread = threading.excepthook
        sys.excepthook = self.excepthook
        threading.excepthook = self._thread_hook

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook = self._previous
        if self._previous_thread is not None:
            threading.excepthook = self._previous_thread
        self._previous = self._previous_thread = None

    # ---------------------------------------------------------------- hooks

    def excepthook(self, kind: type[BaseException], exc: BaseException,
                   tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt | SystemExit):
            (self._previous or sys.__excepthook__)(kind, exc, tb)
            return
        summary, details = self._describe(kind, exc, tb)
        self._show(summary, details)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        summary, details = self._describe(args.exc_type, args.exc_value, args.exc_traceback)
        name = args.thread.name if args.thread is not None else "a worker thread"
        self._fromThread.emit(f"{summary} (in {name})", details)

    # ---------------------------------------------------------------- reporting

    def _describe(self, kind: type[BaseException], exc: BaseException,
                  tb: TracebackType | None) -> tuple[str, str]:
        secrets = list(self._secrets())
        details = redact("".join(traceback.format_exception(kind, exc, tb)), secrets)
        summary = redact(f"{kind.__name__}: {exc}".strip().rstrip(":"), secrets)
        log.critical("uncaught exception: %s\n%s", summary, details.rstrip())
        return summary, details

    def _show(self, summary: str, details: str) -> None:
        self.count += 1
        self.reported.emit(summary)
        if self.dialog is not None or QGuiApplication.instance() is None:
            return
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(self._parent_window())
        box.setObjectName("crashDialog")
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle("rockskills-gui: unexpected error")
        box.setText(f"<b>Something went wrong.</b><br>{_html(summary)}")
        box.setInformativeText(
            "The application is still running; save your work and consider restarting it.<br>"
            f"The details were written to the log:<br><code>{_html(str(self.log_path))}</code>")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setDetailedText(details)
        open_button = box.addButton("Open Log Folder", QMessageBox.ButtonRole.ActionRole)
        open_button.setObjectName("openLogFolder")
        box.addButton(QMessageBox.StandardButton.Close)
        open_button.clicked.connect(self.open_log_folder)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(self._forget_dialog)
        self.dialog = box
        box.open()

    def _forget_dialog(self) -> None:
        self.dialog = None

    def open_log_folder(self) -> bool:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.log_path.parent)))


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
