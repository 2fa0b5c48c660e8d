"""Columns that size by priority, so a list needs no horizontal scroll bar.

A :class:`ColumnFitter` gives the columns of a tree or table view the width their contents ask
for, in priority order and each up to a share of the view, and lets one column (the least
important, e.g. a "Detail" column) take what is left; text that still does not fit is elided in
the middle (``research/…-paper``), so two long names never read the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTreeView

MIN_STRETCH = 60  # pixels the stretching column keeps at least
PADDING = 12


def header_of(view: QAbstractItemView) -> QHeaderView | None:
    if isinstance(view, QTreeView):
        return view.header()
    if isinstance(view, QTableView):
        return view.horizontalHeader()
    return None


class ColumnFitter(QObject):
    """Keep ``view``'s columns sized by priority (see the module doc).

    ``order`` lists the columns to size, most important first; ``caps`` the largest share of the
    view's width a column may take (default ``cap``); ``stretch`` is the column that takes the
    rest. Columns not named keep their own resize mode.
    """

    def __init__(self, view: QAbstractItemView, order: Sequence[int], stretch: int,
                 caps: Mapping[int, float] | None = None, cap: float = 0.6,
                 elide: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> None:
        super().__init__(view)
        self.view = view
        self.order = list(order)
        self.stretch = stretch
        self.caps = dict(caps or {})
        self.cap = cap
        header = header_of(view)
        assert header is not None, "a tree or table view"
        view.setTextElideMode(elide)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header.setStretchLastSection(False)
        for column in self.order:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refit)
        view.viewport().installEventFilter(self)
        model = view.model()
        if model is not None:
            for signal in (model.modelReset, model.rowsInserted, model.layoutChanged,
                           model.dataChanged):
                signal.connect(self.schedule)

    @property
    def header(self) -> QHeaderView:
        """The view's header, asked each time: shiboken may drop a Python wrapper kept of it
        while the header lives on (a stale one raises "already deleted")."""
        header = header_of(self.view)
        assert header is not None
        return header

    def schedule(self, *_args: object) -> None:
        self._timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.schedule()
        return super().eventFilter(watched, event)

    def wanted(self, column: int) -> int:
        """The width ``column``'s title and visible contents ask for."""
        contents = self.view.sizeHintForColumn(column)  # (a tree's indentation included)
        return max(self.header.sectionSizeHint(column), contents + PADDING)

    def refit(self) -> None:
        width = self.view.viewport().width()
        if width <= 0:
            return
        left = width - MIN_STRETCH
        for column in self.order:
            if self.header.isSectionHidden(column):
                continue
            share = int(width * self.caps.get(column, self.cap))
            size = max(24, min(self.wanted(column), share, max(24, left)))
            self.header.resizeSection(column, size)
            left -= size
