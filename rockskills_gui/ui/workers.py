"""Long work off the UI thread: opening a library (and installing the demo first when asked).

The core has no progress callback for a scan yet, so the loader reports "busy" (an indeterminate
bar) and cancel means "forget this load": the scan finishes on its worker thread and its result
is dropped. Each load gets a ticket; only the newest ticket's result is delivered.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from rockskills_gui.core.appdirs import demo_library_dir
from rockskills_gui.core.changes import LibraryError
from rockskills_gui.core.library import Library
from rockskills_gui.core.stores.rockbot import NotALibraryError

Opener = Callable[[], Library]


def path_opener(path: Path) -> Opener:
    """Open an agent directory or its ``skills/`` folder."""
    return lambda: Library.open(path)


def demo_opener(dest: Path | None = None) -> Opener:
    """Install the bundled demo library once (at ``dest`` or the data folder) and open it."""

    def open_demo() -> Library:
        try:
            from rockskills_gui.core.demo import install_demo
        except ModuleNotFoundError as exc:
            if exc.name != "rockskills_gui.core.demo":
                raise
            raise LibraryError("the demo library is not part of this build; "
                               "open an agent directory instead") from None
        return Library.open(install_demo(dest if dest is not None else demo_library_dir()))

    return open_demo


class _JobSignals(QObject):
    loaded = Signal(int, object)
    failed = Signal(int, str)


class _LoadJob(QRunnable):
    def __init__(self, ticket: int, opener: Opener, signals: _JobSignals) -> None:
        super().__init__()
        self.ticket = ticket
        self.opener = opener
        self.signals = signals

    def run(self) -> None:
        try:
            library = self.opener()
        except (NotALibraryError, LibraryError) as exc:
            self.signals.failed.emit(self.ticket, str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            self.signals.failed.emit(self.ticket, f"{where}{exc.strerror or exc}")
        except Exception as exc:  # a bug in a reader must not kill the worker thread silently
            self.signals.failed.emit(self.ticket, f"unexpected error while opening: {exc!r}")
        else:
            self.signals.loaded.emit(self.ticket, library)


class LibraryLoader(QObject):
    """Open libraries on a worker thread; at most one load is current.

    Signals:
        started(str): a load began; the text says what is being opened.
        loaded(object): the :class:`Library`, delivered on the UI thread.
        failed(str): one readable line (not a library, unreadable, ...).
        cancelled(): the current load was abandoned.
        busyChanged(bool)
    """

    started = Signal(str)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    busyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._signals = _JobSignals(self)
        self._signals.loaded.connect(self._on_loaded)
        self._signals.failed.connect(self._on_failed)
        self._ticket = 0
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    def load(self, opener: Opener, description: str) -> None:
        """Start opening; a load still running is superseded (its result is dropped)."""
        self._ticket += 1
        self._pool.start(_LoadJob(self._ticket, opener, self._signals))
        self.started.emit(description)
        self._set_busy(True)

    def cancel(self) -> None:
        if self._busy:
            self._ticket += 1
            self._set_busy(False)
            self.cancelled.emit()

    def wait(self, msecs: int = -1) -> bool:
        """Block until worker threads are idle (for shutdown and tests)."""
        return self._pool.waitForDone(msecs)

    @Slot(int, object)
    def _on_loaded(self, ticket: int, library: Library) -> None:
        if ticket == self._ticket and self._busy:
            self._set_busy(False)
            self.loaded.emit(library)

    @Slot(int, str)
    def _on_failed(self, ticket: int, message: str) -> None:
        if ticket == self._ticket and self._busy:
            self._set_busy(False)
            self.failed.emit(message)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)
