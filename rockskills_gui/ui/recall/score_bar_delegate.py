"""Painting for the recall results: the score bar split into term and phrase segments, and the
top-5 cut drawn across the table.

Segment colours come from a named qualitative colour table, treated as data: the Okabe–Ito
palette (Okabe & Ito, "Color Universal Design", 2008), chosen because it stays distinguishable
for the common colour-vision deficiencies; black is left out (it vanishes on dark themes). A
phrase segment takes the next colour and is hatched (in the palette's Base colour) so phrases
read as phrases without a legend. Text on a segment uses whichever of the palette's Text and
Base colours contrasts more with it. Nothing else here picks a colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

Index = QModelIndex | QPersistentModelIndex

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")

SEGMENTS_ROLE = Qt.ItemDataRole.UserRole + 30  # list[Segment] for the bar column
SCALE_ROLE = Qt.ItemDataRole.UserRole + 31  # the score that fills the whole bar width
CUT_ROLE = Qt.ItemDataRole.UserRole + 32  # True on the last row above the top-5 cut


@dataclass(frozen=True, slots=True)
class Segment:
    """One term's or phrase's share of a score; ``slot`` picks its colour."""

    label: str
    value: float
    slot: int
    phrase: bool


def segment_colour(slot: int) -> QColor:
    """The colour of the ``slot``-th term or phrase of a query (cycles through the table)."""
    return QColor(OKABE_ITO[slot % len(OKABE_ITO)])


def contrast_colour(background: QColor, palette: QPalette) -> QColor:
    """The palette's Text or Base colour, whichever reads better on ``background``."""
    a = palette.color(QPalette.ColorRole.Text)
    b = palette.color(QPalette.ColorRole.Base)

    def distance(c: QColor) -> float:
        return abs(c.lightnessF() - background.lightnessF())

    return a if distance(a) >= distance(b) else b


def paint_segments(painter: QPainter, rect: QRect, segments: list[Segment], scale: float,
                   palette: QPalette, labels: bool = True) -> list[tuple[QRectF, Segment]]:
    """Paint ``segments`` left to right in ``rect`` (``scale`` fills the width); returns each
    segment's rectangle (for hit tests)."""
    placed: list[tuple[QRectF, Segment]] = []
    if scale <= 0 or not segments:
        return placed
    metrics = QFontMetrics(painter.font())
    x = float(rect.left())
    untold: list[str] = []  # labels that did not fit on their segment
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    for segment in segments:
        width = segment.value / scale * rect.width()
        box = QRectF(x, rect.top(), width, rect.height())
        colour = segment_colour(segment.slot)
        painter.fillRect(box, colour)
        if segment.phrase:
            hatch = QColor(palette.color(QPalette.ColorRole.Base))
            hatch.setAlphaF(0.55)
            painter.fillRect(box, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
        if width >= 3:  # a hairline between neighbours keeps thin segments apart
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Base), 1))
            painter.drawLine(box.topRight(), box.bottomRight())
        text = f'"{segment.label}"' if segment.phrase else segment.label
        if labels and metrics.horizontalAdvance(text) + 6 <= width:
            painter.setPen(contrast_colour(colour, palette))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        else:
            untold.append(text)
        placed.append((box, segment))
        x += width
    if labels and untold:  # name the thin segments after the bar when there is room
        rest = QRectF(x + 6, rect.top(), rect.right() - x - 6, rect.height())
        text = " + ".join(untold)
        if metrics.horizontalAdvance(text) <= rest.width():
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(rest, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
    painter.restore()
    return placed


class ResultsDelegate(QStyledItemDelegate):
    """Standard cells, the segmented score bar in ``bar_column``, and the top-5 cut line."""

    BAR_MARGIN = 3

    def __init__(self, bar_column: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bar_column = bar_column

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        if index.column() == self.bar_column:
            self._paint_bar(painter, option, index)
        else:
            super().paint(painter, option, index)
        if index.data(CUT_ROLE):
            painter.save()
            pen = QPen(option.palette.color(QPalette.ColorRole.Highlight), 2)
            painter.setPen(pen)
            y = option.rect.bottom()
            painter.drawLine(option.rect.left(), y, option.rect.right() + 1, y)
            painter.restore()

    def _paint_bar(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        segments = index.data(SEGMENTS_ROLE) or []
        scale = float(index.data(SCALE_ROLE) or 0.0)
        m = self.BAR_MARGIN
        rect = option.rect.adjusted(m + 1, m, -m - 1, -m - 1)
        painter.save()
        painter.setFont(option.font)
        paint_segments(painter, rect, segments, scale, option.palette)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        size = super().sizeHint(option, index)
        if index.column() == self.bar_column:
            size.setWidth(max(size.width(), 160))
        return size
