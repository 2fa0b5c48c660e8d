"""Usage tab: the co-occurrence heatmap, usage bars, RockBot's top pairs and curation signals.

Numbers are RockBot's (:mod:`rockskills_gui.core.usage.stats`): what the pane shows for the 30-day
window is what the dream pass tells the LLM. Computing a report (reading the log, counting,
clustering) runs on a worker thread unless the library is small enough for it to take well
under 50 ms; only the newest request's result is shown.

Signals:
    openSkillRequested(str): the user asked to open a skill (double-click): the window shows the
        Skill tab.
    updated(): a new report is on screen.
"""

from __future__ import annotations

import gc
import textwrap
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QDate,
    QObject,
    QPoint,
    QRect,
    QRunnable,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QHideEvent, QImage, QPainter, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.formats import format_label
from rockskills_gui.core.library.resources import rules_have_resources
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.layout import USAGE_DIR
from rockskills_gui.core.usage.events import EventLog, LogSignature, UsageEvent, usage_log_signature
from rockskills_gui.core.usage.heatmap import HeatmapOptions, heatmap_csv
from rockskills_gui.core.usage.matrix import Measure
from rockskills_gui.core.usage.matrix_order import Ordering
from rockskills_gui.core.usage.report import UsageReport, UsageRequest, compute
from rockskills_gui.core.usage.signals import SUGGEST_MIN_SESSIONS, UNUSED_DAYS
from rockskills_gui.core.usage.stats import TOP_PAIRS, PairView, UsageStats, UsageWindow
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.shown_refresh import show_tab
from rockskills_gui.ui.common.theme import monospace, secondary
from rockskills_gui.ui.usage.heatmap_view import HeatmapView
from rockskills_gui.ui.usage.resource_usage_view import ResourceUsageView
from rockskills_gui.ui.usage.usage_widgets import (
    NAME_ROLE,
    BarDelegate,
    HeatmapLegend,
    UsageTableModel,
    when,
)

WINDOWS = (("Last 7 days", 7), ("Last 14 days", 14), ("Last 30 days", 30), ("Last 90 days", 90),
           ("All time", 0), ("Date range", -1))
DEFAULT_WINDOW = 30
SYNC_MAX_LOG_BYTES = 256 * 1024  # below this (and SYNC_MAX_SKILLS) a report takes well under 50 ms
SYNC_MAX_SKILLS = 250
WORKER_START_DELAY_MS = 60  # see refresh()
STALE_CHECK_MS = 3000  # how often a shown analysis checks the log on disk grew (stat only)
STAGED_FROM = 2_000  # usage-table rows from which a report is shown in parts (see _on_done)
STEP_GAP_MS = 15  # between those parts: room for other events (a repaint, a key press)
FREEZE_EVENTS = 20_000  # usage events from which a report is frozen out of the collector's way
NOTE_WIDTH = 60  # characters per line of the notes under the top pairs
SIGNALS_SHOWN = 200  # rows listed per signal group (the group's title has the full count)
ITEM_ROLE = Qt.ItemDataRole.UserRole + 20  # signal items: (kind, a, b)
SIDE_SPLIT = 0.56  # the heatmap's share of the width beside the side tabs, at first


class _JobSignals(QObject):
    done = Signal(int, object)
    failed = Signal(int, str)


class _ReportJob(QRunnable):
    def __init__(self, ticket: int, request: UsageRequest, signals: _JobSignals) -> None:
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
        except Exception as exc:  # a bug must not kill the worker silently
            self._emit(self.signals.failed, f"could not compute usage: {exc!r}")
        else:
            self._emit(self.signals.done, report)

    def _emit(self, signal: object, value: object) -> None:
        try:
            signal.emit(self.ticket, value)  # type: ignore[attr-defined]
        except RuntimeError:  # the pane is gone
            pass


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


