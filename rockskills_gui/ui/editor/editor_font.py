"""The editor's Markdown source font, from the preferences (the window applies it when they
change; the editor pane when it is built)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit

from rockskills_gui.core.app.settings_fields import StartupPrefs

SYSTEM_SIZE_SCALE = 1.05  # the fixed font reads a little small next to the UI font


def editor_font(prefs: StartupPrefs) -> QFont:
    """The Markdown source font: the chosen family (or the system fixed font) at the chosen size."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if prefs.editor_font:
        font = QFont(prefs.editor_font)
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setFixedPitch(True)
    if prefs.editor_font_size > 0:
        font.setPointSize(prefs.editor_font_size)
    elif font.pointSizeF() > 0:
        font.setPointSizeF(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).pointSizeF()
                           * SYSTEM_SIZE_SCALE)
    return font


def apply_editor_font(editor: QPlainTextEdit, prefs: StartupPrefs) -> None:
    """Set the font and keep tab stops at four spaces of it."""
    editor.setFont(editor_font(prefs))
    editor.document().setDefaultFont(editor.font())
    editor.setTabStopDistance(editor.fontMetrics().horizontalAdvance(" ") * 4)
