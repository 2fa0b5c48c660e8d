"""The Usage tab's widgets: the controls row (window, measure, order, filters, zoom, export)
and the body (heatmap with legend and summary beside the Usage, Top pairs, Sessions and Signals
tabs). The base of ``UsagePane`` (as a form made in Qt Designer would be), which wires them to
its behaviour and its parts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.usage.matrix import Measure
from rockskills_gui.core.usage.matrix_order import Ordering
from rockskills_gui.core.usage.signals import UNUSED_DAYS
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.theme import monospace, secondary
from rockskills_gui.ui.usage.heatmap_view import HeatmapView
from rockskills_gui.ui.usage.resource_usage_view import ResourceUsageView
from rockskills_gui.ui.usage.usage_widgets import BarDelegate, HeatmapLegend, UsageTableModel

WINDOWS = (("Last 7 days", 7), ("Last 14 days", 14), ("Last 30 days", 30), ("Last 90 days", 90),
           ("All time", 0), ("Date range", -1))
DEFAULT_WINDOW = 30

class UsageLayout(QWidget):
    """The widgets of the Usage tab, built here and named (its parts are handed them); no
    behaviour: ``UsagePane`` connects them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._build_controls()
        self._build_body()

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
        widget: QWidget
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
        self.archive_note = QLabel(self)  # which days only the usage archive still has
        self.archive_note.setObjectName("usageArchive")
        self.archive_note.setWordWrap(True)
        self.archive_note.hide()
        left_layout.addWidget(self.archive_note)
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
