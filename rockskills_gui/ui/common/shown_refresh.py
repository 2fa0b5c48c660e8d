"""Views that recompute only while they are shown (a hidden tab costs nothing), and tabs that
appear only where they apply."""

from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QTabWidget, QWidget


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


def show_tab(tabs: QTabWidget, page: QWidget, label: str, wanted: bool) -> None:
    """Add ``page`` as the last tab of ``tabs`` when ``wanted``, else take it out (a tab that
    does not apply to the open library takes no room in the tab bar)."""
    index = tabs.indexOf(page)
    if wanted and index < 0:
        tabs.addTab(page, label)
    elif not wanted and index >= 0:
        tabs.removeTab(index)
