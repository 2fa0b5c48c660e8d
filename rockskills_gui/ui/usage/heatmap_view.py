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
from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QHelpEvent,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from rockskills_gui.core.usage.heatmap import HeatmapData
from rockskills_gui.ui.common.colormap import colour_table
from rockskills_gui.ui.usage.heatmap_labels import Placed
from rockskills_gui.ui.usage.heatmap_painting import CELL_SIZES, LABEL_PAD, HeatmapPainter

MAX_ASPECT = 3.0  # fitted cells are at most this much wider (or taller) than high (or wide)
MAX_LABEL_WIDTH = 260
WIDTH_CANDIDATES = 64  # longest labels measured to find the widest

__all__ = [  # names that lived here before the painting was split off
    "CELL_SIZES", "LABEL_PAD", "MAX_ASPECT", "MAX_LABEL_WIDTH", "WIDTH_CANDIDATES", "HeatmapView",
    "indexed_image",
]


def indexed_image(levels: np.ndarray, table: list[int]) -> QImage:
    """An 8-bit indexed image, one pixel per cell, owning its pixels."""
    rows, cols = levels.shape
    image = QImage(cols, rows, QImage.Format.Format_Indexed8)
    # written in place (no padded copy, bytes or second image: 3,000 skills are 9 MB each);
    # scan lines are 32-bit aligned
    pixels = np.frombuffer(image.bits(), dtype=np.uint8, count=image.sizeInBytes())
    pixels.reshape(rows, image.bytesPerLine())[:, :cols] = levels
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
        self.painting = HeatmapPainter(self)  # paints it (on screen and for export)

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
        self.gutter = self.label_width()
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
        self.gutter = self.label_width()
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

    def label_font(self) -> QFont:
        """The labels' font: the widget's own, at every zoom."""
        return QFont(self.font())

    def audit_fonts(self) -> list[QFont]:
        """Fonts this view paints text with (the layout audit checks their size)."""
        return [self.label_font()]

    def line_height(self) -> int:
        return QFontMetrics(self.label_font()).height()

    def every_row(self) -> bool:
        """Rows are tall enough for a label each (and columns wide enough)."""
        return self.cell >= self.line_height()

    def label_step(self, side: int | None = None) -> int:
        """Label every k-th row or column (``side``: the cell's height or width)."""
        side = self.cell if side is None else side
        return max(1, math.ceil(self.line_height() / max(1, side)))

    def _label_width_for(self, every: bool) -> int:
        if self.data is None or not len(self.data):
            return 40
        metrics = QFontMetrics(self.label_font())
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

    def label_width(self) -> int:
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

    def origin(self) -> QPoint:
        """Viewport position of cell (0, 0)'s top-left corner."""
        return QPoint(self.gutter - self.horizontalScrollBar().value(),
                      self.gutter - self.verticalScrollBar().value())

    def cell_rect(self, row: int, col: int) -> QRect:
        origin = self.origin()
        return QRect(origin.x() + col * self.cw, origin.y() + row * self.ch, self.cw, self.ch)

    def cell_center(self, row: int, col: int) -> QPoint:
        return self.cell_rect(row, col).center()

    def cell_at(self, pos: QPoint) -> tuple[int, int] | None:
        n = len(self.data) if self.data is not None else 0
        if pos.x() < self.gutter or pos.y() < self.gutter:
            return None
        origin = self.origin()
        col = (pos.x() - origin.x()) // self.cw
        row = (pos.y() - origin.y()) // self.ch
        if 0 <= row < n and 0 <= col < n:
            return row, col
        return None

    def label_at(self, pos: QPoint) -> int | None:
        """Index of the row label (left) or column label (top) under ``pos``."""
        n = len(self.data) if self.data is not None else 0
        origin = self.origin()
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
            row += {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}.get(Qt.Key(key), 0)
            col += {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1}.get(Qt.Key(key), 0)
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
            self.paint(painter, self.viewport().rect(), self.origin())
        finally:
            painter.end()

    def paint(self, painter: QPainter, area: QRect, origin: QPoint) -> None:
        """Paint labels and matrix into ``area`` with cell (0, 0) at ``origin`` (also for export)."""
        self.painting.paint(painter, area, origin)

    def labelled(self, side: int, first: int, last: int) -> list[int]:
        """Which of the rows (or columns) ``first``..``last`` get a label at cell ``side``."""
        return self.painting.labelled(side, first, last)

    def placed_labels(self, rows: bool, area: QRect | None = None,
                      origin: QPoint | None = None) -> list[Placed]:
        """The row (or column) labels drawn now and where, along their axis (viewport pixels)."""
        return self.painting.placed_labels(rows, area, origin)

    def label_text(self, rows: bool, label: Placed) -> str:
        return self.painting.label_text(rows, label)

    # ---------------------------------------------------------------- export

    def render_full(self, min_cell: int = 14, max_side: int = 12000) -> QImage:
        """The whole matrix with its labels as an image: cells of at least ``min_cell`` pixels
        (and tall enough for a label each when ``max_side`` allows), square."""
        n = len(self.data) if self.data is not None else 0
        saved = self.cw, self.ch, self.gutter, self.selected, self.hovered
        self.selected = self.hovered = None
        cell = max(self.cell, min_cell, self.line_height())
        try:
            self.cw = self.ch = cell
            while self.cell > CELL_SIZES[0] and self.label_width() + n * self.cell > max_side:
                self.cw = self.ch = max(s for s in CELL_SIZES if s < self.cell)
            self.gutter = self.label_width()
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
