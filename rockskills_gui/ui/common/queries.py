"""One way to read in the background: a read-only job off the UI thread, newest request wins.

Modelled on Anki's ``QueryOp`` (ankitects/anki, ``qt/aqt/operations/__init__.py`` @0767754: a
non-mutating operation on a background thread, ``success`` called with its result on the UI
thread, an exception passed to ``failure`` or else reported once). What this adds is what a
pane that follows its library needs:

* **Newest request wins, per key.** Each (owner, key) has one :class:`QueryChannel`. A request
  makes every earlier one of that channel stale: one that waits is dropped without running, one
  that runs is asked to stop (``control.cancelled()``) and its result is dropped, never
  delivered. At most one job of a channel runs at a time; the newest request waits for it.
* **Progress and cancel.** The job gets a :class:`QueryControl`: ``progress(done, total)`` (at
  most every :data:`PROGRESS_EVERY_S`) or ``report(value)`` reach ``progress`` on the UI thread;
  ``cancelled()`` / ``cancel_event`` tell it to stop. :meth:`QueryChannel.cancel` forgets the
  requests (or, with ``keep_result``, only asks the job to stop early and still delivers what
  it returns: a dream run's partial plan).
* **Results on the UI thread**, to ``success``; an exception to ``failure``, or when there is
  none to the channel's reporter (``AppContext.query``: logged once with its traceback and
  shown in the status bar). A query whose owner was deleted delivers nothing.
* **One pool.** Every job runs on the application's one :class:`QThreadPool` (the global
  instance, :func:`shared_pool`); the operation runner (writes) and the library loader use it
  too. :func:`wait_idle` waits for all of them (shutdown), except jobs that only wait on the
  network (``detached``: an endpoint check may wait for its timeout; the app leaves without it).
* **One threshold policy**: :func:`runs_inline` decides, for every kind of work, whether it is
  cheap enough to do on the UI thread at once (the result then arrives before ``query``
  returns): its estimated time, from the per-item costs in :data:`COST_S`, under
  :data:`INLINE_BUDGET_S`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot

T = TypeVar("T")
log = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.05  # at most ~20 progress reports a second reach the UI thread
POOL_THREADS = 16  # the shared pool's ceiling: each channel runs one job at a time, so this is
#                    how many channels may read at once (threads are made on demand, end idle)

# ---------------------------------------------------------------- the one threshold policy

# Work estimated to take less than this runs on the UI thread at once (no worker, no busy state):
# below it a user cannot tell the difference, above it the UI would stall visibly.
INLINE_BUDGET_S = 0.05
# The cost of one unit of each kind of work, measured on a laptop of 2023 (tests/benchmarks:
# bench_recall.py for the index, bench_usage_memory.py for the report). Each is the budget over
# the size that was the pane's own threshold before there was one policy: 2,000 skills for a
# recall index; 250 skills, 256 KiB of usage log or 5,000 events read for a usage report.
COST_S: dict[str, float] = {
    "recall-index-skill": INLINE_BUDGET_S / 2_000,  # BM25 index or comparison model, per skill
    "usage-report-skill": INLINE_BUDGET_S / 250,  # usage analysis (pairs, matrix), per skill
    "usage-log-byte": INLINE_BUDGET_S / (256 * 1024),  # reading and counting usage events
    "usage-event": INLINE_BUDGET_S / 5_000,  # counting events already read
}


def runs_inline(**amounts: int) -> bool:
    """Whether work of these amounts (``unit=count`` for units of :data:`COST_S`, dashes as
    underscores) is cheap enough for the UI thread: each amount's estimated time within
    :data:`INLINE_BUDGET_S` (each bounds a different resource, so each must fit)."""
    return all(count * COST_S[unit.replace("_", "-")] <= INLINE_BUDGET_S
               for unit, count in amounts.items())


# ---------------------------------------------------------------- back to the UI thread


class _Dispatcher(QObject):
    """Carries calls from workers to the UI thread. It lives as long as the program (it is
    never deleted), so a worker can always post to it, even while the object the call is for is
    being deleted on the UI thread: emitting on that object's own signals then would race its
    deletion (a crash); the UI thread checks the object is still there before the call."""

    call = Signal(object, object)  # the QObject the call is for, the call

    def __init__(self) -> None:
        super().__init__()
        self.call.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _run(self, target: QObject, call: Callable[[], None]) -> None:
        if shiboken6.isValid(target):
            call()


_dispatcher: _Dispatcher | None = None


def _the_dispatcher() -> _Dispatcher:
    """The dispatcher (made by the first :func:`submit`, on the UI thread: it lives there)."""
    global _dispatcher
    if _dispatcher is None:
        _dispatcher = _Dispatcher()
    return _dispatcher


def post(target: QObject, call: Callable[[], None]) -> None:
    """Run ``call()`` on the UI thread, unless ``target`` was deleted by then (from any thread,
    once a job was submitted)."""
    _the_dispatcher().call.emit(target, call)


# ---------------------------------------------------------------- the one pool


class _Tasks:
    """The jobs started on the shared pool and not yet ended (for :func:`wait_idle`), and those
    not yet running (for :func:`drop_queued`)."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.attached = 0
        self.queued: set[_Task] = set()


