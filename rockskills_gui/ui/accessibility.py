"""Accessible names for controls that have none, so screen readers announce something useful.

A control is named, in order of preference, by its own text (buttons, check boxes), the label
whose buddy it is, its tooltip, its placeholder text, or, as a last resort, its object name
turned into words ("recallQuery" -> "recall query"). :func:`name_controls` fills in what is
missing under a widget and returns the controls that had nothing better than the object name.
"""

from __future__ import annotations

import re

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractItemView,
            QPlainTextEdit, QTextEdit, QAbstractSlider, QTabBar)
_TAGS = re.compile(r"<[^>]+>")


def _words(object_name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", object_name)
    return re.sub(r"[._\-]+", " ", spaced).strip().lower()


def _clean(text: str) -> str:
    text = _TAGS.sub("", text).replace("&&", "\0").replace("&", "").replace("\0", "&")
    return " ".join(text.split()).removesuffix("…").removesuffix(":").strip()


def _buddies(root: QWidget) -> dict[int, str]:
    found: dict[int, str] = {}
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and label.text():
            found[id(buddy)] = _clean(label.text())
    return found


def derived_name(widget: QWidget, buddies: dict[int, str] | None = None) -> tuple[str, bool]:
    """A name for ``widget`` and whether it is a good one (not merely its object name)."""
    if isinstance(widget, QAbstractButton) and _clean(widget.text()):
        return _clean(widget.text()), True
    if buddies and id(widget) in buddies:
        return buddies[id(widget)], True
    if _clean(widget.toolTip()):
        return _clean(widget.toolTip()).split(" (")[0], True
    placeholder = getattr(widget, "placeholderText", None)
    if callable(placeholder) and _clean(placeholder()):
        return _clean(placeholder()), True
    if isinstance(widget, QComboBox) and widget.lineEdit() is not None \
            and _clean(widget.lineEdit().placeholderText()):
        return _clean(widget.lineEdit().placeholderText()), True
    return _words(widget.objectName()), False


def name_controls(root: QWidget) -> list[QWidget]:
    """Give every unnamed control under ``root`` an accessible name; returns the weakly named."""
    buddies = _buddies(root)
    weak: list[QWidget] = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or widget.accessibleName():
            continue
        if isinstance(widget, QAbstractButton) and _clean(widget.text()):
            continue  # Qt announces a button's text itself
        name, good = derived_name(widget, buddies)
        if name:
            widget.setAccessibleName(name)
        if not good:
            weak.append(widget)
    return weak


def unnamed_controls(root: QWidget) -> list[QWidget]:
    """Controls a screen reader would announce without any name."""
    missing = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or widget.accessibleName():
            continue
        if isinstance(widget, QAbstractButton) and _clean(widget.text()):
            continue
        missing.append(widget)
    return missing
