"""Run something once a widget has painted: work that must not delay a first paint (issue 19)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

FALLBACK_MS = 1_000  # no paint came (the widget is hidden): run anyway


class AfterPaint(QObject):
    """Calls ``then`` once: ``delay_ms`` after ``watched`` next paints, or after
    :data:`FALLBACK_MS` if it does not (never after ``parent`` is gone); :meth:`cancel` drops
    it. It deletes itself when done."""

    def __init__(self, watched: QObject, then: Callable[[], None], parent: QObject,
                 delay_ms: int = 0) -> None:
        super().__init__(parent)
        self._watched = watched
        self._then: Callable[[], None] | None = then
        self._delay_ms = delay_ms
        watched.installEventFilter(self)
        QTimer.singleShot(FALLBACK_MS, self, self._fire)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(self._delay_ms, self, self._fire)
        return False

    def cancel(self) -> None:
        self._then = None
        self._watched.removeEventFilter(self)
        self.deleteLater()

    def _fire(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            self._watched.removeEventFilter(self)
            self.deleteLater()
            then()
