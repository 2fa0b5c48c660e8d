"""The one theme: the platform palette (light or dark as the system says), no chosen colours.

Widgets never pick a colour; they pick a palette *role* (or a font) through these helpers, so
a dark system palette restyles everything at once.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication, QWidget


def apply_theme(app: QApplication) -> None:
    """Follow the system palette; only app-wide identity is set here."""
    app.setApplicationName("rockskills-gui")
    app.setApplicationDisplayName("rockskills-gui")
    app.setOrganizationName("rockskills")
    app.setDesktopFileName("rockskills-gui")


def secondary(widget: QWidget) -> QWidget:
    """Show ``widget``'s text in the palette's de-emphasised role (hints, notes, counters)."""
    widget.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return widget


def heading(widget: QWidget, scale: float = 1.35, bold: bool = True) -> QWidget:
    """Enlarge ``widget``'s font relative to the application font."""
    font = QFont(widget.font())
    size = font.pointSizeF()
    if size > 0:
        font.setPointSizeF(size * scale)
    font.setBold(bold)
    widget.setFont(font)
    return widget


def monospace(widget: QWidget) -> QWidget:
    """The system fixed-pitch font (for Markdown source and file contents)."""
    widget.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return widget
