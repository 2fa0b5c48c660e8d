"""The co-occurrence matrix view: one indexed QImage scaled into a scroll area, labels painted.

Nothing here is a widget per cell: the matrix is one 8-bit image (a pixel per cell, colours from
a colour table) drawn scaled with nearest-neighbour sampling, only the visible part of it. Row
labels (left) and column labels (top, rotated) stay in place while the matrix scrolls; they are
elided in the middle with the full name on hover. Bands of one name family get alternating label
backgrounds and separator lines; see-also links are marked with a dot; the selected cell
highlights its row and column.

Labels are always drawn in the widget's own font (never smaller than the application's): when the
rows are thinner than a line of text, only what fits is labelled -- the name families (bands) or
every k-th skill -- and every row and column still names its skill on hover. Fit gives the matrix
the whole canvas: cells may be wider than tall (up to :data:`MAX_ASPECT`), and as large as
:data:`CELL_SIZES` allows, so Fit enlarges a small matrix as well as shrinking a large one.

Signals:
    cellClicked(int, int): a cell was clicked (row, column in display order).
    labelActivated(str): a row or column label was double-clicked (the skill's name).
    zoomChanged(int): the cell size in pixels changed.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from rockskills_gui.core.usage.heatmap import HeatmapData
from rockskills_gui.ui.common.colormap import colour_table

CELL_SIZES = (2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 32, 40, 48, 64)
MAX_ASPECT = 3.0  # fitted cells are at most this much wider (or taller) than high (or wide)
MAX_LABEL_WIDTH = 260
WIDTH_CANDIDATES = 64  # longest labels measured to find the widest
LABEL_PAD = 6


def indexed_image(levels: np.ndarray, table: list[int]) -> QImage:
    """An 8-bit indexed image, one pixel per cell, owning its pixels."""
    rows, cols = levels.shape
    stride = (cols + 3) // 4 * 4  # QImage scan lines are 32-bit aligned
    padded = np.zeros((rows, stride), dtype=np.uint8)
    padded[:, :cols] = levels
    image = QImage(padded.tobytes(), cols, rows, stride, QImage.Format.Format_Indexed8).copy()
    image.setColorTable(table)
    return image


class HeatmapView(QAbstractScrollArea):
    """Scrollable, zoomable matrix of a :class:`HeatmapData`."""

    cellClicked = Signal(int, int)
    labelActivated = Signal(str)
    zoomChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("heatmapView")
        self.data: HeatmapData | None = None
        self._longest: tuple[HeatmapData, list[str]] | None = None  # see _label_width_for
        self.image: QImage | None = None
        self.cw = self.ch = 14  # cell width and height in pixels
        self.selected: tuple[int, int] | None = None
        self.hovered: tuple[int, int] | None = None
        self.show_links = True
        self.auto_fit = True  # refit on resize until the user zooms
        self.gutter = 120
        self.empty_text = ""  # shown when there is no data at all (e.g. no usage log)
        self.viewport().setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setMinimumSize(240, 240)

    # ---------------------------------------------------------------- content

    def set_data(self, data: HeatmapData | None, keep_selection: bool = False) -> None:
        """Show ``data`` (None: empty). The selection survives when the same names are shown."""
        previous = self._selected_names() if keep_selection else None
        self.data = data
        self.image = (indexed_image(data.levels, colour_table(data.options.measure, self.palette()))
                      if data is not None and len(data) else None)
        self.selected = None
        if previous is not None and data is not None:
            i, j = data.index(previous[0]), data.index(previous[1])
            if i is not None and j is not None:
                self.selected = (i, j)
        self.hovered = None
        self.gutter = self._label_width()
        self._update_scrollbars()
        self.viewport().update()

    def _selected_names(self) -> tuple[str, str] | None:
        if self.data is None or self.selected is None:
            return None
        i, j = self.selected
        return self.data.names[i], self.data.names[j]

    def set_show_links(self, show: bool) -> None:
        self.show_links = show
        self.viewport().update()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and self.data is not None and self.image is not None:
            self.image.setColorTable(colour_table(self.data.options.measure, self.palette()))
        super().changeEvent(event)

    # ---------------------------------------------------------------- zoom and geometry

    @property
    def cell(self) -> int:
        """The cell size (the smaller side when cells are not square)."""
        return min(self.cw, self.ch)

    def set_cell_size(self, size: int | tuple[int, int], anchor: QPoint | None = None) -> None:
        """Square cells of ``size`` pixels, or ``(width, height)``; ``anchor`` stays in place."""
        width, height = (size, size) if isinstance(size, int) else size
        width = max(CELL_SIZES[0], min(CELL_SIZES[-1], width))
        height = max(CELL_SIZES[0], min(CELL_SIZES[-1], height))
        if (width, height) == (self.cw, self.ch):
            return
        focus = anchor if anchor is not None else QPoint(
            self.gutter + (self.viewport().width() - self.gutter) // 2,
            self.gutter + (self.viewport().height() - self.gutter) // 2)
        fx = (self.horizontalScrollBar().value() + focus.x() - self.gutter) / self.cw
        fy = (self.verticalScrollBar().value() + focus.y() - self.gutter) / self.ch
        self.cw, self.ch = width, height
        self.gutter = self._label_width()
        self._update_scrollbars()
        self.horizontalScrollBar().setValue(round(fx * width - (focus.x() - self.gutter)))
        self.verticalScrollBar().setValue(round(fy * height - (focus.y() - self.gutter)))
        self.viewport().update()
        self.zoomChanged.emit(self.cell)

    def zoom(self, steps: int, anchor: QPoint | None = None) -> None:
        """Move ``steps`` along :data:`CELL_SIZES` (positive = larger cells); a fitted aspect
        (wider than tall) is kept."""
        self.auto_fit = False
        current = min(range(len(CELL_SIZES)), key=lambda k: abs(CELL_SIZES[k] - self.cell))
        target = CELL_SIZES[max(0, min(len(CELL_SIZES) - 1, current + steps))]
        scale = target / self.cell
        self.set_cell_size((max(target, round(self.cw * scale)),
                            max(target, round(self.ch * scale))), anchor)

    def fit(self) -> None:
        """Cells as large as the canvas allows for the whole matrix (larger or smaller than now,
        wider than tall when the canvas is); keeps fitting on resize until the user zooms."""
        self.auto_fit = True
        n = len(self.data) if self.data is not None else 0
        if not n:
            return
        line = QFontMetrics(self.font()).height()
        width, height = self.viewport().width(), self.viewport().height()
        # Labels on every row need the full-name gutter; thinner rows label less (band names).
        for gutter in dict.fromkeys((self._label_width_for(True), self._label_width_for(False))):
            cw = (width - gutter - 2) // n
            ch = (height - gutter - 2) // n
            cw, ch = self._aspect(cw, ch)
            if min(cw, ch) >= line or gutter == self._label_width_for(False):
                break
        self.set_cell_size((cw, ch))

    @staticmethod
    def _aspect(cw: int, ch: int) -> tuple[int, int]:
        cw = max(CELL_SIZES[0], min(CELL_SIZES[-1], cw))
        ch = max(CELL_SIZES[0], min(CELL_SIZES[-1], ch))
        if cw > ch * MAX_ASPECT:
            cw = int(ch * MAX_ASPECT)
        if ch > cw * MAX_ASPECT:
            ch = int(cw * MAX_ASPECT)
        return cw, ch

    def _label_font(self) -> QFont:
        """The labels' font: the widget's own, at every zoom."""
        return QFont(self.font())

    def audit_fonts(self) -> list[QFont]:
        """Fonts this view paints text with (the layout audit checks their size)."""
        return [self._label_font()]

    def _line(self) -> int:
        return QFontMetrics(self._label_font()).height()

    def every_row(self) -> bool:
        """Rows are tall enough for a label each (and columns wide enough)."""
        return self.cell >= self._line()

    def label_step(self, side: int | None = None) -> int:
        """Label every k-th row or column (``side``: the cell's height or width)."""
        side = self.cell if side is None else side
        return max(1, math.ceil(self._line() / max(1, side)))

    def _label_width_for(self, every: bool) -> int:
        if self.data is None or not len(self.data):
            return 40
        metrics = QFontMetrics(self._label_font())
        if not every and self.data.bands:
            widest = max(metrics.horizontalAdvance(band.label) for band in self.data.bands)
            return min(MAX_LABEL_WIDTH, widest + 4) + 2 * LABEL_PAD
        if self._longest is None or self._longest[0] is not self.data:
            # The widest label is among the longest ones: measuring 3,000 labels per zoom step
            # took ~140 ms on the UI thread.
            labels = (self.data.label(i) for i in range(len(self.data)))
            self._longest = (self.data, heapq.nlargest(WIDTH_CANDIDATES, labels, key=len))
        widest = max((metrics.horizontalAdvance(label) for label in self._longest[1]), default=0)
        return min(MAX_LABEL_WIDTH, widest + 4) + 2 * LABEL_PAD

    def _label_width(self) -> int:
        return self._label_width_for(self.every_row())

    def content_size(self) -> QSize:
        n = len(self.data) if self.data is not None else 0
        return QSize(n * self.cw, n * self.ch)

    def _update_scrollbars(self) -> None:
        size = self.content_size()
        room = QSize(max(0, self.viewport().width() - self.gutter),
                     max(0, self.viewport().height() - self.gutter))
        for bar, page, total, step in (
                (self.horizontalScrollBar(), room.width(), size.width(), self.cw),
                (self.verticalScrollBar(), room.height(), size.height(), self.ch)):
            bar.setPageStep(max(1, page))
            bar.setSingleStep(max(1, step))
            bar.setRange(0, max(0, total - page))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.auto_fit and self.data is not None:
            self.fit()
        self._update_scrollbars()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        del dx, dy
        self.viewport().update()

    def _origin(self) -> QPoint:
        """Viewport position of cell (0, 0)'s top-left corner."""
        return QPoint(self.gutter - self.horizontalScrollBar().value(),
                      self.gutter - self.verticalScrollBar().value())

    def cell_rect(self, row: int, col: int) -> QRect:
        origin = self._origin()
        return QRect(origin.x() + col * self.cw, origin.y() + row * self.ch, self.cw, self.ch)

    def cell_center(self, row: int, col: int) -> QPoint:
        return self.cell_rect(row, col).center()

    def cell_at(self, pos: QPoint) -> tuple[int, int] | None:
        n = len(self.data) if self.data is not None else 0
        if pos.x() < self.gutter or pos.y() < self.gutter:
            return None
        origin = self._origin()
        col = (pos.x() - origin.x()) // self.cw
        row = (pos.y() - origin.y()) // self.ch
        if 0 <= row < n and 0 <= col < n:
            return row, col
        return None

    def label_at(self, pos: QPoint) -> int | None:
        """Index of the row label (left) or column label (top) under ``pos``."""
        n = len(self.data) if self.data is not None else 0
        origin = self._origin()
        if pos.x() < self.gutter <= pos.y():
            k = (pos.y() - origin.y()) // self.ch
        elif pos.y() < self.gutter <= pos.x():
            k = (pos.x() - origin.x()) // self.cw
        else:
            return None
        return k if 0 <= k < n else None

    def row_label_center(self, row: int) -> QPoint:
        return QPoint(self.gutter // 2, self.cell_rect(row, 0).center().y())

    def column_label_center(self, col: int) -> QPoint:
        return QPoint(self.cell_rect(0, col).center().x(), self.gutter // 2)

    def ensure_visible(self, row: int, col: int) -> None:
        for bar, pos, page, size in ((self.horizontalScrollBar(), col * self.cw,
                                      self.viewport().width() - self.gutter, self.cw),
                                     (self.verticalScrollBar(), row * self.ch,
                                      self.viewport().height() - self.gutter, self.ch)):
            if pos < bar.value():
                bar.setValue(pos)
            elif pos + size > bar.value() + page:
                bar.setValue(pos + size - page)

    # ---------------------------------------------------------------- selection

    def select(self, row: int, col: int, emit: bool = True) -> None:
        if self.data is None or not (0 <= row < len(self.data) and 0 <= col < len(self.data)):
            return
        self.selected = (row, col)
        self.ensure_visible(row, col)
        self.viewport().update()
        if emit:
            self.cellClicked.emit(row, col)

    def hover_text(self, pos: QPoint) -> str:
        """What the tooltip at ``pos`` says ("" when nothing is there)."""
        if self.data is None:
            return ""
        cell = self.cell_at(pos)
        if cell is not None:
            return self.data.describe_cell(*cell)
        label = self.label_at(pos)
        if label is not None:
            data = self.data
            return (f"{data.label(label)}\n{data.events[label]} use(s) in {data.own[label]} "
                    f"session(s)\nDouble-click to open it in the Skill tab")
        return ""

    # ---------------------------------------------------------------- events

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.hover_text(event.pos())
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        cell = self.cell_at(event.position().toPoint())
        if cell != self.hovered:
            self.hovered = cell
            self.viewport().update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self.hovered is not None:
            self.hovered = None
            self.viewport().update()
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            pos = event.position().toPoint()
            cell = self.cell_at(pos)
            label = self.label_at(pos)
            if cell is not None:
                self.select(*cell)
            elif label is not None:
                self.select(label, label)
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        label = self.label_at(event.position().toPoint())
        if label is not None and self.data is not None and event.button() == Qt.MouseButton.LeftButton:
            self.labelActivated.emit(self.data.names[label])
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = 1 if event.angleDelta().y() > 0 else -1
            self.zoom(steps, event.position().toPoint())
            event.accept()
            return
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1)
        elif key == Qt.Key.Key_Minus:
            self.zoom(-1)
        elif self.data is not None and len(self.data) and key in (
                Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down):
            row, col = self.selected or (0, 0)
            row += {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}.get(key, 0)  # type: ignore[call-overload]
            col += {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1}.get(key, 0)  # type: ignore[call-overload]
            n = len(self.data)
            self.select(max(0, min(n - 1, row)), max(0, min(n - 1, col)))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.selected and self.data:
            self.labelActivated.emit(self.data.names[self.selected[0]])
        else:
            super().keyPressEvent(event)

    # ---------------------------------------------------------------- painting

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        painter = QPainter(self.viewport())
        try:
            self.paint(painter, self.viewport().rect(), self._origin())
        finally:
            painter.end()

    def paint(self, painter: QPainter, area: QRect, origin: QPoint) -> None:
        """Paint labels and matrix into ``area`` with cell (0, 0) at ``origin`` (also for export)."""
        palette = self.palette()
        painter.fillRect(area, palette.color(QPalette.ColorRole.Base))
        data = self.data
        if data is None or self.image is None:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(area.adjusted(24, 0, -24, 0),
                             int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap),
                             "No pairs to show: widen the window or lower the minimum count."
                             if data is not None else self.empty_text)
            return
        n, cw, ch, gutter = len(data), self.cw, self.ch, self.gutter
        matrix_area = QRect(area.left() + gutter, area.top() + gutter,
                            max(0, area.width() - gutter), max(0, area.height() - gutter))
        first_col = max(0, (matrix_area.left() - origin.x()) // cw)
        last_col = min(n, math.ceil((matrix_area.right() + 1 - origin.x()) / cw))
        first_row = max(0, (matrix_area.top() - origin.y()) // ch)
        last_row = min(n, math.ceil((matrix_area.bottom() + 1 - origin.y()) / ch))
        visible = (first_row, last_row, first_col, last_col)

        painter.save()
        painter.setClipRect(matrix_area)
        if last_col > first_col and last_row > first_row:
            target = QRectF(origin.x() + first_col * cw, origin.y() + first_row * ch,
                            (last_col - first_col) * cw, (last_row - first_row) * ch)
            source = QRectF(first_col, first_row, last_col - first_col, last_row - first_row)
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawImage(target, self.image, source)
        self._paint_grid(painter, origin, visible)
        self._paint_links(painter, origin, visible)
        self._paint_selection(painter, origin)
        painter.restore()

        self._paint_row_labels(painter, area, origin, visible)
        self._paint_column_labels(painter, area, origin, visible)
        corner = QRect(area.left(), area.top(), gutter, gutter)
        painter.fillRect(corner, palette.color(QPalette.ColorRole.Base))

    def _paint_grid(self, painter: QPainter, origin: QPoint, visible: tuple[int, int, int, int]) -> None:
        data = self.data
        assert data is not None
        first_row, last_row, first_col, last_col = visible
        palette = self.palette()
        cw, ch = self.cw, self.ch
        top = origin.y() + first_row * ch
        bottom = origin.y() + last_row * ch
        left = origin.x() + first_col * cw
        right = origin.x() + last_col * cw
        if min(cw, ch) >= 8:
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Base), 1))
            for k in range(first_col, last_col + 1):
                x = origin.x() + k * cw
                painter.drawLine(x, top, x, bottom)
            for k in range(first_row, last_row + 1):
                y = origin.y() + k * ch
                painter.drawLine(left, y, right, y)
        if data.bands:
            separator = QColor(palette.color(QPalette.ColorRole.Text))
            separator.setAlpha(120)
            painter.setPen(QPen(separator, 1))
            for band in data.bands[1:]:
                x = origin.x() + band.start * cw
                y = origin.y() + band.start * ch
                if first_col <= band.start <= last_col:
                    painter.drawLine(x, top, x, bottom)
                if first_row <= band.start <= last_row:
                    painter.drawLine(left, y, right, y)

    def _paint_links(self, painter: QPainter, origin: QPoint, visible: tuple[int, int, int, int]) -> None:
        data = self.data
        if data is None or not self.show_links or not data.links:
            return
        first_row, last_row, first_col, last_col = visible
        palette = self.palette()
        cw, ch = self.cw, self.ch
        radius = max(1.5, min(cw, ch) * 0.22)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Base), max(1.0, min(cw, ch) / 12)))
        painter.setBrush(palette.color(QPalette.ColorRole.Text))
        for row, col in data.links:
            if first_row <= row < last_row and first_col <= col < last_col:
                center = QRectF(origin.x() + col * cw, origin.y() + row * ch, cw, ch).center()
                painter.drawEllipse(center, radius, radius)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)

    def _paint_selection(self, painter: QPainter, origin: QPoint) -> None:
        data = self.data
        assert data is not None
        palette = self.palette()
        cw, ch, n = self.cw, self.ch, len(data)
        highlight = QColor(palette.color(QPalette.ColorRole.Highlight))
        if self.selected is not None:
            row, col = self.selected
            band = QColor(highlight)
            band.setAlpha(50)
            painter.fillRect(QRect(origin.x(), origin.y() + row * ch, n * cw, ch), band)
            painter.fillRect(QRect(origin.x() + col * cw, origin.y(), cw, n * ch), band)
            painter.setPen(QPen(highlight, 2))
            painter.drawRect(QRect(origin.x() + col * cw, origin.y() + row * ch, cw, ch)
                             .adjusted(0, 0, -1, -1))
        if self.hovered is not None and self.hovered != self.selected:
            row, col = self.hovered
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Text), 1))
            painter.drawRect(QRect(origin.x() + col * cw, origin.y() + row * ch, cw, ch)
                             .adjusted(0, 0, -1, -1))

    def _label_colour(self, index: int) -> QColor:
        data = self.data
        assert data is not None
        role = QPalette.ColorRole.Text if data.exists[index] else QPalette.ColorRole.PlaceholderText
        return self.palette().color(role)

    def _band_stripes(self, painter: QPainter, rect_for: object, visible: tuple[int, int]) -> None:
        data = self.data
        assert data is not None
        stripe = self.palette().color(QPalette.ColorRole.AlternateBase)
        for k, band in enumerate(data.bands):
            if k % 2 and band.stop > visible[0] and band.start < visible[1]:
                painter.fillRect(rect_for(band.start, band.stop), stripe)  # type: ignore[operator]

    def labelled(self, side: int, first: int, last: int) -> list[int]:
        """Which of the rows (or columns) ``first``..``last`` get a label at cell ``side``: all
        when a line of text fits, else every k-th (none when name families are labelled)."""
        step = self.label_step(side)
        if step == 1:
            return list(range(first, last))
        if self.data is not None and self.data.bands:
            return []
        return [k for k in range(first - first % step, last, step) if k >= first]

    def _paint_row_labels(self, painter: QPainter, area: QRect, origin: QPoint,
                          visible: tuple[int, int, int, int]) -> None:
        data = self.data
        assert data is not None
        first_row, last_row = visible[0], visible[1]
        ch, gutter = self.ch, self.gutter
        clip = QRect(area.left(), area.top() + gutter, gutter, max(0, area.height() - gutter))
        painter.save()
        painter.setClipRect(clip)
        painter.fillRect(clip, self.palette().color(QPalette.ColorRole.Base))
        self._band_stripes(painter, lambda a, b: QRect(area.left(), origin.y() + a * ch, gutter,
                                                       (b - a) * ch), (first_row, last_row))
        font = self._label_font()
        painter.setFont(font)
        metrics = QFontMetrics(font)
        line = metrics.height()
        rows = self.labelled(ch, first_row, last_row)
        if rows or not data.bands:
            for row in rows:
                top = origin.y() + row * ch + (ch - max(ch, line)) // 2
                rect = QRect(area.left() + LABEL_PAD, top, gutter - 2 * LABEL_PAD, max(ch, line))
                self._draw_label(painter, metrics, rect, row, Qt.AlignmentFlag.AlignRight)
        else:
            self._band_labels(painter, metrics, lambda a, b: QRect(
                area.left() + 2, origin.y() + a * ch, gutter - 4, (b - a) * ch),
                Qt.AlignmentFlag.AlignRight)
        painter.restore()

    def _paint_column_labels(self, painter: QPainter, area: QRect, origin: QPoint,
                             visible: tuple[int, int, int, int]) -> None:
        data = self.data
        assert data is not None
        first_col, last_col = visible[2], visible[3]
        cw, gutter = self.cw, self.gutter
        clip = QRect(area.left() + gutter, area.top(), max(0, area.width() - gutter), gutter)
        painter.save()
        painter.setClipRect(clip)
        painter.fillRect(clip, self.palette().color(QPalette.ColorRole.Base))
        self._band_stripes(painter, lambda a, b: QRect(origin.x() + a * cw, area.top(),
                                                       (b - a) * cw, gutter), (first_col, last_col))
        # Rotate so that text runs bottom-up; x' = -y, y' = x in the rotated system.
        painter.translate(0, area.top() + gutter)
        painter.rotate(-90)
        font = self._label_font()
        painter.setFont(font)
        metrics = QFontMetrics(font)
        line = metrics.height()
        cols = self.labelled(cw, first_col, last_col)
        if cols or not data.bands:
            for col in cols:
                left = origin.x() + col * cw + (cw - max(cw, line)) // 2
                rect = QRect(LABEL_PAD, left, gutter - 2 * LABEL_PAD, max(cw, line))
                self._draw_label(painter, metrics, rect, col, Qt.AlignmentFlag.AlignLeft)
        else:
            self._band_labels(painter, metrics, lambda a, b: QRect(
                2, origin.x() + a * cw, gutter - 4, (b - a) * cw), Qt.AlignmentFlag.AlignLeft)
        painter.restore()

    def _draw_label(self, painter: QPainter, metrics: QFontMetrics, rect: QRect, index: int,
                    align: Qt.AlignmentFlag) -> None:
        data = self.data
        assert data is not None
        selected = self.selected is not None and index in self.selected
        if selected:
            painter.fillRect(rect.adjusted(-LABEL_PAD + 1, 0, LABEL_PAD - 1, 0),
                             self.palette().color(QPalette.ColorRole.Highlight))
            painter.setPen(self.palette().color(QPalette.ColorRole.HighlightedText))
        else:
            painter.setPen(self._label_colour(index))
        text = metrics.elidedText(data.label(index), Qt.TextElideMode.ElideMiddle, rect.width())
        painter.drawText(rect, align | Qt.AlignmentFlag.AlignVCenter, text)

    def _band_labels(self, painter: QPainter, metrics: QFontMetrics, rect_for: object,
                     align: Qt.AlignmentFlag) -> None:
        data = self.data
        assert data is not None
        painter.setPen(self.palette().color(QPalette.ColorRole.Text))
        for band in data.bands:
            rect = rect_for(band.start, band.stop)  # type: ignore[operator]
            if rect.height() >= metrics.height():
                text = metrics.elidedText(band.label, Qt.TextElideMode.ElideMiddle, rect.width())
                painter.drawText(rect, align | Qt.AlignmentFlag.AlignVCenter, text)

    # ---------------------------------------------------------------- export

    def render_full(self, min_cell: int = 14, max_side: int = 12000) -> QImage:
        """The whole matrix with its labels as an image: cells of at least ``min_cell`` pixels
        (and tall enough for a label each when ``max_side`` allows), square."""
        n = len(self.data) if self.data is not None else 0
        saved = self.cw, self.ch, self.gutter, self.selected, self.hovered
        self.selected = self.hovered = None
        cell = max(self.cell, min_cell, self._line())
        try:
            self.cw = self.ch = cell
            while self.cell > CELL_SIZES[0] and self._label_width() + n * self.cell > max_side:
                self.cw = self.ch = max(s for s in CELL_SIZES if s < self.cell)
            self.gutter = self._label_width()
            side = self.gutter + n * self.cell
            image = QImage(max(side, 1), max(side, 1), QImage.Format.Format_ARGB32_Premultiplied)
            image.fill(self.palette().color(QPalette.ColorRole.Base))
            painter = QPainter(image)
            try:
                self.paint(painter, QRect(0, 0, side, side), QPoint(self.gutter, self.gutter))
            finally:
                painter.end()
            return image
        finally:
            self.cw, self.ch, self.gutter, self.selected, self.hovered = saved
