"""The usage report computed off the UI thread: one job per request, its result (or failure)
handed back by ticket so that only the newest request's report is shown."""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QRunnable, Signal, SignalInstance

from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.heap import give_back_freed_memory
from rockskills_gui.core.usage.report import UsageRequest, compute

FREEZE_EVENTS = 20_000  # usage events from which a report is frozen out of the collector's way


class ReportSignals(QObject):
    """A job's outcome on the UI thread: done(ticket, report) or failed(ticket, message)."""

    done = Signal(int, object)
    failed = Signal(int, str)


class ReportJob(QRunnable):
    """Compute one ``UsageRequest`` (no full garbage collections meanwhile)."""

    def __init__(self, ticket: int, request: UsageRequest, signals: ReportSignals) -> None:
        super().__init__()
        self.ticket, self.request, self.signals = ticket, request, signals

    def run(self) -> None:
        try:
            with gc_paused():  # 100,000 events and their analysis: no full collections meanwhile
                report = compute(self.request)
                if len(report.log.events) >= FREEZE_EVENTS:
                    # Out of the collector's way before it runs again: the first full collection
                    # after this burst walked every new object, 200 ms holding the GIL (a frozen UI).
                    gc.freeze()
            give_back_freed_memory()  # the report's temporaries: resident no longer
        except Exception as exc:  # a bug must not kill the worker silently
            self._emit(self.signals.failed, f"could not compute usage: {exc!r}")
        else:
            self._emit(self.signals.done, report)

    def _emit(self, signal: SignalInstance, value: object) -> None:
        try:
            signal.emit(self.ticket, value)
        except RuntimeError:  # the pane is gone
            pass
