"""Run something once a view has painted: work that must not delay a first paint (issue 19)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, SignalInstance

FALLBACK_MS = 1_000  # no paint came (the view is hidden): run anyway


class AfterPaint(QObject):
    """Calls ``then`` once: ``delay_ms`` after ``painted`` (a view's paint signal, e.g.
    ``SkillTreeView.painted``) next fires, or after :data:`FALLBACK_MS` if it does not (never
    after ``parent`` is gone); :meth:`cancel` drops it. It deletes itself when done."""

    def __init__(self, painted: SignalInstance, then: Callable[[], None], parent: QObject,
                 delay_ms: int = 0) -> None:
        super().__init__(parent)
        self._painted = painted
        self._then: Callable[[], None] | None = then
        self._delay_ms = delay_ms
        painted.connect(self._on_painted)
        self._connected = True
        QTimer.singleShot(FALLBACK_MS, self, self._fire)

    def _on_painted(self) -> None:
        self._disconnect()
        QTimer.singleShot(self._delay_ms, self, self._fire)

    def cancel(self) -> None:
        self._then = None
        self._disconnect()
        self.deleteLater()

    def _fire(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            self._disconnect()
            self.deleteLater()
            then()

    def _disconnect(self) -> None:
        if self._connected:
            self._connected = False
            self._painted.disconnect(self._on_painted)
