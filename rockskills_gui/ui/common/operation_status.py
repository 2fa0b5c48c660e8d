"""The status bar's view of a long operation (``ui/common/operation_runner``): a busy bar, the
operation's label and phase, and Cancel while cancelling can still mean "nothing written"."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import OperationTicket, Phase

CANCEL_TIP = "Stop before anything is written (queued operations are dropped too)"
WRITING_TIP = "Writing now: a write is never interrupted (crash-safe), so it cannot be cancelled"


class OperationStatus(QWidget):
    """Shown while ``ctx.runner`` runs an operation off the UI thread; hidden otherwise."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("operationStatus")
        self.ctx = ctx
        self.progress = QProgressBar(self)
        self.progress.setObjectName("operationProgress")
        self.progress.setRange(0, 0)  # core operations do not report how far they are
        self.progress.setMaximumWidth(120)
        self.progress.setTextVisible(False)
        self.label = QLabel(self)
        self.label.setObjectName("operationLabel")
        self.cancel_button = QToolButton(self)
        self.cancel_button.setObjectName("cancelOperation")
        self.cancel_button.setText("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.progress, self.label, self.cancel_button):
            layout.addWidget(widget)
        self.ticket: OperationTicket | None = None
        ctx.runner.started.connect(self._started)
        ctx.runner.busyChanged.connect(self._busy)
        self.hide()

    def _started(self, ticket: OperationTicket) -> None:
        self.ticket = ticket
        ticket.phaseChanged.connect(lambda phase, t=ticket: self._show(t, phase))
        self._show(ticket, ticket.phase.value)
        self.show()

    def _show(self, ticket: OperationTicket, phase: str) -> None:
        if ticket is not self.ticket:
            return
        writing = phase == Phase.WRITING.value
        self.label.setText(f"{ticket.label}: writing…" if writing else f"{ticket.label}…")
        self.cancel_button.setEnabled(not writing and ticket.can_cancel)
        self.cancel_button.setToolTip(WRITING_TIP if writing else CANCEL_TIP)

    def cancel(self) -> None:
        if self.ctx.runner.cancel_current():
            self.label.setText("Cancelling: nothing will be written…")
            self.cancel_button.setEnabled(False)

    def _busy(self, busy: bool) -> None:
        if not busy:
            self.ticket = None
            self.hide()
