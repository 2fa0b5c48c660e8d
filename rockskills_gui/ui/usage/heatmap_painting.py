"""Painting the co-occurrence matrix view: the scaled matrix image, the grid, see-also link
dots, the selection, the row and column labels (bands of a name family, or every k-th skill),
and the whole matrix with its labels as one image for export. A mixin of ``HeatmapView``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPalette, QPen
from PySide6.QtWidgets import QAbstractScrollArea

from rockskills_gui.core.usage.heatmap import HeatmapData
from rockskills_gui.ui.usage.heatmap_labels import Placed, every_kth, spread

CELL_SIZES = (2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 32, 40, 48, 64)
LABEL_PAD = 6

if TYPE_CHECKING:  # the view is a QAbstractScrollArea; at run time this is a plain mixin
    _ViewBase = QAbstractScrollArea
else:
    _ViewBase = object


class HeatmapPainting(_ViewBase):
    """Paints ``HeatmapView`` (on screen and for export); declares the state it reads."""

    data: HeatmapData | None
    image: QImage | None
    cw: int
    ch: int
    selected: tuple[int, int] | None
    hovered: tuple[int, int] | None
    show_links: bool
    gutter: int
    empty_text: str

    if TYPE_CHECKING:  # geometry from HeatmapView
        @property
        def cell(self) -> int: ...
        def _label_font(self) -> QFont: ...
        def _line(self) -> int: ...
        def label_step(self, side: int | None = None) -> int: ...
        def _label_width(self) -> int: ...
        def _origin(self) -> QPoint: ...

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

    def _band_stripes(self, painter: QPainter, rect_for: Callable[[int, int], QRect],
                      visible: tuple[int, int]) -> None:
        data = self.data
        assert data is not None
        stripe = self.palette().color(QPalette.ColorRole.AlternateBase)
        for k, band in enumerate(data.bands):
            if k % 2 and band.stop > visible[0] and band.start < visible[1]:
                painter.fillRect(rect_for(band.start, band.stop), stripe)

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
        ch, gutter = self.ch, self.gutter
        clip = QRect(area.left(), area.top() + gutter, gutter, max(0, area.height() - gutter))
        painter.save()
        painter.setClipRect(clip)
        painter.fillRect(clip, self.palette().color(QPalette.ColorRole.Base))
        self._band_stripes(painter, lambda a, b: QRect(area.left(), origin.y() + a * ch, gutter,
                                                       (b - a) * ch), (visible[0], visible[1]))
        placed = self.placed_labels(True, area, origin)
        edge = area.left() + gutter  # the matrix's left edge
        self._draw_placed(painter, placed, True, lambda top, size: QRect(
            area.left() + LABEL_PAD, top, gutter - 2 * LABEL_PAD, size),
            lambda a, b: (QPoint(edge - LABEL_PAD + 1, a), QPoint(edge - 2, b)))
        painter.restore()

    def _paint_column_labels(self, painter: QPainter, area: QRect, origin: QPoint,
                             visible: tuple[int, int, int, int]) -> None:
        cw, gutter = self.cw, self.gutter
        clip = QRect(area.left() + gutter, area.top(), max(0, area.width() - gutter), gutter)
        painter.save()
        painter.setClipRect(clip)
        painter.fillRect(clip, self.palette().color(QPalette.ColorRole.Base))
        self._band_stripes(painter, lambda a, b: QRect(origin.x() + a * cw, area.top(),
                                                       (b - a) * cw, gutter), (visible[2], visible[3]))
        placed = self.placed_labels(False, area, origin)
        # Rotate so that text runs bottom-up; x' = -y, y' = x in the rotated system.
        painter.translate(0, area.top() + gutter)
        painter.rotate(-90)
        self._draw_placed(painter, placed, False, lambda top, size: QRect(
            LABEL_PAD, top, gutter - 2 * LABEL_PAD, size),
            lambda a, b: (QPoint(LABEL_PAD - 1, a), QPoint(1, b)))
        painter.restore()

    def placed_labels(self, rows: bool, area: QRect | None = None,
                      origin: QPoint | None = None) -> list[Placed]:
        """The row (or column) labels drawn now and where, along their axis (viewport pixels):
        every row, every k-th one or each name family's; the selected row's (column's) always.
        Keys are rows (columns), or band numbers when ``labels_bands``."""
        data = self.data
        if data is None:
            return []
        area = area if area is not None else self.viewport().rect()
        origin = origin if origin is not None else self._origin()
        n, gutter = len(data), self.gutter
        cell = self.ch if rows else self.cw
        start = origin.y() if rows else origin.x()
        low = (area.top() if rows else area.left()) + gutter
        high = (area.bottom() if rows else area.right()) + 1
        first = max(0, (low - start) // cell)
        last = min(n, math.ceil((high - start) / cell))
        line = self._line()
        picked = None if self.selected is None else self.selected[0 if rows else 1]
        picked_at = None if picked is None else start + picked * cell + cell / 2
        if picked is not None and not first <= picked < last:
            picked = picked_at = None
        labelled = self.labelled(cell, first, last)
        if labelled or not data.bands:
            centers = [start + k * cell + cell / 2 for k in labelled]
            return every_kth(labelled, centers, max(cell, line), low, high, picked, picked_at)
        wanted = [(k, max(low, start + b.start * cell), min(high, start + b.stop * cell),
                   float(b.stop - b.start)) for k, b in enumerate(data.bands)
                  if b.stop > first and b.start < last]
        if picked is not None:
            wanted.append((len(data.bands) + picked, start + picked * cell,
                           start + (picked + 1) * cell, float(n)))
            wanted.sort(key=lambda w: (w[1] + w[2]) / 2)
        return spread(wanted, line, low, high, None if picked is None else len(data.bands) + picked)

    def label_text(self, rows: bool, label: Placed) -> str:
        """What ``label`` says: a row's name, a family's, or (among families) the selected
        row's name after its family's."""
        data = self.data
        assert data is not None
        nbands = len(data.bands)
        cell = self.ch if rows else self.cw
        if not data.bands or self.labelled(cell, 0, 1):
            return data.label(label.key)
        if label.key < nbands:
            return data.bands[label.key].label
        index = label.key - nbands
        text = data.label(index)
        band = next((b for b in data.bands if b.start <= index < b.stop), None)
        if band is not None and band.label.endswith("/") and text.lower().startswith(band.label.lower()):
            text = text[len(band.label):]
        return text

    def _draw_placed(self, painter: QPainter, placed: list[Placed], rows: bool,
                     rect_for: Callable[[int, int], QRect],
                     leader_for: Callable[[int, int], tuple[QPoint, QPoint]]) -> None:
        data = self.data
        assert data is not None
        palette = self.palette()
        metrics = QFontMetrics(self._label_font())
        painter.setFont(self._label_font())
        bands = bool(data.bands) and not self.labelled(self.ch if rows else self.cw, 0, 1)
        align = Qt.AlignmentFlag.AlignRight if rows else Qt.AlignmentFlag.AlignLeft
        for label in placed:
            rect = rect_for(label.top, label.size)
            text = metrics.elidedText(self.label_text(rows, label), Qt.TextElideMode.ElideMiddle,
                                      rect.width())
            if label.selected:
                painter.fillRect(rect.adjusted(-LABEL_PAD + 1, 0, LABEL_PAD - 1, 0),
                                 palette.color(QPalette.ColorRole.Highlight))
                painter.setPen(palette.color(QPalette.ColorRole.HighlightedText))
            elif bands:
                painter.setPen(palette.color(QPalette.ColorRole.Text))
            else:
                painter.setPen(self._label_colour(label.key))
            painter.drawText(rect, align | Qt.AlignmentFlag.AlignVCenter, text)
            if bands and label.displaced and not label.selected:
                # A family's label moved off its rows: a thin line from it to them.
                target = round(min(max(label.center, label.lo), label.hi - 1))
                start, end = leader_for(round(label.center), target)
                painter.setPen(QPen(palette.color(QPalette.ColorRole.PlaceholderText), 1))
                painter.drawLine(start, end)

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
