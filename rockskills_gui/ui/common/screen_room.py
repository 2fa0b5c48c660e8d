"""How much of the screen a window may take: the available part of its screen, less the room
the window manager's frame and title bar need (unknown before a window shows)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FRAME_ALLOWANCE = QSize(16, 48)


def available(widget: QWidget | None) -> QRect | None:
    """The part of the widget's screen (else the primary one) that windows may use."""
    screen = (widget.screen() if widget is not None else None) or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def fits(rect: QRect, room: QRect) -> bool:
    """``rect`` (a frame or a geometry) lies within ``room`` (a few pixels of frame allowed)."""
    return room.adjusted(-8, -8, 8, 8).contains(rect)
