"""Wizard pages 5 and 6: what Apply will write (and why it may not), then what was done, with Undo.

Both only show; the wizard applies and undoes through the engine (``apply_plan``/``undo_last``)
run by the context, so every pane hears about the change. Apply runs off the UI thread: the page
shows it running (Back and Apply disabled, Cancel until the write starts) and moves on to the
summary when the result arrives.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from rockskills_gui.core.dream.apply import (
    ApplyResult,
    PlanRefused,
    UndoResult,
    build_change_set,
    library_changes,
)
from rockskills_gui.core.dream.plan import Plan, Severity
from rockskills_gui.core.dream.preselect import destructive
from rockskills_gui.core.dream.review_defaults import unsaved_message
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.changes import ChangeSet, LibraryError
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.operation_runner import OperationResult, OperationTicket, Phase
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.dream.common import KIND_TITLES, panel, plural
from rockskills_gui.ui.dream.state import WizardState, wizard_of


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def ticked_warnings(plan: Plan, ids: list[str]) -> tuple[list[str], str]:
    """The ticked proposals that are destructive (:func:`core.dream.preselect.destructive`), and
    every warning of every ticked proposal (its findings, and why it would start unticked) as
    HTML, for the Apply page to repeat before anything is written."""
    risky: list[str] = []
    parts: list[str] = []
    for proposal_id in ids:
        proposal = plan.get(proposal_id)
        lines: list[str] = []
        harm = destructive(plan, proposal)
        if harm:
            risky.append(proposal_id)
            lines += [f"<b>destructive</b>: {_escape(h)}" for h in harm]
        if not proposal.preselected and proposal.preselect_reason:
            lines.append(_escape(proposal.preselect_reason))
        lines += [f"{f.severity.value}: {_escape(f.code)}: {_escape(f.message)}" for f in proposal.findings
                  if f.severity in (Severity.WARN, Severity.BLOCK)]
        if lines:
            parts.append(f"<p><b>{_escape(proposal.id)}</b> {_escape(proposal.title)}<br>"
                         + "<br>".join(f"&nbsp;&nbsp;• {line}" for line in dict.fromkeys(lines)) + "</p>")
    return risky, "".join(parts)


def fill_changes(tree: QTreeWidget, change: ChangeSet) -> None:
    """One row per skill: created, updated or deleted."""
    tree.clear()
    for label, names in (("create", change.created), ("update", change.updated),
                         ("delete", change.deleted)):
        for name in names:
            tree.addTopLevelItem(QTreeWidgetItem([label, name]))
    for column in range(2):
        tree.resizeColumnToContents(column)


class ApplyPage(QWizardPage):
    """The accepted proposals, the files they change, and anything that stands in the way."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamApplyPage")
        self.setTitle("Apply")
        self.setSubTitle("These changes are written as one transaction (crash-safe), which one Undo "
                         "restores exactly.")
        self.setCommitPage(True)
        self.setButtonText(QWizard.WizardButton.CommitButton, "&Apply")
        self.intro = QLabel(self)
        self.intro.setObjectName("dreamApplyIntro")
        self.intro.setWordWrap(True)
        self.accepted = QTreeWidget(self)
        self.accepted.setObjectName("dreamApplyAccepted")
        self.accepted.setAccessibleName("Accepted proposals")
        self.accepted.setHeaderLabels(["Id", "Kind", "Proposal"])
        self.accepted.setRootIsDecorated(False)
        self.accepted_columns = ColumnFitter(self.accepted, order=[0, 1], stretch=2, cap=0.3)
        self.files = QTreeWidget(self)
        self.files.setObjectName("dreamApplyFiles")
        self.files.setAccessibleName("Skill files that will change")
        self.files.setHeaderLabels(["Change", "Skill"])
        self.files.setRootIsDecorated(False)
        self.files_columns = ColumnFitter(self.files, order=[0], stretch=1, cap=0.4)
        self.warning = QLabel(self)
        self.warning.setObjectName("dreamApplyWarning")
        self.warning.setWordWrap(True)
        self.warning.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        panel(self.warning, "dreamApplyWarning")
        self.warning.setContentsMargins(8, 4, 8, 4)
        self.destructive_label = QLabel(self)
        self.destructive_label.setObjectName("dreamApplyDestructive")
        self.destructive_label.setWordWrap(True)
        self.ticked_warnings = QTextBrowser(self)
        self.ticked_warnings.setObjectName("dreamApplyTickedWarnings")
        self.ticked_warnings.setAccessibleName("Warnings of the ticked proposals")
        self.ticked_warnings.setMaximumHeight(160)
        self.destructive: list[str] = []  # ticked destructive proposals (Apply is not the default then)
        self.recheck_button = QPushButton("&Re-check the plan against the library as it is now", self)
        self.recheck_button.setObjectName("dreamRecheck")
        self.recheck_button.clicked.connect(self._recheck)
        self.error = QLabel(self)
        self.error.setObjectName("dreamApplyError")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        note = secondary(QLabel("A running agent reads its skills at start: restart it to see the "
                                "change.", self))
        note.setWordWrap(True)
        self.busy = QProgressBar(self)
        self.busy.setObjectName("dreamApplyProgress")
        self.busy.setAccessibleName("Applying the plan")
        self.busy.setRange(0, 0)  # no core step reports how far it is: a busy bar
        self.busy.setTextVisible(False)
        self.busy.setMaximumWidth(180)
        self.busy_label = QLabel(self)
        self.busy_label.setObjectName("dreamApplyBusy")
        self.busy_label.setWordWrap(True)
        self.cancel_button = QPushButton("&Cancel Apply", self)
        self.cancel_button.setObjectName("dreamApplyCancel")
        self.cancel_button.clicked.connect(self.cancel_apply)
        running = QHBoxLayout()
        running.addWidget(self.busy)
        running.addWidget(self.busy_label, 1)
        running.addWidget(self.cancel_button)
        for widget in (self.busy, self.busy_label, self.cancel_button):
            widget.hide()
        lists = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(QLabel("<b>Accepted proposals</b>", self))
        left.addWidget(self.accepted)
        right = QVBoxLayout()
        right.addWidget(QLabel("<b>Skill files that will change</b>", self))
        right.addWidget(self.files)
        lists.addLayout(left, 3)
        lists.addLayout(right, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.destructive_label)
        layout.addWidget(self.ticked_warnings)
        layout.addWidget(self.warning)
        row = QHBoxLayout()
        row.addWidget(self.recheck_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addLayout(lists, 1)
        layout.addLayout(running)
        layout.addWidget(self.error)
        layout.addWidget(note)
        self.changed_files: list[str] = []
        self.change: ChangeSet | None = None
        self.ticket: OperationTicket | None = None  # the apply while it runs
        self._applied = False  # the result arrived: validatePage lets the wizard move on

    def wiz(self) -> WizardState:
        return wizard_of(self)

    def initializePage(self) -> None:
        self.error.setText("")
        self._applied = False
        self.refresh()

    def refresh(self) -> None:
        wizard = self.wiz()
        library, plan, selection = wizard.dream_library(), wizard.plan, wizard.selection
        self.accepted.clear()
        self.files.clear()
        self.change = None
        self.changed_files = []
        if library is None or plan is None or selection is None:
            self.intro.setText("No library or no plan.")
            self.warning.hide()
            self.recheck_button.hide()
            self.destructive_label.hide()
            self.ticked_warnings.hide()
            self.completeChanged.emit()
            return
        ids = selection.ids()
        self.destructive, repeated = ticked_warnings(plan, ids)
        self.ticked_warnings.setHtml(repeated)
        self.ticked_warnings.setVisible(bool(repeated))
        count = len(self.destructive)
        self.destructive_label.setText(
            f"<b>{plural(count, 'destructive proposal')} ticked</b> ({', '.join(self.destructive)}): "
            "each skill it removes is archived and can be restored (Tools ▸ Skill Archive…), but "
            "read its warnings below before you apply." if count else "")
        self.destructive_label.setVisible(bool(count))
        self._default_button()
        for proposal_id in ids:
            proposal = plan.get(proposal_id)
            self.accepted.addTopLevelItem(QTreeWidgetItem([proposal.id, KIND_TITLES[proposal.kind],
                                                           proposal.title]))
        for column in range(2):
            self.accepted.resizeColumnToContents(column)
        warnings: list[str] = []
        try:
            self.changed_files = library_changes(plan, library)
            self.change = build_change_set(library, plan, ids)
        except PlanRefused as exc:  # e.g. a merged-away source's resource clashes with a file
            reasons = "<br>".join(_escape(r) for r in exc.reasons) or _escape(str(exc))
            warnings.append(f"These proposals cannot be applied together: {reasons}")
        except (OSError, LibraryError) as exc:
            warnings.append(f"The library could not be read: {_escape(str(exc))}")
        if self.change is not None:
            fill_changes(self.files, self.change)
        if self.changed_files:
            shown = "<br>".join(_escape(line) for line in self.changed_files[:12])
            more = len(self.changed_files) - 12
            warnings.append("<b>The library changed since this plan was made</b>; applying is refused "
                            "until the plan is re-checked (a proposal whose files changed becomes "
                            f"blocked as stale):<br>{shown}" + (f"<br>… and {more} more" if more > 0
                                                                   else ""))
            touched = [i for i in ids if i in wizard.stale]
            if touched:  # issue 16: which of the ticked proposals the change touched
                warnings.append("Ticked proposals whose files changed: "
                                + ", ".join(_escape(i) for i in touched))
        unsaved = wizard.unsaved_conflicts()
        if unsaved:  # issue 16: blocked, not just warned, until saved, discarded or unticked
            warnings.insert(0, f"<b>{_escape(unsaved_message(unsaved))}</b>")
        if wizard.plan_from_elsewhere():
            warnings.append(f"This plan was made for {_escape(plan.library)}; it is applied to "
                            f"{_escape(str(library.agent_dir))}.")
        self.warning.setText("<br><br>".join(warnings))
        self.warning.setVisible(bool(warnings))
        self.recheck_button.setVisible(bool(self.changed_files))
        files = len(self.change.files) if self.change is not None else 0
        self.intro.setText(f"<b>{plural(len(ids), 'proposal')}</b> accepted, changing "
                           f"<b>{plural(files, 'file')}</b>. Nothing has been written yet.")
        self.completeChanged.emit()

    def _default_button(self) -> None:
        """Apply is the default button (Enter presses it) only while nothing destructive is ticked."""
        wizard = self.wizard()
        if wizard is None:
            return
        commit = wizard.button(QWizard.WizardButton.CommitButton)
        if not isinstance(commit, QPushButton):  # (a QWizard's buttons are push buttons)
            return
        safe = not self.destructive
        commit.setAutoDefault(safe)
        commit.setDefault(safe)

    def _recheck(self) -> None:
        self.wiz().recheck_plan()
        self.refresh()

    def isComplete(self) -> bool:
        wizard = self.wiz() if self.wizard() is not None else None
        if wizard is None or wizard.selection is None or not len(wizard.selection):
            return False
        if self.ticket is not None:  # applying: Apply waits for the result
            return False
        return (self.change is not None and not self.changed_files
                and not wizard.selection.problems() and not wizard.unsaved_conflicts())

    def validatePage(self) -> bool:
        """Apply: start it off the UI thread and stay; the result moves the wizard on."""
        if self._applied:
            return True
        if self.ticket is not None:
            return False
        started = self.wiz().start_apply()
        if isinstance(started, str):
            self._refused(started)
            return False
        self.ticket = started
        self.error.setText("")
        started.phaseChanged.connect(self._show_phase)
        started.finished.connect(self._finished)
        self._show_phase(started.phase.value)
        self.completeChanged.emit()  # Apply off
        self._back_enabled(False)
        return False

    def _show_phase(self, phase: str) -> None:
        running = self.ticket is not None and phase != Phase.DONE.value
        for widget in (self.busy, self.busy_label, self.cancel_button):
            widget.setVisible(running)
        if not running:
            return
        writing = phase == Phase.WRITING.value
        self.busy_label.setText(
            "<b>Writing</b> the changed files as one crash-safe transaction; a write is never "
            "interrupted, so it cannot be cancelled now." if writing else
            "<b>Waiting</b> for another operation on the library to finish. Nothing has been "
            "written yet; Cancel drops the apply." if phase == Phase.QUEUED.value else
            "<b>Applying</b>: checking every proposal against the library as it is now. Nothing "
            "has been written yet; Cancel stops here.")
        self.cancel_button.setEnabled(not writing and self.ticket is not None
                                      and self.ticket.can_cancel)

    def cancel_apply(self) -> None:
        """Stop the apply if it has not started writing (then nothing is written)."""
        ticket = self.ticket
        if ticket is None:
            return
        if ticket.cancel():
            self.busy_label.setText("<b>Cancelling</b>: nothing will be written.")
            self.cancel_button.setEnabled(False)
        else:
            self.busy_label.setText("<b>Writing</b>: a write is never interrupted; it finishes "
                                    "in a moment.")

    def _finished(self, result: OperationResult) -> None:
        del result  # the wizard read it (apply_result or apply_message)
        self.ticket = None
        self._show_phase(Phase.DONE.value)
        self._back_enabled(True)
        wizard = self.wiz()
        if wizard.apply_result is None or wizard.apply_message is not None:
            self._refused(wizard.apply_message or "unknown error")
            return
        self._applied = True
        if self.wizard() is not None and self.wizard().currentPage() is self:
            self.wizard().next()

    def _refused(self, message: str) -> None:
        self.error.setText(f"<b>Nothing was written</b>: {_escape(message)}")
        self.refresh()

    def _back_enabled(self, enabled: bool) -> None:
        wizard = self.wizard()
        if wizard is not None:
            wizard.button(QWizard.WizardButton.BackButton).setEnabled(enabled)


class SummaryPage(QWizardPage):
    """What the apply did, and one Undo for all of it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamSummaryPage")
        self.setTitle("Done")
        self.setSubTitle("The library on disk and in this window now shows the applied plan.")
        self.setFinalPage(True)
        self.undone = False  # the applied plan was undone (this page's Undo or elsewhere)
        self.message = QLabel(self)
        self.message.setObjectName("dreamSummaryMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.files = QTreeWidget(self)
        self.files.setObjectName("dreamSummaryFiles")
        self.files.setAccessibleName("Skill files changed")
        self.files.setHeaderLabels(["Change", "Skill"])
        self.files.setRootIsDecorated(False)
        self.files_columns = ColumnFitter(self.files, order=[0], stretch=1, cap=0.4)
        self.undo_button = QPushButton("&Undo this dream run", self)
        self.undo_button.setObjectName("dreamUndo")
        self.undo_button.clicked.connect(self.undo)
        self.undo_message = QLabel(self)
        self.undo_message.setObjectName("dreamUndoMessage")
        self.undo_message.setWordWrap(True)
        self.undo_message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        hint = secondary(QLabel("Undo restores every file exactly as it was, as one step; it is also "
                                "available later as `rockskills undo LIB`. Restart a running agent "
                                "to see the change.", self))
        hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.undo_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.files, 1)
        layout.addLayout(row)
        layout.addWidget(self.undo_message)
        layout.addWidget(hint)

    def wiz(self) -> WizardState:
        return wizard_of(self)

    def initializePage(self) -> None:
        result = self.wiz().apply_result
        self.undo_message.setText("")
        self.undone = False
        self._titles(undone=False)
        if result is None:
            self.message.setText("Nothing was applied.")
            self.undo_button.setEnabled(False)
            return
        self.show_result(result)

    def _titles(self, undone: bool) -> None:
        self.setTitle("Undone" if undone else "Done")
        self.setSubTitle("The applied plan was undone: the library on disk and in this window is "
                         "back as it was." if undone else
                         "The library on disk and in this window now shows the applied plan.")

    def follow_history(self) -> None:
        """Say whether the applied plan is still in effect after an undo or redo made anywhere
        (this page's Undo, Edit ▸ Undo/Redo, ``rockskills undo``), from the library's journal."""
        wizard = self.wiz()
        result, library = wizard.apply_result, wizard.ctx.library
        if result is None or result.tx_id is None or library is None:
            return
        txs = journal.transactions(library.agent_dir)
        ours = next((i for i, t in enumerate(txs) if t.id == result.tx_id), None)
        if ours is None:
            return
        tx = txs[ours]
        if tx.state is journal.TxState.UNDONE:
            again = [t for t in txs[ours + 1:] if t.kind == "apply" and t.label == tx.label
                     and t.state is journal.TxState.COMMITTED]
            if again:  # Edit ▸ Redo applied it again, as a new transaction
                wizard.apply_result = replace(result, tx_id=again[-1].id)
                self._show_state(undone=False, note=f"Applied again (Edit ▸ Redo) as transaction "
                                                    f"{again[-1].id}.")
            else:
                self._show_state(undone=True)
        elif tx.state is journal.TxState.COMMITTED and self.undone:
            self._show_state(undone=False, note="Applied again.")

    def _show_state(self, undone: bool, note: str = "") -> None:
        result = self.wiz().apply_result
        if result is None:
            return
        self.undone = undone
        self._titles(undone)
        self.show_result(result)
        if undone:
            self.message.setText("<b>Undone</b>: this dream run's changes were undone; the library "
                                 "is back as it was. " + self.message.text().replace("<b>", "")
                                 .replace("</b>", ""))
            self.undo_button.setEnabled(False)
            if not self.undo_message.text():
                self.undo_message.setText("Undone with Edit ▸ Undo (Edit ▸ Redo applies it again).")
        else:
            self.undo_message.setText(_escape(note))

    def show_result(self, result: ApplyResult) -> None:
        change = result.change
        if result.tx_id is None:
            self.message.setText(f"Applied {', '.join(result.accepted)}: the library already looked "
                                 "like that, so nothing had to change.")
            self.undo_button.setEnabled(False)
        else:
            self.message.setText(
                f"<b>Applied {plural(len(result.accepted), 'proposal')}</b> "
                f"({', '.join(result.accepted)}) as transaction {result.tx_id}: "
                f"{len(change.created)} created, {len(change.updated)} updated, "
                f"{len(change.deleted)} deleted" + (" (archived: Tools ▸ Skill Archive… restores them)."
                                                    if change.deleted else "."))
            self.undo_button.setEnabled(True)
        fill_changes(self.files, change)

    def undo(self) -> None:
        result: UndoResult | None = self.wiz().undo_applied()
        if result is None:
            return
        if result.change is not None:
            self.undo_message.setText(f"<b>Undone</b>: {_escape(result.message)}. The library is "
                                      "back as it was.")
            self.undo_button.setEnabled(False)
            fill_changes(self.files, result.change)
            return
        lines = [_escape(result.message)] + [f"changed since: {_escape(p)}" for p in result.changed_files]
        self.undo_message.setText("<br>".join(lines))
        if result.undone:  # it had been undone already (e.g. with Edit ▸ Undo)
            self.undo_button.setEnabled(False)