class UsagePane(QWidget):
    """Heatmap with its controls and legend, beside usage bars, top pairs, sessions and signals."""

    openSkillRequested = Signal(str)
    updated = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usagePane")
        self.ctx = ctx
        self.pool = QThreadPool(self)  # created before the signals object: destroyed first, waits
        self._signals = _JobSignals(self)
        self._signals.done.connect(self._on_done)
        self._signals.failed.connect(self._on_failed)
        self._ticket = 0
        self._busy = False
        self._pending_job: _ReportJob | None = None  # see refresh()
        self._dirty = True
        self._fit_next = True
        self._sized = False
        self.force_async = False
        self.report: UsageReport | None = None
        self._log: EventLog[UsageEvent] | None = None
        self._stats: UsageStats | None = None
        self._history: UsageStats | None = None
        self._now: Timestamp | None = None
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

    # ---------------------------------------------------------------- construction

    def _build_controls(self) -> None:
        self.window_combo = QComboBox(self)
        self.window_combo.setObjectName("usageWindow")
        for label, days in WINDOWS:
            self.window_combo.addItem(label, days)
        self.window_combo.setCurrentIndex(self.window_combo.findData(DEFAULT_WINDOW))
        self.window_combo.setToolTip("Which usage events count. RockBot's dream uses the last "
                                     "30 days (first 10 000 events).")
        self.date_from = QDateEdit(self)
        self.date_to = QDateEdit(self)
        for edit in (self.date_from, self.date_to):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.hide()
        self.date_from.setToolTip("First day (UTC) of the range")
        self.date_to.setToolTip("Last day (UTC) of the range, included")

        self.measure_combo = QComboBox(self)
        self.measure_combo.setObjectName("usageMeasure")
        for measure in Measure:
            self.measure_combo.addItem(measure.label, measure.value)
        self.measure_combo.setToolTip(
            "Sessions together: sessions that used both skills (RockBot's count).\n"
            "Jaccard: sessions with both ÷ sessions with either.\n"
            "Lift: sessions with both ÷ what chance predicts from each skill's popularity.")
        self.order_combo = QComboBox(self)
        self.order_combo.setObjectName("usageOrder")
        for ordering in Ordering:
            self.order_combo.addItem(ordering.label, ordering.value)
        self.min_spin = QSpinBox(self)
        self.min_spin.setObjectName("usageMinCount")
        self.min_spin.setRange(1, 9999)
        self.min_spin.setPrefix("min ")
        self.min_spin.setSuffix(" session(s)")
        self.min_spin.setToolTip("Hide cells of pairs used together in fewer sessions")
        self.prefix_edit = QLineEdit(self)
        self.prefix_edit.setObjectName("usagePrefix")
        self.prefix_edit.setPlaceholderText("Prefix filter, e.g. mcp/, research/")
        self.prefix_edit.setClearButtonEnabled(True)
        self.prefix_edit.setToolTip("Show only skills whose names start with one of these "
                                    "(comma-separated, case-insensitive)")
        self.hide_empty = QCheckBox("Only skills with pairs", self)
        self.hide_empty.setObjectName("usageHideEmpty")
        self.hide_empty.setChecked(True)
        self.links_check = QCheckBox("See-also links", self)
        self.links_check.setObjectName("usageLinks")
        self.links_check.setChecked(True)
        self.links_check.setToolTip("Mark cells whose row skill names the column skill in seeAlso")

        self.zoom_out = QToolButton(self)
        self.zoom_out.setText("−")
        self.zoom_out.setToolTip("Smaller cells (Ctrl+wheel, -)")
        self.zoom_in = QToolButton(self)
        self.zoom_in.setText("+")
        self.zoom_in.setToolTip("Larger cells (Ctrl+wheel, +)")
        self.zoom_fit = QToolButton(self)
        self.zoom_fit.setText("Fit")
        self.zoom_fit.setToolTip("Show the whole matrix")
        self.reload_button = QPushButton("Reload log", self)
        self.reload_button.setToolTip("Read skill-usage/ again (a running agent keeps writing it)")
        self.export_png_button = QPushButton("Export PNG…", self)
        self.export_csv_button = QPushButton("Export CSV…", self)

        first = QHBoxLayout()
        first.setSpacing(6)
        for widget in (self.window_combo, self.date_from, self.date_to, self.measure_combo,
                       self.order_combo, self.min_spin):
            first.addWidget(widget)
        first.addWidget(self.prefix_edit, 1)
        second = QHBoxLayout()
        second.setSpacing(6)
        for widget in (self.hide_empty, self.links_check, self.zoom_out, self.zoom_in, self.zoom_fit):
            second.addWidget(widget)
        second.addStretch(1)
        for widget in (self.reload_button, self.export_png_button, self.export_csv_button):
            second.addWidget(widget)
        self.controls = QVBoxLayout()
        self.controls.setSpacing(4)
        self.controls.addLayout(first)
        self.controls.addLayout(second)

    def _build_body(self) -> None:
        self.view = HeatmapView(self)
        self.legend = HeatmapLegend(self)
        self.summary = secondary(QLabel(self))
        self.summary.setObjectName("usageSummary")
        self.summary.setWordWrap(True)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.view, 1)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.summary)
        self.stale = QLabel(self)  # the analysis is older than the log (see check_log)
        self.stale.setObjectName("usageStale")
        self.stale.setWordWrap(True)
        self.stale.setText("<b>Out of date:</b> the usage log changed since this analysis (a "
                           "running agent appended events). Press Reload log to include them.")
        self.stale.hide()
        left_layout.addWidget(self.stale)

        self.side = QTabWidget(self)
        self.side.setObjectName("usageSide")
        self.usage_model = UsageTableModel(self)
        self.usage_table = QTableView(self)
        self.usage_table.setObjectName("usageTable")
        self.usage_table.setModel(self.usage_model)
        self.usage_table.setSortingEnabled(True)
        self.usage_table.sortByColumn(UsageTableModel.USES, Qt.SortOrder.DescendingOrder)
        self.usage_table.setItemDelegateForColumn(UsageTableModel.USES, BarDelegate(self.usage_table))
        self.usage_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.usage_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.usage_table.verticalHeader().hide()
        # One line per name, elided in the middle (research/…-paper): a wrapped name showed
        # only its first line, and two rows both read "research/…".
        self.usage_table.setWordWrap(False)
        self.usage_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.usage_table.verticalHeader().setDefaultSectionSize(
            self.usage_table.fontMetrics().height() + 6)
        header = self.usage_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        metrics = self.usage_table.fontMetrics()
        samples = ("99999", "9999", "2026-11-22")  # the widest likely contents: ResizeToContents
        for col, sample in enumerate(samples, 1):  # would ask every row (100,000 calls)
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            title = UsageTableModel.HEADERS[col]
            header.resizeSection(col, max(metrics.horizontalAdvance(t) for t in (title, sample)) + 28)
        self.side.addTab(self.usage_table, "Usage")

        self.pairs_text = monospace(QPlainTextEdit(self))
        self.pairs_text.setObjectName("usageTopPairs")
        self.pairs_text.setReadOnly(True)
        self.pairs_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.side.addTab(self.pairs_text, "Top pairs")

        sessions_page = QWidget(self)
        sessions_layout = QVBoxLayout(sessions_page)
        sessions_layout.setContentsMargins(4, 4, 4, 4)
        self.sessions_title = QLabel("Click a cell to list the sessions behind it.", sessions_page)
        self.sessions_title.setWordWrap(True)
        self.sessions_tree = QTreeWidget(sessions_page)
        self.sessions_tree.setObjectName("usageSessions")
        self.sessions_tree.setHeaderLabels(["Session", "Date", "Events", "Skills"])
        self.sessions_tree.setRootIsDecorated(False)
        self.sessions_columns = ColumnFitter(self.sessions_tree, order=[1, 2, 0], stretch=3,
                                             caps={0: 0.45})
        self.sessions_tree.setAlternatingRowColors(True)
        sessions_layout.addWidget(self.sessions_title)
        sessions_layout.addWidget(self.sessions_tree, 1)
        self.side.addTab(sessions_page, "Sessions")

        signals_page = QWidget(self)
        signals_layout = QVBoxLayout(signals_page)
        signals_layout.setContentsMargins(4, 4, 4, 4)
        idle_row = QHBoxLayout()
        idle_row.addWidget(QLabel("Unused for at least", signals_page))
        self.unused_spin = QSpinBox(signals_page)
        self.unused_spin.setRange(1, 3650)
        self.unused_spin.setValue(UNUSED_DAYS)
        self.unused_spin.setSuffix(" days")
        idle_row.addWidget(self.unused_spin)
        idle_row.addStretch(1)
        self.signals_tree = QTreeWidget(signals_page)
        self.signals_tree.setObjectName("usageSignals")
        self.signals_tree.setHeaderLabels(["Signal", "Detail"])
        self.signals_tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.signals_columns = ColumnFitter(self.signals_tree, order=[0], stretch=1, cap=0.6)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open", signals_page)
        self.link_button = QPushButton("Link them", signals_page)
        self.link_button.setToolTip("Add the second skill to the first skill's see-also list")
        self.unlink_button = QPushButton("Remove link", signals_page)
        for button in (self.open_button, self.link_button, self.unlink_button):
            button.setEnabled(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
        signals_layout.addLayout(idle_row)
        signals_layout.addWidget(self.signals_tree, 1)
        signals_layout.addLayout(buttons)
        self.side.addTab(signals_page, "Signals")
        self.resources_view = ResourceUsageView(self)  # RockBot (current)'s resource reads
        self.resources_view.hide()  # a tab only while a RockBot (current) library is open

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("usageSplitter")  # remembered across sessions by this name
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([640, 400])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(self.controls)
        layout.addWidget(self.splitter, 1)

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
        show_tab(self.side, self.resources_view, "Resources", rules_have_resources(library))
        self.resources_view.set_library(library)
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def _on_change_applied(self, change: ChangeSet) -> None:
        del change
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
        return UsageRequest(
            agent_dir=library.agent_dir, skills=tuple(library.skills()), now=self.now(),
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
        if library is not None and not library.has_usage_log:
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
        self._pending_job = _ReportJob(self._ticket, request, self._signals)
        QTimer.singleShot(WORKER_START_DELAY_MS, self, self._start_pending)

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
                self.updated.emit()

        next_step()

    @Slot(int, str)
    def _on_failed(self, ticket: int, message: str) -> None:
        if ticket != self._ticket:
            return
        self._busy = False
        self.summary.setText(message)
        self.ctx.status(message, 10000)

    # ---------------------------------------------------------------- showing

    def _show_nothing(self, loading: bool) -> None:
        self.view.set_data(None)
        self.legend.set_scale(None, 1, False)
        self.usage_model.set_rows([])
        self.pairs_text.setPlainText("")
        self.sessions_tree.clear()
        self.signals_tree.clear()
        self.summary.setText("Reading the usage log…" if loading else "No library open.")

    def _show_steps(self, report: UsageReport) -> list[Callable[[], None]]:
        """Showing ``report``, in parts: the heatmap, the usage table, the rest."""
        data = report.heatmap
        same_axis = self.view.data is not None and self.view.data.names == data.names

        def heatmap() -> None:
            self.view.set_data(data, keep_selection=True)
            self.view.set_show_links(self.links_check.isChecked())
            if self._fit_next:
                self.view.fit()
                self._fit_next = False
            self.legend.set_scale(data.scale, data.options.min_count, self.links_check.isChecked())
            self._update_summary(report)

        def rest() -> None:
            self._fill_pairs(report.stats, report.pairs)
            self._fill_signals(report)
            if self.view.selected is not None and same_axis:
                self.show_sessions(*self.view.selected, switch=False)
            elif self.view.selected is None:
                self.sessions_title.setText("Click a cell to list the sessions behind it.")
                self.sessions_tree.clear()

        return [heatmap, lambda: self._fill_usage(report), rest]

    def _update_summary(self, report: UsageReport) -> None:
        stats, data = report.stats, report.heatmap
        window = stats.window
        parts = [f"{len(stats.events)} event(s) in {stats.session_count} session(s), "
                 f"{window.describe()}"]
        if window.since is not None and window.days is not None:
            parts[0] += f" (since {window.since.isoformat()[:16].replace('T', ' ')} UTC)"
        parts.append(f"{len(data)} skill(s) shown, {data.hidden} hidden")
        deleted = report.gone
        if deleted:
            parts.append(f"{sum(u.events for u in deleted)} event(s) for "
                         f"{len(deleted)} skill(s) that no longer exist")
        if stats.truncated:
            parts.append(f"RockBot reads only the first {window.cap} events: {stats.truncated} newer "
                         "left out")
        if stats.skipped:
            parts.append(f"{len(stats.skipped)} event(s) without skill name or session id "
                         "(RockBot's dream would fail on them)")
        if report.log.malformed:
            parts.append(f"{len(report.log.malformed)} unreadable line(s) skipped")
        if data.note:
            parts.append(data.note)
        parts.append(f"computed in {report.seconds * 1000:.0f} ms")
        self.summary.setText(" · ".join(parts))

    def _fill_usage(self, report: UsageReport) -> None:
        self.usage_model.set_rows(report.rows, report.sorted_rows, report.request.table_sort)

    def _fill_pairs(self, stats: UsageStats, view: PairView) -> None:
        window = stats.window
        if window.days is not None:
            header = f"Frequently co-used skill pairs (across sessions in last {window.days} days):"
        else:
            header = f"Frequently co-used skill pairs (across sessions in {window.describe()}):"
        pairs = view.pairs
        lines = [header, *(pair.line() for pair in pairs[:TOP_PAIRS])] if pairs else \
            [f"No skill pairs in {window.describe()}: RockBot's prompt would have no pairs section."]
        if not view.complete:
            lines = [header] if pairs else []
            lines += [pair.line() for pair in pairs[:TOP_PAIRS]]
            shown = (f"the {len(pairs):,} pairs used together in at least {view.min_count} sessions "
                     "are listed" if view.min_count else "none can be listed")
            note = (f"This window's sessions hold {view.occurrences:,} pair occurrences, too many "
                    f"to count in memory: {shown}. Choose a shorter window for the whole list "
                    "(RockBot's own dream reads at most 10,000 events of 30 days).")
            lines += ["", *textwrap.wrap(note, NOTE_WIDTH)]  # the pair lines do not wrap
        elif len(pairs) > TOP_PAIRS:
            lines += ["", *textwrap.wrap(f"({len(pairs):,} pairs in all; RockBot's prompt shows "
                                         f"the top {TOP_PAIRS}, ties in first-seen order)", NOTE_WIDTH)]
        self.pairs_text.setPlainText("\n".join(lines))

    def _fill_signals(self, report: UsageReport) -> None:
        signals = report.signals
        tree = self.signals_tree
        expanded = {tree.topLevelItem(k).text(0).split(" (")[0]
                    for k in range(tree.topLevelItemCount()) if tree.topLevelItem(k).isExpanded()}
        tree.clear()
        minimum = max(SUGGEST_MIN_SESSIONS, self.min_spin.value())

        def group(title: str, count: int, tip: str, more: bool = False) -> QTreeWidgetItem:
            item = QTreeWidgetItem(tree, [f"{title} ({count:,}{'+' if more else ''})", ""])
            item.setToolTip(0, tip)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            item.setExpanded(title in expanded or (not expanded and count > 0 and count <= 12))
            item.setFirstColumnSpanned(True)  # a group's title has the whole row
            return item

        def child(parent: QTreeWidgetItem, text: str, detail: str, kind: str, a: str,
                  b: str = "") -> None:
            item = QTreeWidgetItem(parent, [text, detail])
            item.setData(0, ITEM_ROLE, (kind, a, b))
            item.setToolTip(0, text)
            item.setToolTip(1, detail)

        def rest(parent: QTreeWidgetItem, count: int, more: bool = False) -> None:
            """A last row for what a group does not list (a big library: tens of thousands)."""
            if count > SIGNALS_SHOWN or more:
                item = QTreeWidgetItem(parent, [f"… and {count - SIGNALS_SHOWN:,}{'+' if more else ''} "
                                                "more", "filter the library tree to see them"])
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)

        g = group("Link these two", len(signals.link),
                  f"Used together in at least {minimum} sessions but neither names the other in "
                  "see-also", more=signals.link_truncated)
        for s in signals.link[:SIGNALS_SHOWN]:
            child(g, f"{s.a} + {s.b}", f"{s.sessions} session(s) together", "link", s.a, s.b)
        rest(g, len(signals.link), signals.link_truncated)
        g = group("Review this link", len(signals.review),
                  "A see-also link whose skills were not used together in this window")
        for r in signals.review[:SIGNALS_SHOWN]:
            child(g, f"{r.referrer} → {r.target}", r.reason, "review", r.referrer, r.target)
        rest(g, len(signals.review))
        g = group("Never used", len(signals.never_used),
                  "No usage event in the whole log and no lastUsedAt")
        for name in signals.never_used[:SIGNALS_SHOWN]:
            child(g, name, "never used", "open", name)
        rest(g, len(signals.never_used))
        g = group(f"Unused for {self.unused_spin.value()}+ days", len(signals.unused),
                  "Last use (lastUsedAt or the log) at least this many days ago")
        for a in signals.unused[:SIGNALS_SHOWN]:
            child(g, a.name, f"{a.idle_days} days (last use {when(a.last_used)})", "open", a.name)
        rest(g, len(signals.unused))
        threshold = when(signals.prune_threshold)
        g = group("Pruned by the next dream", len(signals.prune),
                  f"Last activity (lastUsedAt ?? updatedAt ?? createdAt) before {threshold}: "
                  "RockBot's 18-month rule deletes these")
        for a in signals.prune[:SIGNALS_SHOWN]:
            child(g, a.name, f"last activity {when(a.last_activity)}", "open", a.name)
        rest(g, len(signals.prune))
        g = group("Pruned within 30 days", len(signals.prune_soon),
                  "Will cross the 18-month threshold within 30 days unless used or edited")
        for a in signals.prune_soon[:SIGNALS_SHOWN]:
            child(g, a.name, f"last activity {when(a.last_activity)}", "open", a.name)
        rest(g, len(signals.prune_soon))
        gone = report.gone
        g = group("Used, but no longer in the library", len(gone),
                  "Events in the window for skills that do not exist (kept in the counts, "
                  "as RockBot keeps them)")
        for u in gone[:SIGNALS_SHOWN]:
            child(g, u.name, f"{u.events} use(s) in {u.sessions} session(s)", "gone", u.name)
        rest(g, len(gone))
        self._update_signal_buttons()

    # ---------------------------------------------------------------- interaction

    def _on_links_toggled(self, show: bool) -> None:
        self.view.set_show_links(show)
        if self.report is not None:
            data = self.report.heatmap
            self.legend.set_scale(data.scale, data.options.min_count, show)

    def show_sessions(self, row: int, col: int, switch: bool = True) -> None:
        """List the sessions behind cell (row, col) in the Sessions tab."""
        report = self.report
        if report is None or not (0 <= row < len(report.heatmap) and 0 <= col < len(report.heatmap)):
            return
        a, b = report.heatmap.names[row], report.heatmap.names[col]
        sessions = report.stats.sessions_with(a, None if row == col else b)
        if row == col:
            self.sessions_title.setText(f"{len(sessions)} session(s) used {a} "
                                        f"({report.stats.window.describe()})")
        else:
            self.sessions_title.setText(f"{len(sessions)} session(s) used both {a} and {b} "
                                        f"({report.stats.window.describe()})")
        self.sessions_tree.clear()
        for session in sessions:
            first = session.first.isoformat()[:16].replace("T", " ")
            last = session.last.isoformat()[:16].replace("T", " ")
            item = QTreeWidgetItem(self.sessions_tree, [
                session.id, first[:10], str(session.events), ", ".join(session.skills)])
            item.setToolTip(0, f"{session.id}\nfirst event {first} UTC\nlast event {last} UTC\n"
                               f"{session.events} event(s) in the window")
            item.setToolTip(1, f"{first} – {last} UTC")
            item.setToolTip(3, "\n".join(session.skills))
        for col_index in range(3):
            self.sessions_tree.resizeColumnToContents(col_index)
        if switch:
            self.side.setCurrentIndex(2)

    def open_skill(self, name: str | None) -> None:
        """Make ``name`` the current skill and ask the window to show the Skill tab."""
        if not name:
            return
        if self.ctx.select_skill(name):
            self.openSkillRequested.emit(name)
        else:
            self.ctx.status(f"'{name}' is not in the library (it was deleted; its events remain "
                            "in the usage log)", 8000)

    def _signal_item(self) -> tuple[str, str, str] | None:
        items = self.signals_tree.selectedItems()
        value = items[0].data(0, ITEM_ROLE) if items else None
        return tuple(value) if value else None  # type: ignore[return-value]

    def _update_signal_buttons(self) -> None:
        item = self._signal_item()
        kind = item[0] if item else ""
        self.open_button.setEnabled(kind in ("link", "review", "open"))
        self.link_button.setEnabled(kind == "link")
        self.unlink_button.setEnabled(kind == "review")

    def _open_signal(self) -> None:
        item = self._signal_item()
        if item is not None and item[0] != "gone":
            self.open_skill(item[1])

    def _link_signal(self, reverse: bool = False) -> None:
        item = self._signal_item()
        if item is not None and item[0] == "link":
            a, b = (item[2], item[1]) if reverse else (item[1], item[2])
            self.add_link(a, b)

    def _unlink_signal(self) -> None:
        item = self._signal_item()
        if item is not None and item[0] == "review":
            self.remove_link(item[1], item[2])

    def _signal_menu(self, pos: QPoint) -> None:
        item = self._signal_item()
        if item is None:
            return
        menu = QMenu(self)
        kind, a, b = item
        if kind != "gone":
            menu.addAction(f"Open '{a}'", lambda: self.open_skill(a))
        if kind in ("link", "review") and b:
            menu.addAction(f"Open '{b}'", lambda: self.open_skill(b))
        if kind == "link":
            menu.addAction(f"Add '{b}' to see-also of '{a}'", lambda: self.add_link(a, b))
            menu.addAction(f"Add '{a}' to see-also of '{b}'", lambda: self.add_link(b, a))
        if kind == "review":
            menu.addAction(f"Remove '{b}' from see-also of '{a}'", lambda: self.remove_link(a, b))
        menu.exec(self.signals_tree.viewport().mapToGlobal(pos))

    def add_link(self, referrer: str, target: str) -> None:
        """Append ``target`` to ``referrer``'s seeAlso (one undoable change)."""
        library = self.ctx.library
        skill = library.get(referrer) if library is not None else None
        if skill is None:
            return
        links = [*(skill.see_also or ()), target]
        self.ctx.apply(lambda lib: lib.update(skill.name, see_also=links))

    def remove_link(self, referrer: str, target: str) -> None:
        """Remove every ``target`` entry (case-insensitive) from ``referrer``'s seeAlso."""
        library = self.ctx.library
        skill = library.get(referrer) if library is not None else None
        if skill is None or not skill.see_also:
            return
        links = [t for t in skill.see_also if fold(t) != fold(target)]
        self.ctx.apply(lambda lib: lib.update(skill.name, see_also=links or None))

    # ---------------------------------------------------------------- export

    def export_image(self) -> QImage:
        """The whole matrix with labels, the legend below it."""
        matrix = self.view.render_full()
        legend_height = self.legend.sizeHint().height() + 8
        width = max(matrix.width(), 720)
        image = QImage(width, matrix.height() + legend_height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(self.palette().color(QPalette.ColorRole.Base))
        painter = QPainter(image)
        try:
            painter.drawImage(0, 0, matrix)
            self.legend.paint(painter, QRect(8, matrix.height() + 4, min(width, 900) - 16,
                                             legend_height - 8))
        finally:
            painter.end()
        return image

    def export_png(self, path: Path | str) -> bool:
        return self.report is not None and self.export_image().save(str(path), "PNG")

    def export_csv(self, path: Path | str) -> None:
        if self.report is None:
            return
        Path(path).write_text(heatmap_csv(self.report.heatmap), encoding="utf-8")

    def _export_start(self, suffix: str) -> str:
        library = self.ctx.library
        base = library.agent_dir.parent if library is not None else Path.home()
        return str(base / f"skill-cooccurrence.{suffix}")

    def _choose_png(self) -> None:
        if self.report is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the heatmap as PNG",
                                              self._export_start("png"), "PNG images (*.png)")
        if path:
            if self.export_png(path):
                self.ctx.status(f"Saved {path}")
            else:
                self.ctx.status(f"Could not write {path}", 10000)

    def _choose_csv(self) -> None:
        if self.report is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the matrix as CSV",
                                              self._export_start("csv"), "CSV files (*.csv)")
        if path:
            try:
                self.export_csv(path)
            except OSError as exc:
                self.ctx.status(f"Could not write {path}: {exc.strerror or exc}", 10000)
            else:
                self.ctx.status(f"Saved {path}")