_TASKS = _Tasks()
_pool_ready = False


def shared_pool() -> QThreadPool:
    """The application's one thread pool (Qt's global instance, with room for every channel)."""
    global _pool_ready
    pool = QThreadPool.globalInstance()
    if not _pool_ready:
        _pool_ready = True
        pool.setMaxThreadCount(max(pool.maxThreadCount(), POOL_THREADS))
    return pool


class _Task(QRunnable):
    def __init__(self, work: Callable[[], None], detached: bool,
                 dropped: Callable[[], None] | None) -> None:
        super().__init__()
        self.work = work
        self.detached = detached
        self.dropped = dropped

    def run(self) -> None:
        with _TASKS.lock:
            _TASKS.queued.discard(self)
        try:
            self.work()
        finally:
            _ended(self)


def _ended(task: _Task) -> None:
    if not task.detached:
        with _TASKS.lock:
            _TASKS.attached -= 1
            _TASKS.lock.notify_all()


def submit(work: Callable[[], None], detached: bool = False,
           dropped: Callable[[], None] | None = None) -> None:
    """Run ``work()`` on the shared pool. ``work`` must not raise (a job reports its own errors);
    ``detached``: :func:`wait_idle` does not wait for it (it waits on the network); ``dropped``:
    called instead if :func:`drop_queued` takes it off the pool before it started (without it,
    the job is never dropped: it runs)."""
    _the_dispatcher()  # (made on this, the UI, thread)
    task = _Task(work, detached, dropped)
    with _TASKS.lock:
        _TASKS.attached += 0 if detached else 1
        _TASKS.queued.add(task)
    shared_pool().start(task)


def drop_queued() -> int:
    """Take every job that has not started off the pool (shutdown: they never run; their
    channels deliver nothing). Returns how many were dropped."""
    pool = shared_pool()
    with _TASKS.lock:
        waiting = [task for task in _TASKS.queued if task.dropped is not None]
    dropped = 0
    for task in waiting:
        if pool.tryTake(task):
            with _TASKS.lock:
                _TASKS.queued.discard(task)
            if task.dropped is not None:
                task.dropped()
            _ended(task)
            dropped += 1
    return dropped


def wait_idle(msecs: int = -1) -> bool:
    """Block until every job not ``detached`` has ended (shutdown, tests); False on timeout."""
    deadline = None if msecs < 0 else time.monotonic() + msecs / 1000
    with _TASKS.lock:
        while _TASKS.attached:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            _TASKS.lock.wait(left)
    return True


# ---------------------------------------------------------------- one job


class QueryCancelled(Exception):
    """Raised by :meth:`QueryControl.check` in a job asked to stop (its result is dropped)."""


class QueryControl:
    """What a job gets on the worker: report progress, notice it was asked to stop."""

    def __init__(self, report: Callable[[object], None]) -> None:
        self.cancel_event = threading.Event()
        self._report = report
        self._last = 0.0

    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def check(self) -> None:
        """Raise :class:`QueryCancelled` when asked to stop."""
        if self.cancel_event.is_set():
            raise QueryCancelled

    def report(self, value: object) -> None:
        """Hand ``value`` to the query's ``progress`` (on the UI thread, if still current)."""
        self._report(value)

    def progress(self, done: int, total: int) -> None:
        """``report((done, total))``, at most every :data:`PROGRESS_EVERY_S` (and at 0 and the
        end: a long loop does not flood the UI thread)."""
        now = time.monotonic()
        if done in (0, total) or now - self._last >= PROGRESS_EVERY_S:
            self._last = now
            self._report((done, total))


class _Job(Generic[T]):
    """One request: its operation, callbacks and outcome (set on the worker, read on the UI
    thread after ``ended`` is set)."""

    def __init__(self, ticket: int, op: Callable[[QueryControl], T],
                 success: Callable[[T], object], failure: Callable[[Exception], object] | None,
                 progress: Callable[[object], object] | None,
                 report: Callable[[_Job[T], object], None]) -> None:
        self.ticket = ticket
        self.op = op
        self.success = success
        self.failure = failure
        self.on_progress = progress
        self.control = QueryControl(lambda value: report(self, value))
        self.keep_result = False  # cancelled early, but what it returns is still delivered
        self.result: T | None = None
        self.error: Exception | None = None
        self.ended = threading.Event()

    def execute(self) -> None:
        try:
            self.result = self.op(self.control)
        except Exception as exc:  # delivered (or reported) on the UI thread, never lost here
            self.error = exc
        finally:
            self.ended.set()


# ---------------------------------------------------------------- one key


