"""Usage tab: the co-occurrence heatmap, usage bars, RockBot's top pairs and curation signals.

Numbers are RockBot's (:mod:`rockskills_gui.core.usage.stats`): what the pane shows for the 30-day
window is what the dream pass tells the LLM. Computing a report (reading the log, counting,
clustering) runs on a worker thread unless the library is small enough for it to take well
under 50 ms; only the newest request's result is shown.

The pane is ``usage_layout``'s widgets (its base, as a Designer form would be) and parts that
own their state: ``usage_report_view`` (the report on screen, the sessions behind a cell,
export) and ``usage_signals_tab`` (the Signals list and its actions); ``usage_report_job`` is
the worker's computation. This module wires them, turns the controls into a request and
schedules it.

Signals:
    openSkillRequested(str): the user asked to open a skill (double-click): the window shows the
        Skill tab.
    updated(): a new report is on screen.
    reloadRequested(): the user pressed Reload log (the window then archives the log).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QDate, QTimer, Signal
from PySide6.QtGui import QHideEvent, QImage, QShowEvent
from PySide6.QtWidgets import QWidget

from rockskills_gui.core.library.formats import format_label
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.heap import give_back_freed_memory
from rockskills_gui.core.storage.layout import USAGE_DIR
from rockskills_gui.core.usage.archive_read import archive_bytes
from rockskills_gui.core.usage.events import EventLog, LogSignature, UsageEvent, usage_log_signature
from rockskills_gui.core.usage.heatmap import HeatmapOptions
from rockskills_gui.core.usage.matrix import Measure
from rockskills_gui.core.usage.matrix_order import Ordering
from rockskills_gui.core.usage.report import UsageReport, UsageRequest, compute
from rockskills_gui.core.usage.signals import SUGGEST_MIN_SESSIONS
from rockskills_gui.core.usage.stats import PairView, UsageStats, UsageWindow
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.queries import runs_inline
from rockskills_gui.ui.common.shown_refresh import show_tab
from rockskills_gui.ui.usage.usage_layout import DEFAULT_WINDOW, WINDOWS, UsageLayout
from rockskills_gui.ui.usage.usage_report_job import FREEZE_EVENTS, compute_report
from rockskills_gui.ui.usage.usage_report_view import NOTE_WIDTH, UsageReportView
from rockskills_gui.ui.usage.usage_signals_tab import ITEM_ROLE, SIGNALS_SHOWN, UsageSignalsTab
from rockskills_gui.ui.usage.usage_widgets import NAME_ROLE

WORKER_START_DELAY_MS = 60  # see refresh()
STALE_CHECK_MS = 3000  # how often a shown analysis checks the log on disk grew (stat only)
STAGED_FROM = 2_000  # usage-table rows from which a report is shown in parts (see _on_done)
STEP_GAP_MS = 15  # between those parts: room for other events (a repaint, a key press)
SIDE_SPLIT = 0.56  # the heatmap's share of the width beside the side tabs, at first

__all__ = [  # names that lived here before the pane was split (the shell and tests use some)
    "DEFAULT_WINDOW", "FREEZE_EVENTS", "ITEM_ROLE", "NOTE_WIDTH", "SIDE_SPLIT", "SIGNALS_SHOWN",
    "STAGED_FROM", "STALE_CHECK_MS", "STEP_GAP_MS",
    "WINDOWS", "WORKER_START_DELAY_MS", "UsageLayout", "UsagePane", "UsageReportView",
    "UsageSignalsTab", "no_usage_text",
]


def _date_timestamp(date: QDate) -> Timestamp:
    return Timestamp.parse(f"{date.year():04d}-{date.month():02d}-{date.day():02d}T00:00:00+00:00")


def _qdate(value: Timestamp) -> QDate:
    moment = value.to_datetime()
    return QDate(moment.year, moment.month, moment.day)


def no_usage_text(label: str) -> str:
    """What the heatmap says for a library format that keeps no usage events."""
    return (f"This {label} library has no usage log.\n\nRockBot records which skills each session "
            "used (skill-usage/*.jsonl); usage, co-occurrence and the heatmap are computed from "
            "it.\nConvert the library to RockBot (rockskills convert) and let an agent run to "
            "collect usage.")


class UsagePane(UsageLayout):
    """Heatmap with its controls and legend, beside usage bars, top pairs, sessions and signals."""

    openSkillRequested = Signal(str)
    updated = Signal()
    reloadRequested = Signal()  # the user asked to read the log again (the window archives it)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usagePane")
        self.ctx = ctx
        self._reports = ctx.channel(self, "usage report")  # (ctx.query: newest request wins)
        self._requests = 0  # requests made (a report staged in parts stops at a newer one)
        self._dirty = True
        self._sized = False
        self.force_async = False
        self._log: EventLog[UsageEvent] | None = None
        self._stats: UsageStats | None = None
        self._history: UsageStats | None = None
        self._now: Timestamp | None = None
        # The library's skills as the last request took them, until the library changes: copying
        # 100,000 of them for each new window or option held the UI thread 40-70 ms.
        self._skills: tuple[Skill, ...] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(40)
        self._timer.timeout.connect(self.refresh)
        # The log read for the analysis shown, and a look now and then whether it grew since.
        self._log_signature: LogSignature | None = None
        self._stale_timer = QTimer(self)
        self._stale_timer.setInterval(STALE_CHECK_MS)
        self._stale_timer.timeout.connect(self.check_log)

        self.signals_tab = UsageSignalsTab(ctx, self, self.open_skill)
        self.shown = UsageReportView(ctx, self, self.signals_tab)  # the report on screen
        self._wire()
        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- wiring

    def _wire(self) -> None:
        self.window_combo.currentIndexChanged.connect(self._on_window_changed)
        for edit in (self.date_from, self.date_to):
            edit.dateChanged.connect(self.schedule)
        for combo in (self.measure_combo, self.order_combo):
            combo.currentIndexChanged.connect(self.schedule)
        self.min_spin.valueChanged.connect(self.schedule)
        self.prefix_edit.textChanged.connect(self.schedule)
        self.hide_empty.toggled.connect(self.schedule)
        self.unused_spin.valueChanged.connect(self.schedule)
        self.links_check.toggled.connect(self.shown.on_links_toggled)
        self.zoom_in.clicked.connect(lambda: self.view.zoom(1))
        self.zoom_out.clicked.connect(lambda: self.view.zoom(-1))
        self.zoom_fit.clicked.connect(lambda: self.view.fit())
        self.reload_button.clicked.connect(self.reload)
        self.export_png_button.clicked.connect(self.shown.choose_png)
        self.export_csv_button.clicked.connect(self.shown.choose_csv)
        self.view.cellClicked.connect(self.shown.show_sessions)
        self.view.labelActivated.connect(self.open_skill)
        self.usage_table.doubleClicked.connect(
            lambda index: self.open_skill(index.data(NAME_ROLE)))
        self.resources_view.openSkillRequested.connect(self.open_skill)

    # ---------------------------------------------------------------- state → request

    def options(self) -> HeatmapOptions:
        return HeatmapOptions(
            measure=Measure(self.measure_combo.currentData()),
            ordering=Ordering(self.order_combo.currentData()),
            min_count=self.min_spin.value(),
            prefix=self.prefix_edit.text(),
            hide_empty=self.hide_empty.isChecked(),
        )

    def now(self) -> Timestamp:
        """The window's reference time: the library clock, read when the log was (re)loaded."""
        if self._now is None:
            library = self.ctx.library
            self._now = library.clock() if library is not None else Timestamp.now()
        return self._now

    def usage_window(self) -> UsageWindow:
        days = self.window_combo.currentData()
        if days == 0:
            return UsageWindow.all_time()
        if days == -1:
            start = _date_timestamp(self.date_from.date())
            end = _date_timestamp(self.date_to.date().addDays(1))
            return UsageWindow.between(start, end)
        return UsageWindow.last_days(self.now(), int(days))

    def set_window_days(self, days: int) -> None:
        """Choose a preset window (7, 14, 30, 90; 0 = all time)."""
        self.window_combo.setCurrentIndex(self.window_combo.findData(days))

    def set_date_range(self, first: QDate, last: QDate) -> None:
        self.date_from.blockSignals(True)
        self.date_from.setDate(first)
        self.date_from.blockSignals(False)
        self.date_to.setDate(last)
        self.window_combo.setCurrentIndex(self.window_combo.findData(-1))

    # ---------------------------------------------------------------- scheduling

    def _on_library_changed(self, library: Library | None) -> None:
        self._skills = None
        self._log = self._stats = self._history = None
        self._log_signature = None
        self._show_stale(False)
        self._now = None
        self.shown.report = None
        self.shown.fit_next = True
        if library is not None:
            now = self.now()
            self.date_from.blockSignals(True)
            self.date_to.blockSignals(True)
            self.date_from.setDate(_qdate(now.add_days(-DEFAULT_WINDOW)))
            self.date_to.setDate(_qdate(now))
            self.date_from.blockSignals(False)
            self.date_to.blockSignals(False)
        self.shown.show_nothing(library is not None)
        show_tab(self.side, self.resources_view, "Resources", shows(Part.RESOURCE_READS, library))
        self.resources_view.set_library(library)
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def _on_change_applied(self, change: ChangeSet) -> None:
        del change
        self._skills = None
        self._dirty = True
        if self.isVisible():
            self.schedule()

    def reload(self) -> None:
        """Read the usage log from disk again and recompute (windows end at the new now)."""
        self._log = self._stats = self._history = None
        self._now = None
        self._show_stale(False)
        self.resources_view.reload()
        self.refresh()
        self.reloadRequested.emit()

    def check_log(self) -> bool:
        """True (and the "out of date" note shown) when the usage log on disk is not the one the
        analysis was made from: events were appended, or files came or went."""
        library = self.ctx.library
        stale = (library is not None and self._log is not None
                 and self._log_signature is not None
                 and usage_log_signature(library.agent_dir) != self._log_signature)
        self._show_stale(stale)
        return stale

    def _show_stale(self, stale: bool) -> None:
        self.stale.setVisible(stale)
        self.reload_button.setText("Reload log (new events)" if stale else "Reload log")

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._stale_timer.stop()

    def schedule(self) -> None:
        """Recompute soon (controls changing quickly are coalesced)."""
        self._dirty = True
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._sized:  # the side tabs get a fair share once, the user decides after
            self._sized = True
            total = sum(self.splitter.sizes()) or self.width()
            self.splitter.setSizes([int(total * SIDE_SPLIT), total - int(total * SIDE_SPLIT)])
        if self._dirty:
            self.refresh()
        self.check_log()
        self._stale_timer.start()

    def _on_window_changed(self) -> None:
        ranged = self.window_combo.currentData() == -1
        self.date_from.setVisible(ranged)
        self.date_to.setVisible(ranged)
        self._stats = None
        self.schedule()

    def _request(self) -> UsageRequest | None:
        library = self.ctx.library
        if library is None:
            return None
        window = self.usage_window()
        stats = self._stats if self._stats is not None and self._stats.window == window else None
        if self._skills is None:
            self._skills = tuple(library.skills())
        return UsageRequest(
            agent_dir=library.agent_dir, skills=self._skills, now=self.now(),
            window=window, options=self.options(), unused_days=self.unused_spin.value(),
            suggest_min_sessions=max(SUGGEST_MIN_SESSIONS, self.min_spin.value()),
            log=self._log, stats=stats, history=self._history,
            table_sort=self.usage_model.sort_state)

    def _cheap(self, request: UsageRequest) -> bool:
        """The report is computed on the UI thread at once (the one policy: queries)."""
        if self.force_async:
            return False
        if request.log is not None:  # read already: counting only
            return runs_inline(usage_report_skill=len(request.skills),
                               usage_event=len(request.log.events))
        folder = request.agent_dir / USAGE_DIR
        try:
            size = sum(p.stat().st_size for p in folder.iterdir() if p.name.endswith(".jsonl"))
        except OSError:
            return False
        return runs_inline(usage_report_skill=len(request.skills),
                           usage_log_byte=size + archive_bytes(request.agent_dir))

    def refresh(self) -> None:
        """Recompute now: on this thread when cheap, else on a worker."""
        self._timer.stop()
        library = self.ctx.library
        if library is not None and not shows(Part.USAGE, library):
            self._dirty = False
            self.shown.show_nothing(False)
            self.view.empty_text = no_usage_text(format_label(library))
            self.view.update()
            self.summary.setText(f"No usage log: {format_label(library)} libraries do not record "
                                 "which skills each session used.")
            return
        self.view.empty_text = ""
        request = self._request()
        self._dirty = False
        if request is None:
            return
        if request.log is None:  # read afresh: what it reads is at least this new
            self._log_signature = usage_log_signature(request.agent_dir)
        self._forget_shown_pairs(request)
        self._requests += 1
        cheap = self._cheap(request)
        if not cheap:
            self.summary.setText("Computing…")
        # Off the UI thread, started after the pane has painted: a Python worker running
        # meanwhile makes each of the paint's calls into Python wait for the GIL (a tab switch
        # took 120-180 ms at 100,000).
        self.ctx.query(self, "usage report",
                       lambda _control: compute(request) if cheap else compute_report(request),
                       self._on_done, failure=self._on_failed, inline=cheap,
                       delay_ms=WORKER_START_DELAY_MS)

    def _forget_shown_pairs(self, request: UsageRequest) -> None:
        """A new window is analysed: the pairs counted for the one shown (up to millions; its top
        is on screen as text) are dropped before the new ones are counted, not held beside them.
        They are counted again if that window's statistics are asked for pairs once more."""
        report = self.report
        if report is None or request.stats is report.stats or request.history is report.stats:
            return
        report.stats.forget_pairs()
        report.pairs = PairView([], report.pairs.min_count, report.pairs.occurrences)

    def wait(self, msecs: int = -1) -> bool:
        """Block until no computation runs (for shutdown and tests; one waiting to start after
        the pane's paint starts now)."""
        return self._reports.wait(msecs)

    @property
    def busy(self) -> bool:
        return self._reports.busy

    def _on_done(self, report: UsageReport) -> None:
        request = self._requests
        self._log, self._stats, self._history = report.log, report.stats, report.history
        self.shown.report = report
        steps = self.shown.show_steps(report)
        if len(report.rows) < STAGED_FROM:
            for step in steps:
                step()
            self.updated.emit()
            return

        def next_step() -> None:  # a big report: one part per event, so the UI keeps breathing
            if request != self._requests or self.report is not report:
                return  # a newer request superseded this one
            steps.pop(0)()
            if steps:
                QTimer.singleShot(STEP_GAP_MS, self, next_step)
            else:
                # the report shown before, freed: its memory no longer resident (on a worker:
                # trimming a big heap takes 10-20 ms)
                self.ctx.query(self, "give back memory", lambda _c: give_back_freed_memory(),
                               lambda _none: None)
                self.updated.emit()

        next_step()

    def _on_failed(self, error: Exception) -> None:
        message = f"could not compute usage: {error!r}"
        self.summary.setText(message)
        self.ctx.status(message, 10000)

    # ---------------------------------------------------------------- the parts, as before

    @property
    def report(self) -> UsageReport | None:
        """The report on screen."""
        return self.shown.report

    def show_sessions(self, row: int, col: int, switch: bool = True) -> None:
        """List the sessions behind cell (row, col) in the Sessions tab."""
        self.shown.show_sessions(row, col, switch)

    def export_image(self) -> QImage:
        """The whole matrix with labels, the legend below it."""
        return self.shown.export_image()

    def export_png(self, path: Path | str) -> bool:
        return self.shown.export_png(path)

    def export_csv(self, path: Path | str) -> None:
        self.shown.export_csv(path)

    def add_link(self, referrer: str, target: str) -> None:
        """Append ``target`` to ``referrer``'s seeAlso (one undoable change)."""
        self.signals_tab.add_link(referrer, target)

    def remove_link(self, referrer: str, target: str) -> None:
        """Remove every ``target`` entry (case-insensitive) from ``referrer``'s seeAlso."""
        self.signals_tab.remove_link(referrer, target)

    # ---------------------------------------------------------------- interaction

    def open_skill(self, name: str | None) -> None:
        """Make ``name`` the current skill and ask the window to show the Skill tab."""
        if not name:
            return
        if self.ctx.select_skill(name):
            self.openSkillRequested.emit(name)
        else:
            self.ctx.status(f"'{name}' is not in the library (it was deleted; its events remain "
                            "in the usage log)", 8000)
