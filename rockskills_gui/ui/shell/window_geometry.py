"""Where the main window opens: its remembered geometry when that fits a screen there is now,
else the default size where it fits, else the available part of the screen (a 1280×720 screen
never gets a 1400×900 window with its status bar below the edge)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from rockskills_gui.ui.common.screen_room import FRAME_ALLOWANCE, available, fits

DEFAULT_SIZE = (1400, 900)
SMALLEST = QSize(640, 400)  # a remembered window smaller than this is not worth restoring


def place_default(window: QWidget) -> None:
    """The default size where it fits the available screen with its frame, else the whole
    available screen (less the frame's room), at its top left."""
    room = available(window)
    want = QSize(*DEFAULT_SIZE)
    if room is None or (want.width() + FRAME_ALLOWANCE.width() <= room.width()
                        and want.height() + FRAME_ALLOWANCE.height() <= room.height()):
        window.resize(want)
        return
    window.setGeometry(QRect(room.topLeft(), (room.size() - FRAME_ALLOWANCE).boundedTo(want)))


def restore_geometry(window: QWidget, saved: object) -> bool:
    """Restore a remembered geometry only when it is whole on a screen there is now and not
    tiny; else the window opens at :func:`place_default`'s size. True when restored."""
    if isinstance(saved, QByteArray) and not saved.isEmpty() and window.restoreGeometry(saved):
        shown = window.normalGeometry() if window.isMaximized() else window.geometry()
        screens = [s.availableGeometry() for s in QGuiApplication.screens()]
        if (shown.width() >= SMALLEST.width() and shown.height() >= SMALLEST.height()
                and (not screens or any(fits(shown, room) for room in screens))):
            return True
    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMaximized)
    place_default(window)
    return False
