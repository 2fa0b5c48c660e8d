"""CortexPrism skill health: lifecycle, trust tier, success rate, uses, utility, freshness and the
health score of every skill, as sortable columns with filters (read from ``memory.db``).

Deprecated and archived skills stay in the table, greyed, struck through and with their reason in
the tooltip: CortexPrism drops them from prompts, but a curator needs to see them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.health import INACTIVE_LIFECYCLES, LIFECYCLES, TRUST_TIERS
from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.models import ROW_ROLE, Column, RowModel

Index = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 20
ACTIVE_ONLY = "__active__"
COLUMNS = ("Name", "Source", "Lifecycle", "Trust tier", "Success", "Uses", "Utility", "Freshness",
           "Health")
NUMERIC = {"Success": "success_rate", "Uses": "invocation_count", "Utility": "utility_score",
           "Freshness": "freshness", "Health": "health"}
NO_DATA_TEXT = ("Lifecycle, trust and health come from CortexPrism's memory.db. "
                "Open a CortexPrism project (a folder with .cortex/) to see them here.")


@dataclass(frozen=True)
class HealthRow:
    """One skill: its name, where it lives and its ``procedural_memory`` stats (empty: none)."""

    name: str
    source: str
    stats: dict[str, Any]

    @property
    def lifecycle(self) -> str:
        return str(self.stats.get("lifecycle") or "")

    @property
    def inactive(self) -> bool:
        return self.lifecycle in INACTIVE_LIFECYCLES

    def number(self, key: str) -> float | None:
        value = self.stats.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def rows_of(library: Library | None) -> list[HealthRow]:
    """Every skill of a library that has CortexPrism stats ([] for libraries without any)."""
    if library is None or not shows(Part.HEALTH, library):  # (a RockBot skill keeps no such stats)
        return []
    names = library.names()
    every = [dict(library.health_stats(name)) for name in names]
    if not any(every):
        return []  # no stats at all (no memory.db): no rows made to be dropped
    rows: list[HealthRow] = []
    for name, stats in zip(names, every, strict=True):
        if library.is_read_only(name):  # a memory.db row without a SKILL.md
            source = "memory.db"
        elif stats:
            source = "SKILL.md + memory.db"
        else:
            source = "SKILL.md"
        rows.append(HealthRow(name, source, stats))
    return rows if any(r.stats for r in rows) else []


def _shown(column: str, row: HealthRow) -> str:
    if column == "Name":
        return row.name
    if column == "Source":
        return row.source
    if column == "Lifecycle":
        return row.lifecycle
    if column == "Trust tier":
        return str(row.stats.get("trust") or "")
    value = row.number(NUMERIC[column])
    if value is None:
        return ""
    if column == "Uses":
        return f"{int(value):,}"
    if column == "Success":
        return f"{value:.0%}"
    return f"{value:.2f}"


def _sort_key(column: str) -> Callable[[HealthRow], object]:
    """What a column sorts by: numbers by value (no value first), lifecycles in their order,
    trust tiers by tier, text case-insensitively."""
    if column in NUMERIC:
        key = NUMERIC[column]

        def number(row: HealthRow) -> float:
            value = row.number(key)
            return -1.0 if value is None else value

        return number
    if column == "Lifecycle":
        return lambda row: LIFECYCLES.index(row.lifecycle) if row.lifecycle in LIFECYCLES else -1
    if column == "Trust tier":
        def tier(row: HealthRow) -> int:
            value = row.stats.get("trust_tier")
            return value if isinstance(value, int) else -1

        return tier
    return lambda row: fold(_shown(column, row))


def _inactive_font(struck: bool) -> Callable[[HealthRow], object]:
    def font(row: HealthRow) -> object:
        if not row.inactive:
            return None
        shown = QFont()
        shown.setItalic(True)
        shown.setStrikeOut(struck)
        return shown

    return font


def _inactive_colour(row: HealthRow) -> object:
    if not row.inactive:
        return None
    return QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


class HealthModel(RowModel[HealthRow]):
    """The rows of :func:`rows_of` as a table (numbers sort by value via :data:`SORT_ROLE`)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(
            tuple(Column(column, partial(_shown, column),
                         align=Qt.AlignmentFlag.AlignRight if column in NUMERIC else None,
                         sort_key=_sort_key(column),
                         roles={Qt.ItemDataRole.FontRole: _inactive_font(column == "Name")})
                  for column in COLUMNS),
            parent, roles={Qt.ItemDataRole.ForegroundRole: _inactive_colour},
            tooltip=HealthModel.tooltip, sort_role=SORT_ROLE, header_alignment=True)

    @staticmethod
    def tooltip(row: HealthRow) -> str:
        if not row.stats:
            return f"{row.name}: no memory.db row (a SKILL.md only)"
        lines = [f"{row.name} ({row.source})"]
        if row.inactive:
            reason = row.stats.get("deprecated_reason")
            lines.append(f"{row.lifecycle.capitalize()}: CortexPrism no longer offers this skill"
                         + (f" — {reason}" if reason else ""))
        return "\n".join(lines)


