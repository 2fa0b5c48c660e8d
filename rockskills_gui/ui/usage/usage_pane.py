"""Usage tab: the co-occurrence heatmap, usage bars, RockBot's top pairs and curation signals.

Numbers are RockBot's (:mod:`rockskills_gui.core.usage.stats`): what the pane shows for the 30-day
window is what the dream pass tells the LLM. Computing a report (reading the log, counting,
clustering) runs on a worker thread unless the library is small enough for it to take well
under 50 ms; only the newest request's result is shown.

The pane's parts: ``usage_layout`` (the widgets), ``usage_report_job`` (the worker),
``usage_report_view`` (showing a report, the sessions behind a cell, export) and
``usage_signals_tab`` (the Signals list and its actions); this module wires them, turns the
controls into a request and schedules it.

Signals:
    openSkillRequested(str): the user asked to open a skill (double-click): the window shows the
        Skill tab.
    updated(): a new report is on screen.
"""

from __future__ import annotations

from PySide6.QtCore import QDate, QThreadPool, QTimer, Signal, Slot
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QWidget

from rockskills_gui.core.library.formats import format_label
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.heap import give_back_freed_memory
from rockskills_gui.core.storage.layout import USAGE_DIR
from rockskills_gui.core.usage.events import EventLog, LogSignature, UsageEvent, usage_log_signature
from rockskills_gui.core.usage.heatmap import HeatmapOptions
from rockskills_gui.core.usage.matrix import Measure
from rockskills_gui.core.usage.matrix_order import Ordering
from rockskills_gui.core.usage.report import UsageReport, UsageRequest, compute
from rockskills_gui.core.usage.signals import SUGGEST_MIN_SESSIONS
from rockskills_gui.core.usage.stats import PairView, UsageStats, UsageWindow
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.shown_refresh import show_tab
from rockskills_gui.ui.usage.usage_layout import DEFAULT_WINDOW, WINDOWS, UsageLayout
from rockskills_gui.ui.usage.usage_report_job import FREEZE_EVENTS, ReportJob, ReportSignals
from rockskills_gui.ui.usage.usage_report_view import NOTE_WIDTH, UsageReportView
from rockskills_gui.ui.usage.usage_signals_tab import ITEM_ROLE, SIGNALS_SHOWN, UsageSignalsTab
from rockskills_gui.ui.usage.usage_widgets import NAME_ROLE

SYNC_MAX_LOG_BYTES = 256 * 1024  # below this (and SYNC_MAX_SKILLS) a report takes well under 50 ms
SYNC_MAX_SKILLS = 250
WORKER_START_DELAY_MS = 60  # see refresh()
STALE_CHECK_MS = 3000  # how often a shown analysis checks the log on disk grew (stat only)
STAGED_FROM = 2_000  # usage-table rows from which a report is shown in parts (see _on_done)
STEP_GAP_MS = 15  # between those parts: room for other events (a repaint, a key press)
SIDE_SPLIT = 0.56  # the heatmap's share of the width beside the side tabs, at first

