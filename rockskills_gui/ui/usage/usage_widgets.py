"""Pieces of the usage pane: the heatmap legend and the sortable usage table with bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QWidget

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.heatmap import FIRST_LEVEL, LEVELS, ColourScale
from rockskills_gui.core.usage.report import UsageRow, UsageRows, sort_rows
from rockskills_gui.ui.common.colormap import colormap_name, colour_table
from rockskills_gui.ui.common.models import ROW_ROLE, Column, RowModel

Index = QModelIndex | QPersistentModelIndex
NAME_ROLE = Qt.ItemDataRole.UserRole + 11
BAR_ROLE = Qt.ItemDataRole.UserRole + 12  # fraction 0..1 of the longest bar


def when(value: Timestamp | None) -> str:
    return value.to_datetime().strftime("%Y-%m-%d") if value is not None else "never"


class HeatmapLegend(QWidget):
    """Colour bar of the current scale with ticks, and swatches for empty, diagonal and links."""

    BAR_HEIGHT = 12

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("heatmapLegend")
        self.scale: ColourScale | None = None
        self.min_count = 1
        self.show_links = True

    def set_scale(self, scale: ColourScale | None, min_count: int, show_links: bool) -> None:
        self.scale, self.min_count, self.show_links = scale, min_count, show_links
        self.update()

    def title(self) -> str:
        if self.scale is None:
            return ""
        measure = self.scale.measure
        extra = " — log scale, 1× = as often as chance predicts" if self.scale.log else ""
        return f"{measure.label}{extra}  ({colormap_name(measure)})"

    def sizeHint(self) -> QSize:
        height = QFontMetrics(self.font()).height()
        return QSize(420, 3 * height + self.BAR_HEIGHT + 14)

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        painter = QPainter(self)
        try:
            self.paint(painter, self.rect())
        finally:
            painter.end()

    def paint(self, painter: QPainter, area: QRect) -> None:
        """Paint into ``area`` (also used for PNG export)."""
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        if self.scale is None:
            return
        metrics = QFontMetrics(self.font())
        painter.setFont(self.font())
        line = metrics.height()
        painter.setPen(text)
        painter.drawText(QRect(area.left(), area.top(), area.width(), line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.title())
        swatch_width = self._swatches_width(metrics)
        bar = QRect(area.left() + 8, area.top() + line + 4,
                    max(60, area.width() - swatch_width - 32), self.BAR_HEIGHT)
        strip = QImage(LEVELS, 1, QImage.Format.Format_Indexed8)
        strip.setColorTable(colour_table(self.scale.measure, palette))
        for k in range(LEVELS):
            strip.setPixel(k, 0, FIRST_LEVEL + k)
        painter.drawImage(QRectF(bar), strip, QRectF(0, 0, LEVELS, 1))
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
        painter.drawRect(bar.adjusted(0, 0, -1, -1))
        painter.setPen(text)
        for position, label in self.scale.ticks():
            x = bar.left() + round(position * (bar.width() - 1))
            painter.drawLine(x, bar.bottom() + 1, x, bar.bottom() + 4)
            width = metrics.horizontalAdvance(label)
            left = min(max(area.left(), x - width // 2), bar.right() - width + 8)
            painter.drawText(QRect(left, bar.bottom() + 5, width + 2, line),
                             Qt.AlignmentFlag.AlignLeft, label)
        self._paint_swatches(painter, metrics, bar.right() + 24, area.top() + line + 2, line)

    def _swatch_items(self) -> list[tuple[str, str]]:
        below = "never together" if self.min_count <= 1 else f"fewer than {self.min_count} sessions"
        items = [("empty", below), ("diagonal", "the skill itself")]
        if self.show_links:
            items.append(("link", "see-also link"))
        return items

    def _swatches_width(self, metrics: QFontMetrics) -> int:
        return max(metrics.horizontalAdvance(text) for _, text in self._swatch_items()) + 22

    def _paint_swatches(self, painter: QPainter, metrics: QFontMetrics, left: int, top: int,
                        line: int) -> None:
        palette = self.palette()
        size = min(line - 2, 12)
        for row, (kind, text) in enumerate(self._swatch_items()):
            y = top + row * line
            box = QRect(left, y + (line - size) // 2, size, size)
            if kind == "link":
                painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
                painter.setPen(QPen(palette.color(QPalette.ColorRole.Base), 1))
                painter.setBrush(palette.color(QPalette.ColorRole.Text))
                painter.drawEllipse(QRectF(box).center(), size * 0.3, size * 0.3)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            else:
                role = QPalette.ColorRole.Base if kind == "empty" else QPalette.ColorRole.Mid
                painter.fillRect(box, palette.color(role))
                painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
                painter.drawRect(box.adjusted(0, 0, -1, -1))
            painter.setPen(palette.color(QPalette.ColorRole.WindowText))
            painter.drawText(QRect(box.right() + 6, y, metrics.horizontalAdvance(text) + 4, line),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)


def _usage_tip(row: UsageRow) -> str:
    if not row.exists:
        return f"'{row.name}' is in the usage log but no longer in the library"
    activity = when(row.last_activity) if row.last_activity is not None else "—"
    return (f"{row.name}: {row.events} use(s) in {row.sessions} session(s) in the window\n"
            f"last use {when(row.last_used)} · last activity {activity} "
            "(lastUsedAt ?? updatedAt ?? createdAt)")


def _deleted_colour(row: UsageRow) -> object:
    return None if row.exists else QPalette().color(QPalette.ColorRole.PlaceholderText)


class UsageTableModel(RowModel[UsageRow]):
    """One row per skill (and per deleted name in the log): uses, sessions, last use, activity.

    The rows are the report's :class:`~rockskills_gui.core.usage.report.UsageRows` (columns; a row
    object is made when a cell is asked for), shown in an order of positions. The model sorts
    itself (:meth:`sort`, by the core's ``sort_rows``): a sort proxy asks ``data()`` for every
    comparison, 1.6 s on the UI thread for 10,000 skills. New rows can come sorted already
    (sorted off the UI thread for :attr:`sort_state`)."""

    HEADERS = ("Skill", "Uses", "Sessions", "Last use")
    USES = 1

    def __init__(self, parent: QObject | None = None) -> None:
        right = Qt.AlignmentFlag.AlignRight
        super().__init__((
            Column("Skill", lambda r: r.name if r.exists else f"{r.name} (deleted)"),
            Column("Uses", lambda r: r.events, align=right,
                   roles={BAR_ROLE: lambda r: r.events / self._most}),
            Column("Sessions", lambda r: r.sessions, align=right),
            Column("Last use", lambda r: when(r.last_used)),
        ), parent, roles={NAME_ROLE: lambda r: r.name,
                          Qt.ItemDataRole.ForegroundRole: _deleted_colour}, tooltip=_usage_tip)
        self._given: Sequence[UsageRow] = []  # as set_rows got them: ties keep this order
        self.rows: Sequence[UsageRow] = []  # type: ignore[assignment]  # any sequence of rows
        self._most = 1
        self._cached: tuple[int, UsageRow] | None = None  # the row data() made last

    @property
    def sort_state(self) -> tuple[int, bool] | None:
        """(column, descending) of the current sort, None when unsorted."""
        if self._sorting is None:
            return None
        return self._sorting[0], self._sorting[1] == Qt.SortOrder.DescendingOrder

    def set_rows(self, rows: Sequence[UsageRow], sorted_rows: Sequence[UsageRow] | None = None,
                 sorted_by: tuple[int, bool] | None = None) -> None:
        """Show ``rows``; ``sorted_rows`` are the same rows already sorted as ``sorted_by`` says,
        used when that is still this model's sort."""
        self.beginResetModel()
        self._cached = None
        self._given = rows
        done = sorted_rows is not None and sorted_by is not None and sorted_by == self.sort_state
        if done and sorted_rows is not None:
            self.rows = sorted_rows
        elif self._sorting is not None:
            self._sort_rows(*self._sorting)
        else:
            self.rows = rows
        given = self.rows
        most = given.most_events() if isinstance(given, UsageRows) else \
            max((r.events for r in given), default=0)
        self._most = most or 1
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.rows) \
                or not 0 <= index.column() < len(self.columns):
            return None
        row = index.row()
        cached = self._cached
        if cached is None or cached[0] != row:  # one row object for a row's many cells and roles
            cached = self._cached = (row, self.rows[row])
        item, column = cached[1], self.columns[index.column()]
        getter = column.roles.get(role)
        if getter is not None:
            return getter(item)
        if role == Qt.ItemDataRole.DisplayRole:
            return column.value(item)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _usage_tip(item)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return None if column.align is None else \
                int(column.align) | int(Qt.AlignmentFlag.AlignVCenter)
        getter = self.row_roles.get(role)
        if getter is not None:
            return getter(item)
        return item if role == ROW_ROLE else None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by ``column`` (stable; persistent indexes -- selection, current row -- follow
        their rows)."""
        if not 0 <= column < len(self.columns):
            return
        self._sorting = (column, order)
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        before = self._positions()
        held = [(int(before[i.row()]), i.column()) for i in persistent
                if 0 <= i.row() < len(before)]
        self._sort_rows(column, order)
        self._cached = None
        after = self._positions()
        where = np.empty(len(after), dtype=np.int64)
        where[after] = np.arange(len(after))
        self.changePersistentIndexList(
            [i for i in persistent if 0 <= i.row() < len(before)],
            [self.index(int(where[position]), col) for position, col in held])
        self.layoutChanged.emit()

    def _positions(self) -> np.ndarray:
        """For each row shown, its position among the rows as given."""
        rows = self.rows
        if isinstance(rows, UsageRows) and isinstance(self._given, UsageRows):
            return rows.order if rows.order is not None else np.arange(len(rows))
        given = {id(row): k for k, row in enumerate(self._given)}  # rows given as a list
        return np.array([given[id(row)] for row in rows], dtype=np.int64)

    def _sort_rows(self, column: int, order: Qt.SortOrder) -> None:
        """Sorted from the order the rows were given in (stable), as the worker sorts them."""
        self.rows = sort_rows(self._given, column, order == Qt.SortOrder.DescendingOrder)

    def row_of(self, name: str) -> int:
        key = fold(name)
        rows = self.rows
        if isinstance(rows, UsageRows):
            return next((k for k in range(len(rows)) if fold(rows.name(rows.position(k))) == key),
                        -1)
        return self.find(lambda r: fold(r.name) == key)


class BarDelegate(QStyledItemDelegate):
    """Draws a horizontal bar (the row's share of the largest value) behind the number."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        fraction = index.data(BAR_ROLE)
        if isinstance(fraction, float) and fraction > 0:
            rect = option.rect.adjusted(2, 3, -2, -3)
            colour = QColor(option.palette.color(QPalette.ColorRole.Highlight))
            colour.setAlpha(110)
            painter.fillRect(QRect(rect.left(), rect.top(), max(1, round(rect.width() * fraction)),
                                   rect.height()), colour)
        super().paint(painter, option, index)
