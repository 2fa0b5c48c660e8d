"""A completer's list of skill names that is handed to Qt only when someone is about to type.

Installing 100,000 names in a ``QStringListModel`` takes 40-70 ms on the UI thread (converting
the Python list), too long to do while a library opens. :class:`LazyNameModel` keeps a long list
aside and installs it on :meth:`ensure`, which the fields that complete from it call when they
get the keyboard focus.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, QStringListModel

LAZY_FROM = 5_000  # names from which the list waits for a field's focus


class LazyNameModel(QStringListModel):
    """``QStringListModel`` whose long lists are installed on first use (:meth:`ensure`)."""

    def __init__(self, parent: QObject | None = None, lazy_from: int = LAZY_FROM) -> None:
        super().__init__(parent)
        self.lazy_from = lazy_from
        self._pending: list[str] | None = None

    def set_names(self, names: Sequence[str], now: bool = False) -> None:
        """Show ``names``: at once when short (or ``now``), else at the next :meth:`ensure`."""
        if len(names) >= self.lazy_from and not now:
            self._pending = list(names)
            if self.rowCount():
                self.setStringList([])
            return
        self._pending = None
        self.setStringList(list(names))

    @property
    def pending(self) -> bool:
        """A list is waiting to be installed."""
        return self._pending is not None

    def ensure(self) -> None:
        """Install a waiting list (a field completing from it got the focus)."""
        if self._pending is not None:
            names, self._pending = self._pending, None
            self.setStringList(names)