class QueryChannel(QObject):
    """The requests of one (owner, key): a child of the owner, so that nothing is delivered to
    an owner that is gone. Made by :func:`channel` (``AppContext.query``).

    Signals:
        busyChanged(bool): a request waits or runs (True), or the newest was delivered or
            cancelled (False).
    """

    busyChanged = Signal(bool)

    def __init__(self, owner: QObject, key: str,
                 report_error: Callable[[str, Exception], None] | None = None,
                 detached: bool = False) -> None:
        super().__init__(owner)
        self.setObjectName(f"query:{key}")
        self.key = key
        self.detached = detached
        self.report_error = report_error
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        self._ticket = 0
        self._waiting: _Job[Any] | None = None
        self._running: _Job[Any] | None = None
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    def request(self, op: Callable[[QueryControl], T], success: Callable[[T], object], *,
                failure: Callable[[Exception], object] | None = None,
                progress: Callable[[object], object] | None = None,
                delay_ms: int = 0, inline: bool = False) -> None:
        """Run ``op(control)`` off the UI thread (after ``delay_ms`` without a newer request;
        on this thread now when ``inline``) and hand its result to ``success``."""
        self._ticket += 1
        job: _Job[T] = _Job(self._ticket, op, success, failure, progress, self._emit_progress)
        if self._running is not None:
            self._running.control.cancel_event.set()  # stale now: stop early if it can
        if inline:
            self._timer.stop()
            self._waiting = None
            job.execute()
            self._set_busy(False)
            self._deliver(job)
            return
        self._waiting = job
        self._set_busy(True)
        if delay_ms > 0:
            self._timer.start(delay_ms)
        else:
            self._timer.stop()
            self._start()

    def cancel(self, keep_result: bool = False) -> None:
        """Forget every request: nothing waiting starts, the running job is asked to stop and
        its result dropped. ``keep_result``: only ask the running job to stop early; what it
        returns is still delivered (and nothing waiting is dropped)."""
        running = self._running
        if keep_result:
            if running is not None and running.ticket == self._ticket:
                running.keep_result = True
                running.control.cancel_event.set()
            return
        self._ticket += 1
        self._waiting = None
        self._timer.stop()
        if running is not None:
            running.control.cancel_event.set()
        self._set_busy(False)

    def wait(self, msecs: int = -1) -> bool:
        """Block until no job of this channel waits or runs (a waiting one is started now; its
        result is delivered when the event loop next runs). For shutdown and tests."""
        deadline = None if msecs < 0 else time.monotonic() + msecs / 1000
        while True:
            running = self._running
            if running is None:
                if self._waiting is None:
                    return True
                self._timer.stop()
                self._start()
                continue
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not running.ended.wait(left):
                return False
            self._running = None  # (its delivery, if current, still comes through _on_ended)
            if self._waiting is None:
                return True

    # ---------------------------------------------------------------- inside

    def _start(self) -> None:
        if self._running is not None or self._waiting is None:
            return  # the running job's end starts the waiting one
        job, self._waiting = self._waiting, None
        self._running = job

        def work() -> None:
            job.execute()
            post(self, lambda: self._on_ended(job))  # (not if the owner was deleted meanwhile)

        def dropped() -> None:  # (shutdown) it never runs: nothing to wait for or deliver
            job.control.cancel_event.set()
            job.ended.set()
            post(self, lambda: self._on_ended(job))  # (the channel takes requests again)

        submit(work, self.detached, dropped)

    def _emit_progress(self, job: _Job[T], value: object) -> None:
        if job.on_progress is not None and job.ticket == self._ticket:
            post(self, lambda: self._on_progress(job, value))

    def _on_progress(self, job: _Job[Any], value: object) -> None:
        if job.ticket == self._ticket and job.on_progress is not None:
            job.on_progress(value)

    def _on_ended(self, job: _Job[Any]) -> None:
        if self._running is job:
            self._running = None
        if job.ticket == self._ticket:
            if self._waiting is None:
                self._set_busy(False)
            self._deliver(job)
        if self._waiting is not None and self._running is None and not self._timer.isActive():
            self._start()

    def _deliver(self, job: _Job[Any]) -> None:
        """The job's outcome, once, on the UI thread (a cancelled job's: only when kept)."""
        if job.control.cancelled() and not job.keep_result:
            return
        if job.error is None:
            job.success(job.result)
        elif isinstance(job.error, QueryCancelled):
            return
        elif job.failure is not None:
            job.failure(job.error)
        elif self.report_error is not None:
            self.report_error(self.key, job.error)
        else:
            log.error("background query %r failed", self.key, exc_info=job.error)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)


def channel(owner: QObject, key: str, report_error: Callable[[str, Exception], None] | None = None,
            detached: bool = False) -> QueryChannel:
    """The channel of ``key`` on ``owner`` (made on first use, a child of ``owner``)."""
    found = owner.findChild(QueryChannel, f"query:{key}", Qt.FindChildOption.FindDirectChildrenOnly)
    if isinstance(found, QueryChannel):
        return found
    return QueryChannel(owner, key, report_error, detached)