class HealthFilter(QSortFilterProxyModel):
    """Lifecycle, trust tier, minimum health and a name filter."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lifecycle = ""  # "" all, ACTIVE_ONLY, or one lifecycle
        self.trust: int | None = None
        self.min_health = 0.0
        self.text = ""
        self.setSortRole(SORT_ROLE)

    def set_filters(self, lifecycle: str | None = None, trust: int | Literal[""] | None = "",
                    min_health: float | None = None, text: str | None = None) -> None:
        """Change any filter (arguments left out keep their value; ``trust=None`` means all)."""
        self.beginFilterChange()
        if lifecycle is not None:
            self.lifecycle = lifecycle
        if trust != "":
            self.trust = trust
        if min_health is not None:
            self.min_health = min_health
        if text is not None:
            self.text = fold(text.strip())
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        source = self.sourceModel()
        if not isinstance(source, HealthModel):  # (HealthPane gives it its HealthModel)
            return True
        row = source.rows[source_row]
        if self.lifecycle == ACTIVE_ONLY and (row.inactive or not row.stats):
            return False
        if self.lifecycle not in ("", ACTIVE_ONLY) and row.lifecycle != self.lifecycle:
            return False
        if self.trust is not None and row.stats.get("trust_tier") != self.trust:
            return False
        if self.min_health > 0:
            health = row.number("health")
            if health is None or health < self.min_health:
                return False
        return not self.text or self.text in fold(row.name)


class HealthPane(QWidget):
    """The health table with its filters, following the open library.

    Signals:
        openSkillRequested(str): a row was activated (double-click or Enter).
        availabilityChanged(bool): whether the open library has CortexPrism stats.
    """

    openSkillRequested = Signal(str)
    availabilityChanged = Signal(bool)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("healthPane")
        self.ctx = ctx
        self.model = HealthModel(self)
        self.proxy = HealthFilter(self)
        self.proxy.setSourceModel(self.model)

        self.lifecycle_combo = QComboBox(self)
        self.lifecycle_combo.setObjectName("healthLifecycle")
        self.lifecycle_combo.setAccessibleName("Lifecycle filter")
        self.lifecycle_combo.addItem("All lifecycles", "")
        self.lifecycle_combo.addItem("Active only (not deprecated or archived)", ACTIVE_ONLY)
        for lifecycle in LIFECYCLES:
            self.lifecycle_combo.addItem(lifecycle.capitalize(), lifecycle)
        self.trust_combo = QComboBox(self)
        self.trust_combo.setObjectName("healthTrust")
        self.trust_combo.setAccessibleName("Trust tier filter")
        self.trust_combo.addItem("All trust tiers", None)
        for tier, label in TRUST_TIERS.items():
            self.trust_combo.addItem(f"{tier} · {label}", tier)
        self.min_health = QDoubleSpinBox(self)
        self.min_health.setObjectName("healthMinimum")
        self.min_health.setAccessibleName("Minimum health")
        self.min_health.setRange(0.0, 1.0)
        self.min_health.setSingleStep(0.05)
        self.min_health.setDecimals(2)
        self.min_health.setPrefix("health ≥ ")
        self.text = QLineEdit(self)
        self.text.setObjectName("healthText")
        self.text.setPlaceholderText("Filter by name…")
        self.text.setClearButtonEnabled(True)
        self.count = QLabel(self)
        self.count.setObjectName("healthCount")

        self.view = QTreeView(self)
        self.view.setObjectName("healthView")
        self.view.setModel(self.proxy)
        self.view.setRootIsDecorated(False)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(COLUMNS.index("Health"), Qt.SortOrder.DescendingOrder)
        header = self.view.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.resizeSection(0, 220)
        header.resizeSection(1, 150)
        self.view.activated.connect(self._on_activated)

        self.empty = QLabel(NO_DATA_TEXT, self)
        self.empty.setObjectName("healthEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        table = QWidget(self)
        filters = QHBoxLayout()
        for widget in (self.lifecycle_combo, self.trust_combo, self.min_health):
            filters.addWidget(widget)
        filters.addWidget(self.text, 1)
        filters.addWidget(self.count)
        inner = QVBoxLayout(table)
        inner.setContentsMargins(4, 4, 4, 4)
        inner.addLayout(filters)
        inner.addWidget(self.view, 1)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(table)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

        self.lifecycle_combo.currentIndexChanged.connect(self._filters_changed)
        self.trust_combo.currentIndexChanged.connect(self._filters_changed)
        self.min_health.valueChanged.connect(self._filters_changed)
        self.text.textChanged.connect(self._filters_changed)
        ctx.libraryChanged.connect(lambda _library: self.reload())
        ctx.changeApplied.connect(lambda _change: self.reload())
        self.reload()

    @property
    def available(self) -> bool:
        return bool(self.model.rows)

    def reload(self) -> None:
        had = self.available
        self.model.set_rows(rows_of(self.ctx.library) if self.ctx.library is not None else [])
        self.stack.setCurrentIndex(1 if self.available else 0)
        self._update_count()
        if had != self.available:
            self.availabilityChanged.emit(self.available)

    def shown_names(self) -> list[str]:
        """Names in the table as filtered and sorted now (top to bottom)."""
        return [self.proxy.index(r, 0).data() for r in range(self.proxy.rowCount())]

    def _filters_changed(self, *_args: object) -> None:
        self.proxy.set_filters(lifecycle=self.lifecycle_combo.currentData(),
                               trust=self.trust_combo.currentData(),
                               min_health=self.min_health.value(), text=self.text.text())
        self._update_count()

    def _update_count(self) -> None:
        total = len(self.model.rows)
        shown = self.proxy.rowCount()
        inactive = sum(r.inactive for r in self.model.rows)
        text = f"{shown} of {total}" if shown != total else f"{total} skills"
        self.count.setText(f"{text} · {inactive} inactive" if inactive else text)

    def _on_activated(self, index: QModelIndex) -> None:
        row = index.data(ROW_ROLE)
        if isinstance(row, HealthRow):
            self.openSkillRequested.emit(row.name)
