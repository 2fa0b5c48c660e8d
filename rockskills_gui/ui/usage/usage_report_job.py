"""The usage report computed off the UI thread (``ctx.query``: only the newest request's report
is shown)."""

from __future__ import annotations

import gc

from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.heap import give_back_freed_memory
from rockskills_gui.core.usage.report import UsageReport, UsageRequest, compute

FREEZE_EVENTS = 20_000  # usage events from which a report is frozen out of the collector's way


def compute_report(request: UsageRequest) -> UsageReport:
    """Compute one ``UsageRequest`` on a worker (no full garbage collections meanwhile)."""
    with gc_paused():  # 100,000 events and their analysis: no full collections meanwhile
        report = compute(request)
        if len(report.log.events) >= FREEZE_EVENTS:
            # Out of the collector's way before it runs again: the first full collection after
            # this burst walked every new object, 200 ms holding the GIL (a frozen UI).
            gc.freeze()
    give_back_freed_memory()  # the report's temporaries: resident no longer
    return report
