"""Wizard page 3: the run on a worker thread (progress, cancel), then each pass's outcome with its
raw reply, what was wrong with it, and the messages that were sent."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from rockskills_gui.core.dream.plan import PassRecord, PassStatus, Plan, Severity
from rockskills_gui.core.dream.prompts import printable
from rockskills_gui.core.dream.run import RunOptions, RunProgress
from rockskills_gui.core.model.names import display_name
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.queries import channel
from rockskills_gui.ui.common.theme import monospace, secondary
from rockskills_gui.ui.dream.common import PASS_TITLES, STATUS_TITLES, plural, severity_icon, viewable
from rockskills_gui.ui.dream.review_start import ReviewStart
from rockskills_gui.ui.dream.state import WizardState, page_id, wizard_of
from rockskills_gui.ui.dream.worker import run_snapshot

BAD = {PassStatus.FAILED, PassStatus.REFUSED, PassStatus.CANCELLED}
SHOWN_MESSAGES = 50  # errors and notes of a pass listed above its reply


class PassResults(QWidget):
    """The passes of a plan (status, reason) and, for the chosen one, what went wrong, the raw
    reply and the messages sent."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QTreeWidget(self)
        self.list.setObjectName("dreamPassList")
        self.list.setAccessibleName("Passes of the run")
        self.list.setHeaderLabels(["Pass", "Outcome", "Proposals", "Why"])
        self.list.setRootIsDecorated(False)
        self.list.currentItemChanged.connect(self._show_current)
        self.list.setMaximumHeight(self.list.fontMetrics().height() * 8)
        self.problems = QLabel(self)
        self.problems.setObjectName("dreamPassProblems")
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tabs = QTabWidget(self)
        self.raw = QPlainTextEdit(self)
        self.raw.setObjectName("dreamRawReply")
        self.raw.setAccessibleName("Raw reply of the pass")
        self.raw.setReadOnly(True)
        monospace(self.raw)
        self.sent = QPlainTextEdit(self)
        self.sent.setObjectName("dreamSentMessages")
        self.sent.setAccessibleName("Messages sent for the pass")
        self.sent.setReadOnly(True)
        self.sent.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        monospace(self.sent)
        self.tabs.addTab(self.raw, "Raw reply")
        self.tabs.addTab(self.sent, "Messages sent")
        detail = QWidget(self)
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.problems)
        detail_layout.addWidget(self.tabs, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addWidget(detail, 1)
        self.plan: Plan | None = None

    def show_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.list.clear()
        first_bad: QTreeWidgetItem | None = None
        for record in plan.passes:
            why = display_name(record.reason or "", 300)
            item = QTreeWidgetItem([PASS_TITLES[record.dream_pass], STATUS_TITLES[record.status],
                                    str(len(record.proposals)), why])
            item.setData(0, Qt.ItemDataRole.UserRole, record.dream_pass.value)
            item.setToolTip(3, why)
            if record.status in BAD:
                item.setIcon(1, severity_icon(Severity.BLOCK, self))
                first_bad = first_bad or item
            elif record.notes:
                item.setIcon(1, severity_icon(Severity.INFO, self))
            self.list.addTopLevelItem(item)
        for column in range(3):
            self.list.resizeColumnToContents(column)
        target = first_bad or self.list.topLevelItem(0)
        if target is not None:
            self.list.setCurrentItem(target)
        else:
            self._show_record(None)

    def record(self, dream_pass: str) -> PassRecord | None:
        if self.plan is None:
            return None
        return next((r for r in self.plan.passes if r.dream_pass.value == dream_pass), None)

    def _show_current(self, item: QTreeWidgetItem | None) -> None:
        self._show_record(self.record(item.data(0, Qt.ItemDataRole.UserRole)) if item else None)

    def _show_record(self, record: PassRecord | None) -> None:
        if record is None:
            self.problems.setText("")
            self.raw.setPlainText("")
            self.sent.setPlainText("")
            return
        lines = []
        if record.status is PassStatus.FAILED and record.raw_reply is not None:
            lines.append("<b>The reply could not be used; nothing from it is proposed.</b>")
        elif record.status in BAD:
            lines.append(f"<b>{STATUS_TITLES[record.status].capitalize()}:</b> "
                         f"{_escape(display_name(record.reason or '', 1000))}")
        lines += [f"✗ {_escape(display_name(e, 1000))}" for e in record.errors[:SHOWN_MESSAGES]]
        lines += [f"• {_escape(display_name(n, 1000))}" for n in record.notes[:SHOWN_MESSAGES]]
        hidden = max(0, len(record.errors) - SHOWN_MESSAGES) + max(0, len(record.notes) - SHOWN_MESSAGES)
        if hidden:
            lines.append(f"… and {hidden:,} more (Save plan… keeps them all)")
        if record.elapsed is not None:
            lines.append(f"<span>{record.elapsed:.1f} s"
                         + (f" · {_escape(record.model or '')}" if record.model else "") + "</span>")
        self.problems.setText("<br>".join(lines))
        if record.raw_reply is not None:
            self.raw.setPlainText(viewable(record.raw_reply))
        else:
            self.raw.setPlainText("(no reply: " + (record.reason or "the pass sent no request") + ")")
        sent = []
        if record.system is not None:
            sent.append("=== system ===\n" + record.system)
        if record.user is not None:
            sent.append("=== user ===\n" + printable(record.user))
        self.sent.setPlainText(viewable("\n\n".join(sent)) if sent else "(nothing was sent)")
        self.tabs.setCurrentWidget(self.raw)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class RunPage(QWizardPage):
    """Starts the run when shown; Next is enabled once there is something to review."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamRunPage")
        self.setTitle("Run")
        self.setSubTitle("The library is only read. You can cancel at any time.")
        self.status = QLabel(self)
        self.status.setObjectName("dreamRunStatus")
        self.status.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setObjectName("dreamRunProgress")
        self.bar.setRange(0, 0)
        self.bar.setTextVisible(False)
        self.cancel_button = QPushButton("&Cancel run", self)
        self.cancel_button.setObjectName("dreamCancelRun")
        self.cancel_button.clicked.connect(self.cancel)
        self.log = QListWidget(self)
        self.log.setObjectName("dreamRunLog")
        self.log.setAccessibleName("Run progress log")
        self.results = PassResults(self)
        self.summary = QLabel(self)
        self.summary.setObjectName("dreamRunSummary")
        self.summary.setWordWrap(True)
        self.hint = secondary(QLabel(self))
        self.hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(row)
        layout.addWidget(self.log, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.results, 4)
        layout.addWidget(self.hint)
        self._run = channel(self, "dream run")  # off the UI thread (ui.common.queries)
        self._run_active = False
        self.plan: Plan | None = None
        self.error: str | None = None
        self._started = 0.0
        self._last = ""
        self.ticker = QTimer(self)
        self.ticker.setInterval(250)
        self.ticker.timeout.connect(self._tick)

    def wiz(self) -> WizardState:
        return wizard_of(self)

    @property
    def running(self) -> bool:
        return self._run_active

    # ---------------------------------------------------------------- the run

    def initializePage(self) -> None:
        self.start()

    def cleanupPage(self) -> None:
        self.stop()

    def start(self) -> None:
        wizard = self.wiz()
        library = wizard.dream_library()
        self.stop()
        self.plan = None
        self.error = None
        self.log.clear()
        self.results.hide()
        self.summary.hide()
        self.hint.setText("")
        if library is None:
            self.status.setText("No library is open.")
            return
        setup = wizard.setup
        options = RunOptions(passes=setup.passes(), now=setup.now() or Timestamp.now(),
                             offline=setup.offline, directives=dict(wizard.directives),
                             protected_prefixes=setup.protected_prefixes(), mcp_surfaces=setup.mcp_surfaces)
        endpoint = None if setup.offline else setup.endpoint()
        key = None if endpoint is None else setup.api_key_for(endpoint.base_url)
        who = "the offline proposer" if setup.offline else \
            f"{endpoint.model} at {endpoint.base_url}" if endpoint else "?"
        self.status.setText(f"Running {who}…")
        self._add_log(f"reference time {options.now.isoformat() if options.now else ''}")
        snapshot, prune, prefixes = library.snapshot, setup.prune(), wizard.review_prefixes()
        self._run_active = True
        self._run.request(
            lambda control: run_snapshot(snapshot, options, endpoint, key, control, prune, prefixes),
            self._on_plan, failure=self._on_crash, progress=self._on_progress)
        self.bar.show()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        self._started = time.monotonic()
        self.ticker.start()
        self.completeChanged.emit()

    def cancel(self) -> None:
        """Stop the run early; the plan so far still arrives (its passes say cancelled)."""
        if self._run_active:
            self._run.cancel(keep_result=True)
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling…")

    def stop(self, wait_ms: int = 10_000) -> None:
        """Cancel a run still going and wait for it (leaving the page, closing): nothing of it
        arrives after this."""
        if not self._run_active:
            return
        self._run.cancel()
        self._run.wait(wait_ms)
        self._forget_run()

    def _forget_run(self) -> None:
        self._run_active = False
        self.ticker.stop()

    def _tick(self) -> None:
        if self._run_active and self._last:
            self.status.setText(f"{self._last} · {time.monotonic() - self._started:.0f} s")

    def _add_log(self, text: str) -> None:
        self.log.addItem(text)
        self.log.scrollToBottom()

    def _on_progress(self, progress: object) -> None:
        if not isinstance(progress, RunProgress):
            return
        self._last = f"{PASS_TITLES[progress.dream_pass]}: {progress.message}"
        if progress.llm is None or progress.llm.phase != "waiting":
            self._add_log(self._last)
        self._tick()

    def _on_crash(self, error: Exception) -> None:
        """The run could not start or hit an unexpected error."""
        message = f"{type(error).__name__}: {error}"
        self.error = message
        self.status.setText(f"The run stopped: {message}")
        self._add_log(message)
        self._on_run_ended()

    def _on_plan(self, result: tuple[Plan, ReviewStart]) -> None:
        plan, start = result
        self.plan = plan
        self.wiz().set_plan(plan, origin="run", start=start)
        self._on_run_ended()

    def _on_run_ended(self) -> None:
        self._forget_run()
        self.bar.hide()
        self.cancel_button.hide()
        plan = self.plan
        if plan is not None:
            self.results.show_plan(plan)
            self.results.show()
            bad = [r for r in plan.passes if r.status in BAD]
            count = len(plan.proposals)
            cancelled = any(r.status is PassStatus.CANCELLED for r in plan.passes)
            self.status.setText("Cancelled." if cancelled else
                                "Finished with problems." if bad else "Finished.")
            text = f"{plural(count, 'proposal')} to review"
            if bad:
                text += " · " + ", ".join(f"{PASS_TITLES[r.dream_pass].lower()} "
                                          f"{STATUS_TITLES[r.status]}" for r in bad)
            self.summary.setText(f"<b>{text}</b>")
            self.summary.show()
            if not count:
                self.hint.setText("Nothing to review. Go Back to change the passes or the endpoint "
                                  "and run again.")
            else:
                self.hint.setText("Nothing has been written. Next: review each proposal.")
        self.completeChanged.emit()

    # ---------------------------------------------------------------- QWizardPage

    def isComplete(self) -> bool:
        return not self._run_active and self.plan is not None and bool(self.plan.proposals)

    def nextId(self) -> int:
        return page_id("review")
