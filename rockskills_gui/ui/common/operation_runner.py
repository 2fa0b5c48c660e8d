"""One way to run an operation: a core operation on the open library, on the UI thread or on a
worker, one at a time, with a phase the UI shows, a cancel that never interrupts a write, and a
typed result delivered on the UI thread.

The library object is not thread-safe, so the runner keeps three rules:

* **One at a time.** Operations run in submission order on a one-thread pool; an operation asked
  for while another runs is queued (the context refuses a *synchronous* one instead, see
  ``AppContext.apply``).
* **Memory changes on the UI thread.** A core operation writes its files and then updates the
  library's in-memory index (``_take_in``: it deletes and re-adds entries, so a read in between
  could see a half-updated index). While an operation runs on the worker, that update is handed
  to the UI thread and the worker waits for it; everything else the worker does only reads the
  library. Reads from the UI thread (``names()``, ``get()``, a repaint) therefore always see a
  whole state: the one before the operation or the one after it.
* **A write is never interrupted.** Cancel is honoured only until the operation starts writing
  (the library's ``_apply``, which conflict-checks, journals and swaps the files atomically); the
  phase then becomes :attr:`Phase.WRITING` and cancel is refused.

The runner takes part through the library's ``write_gate`` (core ``library_base.WriteGate``),
set for the duration of one off-thread run: the one writer every operation goes through tells it
before it writes and hands it the in-memory update; the core knows nothing of threads or Qt.

No core operation reports progress yet, so the UI shows a busy (indeterminate) state with the
operation's label and phase.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from rockskills_gui.core.storage.changes import ChangeSet, LibraryError

# Above this many skills (a bulk move or delete) or files (an undo or redo) an operation runs off
# the UI thread. A journaled write costs about 0.5-1 ms a file, so below it the work takes under
# about 0.1 s and the simpler synchronous path (result at once, no busy state) is kept.
# Measured by tests/benchmarks/bench_operation_runner.py.
LONG_CHANGE = 100
SERVICE_EVERY_S = 0.005  # how often a UI thread waiting for the worker applies its memory updates
log = logging.getLogger(__name__)


class Phase(Enum):
    QUEUED = "queued"
    PREPARING = "preparing"  # reading and checking; cancel still possible
    WRITING = "writing"  # files are being written and journaled; cannot be interrupted
    DONE = "done"


class OperationCancelled(Exception):
    """Raised inside a cancelled operation just before it would have written anything.

    Not a ``LibraryError`` on purpose: nothing in the core may catch it as a refusal."""


@dataclass(frozen=True)
class OperationResult:
    """What an operation did: the change set it wrote (None when it returned none), or the
    readable error (``exception`` holds the LibraryError, e.g. for its ``reasons``), or that it
    was cancelled before writing."""

    label: str
    change: ChangeSet | None = None
    error: str | None = None
    exception: Exception | None = None
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and not self.cancelled


class OperationTicket(QObject):
    """One requested operation.

    Signals:
        phaseChanged(str): the :class:`Phase` value it moved to.
        finished(object): its :class:`OperationResult`, on the UI thread, after the context
            emitted the library signals (``changeApplied``, ``historyChanged``, ...).
    """

    phaseChanged = Signal(str)
    finished = Signal(object)

    def __init__(self, runner: OperationRunner, library: Any, call: Callable[[], ChangeSet | None],
                 label: str, verb: str, off_thread: bool) -> None:
        super().__init__()  # no parent: freed with its last reference (one per save adds up)
        self.runner = runner
        self.library = library
        self.call = call
        self.label = label
        self.verb = verb
        self.off_thread = off_thread
        self.phase = Phase.QUEUED
        self.result: OperationResult | None = None
        self.cancel_requested = False
        self.worker_thread: int | None = None  # the thread the operation ran on (for tests)
        self.ended = threading.Event()  # the operation itself returned (set by the worker)
        self._lock = threading.Lock()
        self._delivered = False

    @property
    def done(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def can_cancel(self) -> bool:
        return self.phase in (Phase.QUEUED, Phase.PREPARING) and not self.cancel_requested

    def cancel(self) -> bool:
        """Ask it to stop; True when it will write nothing (queued or still preparing), False
        once it writes (a write is never interrupted) or when it has finished."""
        with self._lock:
            if self.phase not in (Phase.QUEUED, Phase.PREPARING):
                return False
            self.cancel_requested = True
        if self.phase is Phase.QUEUED:
            self.runner._drop_queued(self)
        return True

    def wait(self) -> OperationResult:
        """Block the calling (UI) thread until the result is delivered; the library signals are
        emitted before this returns. For tests, shutdown and callers that need the result now."""
        return self.runner._wait_for(self)

    def _begin_write(self) -> None:
        """Called on the worker as the write starts: cancel is refused from here on."""
        with self._lock:
            if self.cancel_requested:
                raise OperationCancelled(self.label)
            if self.phase is Phase.PREPARING:
                self.phase = Phase.WRITING
                self.runner._signals.phase.emit(self, Phase.WRITING.value)

    def _set_phase(self, phase: Phase) -> None:
        self.phase = phase
        self.phaseChanged.emit(phase.value)


class _Signals(QObject):
    ended = Signal(object)  # ticket: the worker is done with it
    phase = Signal(object, str)  # ticket, phase value
    take_in = Signal()  # a memory update waits for the UI thread


class _Job(QRunnable):
    def __init__(self, runner: OperationRunner, ticket: OperationTicket) -> None:
        super().__init__()
        self.runner = runner
        self.ticket = ticket

    def run(self) -> None:
        ticket = self.ticket
        try:
            ticket.worker_thread = threading.get_ident()
            ticket.result = self.runner._execute(ticket)
        finally:
            ticket.ended.set()
            self.runner._signals.ended.emit(ticket)


class OperationRunner(QObject):
    """Runs operations one at a time and hands each result to ``deliver`` on the UI thread.

    Signals:
        started(object): an operation (its :class:`OperationTicket`) began running off the UI
            thread (synchronous ones are not announced: they block the UI anyway).
        busyChanged(bool): whether an off-thread operation is running or queued.
    """

    started = Signal(object)
    busyChanged = Signal(bool)

    def __init__(self, deliver: Callable[[OperationTicket], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._deliver_to = deliver
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals(self)
        self._signals.ended.connect(self._on_ended)
        self._signals.phase.connect(self._on_phase)
        self._signals.take_in.connect(self._service)
        self._queue: deque[OperationTicket] = deque()
        self._current: OperationTicket | None = None
        self._pending: list[tuple[Callable[[], None], threading.Event, list[BaseException]]] = []
        self._pending_lock = threading.Lock()
        self._busy = False

    @property
    def busy(self) -> bool:
        """An operation is running off the UI thread or queued."""
        return self._current is not None or bool(self._queue)

    @property
    def current(self) -> OperationTicket | None:
        return self._current

    def submit(self, library: Any, call: Callable[[], ChangeSet | None], label: str, verb: str = "",
               off_thread: bool = True) -> OperationTicket:
        """Run ``call`` (one core operation on ``library``). Off the UI thread it is queued behind
        any running operation; on it (``off_thread=False``, only when idle) it runs at once and
        the ticket is done when this returns."""
        ticket = OperationTicket(self, library, call, label, verb, off_thread)
        if not off_thread and not self.busy:
            ticket._set_phase(Phase.PREPARING)
            ticket.worker_thread = threading.get_ident()
            ticket.result = self._execute(ticket)
            ticket.ended.set()
            self._deliver(ticket)
            return ticket
        ticket.off_thread = True
        self._queue.append(ticket)
        self._start_next()
        return ticket

    def cancel_current(self) -> bool:
        """Cancel the running operation (if it has not started writing) and every queued one."""
        cancelled = False
        for ticket in list(self._queue):
            cancelled = ticket.cancel() or cancelled
        if self._current is not None:
            cancelled = self._current.cancel() or cancelled
        return cancelled

    def wait(self) -> None:
        """Block until every queued and running operation is delivered (tests, shutdown)."""
        while self._queue or self._current is not None:
            target = self._queue[-1] if self._queue else self._current
            assert target is not None
            self._wait_for(target)

    # ---------------------------------------------------------------- running

    def _execute(self, ticket: OperationTicket) -> OperationResult:
        """Run the operation; refusals and cancel become the result. Off the UI thread any other
        exception becomes the result too (logged); on it, it propagates as it always did."""
        restore = self._gate(ticket) if ticket.off_thread else None
        try:
            change = ticket.call()
        except OperationCancelled:
            return OperationResult(ticket.label, cancelled=True)
        except LibraryError as exc:
            return OperationResult(ticket.label, error=str(exc), exception=exc)
        except Exception as exc:
            if not ticket.off_thread:
                raise
            log.exception("operation %r failed", ticket.label)
            return OperationResult(ticket.label, error=f"unexpected error: {exc!r}", exception=exc)
        finally:
            if restore is not None:
                restore()
        if ticket.cancel_requested and ticket.phase is not Phase.WRITING:
            return OperationResult(ticket.label, cancelled=True)  # it wrote nothing
        return OperationResult(ticket.label, change=change)

    def _gate(self, ticket: OperationTicket) -> Callable[[], None]:
        """Take part in this run's write through the library's ``write_gate`` (see the module
        doc); returns what removes it."""
        library = ticket.library
        runner = self

        class Gate:
            def before_write(self) -> None:
                ticket._begin_write()

            def take_in(self, update: Callable[[], None]) -> None:
                runner._on_ui_thread(update)

        library.write_gate = Gate()

        def restore() -> None:
            library.write_gate = None

        return restore

    def _on_ui_thread(self, update: Callable[[], None]) -> None:
        """Run ``update`` on the UI thread and wait for it (called on the worker)."""
        done = threading.Event()
        errors: list[BaseException] = []
        with self._pending_lock:
            self._pending.append((update, done, errors))
        self._signals.take_in.emit()
        done.wait()
        if errors:
            raise errors[0]

    @Slot()
    def _service(self) -> None:
        """Run the memory updates the worker handed over (UI thread)."""
        with self._pending_lock:
            pending, self._pending = self._pending, []
        for update, done, errors in pending:
            try:
                update()
            except BaseException as exc:  # handed back to the worker, which raises it
                errors.append(exc)
            finally:
                done.set()

    def _start_next(self) -> None:
        if self._current is not None:
            return
        while self._queue and self._queue[0].cancel_requested:
            self._finish_cancelled(self._queue.popleft())
        if not self._queue:
            self._update_busy()
            return
        ticket = self._queue.popleft()
        self._current = ticket
        ticket._set_phase(Phase.PREPARING)
        self._update_busy()
        self.started.emit(ticket)
        self._pool.start(_Job(self, ticket))

    def _drop_queued(self, ticket: OperationTicket) -> None:
        if ticket in self._queue:
            self._queue.remove(ticket)
            self._finish_cancelled(ticket)
            self._update_busy()

    def _finish_cancelled(self, ticket: OperationTicket) -> None:
        ticket.result = OperationResult(ticket.label, cancelled=True)
        ticket.ended.set()
        self._deliver(ticket)

    @Slot(object, str)
    def _on_phase(self, ticket: OperationTicket, phase: str) -> None:
        if not ticket.done:
            ticket.phaseChanged.emit(phase)

    @Slot(object)
    def _on_ended(self, ticket: OperationTicket) -> None:
        self._service()
        if ticket is self._current:
            self._current = None
            try:
                self._deliver(ticket)
            finally:
                self._start_next()

    def _wait_for(self, ticket: OperationTicket) -> OperationResult:
        while not ticket.done:
            current = self._current
            if current is None:
                self._start_next()
                if self._current is None:
                    break  # it was cancelled while queued (and delivered)
                continue
            while not current.ended.wait(SERVICE_EVERY_S):
                self._service()
            self._on_ended(current)
        assert ticket.result is not None
        return ticket.result

    def _deliver(self, ticket: OperationTicket) -> None:
        if ticket._delivered:
            return
        ticket._delivered = True
        ticket._set_phase(Phase.DONE)
        try:
            self._deliver_to(ticket)
        finally:
            assert ticket.result is not None
            try:
                ticket.finished.emit(ticket.result)
            finally:
                self._update_busy()

    def _update_busy(self) -> None:
        if self.busy != self._busy:
            self._busy = self.busy
            self.busyChanged.emit(self._busy)
