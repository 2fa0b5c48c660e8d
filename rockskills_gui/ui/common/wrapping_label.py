"""A word-wrapped label that asks for the height its text needs at its current width.

``QFormLayout`` sizes a row by its widget's size hint, never by height-for-width, so a plain
word-wrapped ``QLabel`` there gets the height of its text wrapped at some narrow width: too much
room on a wide window, too little (the text squashed) when the window is short.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrappingLabel(QLabel):
    """A word-wrapped label whose size hints follow its width (see the module)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def _height(self, hint: QSize) -> QSize:
        if self.width() <= 0 or not self.text():
            return hint
        return QSize(hint.width(), self.heightForWidth(self.width()))

    def sizeHint(self) -> QSize:
        return self._height(super().sizeHint())

    def minimumSizeHint(self) -> QSize:
        return self._height(super().minimumSizeHint())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()  # the height it needs changed with the width
