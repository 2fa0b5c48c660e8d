"""Issue 29: one way to read in the background (``AppContext.query``, ui/common/queries.py).

Newest request wins per key, cancel, progress and errors on the UI thread (errors reported
once), nothing delivered to an owner that is gone, one threshold policy, and one thread pool for
the whole window: every background read of the panes runs on it."""

from __future__ import annotations

import gc
import logging
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QThreadPool
from PySide6.QtWidgets import QApplication

from rockskills_gui.ui.common import queries
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.queries import QueryControl, runs_inline, shared_pool, wait_idle
from tests.ui.conftest import open_window

WAIT_S = 10


def blocked_until(release: threading.Event, value: object):  # type: ignore[no-untyped-def]
    def op(control: QueryControl) -> object:
        assert release.wait(WAIT_S)
        return value
    return op


def test_the_newest_request_wins_and_older_ones_are_never_delivered(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    release = threading.Event()
    got: list[object] = []
    started: list[object] = []

    def op(value: object):  # type: ignore[no-untyped-def]
        def run(control: QueryControl) -> object:
            started.append(value)
            assert release.wait(WAIT_S)
            return value
        return run

    channel = ctx.query(owner, "k", op("first"), got.append)
    qtbot.waitUntil(lambda: started == ["first"], timeout=5000)
    for value in ("second", "third", "fourth"):
        ctx.query(owner, "k", op(value), got.append)
    assert channel.busy
    release.set()
    qtbot.waitUntil(lambda: not channel.busy, timeout=5000)
    assert got == ["fourth"]
    assert started == ["first", "fourth"]  # the ones between never ran: only the newest waits
    other: list[object] = []
    ctx.query(owner, "other key", lambda c: "own", other.append).wait(5000)
    qtbot.waitUntil(lambda: other == ["own"], timeout=5000)  # keys are independent
    assert got == ["fourth"]


def test_cancel_stops_the_running_job_and_drops_its_result(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    seen_cancel = threading.Event()
    got: list[object] = []

    def op(control: QueryControl) -> str:
        while not control.cancelled():
            control.cancel_event.wait(0.01)
        seen_cancel.set()
        return "late"

    channel = ctx.query(owner, "k", op, got.append)
    busy: list[bool] = []
    channel.busyChanged.connect(busy.append)
    channel.cancel()
    assert not channel.busy and busy == [False]
    assert seen_cancel.wait(WAIT_S)  # the job saw it and stopped
    assert channel.wait(5000)
    qtbot.wait(50)
    assert got == []


def test_cancel_keeping_the_result_delivers_what_the_job_returns(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    got: list[object] = []

    def op(control: QueryControl) -> str:
        control.cancel_event.wait(WAIT_S)
        return "partial" if control.cancelled() else "whole"

    channel = ctx.query(owner, "k", op, got.append)
    channel.cancel(keep_result=True)
    qtbot.waitUntil(lambda: got == ["partial"], timeout=5000)
    assert not channel.busy


def test_results_errors_and_progress_arrive_on_the_ui_thread(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    ui = threading.current_thread()
    where: dict[str, threading.Thread] = {}
    worker: list[threading.Thread] = []
    failures: list[Exception] = []
    reports: list[object] = []

    def failing(control: QueryControl) -> None:
        worker.append(threading.current_thread())
        control.report("half way")
        raise ValueError("unreadable")

    def failed(error: Exception) -> None:
        where["failure"] = threading.current_thread()
        failures.append(error)

    def progressed(value: object) -> None:
        where["progress"] = threading.current_thread()
        reports.append(value)

    ctx.query(owner, "k", failing, lambda _r: None, failure=failed, progress=progressed)
    qtbot.waitUntil(lambda: bool(failures), timeout=5000)
    assert [str(e) for e in failures] == ["unreadable"] and reports == ["half way"]
    assert worker[0] is not ui and where == {"failure": ui, "progress": ui}
    ctx.query(owner, "k", lambda c: threading.current_thread(),
              lambda thread: where.update(success=threading.current_thread(), worker=thread))
    qtbot.waitUntil(lambda: "success" in where, timeout=5000)
    assert where["success"] is ui and where["worker"] is not ui


def test_an_error_without_a_failure_handler_is_reported_once(qtbot, caplog) -> None:
    ctx, owner = AppContext(), QObject()
    messages: list[str] = []
    ctx.statusMessage.connect(lambda text, _ms: messages.append(text))
    caplog.set_level(logging.ERROR)
    channel = ctx.query(owner, "usage", lambda c: 1 / 0, lambda _r: None)
    qtbot.waitUntil(lambda: not channel.busy, timeout=5000)
    qtbot.wait(50)
    assert len(messages) == 1 and "ZeroDivisionError" in messages[0]
    records = [r for r in caplog.records if "usage" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is not None  # with its traceback


def test_an_owner_deleted_meanwhile_gets_nothing(qtbot) -> None:
    ctx = AppContext()
    owner = QObject()
    release = threading.Event()
    got: list[object] = []
    ctx.query(owner, "k", blocked_until(release, "x"), got.append)
    owner.deleteLater()
    QApplication.processEvents()
    release.set()
    assert wait_idle(5000)
    qtbot.wait(50)
    assert got == []


def test_an_inline_request_is_delivered_before_query_returns_and_outdates_a_running_one(
        qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    release = threading.Event()
    got: list[object] = []
    channel = ctx.query(owner, "k", blocked_until(release, "slow"), got.append)
    ctx.query(owner, "k", lambda c: "now", got.append, inline=True)
    assert got == ["now"] and not channel.busy
    release.set()
    assert channel.wait(5000)
    qtbot.wait(50)
    assert got == ["now"]


def test_a_delayed_request_waits_for_a_pause_in_requests(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    runs: list[int] = []
    for k in range(5):
        channel = ctx.query(owner, "k", lambda c, k=k: runs.append(k) or k, lambda _r: None,
                            delay_ms=30)
    qtbot.waitUntil(lambda: not channel.busy, timeout=5000)
    assert runs == [4]


def test_one_threshold_policy_keeps_each_pane_s_old_threshold() -> None:
    assert runs_inline(recall_index_skill=2_000) and not runs_inline(recall_index_skill=2_001)
    assert runs_inline(usage_report_skill=250) and not runs_inline(usage_report_skill=251)
    assert runs_inline(usage_report_skill=10, usage_log_byte=256 * 1024)
    assert not runs_inline(usage_report_skill=10, usage_log_byte=256 * 1024 + 1)


def test_wait_idle_waits_for_every_job_but_the_detached_ones(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    network = threading.Event()
    ctx.query(owner, "endpoint", blocked_until(network, 1), lambda _r: None, detached=True)
    release = threading.Event()
    ctx.query(owner, "read", blocked_until(release, 2), lambda _r: None)
    assert not wait_idle(100)  # the attached read still runs
    release.set()
    assert wait_idle(5000)  # the detached one (waiting on its server) does not hold it up
    network.set()


def test_at_shutdown_queued_jobs_are_dropped_and_nothing_waits_for_them(qtbot) -> None:
    ctx, owner = AppContext(), QObject()
    release = threading.Event()
    started = threading.Semaphore(0)
    ceiling = shared_pool().maxThreadCount()

    def hold(control: QueryControl) -> None:
        started.release()
        assert release.wait(WAIT_S)

    owners = [QObject() for _ in range(ceiling)]
    for each in owners:  # every thread of the pool busy
        ctx.query(each, "hold", hold, lambda _r: None)
    for _ in range(ceiling):
        assert started.acquire(timeout=WAIT_S)
    ran: list[object] = []
    queued = ctx.query(owner, "late", lambda c: ran.append("ran"), lambda _r: None)
    assert queries.drop_queued() == 1
    assert queued.wait(1000)  # nothing left to wait for
    release.set()
    assert wait_idle(5000)
    qtbot.waitUntil(lambda: not queued.busy, timeout=5000)  # it takes requests again
    assert ran == []


def thread_count() -> int:
    return len(list(Path("/proc/self/task").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads through /proc")
def test_every_background_read_runs_on_the_one_pool(qtbot, agent: Path) -> None:
    """Load a library, show every tab, lint: the only thread pool is the application's one, and
    40 channels reading at once add no more threads than its ceiling."""
    window = open_window(qtbot, agent)
    window.finish_startup()
    for pane in ("recall", "heatmap", "editor"):
        window.show_pane(pane)
    _ = window.budget_pane
    window.problems_pane.request_lint(now=True)
    window.library_pane.wait_for_usage()
    assert wait_idle(20_000)
    QApplication.processEvents()
    shared = QThreadPool.globalInstance()
    assert shared_pool() is shared or shared_pool() == shared
    others = [p for p in gc.get_objects() if isinstance(p, QThreadPool) and p != shared]
    assert others == []  # (before issue 29: 15 of them, one per pane and job kind)

    before = thread_count()
    release = threading.Event()
    running = threading.Semaphore(0)
    owners = [QObject() for _ in range(40)]
    for owner in owners:
        def op(control: QueryControl) -> int:
            running.release()
            assert release.wait(WAIT_S)
            return threading.get_ident()
        window.ctx.query(owner, "read", op, lambda _r: None)
    ceiling = shared_pool().maxThreadCount()
    for _ in range(ceiling):
        assert running.acquire(timeout=WAIT_S)
    assert thread_count() - before <= ceiling
    assert shared_pool().activeThreadCount() <= ceiling
    release.set()
    assert wait_idle(20_000)
    assert queries.POOL_THREADS <= ceiling
