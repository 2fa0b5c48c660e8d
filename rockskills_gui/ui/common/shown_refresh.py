"""Views that recompute only while they are shown (a hidden tab costs nothing)."""

from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QWidget


class RefreshWhenShown(QWidget):
    """Call :meth:`mark_stale` when the input changes: :meth:`refresh` runs now if the widget is
    visible, else when it is next shown. Subclasses implement ``refresh`` (and clear ``_stale``)."""

    _stale = False

    def mark_stale(self) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:  # pragma: no cover - every subclass has its own
        self._stale = False

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()
