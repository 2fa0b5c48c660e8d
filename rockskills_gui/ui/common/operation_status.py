"""The status bar's view of a long operation (``ui/common/operation_runner``): a progress bar (busy
until the operation reports how far it is), the operation's label and what it is doing ("Checking
12,000 of 100,000 files…"), and Cancel while cancelling can still mean "nothing written"."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from rockskills_gui.core.storage.progress import CHECKING
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import OperationTicket, Phase

CANCEL_TIP = "Stop before anything is written (queued operations are dropped too)"
CANCELLING = "Cancelling: nothing will be written…"
WRITING_TIP = "Writing now: a write is never interrupted (crash-safe), so it cannot be cancelled"


class OperationStatus(QWidget):
    """Shown while ``ctx.runner`` runs an operation off the UI thread; hidden otherwise."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("operationStatus")
        self.ctx = ctx
        self.progress = QProgressBar(self)
        self.progress.setObjectName("operationProgress")
        self.progress.setRange(0, 0)  # busy until the operation reports how far it is
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
        self.progress.setRange(0, 0)
        ticket.phaseChanged.connect(lambda phase, t=ticket: self._show(t, phase))
        ticket.progressChanged.connect(lambda *report, t=ticket: self._show(t, t.phase.value))
        self._show(ticket, ticket.phase.value)
        self.show()

    def _show(self, ticket: OperationTicket, phase: str) -> None:
        if ticket is not self.ticket:
            return
        writing = phase == Phase.WRITING.value
        cancelling = ticket.cancel_requested and not writing
        self.label.setText(CANCELLING if cancelling else progress_text(ticket, writing))
        report = ticket.progress  # the bar stays determinate from the first report on
        if report is not None and report[2] > 0:
            self.progress.setRange(0, report[2])
            self.progress.setValue(report[1])
        else:
            self.progress.setRange(0, 0)
        self.cancel_button.setEnabled(not writing and ticket.can_cancel)
        self.cancel_button.setToolTip(WRITING_TIP if writing else CANCEL_TIP)

    def cancel(self) -> None:
        if self.ctx.runner.cancel_current():
            self.label.setText(CANCELLING)
            self.cancel_button.setEnabled(False)

    def _busy(self, busy: bool) -> None:
        if not busy:
            self.ticket = None
            self.hide()


def shown_report(ticket: OperationTicket, writing: bool) -> tuple[str, int, int] | None:
    """The ticket's last progress report, unless it is of the checks and the write has begun."""
    report = ticket.progress
    return None if report is None or (writing and report[0] == CHECKING) else report


def progress_text(ticket: OperationTicket, writing: bool) -> str:
    """``Deleting 500 skills: Checking 1,200 of 3,000 files…`` (or ``…: writing…`` before the
    first report of the write)."""
    report = shown_report(ticket, writing)
    if report is None:
        return f"{ticket.label}: writing…" if writing else f"{ticket.label}…"
    phase, done, total = report
    return f"{ticket.label}: {phase} {done:,} of {total:,} files…"
