"""Colours for the layout audit: the background behind a widget's text, the colours rich text
writes words in, an item's brush, and the WCAG contrast ratio."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from rockskills_gui.ui.common.theme import contrast


def contrast_ratio(a: QColor, b: QColor) -> float:
    return contrast(a, b)


def blend(top: QColor, under: QColor) -> QColor:
    alpha = top.alphaF()
    if alpha >= 1:
        return top
    return QColor.fromRgbF(top.redF() * alpha + under.redF() * (1 - alpha),
                           top.greenF() * alpha + under.greenF() * (1 - alpha),
                           top.blueF() * alpha + under.blueF() * (1 - alpha))


def background_of(widget: QWidget) -> QColor:
    """The colour behind ``widget``'s text: its own background when it paints one, else the
    nearest ancestor's that does (a scroll area's viewport paints Base)."""
    current: QWidget | None = widget
    while current is not None:
        parent = current.parentWidget()
        paints = (current.autoFillBackground() or current.isWindow()
                  or (isinstance(parent, QAbstractScrollArea) and parent.viewport() is current)
                  or isinstance(current, (QLineEdit, QAbstractItemView, QAbstractSpinBox)))
        if isinstance(current, (QLineEdit, QAbstractItemView, QAbstractSpinBox)):
            return current.palette().color(QPalette.ColorRole.Base)
        if isinstance(current, (QPushButton, QToolButton, QComboBox)) and current is widget:
            if not (isinstance(current, QToolButton) and current.autoRaise()):
                return current.palette().color(QPalette.ColorRole.Button)
        if paints:
            return current.palette().color(current.backgroundRole())
        current = parent
    return widget.palette().color(QPalette.ColorRole.Window)


_COLOURED = re.compile(r"<(span|font)\b[^>]*?(?:color\s*:\s*|color=['\"]?)"
                       r"(#[0-9a-fA-F]{3,8}|[a-zA-Z]+)[^>]*>(.*?)</\1>", re.S)


def rich_colours(text: str) -> list[QColor]:
    """Colours rich text writes words in (a swatch glyph such as ■ is a graphic, not text)."""
    colours = []
    for match in _COLOURED.finditer(text):
        words = re.sub(r"<[^>]+>|&\w+;", "", match.group(3))
        colour = QColor(match.group(2))
        if colour.isValid() and any(c.isalnum() for c in words):
            colours.append(colour)
    return colours


def brush_colour(value: object, default: QColor) -> QColor:
    """An item's colour role value (a QColor, or a QBrush's colour), else ``default``."""
    if isinstance(value, QColor):
        return value
    colour = getattr(value, "color", None)
    if callable(colour):
        result = colour()
        if isinstance(result, QColor):
            return result
    return default
