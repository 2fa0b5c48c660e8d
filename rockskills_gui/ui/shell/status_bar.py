"""The main window's status bar: a message that does not fit is elided in the middle (its start
and its reason stay), never cut off at the first permanent widget.

Qt draws a temporary message up to the first permanent widget and clips it there, so a long one
("Opened … as RockBot (current) — what else detection saw") ran into the path label. Here the
message is elided to the room it has, and the whole text is the bar's tooltip while it shows. It
is elided again whenever that room changes (the window resized or shown, the path label given
another library's path), for the rest of its time. The path label (:class:`PathLabel`) takes at
most :attr:`PathLabel.MAX_SHARE` of the bar and elides a long path in the middle, so a message
always has room to be read.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

GAP = 24  # px between the message and the first permanent widget


class PathLabel(QLabel):
    """A status-bar label for a path: at most :attr:`MAX_SHARE` of the bar's width, the path
    elided in the middle when longer (``text()`` gives the whole path)."""

    MAX_SHARE = 0.4
    MIN_WIDTH = 80

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()
        self.updateGeometry()

    def _room(self) -> int:
        bar = self.parentWidget()
        full = self.fontMetrics().horizontalAdvance(self._full) + 4
        if bar is None or bar.width() <= 0:
            return full
        return max(min(full, int(bar.width() * self.MAX_SHARE)), min(full, self.MIN_WIDTH))

    def sizeHint(self) -> QSize:
        return QSize(self._room(), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self._room(), self.MIN_WIDTH), super().minimumSizeHint().height())

    def _elide(self) -> None:
        width = self.width() if self.width() > 0 else self._room()
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideMiddle,
                                                      max(0, width - 2)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()


class ElidingStatusBar(QStatusBar):
    """A QStatusBar whose ``showMessage`` elides to the width left of the permanent widgets,
    again whenever that width changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self._until: float | None = None  # when the message goes (None: it stays)
        self.messageChanged.connect(self._on_message_changed)
        self._again = QTimer(self)  # after the layout settled
        self._again.setSingleShot(True)
        self._again.setInterval(0)
        self._again.timeout.connect(self._elide_again)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self._full = text
        ms = timeout or 0  # (Qt's own signature allows None: no timeout)
        self._until = time.monotonic() + ms / 1000 if ms > 0 else None
        self._show(ms)

    def _show(self, timeout: int) -> None:
        text = self._full
        shown = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle,
                                              max(40, self.message_room()))
        super().showMessage(shown, timeout)
        self.setToolTip(text if shown != text else "")

    def _elide_again(self) -> None:
        if not self._full or not self.currentMessage():
            return
        if self._until is None:
            self._show(0)
            return
        left = int((self._until - time.monotonic()) * 1000)
        if left > 0:
            self._show(left)

    def addPermanentWidget(self, widget: QWidget, stretch: int | None = 0) -> None:
        super().addPermanentWidget(widget, stretch)
        widget.installEventFilter(self)  # its moves and resizes change the message's room

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Move, QEvent.Type.Show,
                            QEvent.Type.Hide):
            self._again.start()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        for label in self.findChildren(PathLabel, options=Qt.FindChildOption.FindDirectChildrenOnly):
            label.updateGeometry()  # its share of the bar changed
        self._again.start()

    def message_room(self) -> int:
        """Pixels a message may take: up to the first visible permanent widget."""
        # (direct children only: a recursive search wraps every descendant, text documents too)
        children = self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        lefts = [child.geometry().left() for child in children
                 if child.isVisible() and child.geometry().left() > 0]
        right = min(lefts) if lefts else self.width()
        return right - GAP - self.contentsMargins().left() - 4

    def full_message(self) -> str:
        """The whole text of the message shown (elided or not); empty when none is."""
        return self._full if self.currentMessage() else ""

    def _on_message_changed(self, text: str) -> None:
        if not text:
            self.setToolTip("")
