"""Painting the co-occurrence matrix view: the scaled matrix image, the grid, see-also link
dots, the selection, the row and column labels (bands of a name family, or every k-th skill),
and the whole matrix with its labels as one image for export. A part of ``HeatmapView``: it
reads the view through :class:`HeatmapGeometry`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPalette, QPen
from PySide6.QtWidgets import QWidget

from rockskills_gui.core.usage.heatmap import HeatmapData
from rockskills_gui.ui.usage.heatmap_labels import Placed, every_kth, spread

CELL_SIZES = (2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 32, 40, 48, 64)
LABEL_PAD = 6

class HeatmapGeometry(Protocol):
    """What painting reads of ``HeatmapView``: the data and its image, the cell size, the
    label gutter, the selection and hover, and where things are."""

    @property
    def data(self) -> HeatmapData | None: ...
    @property
    def image(self) -> QImage | None: ...
    @property
    def cw(self) -> int: ...
    @property
    def ch(self) -> int: ...
    @property
    def gutter(self) -> int: ...
    @property
    def selected(self) -> tuple[int, int] | None: ...
    @property
    def hovered(self) -> tuple[int, int] | None: ...
    @property
    def show_links(self) -> bool: ...
    @property
    def empty_text(self) -> str: ...
    def label_font(self) -> QFont: ...
    def line_height(self) -> int: ...
    def label_step(self, side: int | None = None) -> int: ...
    def origin(self) -> QPoint: ...
    def viewport(self) -> QWidget: ...
    def palette(self) -> QPalette: ...


class HeatmapPainter:
    """Paints ``view`` (on screen, and the whole matrix for export)."""

    def __init__(self, view: HeatmapGeometry) -> None:
        self.view = view

    def paint(self, painter: QPainter, area: QRect, origin: QPoint) -> None:
        """Paint labels and matrix into ``area`` with cell (0, 0) at ``origin`` (also for export)."""
        view = self.view
        palette = view.palette()
        painter.fillRect(area, palette.color(QPalette.ColorRole.Base))
        data = self.view.data
        if data is None or self.view.image is None:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(area.adjusted(24, 0, -24, 0),
                             int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap),
                             "No pairs to show: widen the window or lower the minimum count."
                             if data is not None else self.view.empty_text)
            return
        n, cw, ch, gutter = len(data), self.view.cw, self.view.ch, self.view.gutter
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
            painter.drawImage(target, self.view.image, source)
        self._paint_grid(painter, origin, visible)
        self._paint_links(painter, origin, visible)
        self._paint_selection(painter, origin)
        painter.restore()

        self._paint_row_labels(painter, area, origin, visible)
        self._paint_column_labels(painter, area, origin, visible)
        corner = QRect(area.left(), area.top(), gutter, gutter)
        painter.fillRect(corner, palette.color(QPalette.ColorRole.Base))

    def _paint_grid(self, painter: QPainter, origin: QPoint, visible: tuple[int, int, int, int]) -> None:
        data = self.view.data
        assert data is not None
        first_row, last_row, first_col, last_col = visible
        palette = self.view.palette()
        cw, ch = self.view.cw, self.view.ch
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
        data = self.view.data
        if data is None or not self.view.show_links or not data.links:
            return
        first_row, last_row, first_col, last_col = visible
        palette = self.view.palette()
        cw, ch = self.view.cw, self.view.ch
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
        data = self.view.data
        assert data is not None
        palette = self.view.palette()
        cw, ch, n = self.view.cw, self.view.ch, len(data)
        highlight = QColor(palette.color(QPalette.ColorRole.Highlight))
        if self.view.selected is not None:
            row, col = self.view.selected
            band = QColor(highlight)
            band.setAlpha(50)
            painter.fillRect(QRect(origin.x(), origin.y() + row * ch, n * cw, ch), band)
            painter.fillRect(QRect(origin.x() + col * cw, origin.y(), cw, n * ch), band)
            painter.setPen(QPen(highlight, 2))
            painter.drawRect(QRect(origin.x() + col * cw, origin.y() + row * ch, cw, ch)
                             .adjusted(0, 0, -1, -1))
        if self.view.hovered is not None and self.view.hovered != self.view.selected:
            row, col = self.view.hovered
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Text), 1))
            painter.drawRect(QRect(origin.x() + col * cw, origin.y() + row * ch, cw, ch)
                             .adjusted(0, 0, -1, -1))

    def _label_colour(self, index: int) -> QColor:
        data = self.view.data
        assert data is not None
        role = QPalette.ColorRole.Text if data.exists[index] else QPalette.ColorRole.PlaceholderText
        return self.view.palette().color(role)

    def _band_stripes(self, painter: QPainter, rect_for: Callable[[int, int], QRect],
                      visible: tuple[int, int]) -> None:
        data = self.view.data
        assert data is not None
        stripe = self.view.palette().color(QPalette.ColorRole.AlternateBase)
        for k, band in enumerate(data.bands):
            if k % 2 and band.stop > visible[0] and band.start < visible[1]:
                painter.fillRect(rect_for(band.start, band.stop), stripe)

    def labelled(self, side: int, first: int, last: int) -> list[int]:
        """Which of the rows (or columns) ``first``..``last`` get a label at cell ``side``: all
        when a line of text fits, else every k-th (none when name families are labelled)."""
        step = self.view.label_step(side)
        if step == 1:
            return list(range(first, last))
        if self.view.data is not None and self.view.data.bands:
            return []
        return [k for k in range(first - first % step, last, step) if k >= first]

    def _paint_row_labels(self, painter: QPainter, area: QRect, origin: QPoint,
                          visible: tuple[int, int, int, int]) -> None:
        ch, gutter = self.view.ch, self.view.gutter
        clip = QRect(area.left(), area.top() + gutter, gutter, max(0, area.height() - gutter))
        painter.save()
        painter.setClipRect(clip)
        painter.fillRect(clip, self.view.palette().color(QPalette.ColorRole.Base))
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
        cw, gutter = self.view.cw, self.view.gutter
        clip = QRect(area.left() + gutter, area.top(), max(0, area.width() - gutter), gutter)
        painter.save()
        painter.setClipRect(clip)
        painter.fillRect(clip, self.view.palette().color(QPalette.ColorRole.Base))
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
        data = self.view.data
        if data is None:
            return []
        area = area if area is not None else self.view.viewport().rect()
        origin = origin if origin is not None else self.view.origin()
        n, gutter = len(data), self.view.gutter
        cell = self.view.ch if rows else self.view.cw
        start = origin.y() if rows else origin.x()
        low = (area.top() if rows else area.left()) + gutter
        high = (area.bottom() if rows else area.right()) + 1
        first = max(0, (low - start) // cell)
        last = min(n, math.ceil((high - start) / cell))
        line = self.view.line_height()
        picked = None if self.view.selected is None else self.view.selected[0 if rows else 1]
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
        data = self.view.data
        assert data is not None
        nbands = len(data.bands)
        cell = self.view.ch if rows else self.view.cw
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
        data = self.view.data
        assert data is not None
        palette = self.view.palette()
        metrics = QFontMetrics(self.view.label_font())
        painter.setFont(self.view.label_font())
        bands = bool(data.bands) and not self.labelled(self.view.ch if rows else self.view.cw, 0, 1)
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
