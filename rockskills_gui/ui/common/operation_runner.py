"""One way to run an operation: a core operation on the open library, on the UI thread or on a
worker, one at a time, with a phase the UI shows, a cancel that never interrupts a write, and a
typed result delivered on the UI thread.

The library object is not thread-safe, so the runner keeps three rules:

* **One at a time.** Operations run in submission order, one after the other, on the app's one
  thread pool (:func:`~rockskills_gui.ui.common.queries.submit`); an operation asked
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

The runner takes part through the library's ``write_gate`` (core ``library_base.WriteGate``, a
``core.storage.progress.Progress``), set for the duration of one off-thread run: the long core
operations report how far they are to it ("Checking 12,000 of 100,000 files", "Writing 40 of
500") and ask it whether to stop while they only read; the one writer every operation goes
through tells it before it writes and hands it the in-memory update; the core knows nothing of
threads or Qt. Reports reach the UI thread at most every :data:`PROGRESS_EVERY_S` (and at each
phase's start and end), so a loop over 100,000 files does not flood the event queue.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from rockskills_gui.core.storage.changes import ChangeSet, LibraryError
from rockskills_gui.core.storage.progress import Cancelled
from rockskills_gui.ui.common.queries import post, submit

# Above this many skills (a bulk move or delete) or files (an undo or redo) an operation runs off
# the UI thread. A journaled write costs about 0.5-1 ms a file, so below it the work takes under
# about 0.1 s and the simpler synchronous path (result at once, no busy state) is kept.
# Measured by tests/benchmarks/bench_operation_runner.py.
LONG_CHANGE = 100
SERVICE_EVERY_S = 0.005  # how often a UI thread waiting for the worker applies its memory updates
PROGRESS_EVERY_S = 0.05  # at most ~20 progress updates a second reach the UI thread
log = logging.getLogger(__name__)


class Phase(Enum):
    QUEUED = "queued"
    PREPARING = "preparing"  # reading and checking; cancel still possible
    WRITING = "writing"  # files are being written and journaled; cannot be interrupted
    DONE = "done"


class OperationCancelled(Cancelled):
    """Raised inside a cancelled operation while it still only reads, at the latest just before
    it would have written anything (the core's :class:`Cancelled`)."""


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
        progressChanged(str, int, int): what the operation reported (its phase's text, e.g.
            "Checking", and done of total files), throttled; ``done`` never goes down within a
            phase.
        finished(object): its :class:`OperationResult`, on the UI thread, after the context
            emitted the library signals (``changeApplied``, ``historyChanged``, ...).
    """

    phaseChanged = Signal(str)
    progressChanged = Signal(str, int, int)
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
        self.progress: tuple[str, int, int] | None = None  # the last report shown (UI thread)
        self._lock = threading.Lock()
        self._delivered = False
        self._latest: tuple[str, int, int] | None = None  # the worker's newest report
        self._reported: tuple[str, int, int] | None = None  # the last report sent (worker)
        self._reported_at = 0.0
        self._catch_up: QTimer | None = None  # a look at the newest report (UI thread)

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

    def _report(self, phase: str, done: int, total: int) -> None:
        """A progress report from the worker: passed on to the UI thread when its phase is new,
        when the phase is complete, or :data:`PROGRESS_EVERY_S` after the last one passed on (the
        UI thread looks at the newest one a moment after each, so a pause shows where it is)."""
        self._latest = (phase, done, total)
        last = self._reported
        now = time.monotonic()
        if last is not None and last[0] == phase and done != total \
                and now - self._reported_at < PROGRESS_EVERY_S:
            return
        self._reported = (phase, done, total)
        self._reported_at = now
        runner = self.runner
        post(runner, lambda: runner._on_progress(self, phase, done, total))

    def _check(self) -> None:
        """Called on the worker while it only reads: stop here if a cancel was asked."""
        if self.cancel_requested and self.phase is Phase.PREPARING:
            raise OperationCancelled(self.label)

    def _begin_write(self) -> None:
        """Called on the worker as the write starts: cancel is refused from here on."""
        with self._lock:
            if self.cancel_requested:
                raise OperationCancelled(self.label)
            if self.phase is Phase.PREPARING:
                self.phase = Phase.WRITING
                runner = self.runner
                post(runner, lambda: runner._on_phase(self, Phase.WRITING.value))

    def _show_progress(self, report: tuple[str, int, int]) -> None:
        self.progress = report
        self.progressChanged.emit(*report)

    def _set_phase(self, phase: Phase) -> None:
        self.phase = phase
        self.phaseChanged.emit(phase.value)


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
        except Cancelled:
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
            def report(self, phase: str, done: int, total: int) -> None:
                ticket._report(phase, done, total)

            def check(self) -> None:
                ticket._check()

            def begin_write(self) -> None:
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
        post(self, self._service)
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
        submit(lambda: self._run_off_thread(ticket))  # the app's one pool (ui.common.queries)

    def _run_off_thread(self, ticket: OperationTicket) -> None:
        """The worker's part: one operation (the runner's queue keeps them one at a time)."""
        try:
            ticket.worker_thread = threading.get_ident()
            ticket.result = self._execute(ticket)
        finally:
            ticket.ended.set()
            post(self, lambda: self._on_ended(ticket))

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

    @Slot(object, str, int, int)
    def _on_progress(self, ticket: OperationTicket, phase: str, done: int, total: int) -> None:
        if ticket.done:
            return
        shown = ticket.progress
        if shown is not None and shown[0] == phase and shown[2] == total and done < shown[1]:
            return  # sent before the newest one, which a catch-up already showed: never back
        ticket._show_progress((phase, done, total))
        timer = ticket._catch_up
        if timer is None:  # one look at the newest report a moment after the last one passed on
            timer = ticket._catch_up = QTimer(ticket)
            timer.setSingleShot(True)
            timer.setTimerType(Qt.TimerType.PreciseTimer)
            timer.setInterval(int(PROGRESS_EVERY_S * 1500))  # the throttle's window, and then some
            timer.timeout.connect(lambda: self._caught_up(ticket))
        timer.start()  # (again): the reports the throttle held back are all older than this

    def _caught_up(self, ticket: OperationTicket) -> None:
        """Show the worker's newest report when it went further in the phase shown (the reports
        after the last one passed on were held back by the throttle, e.g. before a pause)."""
        latest, shown = ticket._latest, ticket.progress
        if ticket.done or latest is None or shown is None:
            return
        if latest[0] == shown[0] and latest[2] == shown[2] and latest[1] > shown[1]:
            ticket._show_progress(latest)

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
