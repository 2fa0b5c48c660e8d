"""Widgets as the layout audit reads them: which are shown, how to name one in a finding, whether
a layout places it, and the text a label, button or item-view cell shows (elided, wrapped, or
whole in its tooltip)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QFontMetrics, QTextLayout, QTextOption
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QLayout,
    QTableView,
    QWidget,
)


def describe(widget: QWidget) -> str:
    """How a finding names ``widget``: its object names up the tree, then its text."""
    parts: list[str] = []
    current: QWidget | None = widget
    while current is not None and len(parts) < 4:
        name = current.objectName() or type(current).__name__
        parts.append(name)
        current = current.parentWidget()
    text = ""
    if isinstance(widget, (QLabel, QAbstractButton)):
        text = widget.text()
    elif isinstance(widget, QComboBox):
        text = widget.currentText()
    shown = f" {text[:40]!r}" if text else ""
    return " < ".join(parts) + shown


def visible_widgets(root: QWidget) -> Iterator[QWidget]:
    """``root`` and every descendant that is shown on screen (not in another window)."""
    stack = [root]
    while stack:
        widget = stack.pop()
        if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
            continue
        yield widget
        for child in widget.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if not child.isWindow():
                stack.append(child)


def in_layout(layout: QLayout | None, widget: QWidget) -> bool:
    if layout is None:
        return False
    for k in range(layout.count()):
        item = layout.itemAt(k)
        if item is None:
            continue
        if item.widget() is widget:
            return True
        if item.layout() is not None and in_layout(item.layout(), widget):
            return True
    return False


def shown_text(text: str) -> str:
    """A button's text as drawn: ``&&`` is one ampersand, a single ``&`` marks a mnemonic."""
    return re.sub(r"&(.)", r"\1", text)


def full_text_on_hover(widget: QWidget, text: str) -> bool:
    tip = widget.toolTip()
    return bool(text) and text.strip() in re.sub(r"<[^>]+>", "", tip)


def full_text_on_hover_of(index: QModelIndex, text: str) -> bool:
    """The cell's tooltip shows its whole text (or the part a prefix such as an id leaves)."""
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    if not isinstance(tip, str) or not tip.strip():
        return False
    first = tip.strip().splitlines()[0]
    return text.strip() in tip or (first in text and len(first) * 2 >= len(text.strip()))


def reads_as(view: QAbstractItemView, text: str, metrics: QFontMetrics, room: int,
             height: int) -> str:
    """What a cell too narrow for ``text`` shows: elided with the view's mode, or -- a table
    that wraps words, in a row one line high -- the first wrapped line (``research/…``)."""
    room = max(0, room)
    if isinstance(view, QTableView) and view.wordWrap() and height < 2 * metrics.height():
        layout = QTextLayout(text, view.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        line = layout.createLine()
        line.setLineWidth(room)
        first = text[line.textStart():line.textStart() + line.textLength()]
        layout.endLayout()
        if len(first) < len(text):
            return metrics.elidedText(first.rstrip() + "\u2026", Qt.TextElideMode.ElideRight,
                                      room)
    return metrics.elidedText(text, view.textElideMode(), room)


def any_stretch(header: QHeaderView) -> bool:
    return any(header.sectionResizeMode(k) == QHeaderView.ResizeMode.Stretch
               for k in range(header.count()))


def rect_text(rect: QRect) -> str:
    return f"{rect.width()}×{rect.height()}+{rect.x()}+{rect.y()}"

