"""Advisory work off the UI thread, newest request wins (the Problems dock's lint).

:class:`LatestJob` runs one function at a time on its own one-thread pool. Requests wait for a
pause (``debounce_ms``) and coalesce: while one runs, only the newest request waits, and a
request made while work runs makes that work's result stale (it is dropped, never delivered).
Unlike :class:`~rockskills_gui.ui.common.workers.LibraryLoader` nothing here can be cancelled
half-way: the core work is short enough to run to its end, and dropping its result is enough.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, SignalInstance, Slot

log = logging.getLogger(__name__)


class _Signals(QObject):
    done = Signal(int, object)
    failed = Signal(int, str)


class _Job(QRunnable):
    def __init__(self, ticket: int, work: Callable[[], object], signals: _Signals) -> None:
        super().__init__()
        self.ticket = ticket
        self.work = work
        self.signals = signals  # kept alive by the job while it runs

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # a bug (or a library changed under it) must not kill the thread
            log.debug("background job failed", exc_info=True)
            self._emit(self.signals.failed, f"{type(exc).__name__}: {exc}")
        else:
            self._emit(self.signals.done, result)

    def _emit(self, signal: SignalInstance, value: object) -> None:
        try:
            signal.emit(self.ticket, value)
        except RuntimeError:  # the owner was deleted while the job ran (the window closed)
            pass


class LatestJob(QObject):
    """Run the newest requested function off the UI thread and deliver its result.

    Signals:
        finished(object): the newest request's result, on the UI thread.
        failed(str): the newest request raised (type and message).
        busyChanged(bool): work is waiting or running (True) or all done (False).
    """

    finished = Signal(object)
    failed = Signal(str)
    busyChanged = Signal(bool)

    def __init__(self, debounce_ms: int = 0, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals(self)
        self._signals.done.connect(self._on_done)
        self._signals.failed.connect(self._on_failed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._start)
        self._ticket = 0
        self._waiting: Callable[[], object] | None = None
        self._running = 0  # ticket of the job on the pool, 0 when none
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    def set_debounce(self, msecs: int) -> None:
        """How long a request waits for a pause in requests (from the next request on)."""
        self._timer.setInterval(msecs)

    def request(self, work: Callable[[], object], now: bool = False) -> None:
        """Run ``work()`` after the debounce (at once with ``now``); any earlier request's result
        is dropped."""
        self._ticket += 1
        self._waiting = work
        self._set_busy(True)
        if now:
            self._timer.stop()
            self._start()
        else:
            self._timer.start()

    def cancel(self) -> None:
        """Forget every request: nothing waiting starts, a running job's result is dropped."""
        self._ticket += 1
        self._waiting = None
        self._timer.stop()
        self._set_busy(False)

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool is idle (for shutdown and tests)."""
        return self._pool.waitForDone(msecs)

    def _start(self) -> None:
        if self._running or self._waiting is None:
            return  # the running job's end starts the waiting one
        work, self._waiting = self._waiting, None
        self._running = self._ticket
        self._pool.start(_Job(self._ticket, work, self._signals))

    @Slot(int, object)
    def _on_done(self, ticket: int, result: object) -> None:
        if self._finish(ticket):
            self.finished.emit(result)

    @Slot(int, str)
    def _on_failed(self, ticket: int, message: str) -> None:
        if self._finish(ticket):
            self.failed.emit(message)

    def _finish(self, ticket: int) -> bool:
        """The job ``ticket`` ended: start what waits; True when its result is the newest."""
        self._running = 0
        if self._waiting is not None:
            if not self._timer.isActive():
                self._start()
            return False
        current = ticket == self._ticket
        if current:
            self._set_busy(False)
        return current

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)
