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
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QTextEdit,
    QWidget,
)

CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractItemView,
            QPlainTextEdit, QTextEdit, QSlider)
_TAGS = re.compile(r"<[^>]+>")

# Names for the workbench's main controls, by object name (one place, for every pane).
KNOWN_NAMES = {
    "libraryTree": "Skills in the library",
    "libraryFilter": "Filter the library",
    "problemsView": "Files that could not be loaded",
    "markdownSource": "Markdown source",
    "markdownPreview": "Rendered preview",
    "summaryEdit": "Summary",
    "seeAlsoInput": "Add a see-also link",
    "findQuery": "Find text",
    "recallResults": "Recall ranking",
    "recallCompareResults": "Comparison ranking",
    "recallCompare": "Compare with",
    "recallPinEdit": "Skill to explain",
    "recallMessageText": "Exact system-message text",
    "recallTurns": "Conversation turns",
    "recallQuerySets": "Saved query set",
    "recallCases": "Query set cases",
    "usageOrder": "Order of skills",
    "usageSignals": "Usage signals",
    "usageSessions": "Sessions behind the selected cell",
    "usageTopPairs": "Skills most used together",
    "usageTable": "Usage counts per skill",
}


def _popups(root: QWidget) -> set[int]:
    return {id(combo.view()) for combo in root.findChildren(QComboBox)}


def is_internal(widget: QWidget, popups: set[int] | None = None) -> bool:
    """Parts Qt names itself: headers, a combo's popup list, a spin box's or combo's line edit,
    a line edit's clear button, tool bar and menu bar extension buttons."""
    if widget.objectName().startswith("qt_") or isinstance(widget, QHeaderView):
        return True
    parent = widget.parentWidget()
    if parent is not None and isinstance(parent, QAbstractSpinBox | QComboBox | QLineEdit):
        return True
    return popups is not None and id(widget) in popups


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


def _containing_layout(layout: QLayout | None, widget: QWidget) -> QLayout | None:
    if layout is None:
        return None
    if layout.indexOf(widget) >= 0:
        return layout
    for i in range(layout.count()):
        item = layout.itemAt(i)
        found = _containing_layout(item.layout() if item is not None else None, widget)
        if found is not None:
            return found
    return None


def preceding_label(widget: QWidget) -> str:
    """The text of a label placed just before ``widget`` in the same layout ("" if none)."""
    parent = widget.parentWidget()
    layout = _containing_layout(parent.layout() if parent is not None else None, widget)
    if layout is None:
        return ""
    index = layout.indexOf(widget)
    for i in range(index - 1, -1, -1):
        at = layout.itemAt(i)
        item = at.widget() if at is not None else None
        if item is None:
            continue
        return _clean(item.text()) if isinstance(item, QLabel) else ""
    return ""


def derived_name(widget: QWidget, buddies: dict[int, str] | None = None) -> tuple[str, bool]:
    """A name for ``widget`` and whether it is a good one (not merely its object name)."""
    if isinstance(widget, QAbstractButton) and _clean(widget.text()):
        return _clean(widget.text()), True
    if widget.objectName() in KNOWN_NAMES:
        return KNOWN_NAMES[widget.objectName()], True
    if buddies and id(widget) in buddies:
        return buddies[id(widget)], True
    before = preceding_label(widget)
    if before:
        return before, True
    if _clean(widget.toolTip()):
        return _clean(widget.toolTip()).split(" (")[0], True
    placeholder = getattr(widget, "placeholderText", None)
    if callable(placeholder) and _clean(placeholder()):
        return _clean(placeholder()), True
    line_edit = widget.lineEdit() if isinstance(widget, QComboBox) else None
    if line_edit is not None and _clean(line_edit.placeholderText()):
        return _clean(line_edit.placeholderText()), True
    return _words(widget.objectName()), False


def name_controls(root: QWidget) -> list[QWidget]:
    """Give every unnamed control under ``root`` an accessible name; returns the weakly named."""
    buddies = _buddies(root)
    popups = _popups(root)
    weak: list[QWidget] = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or widget.accessibleName() \
                or is_internal(widget, popups):
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
    missing: list[QWidget] = []
    popups = _popups(root)
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or widget.accessibleName() \
                or is_internal(widget, popups):
            continue
        if isinstance(widget, QAbstractButton) and _clean(widget.text()):
            continue
        missing.append(widget)
    return missing
