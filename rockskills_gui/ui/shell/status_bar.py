"""The main window's status bar: a message that does not fit is elided in the middle (its start
and its reason stay), never cut off at the first permanent widget.

Qt draws a temporary message up to the first permanent widget and clips it there, so a long one
("Opened … as RockBot (current) — what else detection saw") ran into the path label. Here the
message is elided to the room it has, and the whole text is the bar's tooltip while it shows.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStatusBar, QWidget

GAP = 12  # px between the message and the first permanent widget


class ElidingStatusBar(QStatusBar):
    """A QStatusBar whose ``showMessage`` elides to the width left of the permanent widgets."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.messageChanged.connect(self._on_message_changed)

    def showMessage(self, text: str, timeout: int = 0) -> None:
        self._full = text
        shown = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle,
                                              max(40, self.message_room()))
        super().showMessage(shown, timeout)
        self.setToolTip(text if shown != text else "")

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