__all__ = [  # names that lived here before the pane was split (the shell and tests use some)
    "DEFAULT_WINDOW", "FREEZE_EVENTS", "ITEM_ROLE", "NOTE_WIDTH", "SIDE_SPLIT", "SIGNALS_SHOWN",
    "STAGED_FROM", "STALE_CHECK_MS", "STEP_GAP_MS", "SYNC_MAX_LOG_BYTES", "SYNC_MAX_SKILLS",
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


class UsagePane(UsageReportView, UsageSignalsTab, QWidget):
    """Heatmap with its controls and legend, beside usage bars, top pairs, sessions and signals."""

    openSkillRequested = Signal(str)
    updated = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usagePane")
        self.ctx = ctx
        self.pool = QThreadPool(self)  # created before the signals object: destroyed first, waits
        self._signals = ReportSignals(self)
        self._signals.done.connect(self._on_done)
        self._signals.failed.connect(self._on_failed)
        self._ticket = 0
        self._busy = False
        self._pending_job: ReportJob | None = None  # see refresh()
        self._dirty = True
        self._fit_next = True
        self._sized = False
        self.force_async = False
        self.report: UsageReport | None = None
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

        self._build_controls()
        self._build_body()
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
        self.links_check.toggled.connect(self._on_links_toggled)
        self.zoom_in.clicked.connect(lambda: self.view.zoom(1))
        self.zoom_out.clicked.connect(lambda: self.view.zoom(-1))
        self.zoom_fit.clicked.connect(lambda: self.view.fit())
        self.reload_button.clicked.connect(self.reload)
        self.export_png_button.clicked.connect(self._choose_png)
        self.export_csv_button.clicked.connect(self._choose_csv)
        self.view.cellClicked.connect(self.show_sessions)
        self.view.labelActivated.connect(self.open_skill)
        self.usage_table.doubleClicked.connect(
            lambda index: self.open_skill(index.data(NAME_ROLE)))
        self.resources_view.openSkillRequested.connect(self.open_skill)
        self.signals_tree.itemSelectionChanged.connect(self._update_signal_buttons)
        self.signals_tree.itemDoubleClicked.connect(lambda _item, _col: self._open_signal())
        self.signals_tree.customContextMenuRequested.connect(self._signal_menu)
        self.open_button.clicked.connect(self._open_signal)
        self.link_button.clicked.connect(self._link_signal)
        self.unlink_button.clicked.connect(self._unlink_signal)

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
        self.report = None
        self._fit_next = True
        if library is not None:
            now = self.now()
            self.date_from.blockSignals(True)
            self.date_to.blockSignals(True)
            self.date_from.setDate(_qdate(now.add_days(-DEFAULT_WINDOW)))
            self.date_to.setDate(_qdate(now))
            self.date_from.blockSignals(False)
            self.date_to.blockSignals(False)
        self._show_nothing(library is not None)
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
        if self.force_async:
            return False
        if len(request.skills) > SYNC_MAX_SKILLS:
            return False
        if request.log is not None:
            return len(request.log.events) < 5000
        folder = request.agent_dir / USAGE_DIR
        try:
            size = sum(p.stat().st_size for p in folder.iterdir() if p.name.endswith(".jsonl"))
        except OSError:
            return False
        return size <= SYNC_MAX_LOG_BYTES

    def refresh(self) -> None:
        """Recompute now: on this thread when cheap, else on a worker."""
        self._timer.stop()
        library = self.ctx.library
        if library is not None and not shows(Part.USAGE, library):
            self._dirty = False
            self._show_nothing(False)
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
        self._ticket += 1
        if self._cheap(request):
            try:
                report = compute(request)
            except Exception as exc:  # shown, not raised into the event loop
                self._on_failed(self._ticket, f"could not compute usage: {exc!r}")
                return
            self._on_done(self._ticket, report)
            return
        self._busy = True
        self.summary.setText("Computing…")
        # Started after the pane has painted: a Python worker running meanwhile makes each of the
        # paint's calls into Python wait for the GIL (a tab switch took 120-180 ms at 100,000).
        self._pending_job = ReportJob(self._ticket, request, self._signals)
        QTimer.singleShot(WORKER_START_DELAY_MS, self, self._start_pending)

    def _forget_shown_pairs(self, request: UsageRequest) -> None:
        """A new window is analysed: the pairs counted for the one shown (up to millions; its top
        is on screen as text) are dropped before the new ones are counted, not held beside them.
        They are counted again if that window's statistics are asked for pairs once more."""
        report = self.report
        if report is None or request.stats is report.stats or request.history is report.stats:
            return
        report.stats.forget_pairs()
        report.pairs = PairView([], report.pairs.min_count, report.pairs.occurrences)

    def _start_pending(self) -> None:
        job, self._pending_job = self._pending_job, None
        if job is not None and job.ticket == self._ticket:
            self.pool.start(job)

    def wait(self, msecs: int = -1) -> bool:
        """Block until no computation runs (for shutdown and tests; one waiting to start after
        the pane's paint starts now)."""
        self._start_pending()
        return self.pool.waitForDone(msecs)

    @property
    def busy(self) -> bool:
        return self._busy

    @Slot(int, object)
    def _on_done(self, ticket: int, report: UsageReport) -> None:
        if ticket != self._ticket:
            return
        self._busy = False
        self._log, self._stats, self._history = report.log, report.stats, report.history
        self.report = report
        steps = self._show_steps(report)
        if len(report.rows) < STAGED_FROM:
            for step in steps:
                step()
            self.updated.emit()
            return

        def next_step() -> None:  # a big report: one part per event, so the UI keeps breathing
            if ticket != self._ticket or self.report is not report:
                return  # a newer request superseded this one
            steps.pop(0)()
            if steps:
                QTimer.singleShot(STEP_GAP_MS, self, next_step)
            else:
                # the report shown before, freed: its memory no longer resident (on a worker:
                # trimming a big heap takes 10-20 ms)
                self.pool.start(give_back_freed_memory)
                self.updated.emit()

        next_step()

    @Slot(int, str)
    def _on_failed(self, ticket: int, message: str) -> None:
        if ticket != self._ticket:
            return
        self._busy = False
        self.summary.setText(message)
        self.ctx.status(message, 10000)

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
