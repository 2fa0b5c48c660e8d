"""Wizard page 4, the heart: every proposal with a checkbox, filtered by kind, and its detail.

Ticking a proposal ticks what it needs; unticking one unticks what depends on it (a merge's
deletions); blocked and advisory proposals cannot be ticked. A risky proposal (it deletes a skill
used recently, a starter skill or a protected one: ``core.dream.review_defaults``) starts
unticked, its reason in a line under its row. Nothing is written here: Next leads to the Apply
page, which shows the files that would change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from rockskills_gui.core.dream.plan import PassStatus, Plan, Proposal, ProposalKind, Severity
from rockskills_gui.core.dream.review_defaults import ReviewDefault, unsaved_message
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.dream.common import (
    KIND_TITLES,
    PASS_TITLES,
    STATUS_TITLES,
    finding_counts,
    panel,
    severity_icon,
    worst,
)
from rockskills_gui.ui.dream.proposal_view import ProposalView
from rockskills_gui.ui.dream.run_page import BAD, PassResults
from rockskills_gui.ui.dream.selection import Selection
from rockskills_gui.ui.dream.state import WizardState, page_id

ID_ROLE = Qt.ItemDataRole.UserRole
REASON_ROLE = Qt.ItemDataRole.UserRole + 1  # marks the "starts unticked" line under a row
STALE_MARK = "changed since the plan · "  # before a stale proposal's finding counts
ATTENTION = "attention"


class ReviewPage(QWizardPage):
    """The proposals of ``wizard.plan`` and the reviewer's :class:`Selection`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamReviewPage")
        self.setTitle("Review")
        self.setSubTitle("Tick what should happen. Unticking a merge unticks the deletions that "
                         "depend on it. Nothing is written until you press Apply.")
        self.setButtonText(QWizard.WizardButton.NextButton, "Continue to Apply >")
        self.banner = QLabel(self)
        self.banner.setObjectName("dreamReviewBanner")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        panel(self.banner, "dreamReviewBanner")  # type: ignore[arg-type]
        self.banner.setContentsMargins(8, 4, 8, 4)
        self.banner.hide()

        self.filter = QComboBox(self)
        self.filter.setObjectName("dreamKindFilter")
        self.filter.setAccessibleName("Show proposals of kind")
        self.filter.currentIndexChanged.connect(self._apply_filter)
        self.all_button = QPushButton("Select &all", self)
        self.all_button.setObjectName("dreamSelectAll")
        self.all_button.setToolTip("Tick every shown proposal that can be applied")
        self.all_button.clicked.connect(self.select_all)
        self.none_button = QPushButton("Select &none", self)
        self.none_button.setObjectName("dreamSelectNone")
        self.none_button.setToolTip("Untick every shown proposal")
        self.none_button.clicked.connect(self.select_none)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("dreamProposals")
        self.tree.setAccessibleName("Proposals")
        self.tree.setHeaderLabels(["Proposal", "Findings"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setItemsExpandable(False)  # a "starts unticked" line stays under its row
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.count = QLabel(self)
        self.count.setObjectName("dreamSelectionCount")
        self.count.setWordWrap(True)
        self.problems = secondary(QLabel(self))
        self.problems.setObjectName("dreamSelectionProblems")
        self.problems.setWordWrap(True)
        self.unsaved = QLabel(self)  # ticked proposals that touch skills with unsaved edits
        self.unsaved.setObjectName("dreamReviewUnsaved")
        self.unsaved.setWordWrap(True)
        self.unsaved.hide()
        self.save_button = QPushButton("&Save plan…", self)
        self.save_button.setObjectName("dreamSavePlan")
        self.save_button.setToolTip("Save the proposals to a JSON file to review or apply later "
                                    "(`rockskills apply LIB PLAN.json`)")
        self.save_button.clicked.connect(self.choose_save_path)
        self.details_button = QPushButton("Run &details…", self)
        self.details_button.setObjectName("dreamRunDetails")
        self.details_button.setToolTip("Each pass's outcome, raw reply and the messages sent")
        self.details_button.clicked.connect(self.show_run_details)
        self.impact_button = QPushButton("Recall &impact…", self)
        self.impact_button.setObjectName("dreamRecallImpactButton")
        self.impact_button.setToolTip("Replay the logged first messages and saved query sets before "
                                      "and after the ticked proposals: which requests lose their skill")
        self.impact_button.clicked.connect(self.show_recall_impact)

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.filter, 1)
        row.addWidget(self.all_button)
        row.addWidget(self.none_button)
        left_layout.addLayout(row)
        left_layout.addWidget(self.tree, 1)
        left_layout.addWidget(self.count)
        left_layout.addWidget(self.problems)
        left_layout.addWidget(self.unsaved)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.details_button)
        buttons.addWidget(self.impact_button)
        buttons.addStretch(1)
        left_layout.addLayout(buttons)
        self.view = ProposalView(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("dreamReviewSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.view)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 5)
        self._sized = False
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        self.stale_label = QLabel(self)  # proposals the library's changes touched (mark_stale)
        self.stale_label.setObjectName("dreamReviewStale")
        self.stale_label.setWordWrap(True)
        self.stale_label.hide()
        layout.addWidget(self.stale_label)
        layout.addWidget(self.splitter, 1)
        self.plan: Plan | None = None
        self.selection: Selection | None = None
        self.items: dict[str, QTreeWidgetItem] = {}
        self.defaults: dict[str, ReviewDefault] = {}
        self.user_changed = False  # a tick changed by the reviewer (Cancel then asks first)
        self._updating = False

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            QTimer.singleShot(0, self._size_columns)  # once the wizard has laid the page out

    def _size_columns(self) -> None:
        width = sum(self.splitter.sizes())
        if width > 0:
            left = min(460, max(340, int(width * 0.32)))
            self.splitter.setSizes([left, width - left])

    def wiz(self) -> WizardState:
        return self.wizard()  # type: ignore[return-value]

    # ---------------------------------------------------------------- filling

    def initializePage(self) -> None:
        wizard = self.wiz()
        if wizard.plan is not self.plan or wizard.selection is not self.selection:
            self.show_plan(wizard.plan, wizard.selection)

    def show_plan(self, plan: Plan | None, selection: Selection | None) -> None:
        self.plan = plan
        self.selection = selection
        self.items = {}
        self.user_changed = False
        self.defaults = dict(getattr(self.wizard(), "defaults", {}) or {})
        self._updating = True
        self.tree.clear()
        self._updating = False
        self._fill_filter()
        self._show_banner()
        if plan is None or selection is None:
            self.view.clear("No plan")
            self._update_count()
            return
        self._updating = True
        for proposal in plan.proposals:
            item = QTreeWidgetItem([f"{proposal.id}  {proposal.title}", finding_counts(proposal)])
            item.setData(0, ID_ROLE, proposal.id)
            item.setToolTip(0, proposal.title)
            severity = worst(proposal.findings)
            if severity is not None:
                item.setIcon(1, severity_icon(severity, self))
                item.setToolTip(1, "\n".join(f"{f.severity.value}: {f.code}: {f.message}"
                                             for f in proposal.findings))
            why_not = selection.why_not(proposal.id)
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if why_not is None:
                flags |= Qt.ItemFlag.ItemIsUserCheckable
            else:
                font = QFont(item.font(0))
                font.setItalic(True)
                item.setFont(0, font)
                item.setToolTip(0, f"{proposal.title}\nCannot be applied: {why_not}")
            item.setFlags(flags)
            if why_not is None:  # no box at all for what can never be ticked
                item.setCheckState(0, Qt.CheckState.Unchecked)
            self.tree.addTopLevelItem(item)
            self.items[proposal.id] = item
            default = self.defaults.get(proposal.id)
            if default is not None and not default.ticked:
                self._add_reason(item, proposal.id, default)
        self._updating = False
        self._sync_checks()
        self._apply_filter()
        first = self._first_to_show(plan)
        if first is not None:
            self.tree.setCurrentItem(self.items[first.id])
        else:
            self.view.clear("No proposals")
        self.mark_stale(getattr(self.wizard(), "stale", {}))
        self.show_unsaved()

    def _add_reason(self, item: QTreeWidgetItem, proposal_id: str, default: ReviewDefault) -> None:
        """The line under a risky proposal's row that says why it starts unticked."""
        line = QTreeWidgetItem([f"↳ {default.short}", ""])
        line.setData(0, ID_ROLE, proposal_id)
        line.setData(0, REASON_ROLE, True)
        line.setToolTip(0, "Starts unticked (tick it if you are sure):\n"
                        + "\n".join(f"• {r}" for r in default.reasons))
        line.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        font = QFont(line.font(0))
        font.setItalic(True)
        line.setFont(0, font)
        item.addChild(line)
        line.setFirstColumnSpanned(True)
        item.setExpanded(True)

    def reason_text(self, proposal_id: str) -> str:
        """The "starts unticked" line shown under a proposal's row ("" when there is none)."""
        item = self.items.get(proposal_id)
        child = item.child(0) if item is not None else None
        return child.text(0) if child is not None else ""

    def show_unsaved(self) -> None:
        """Name the ticked proposals that touch skills with unsaved edits (Apply waits)."""
        conflicts = self.wiz().unsaved_conflicts() if self.wizard() is not None else {}
        self.unsaved.setText(f"<b>{_escape(unsaved_message(conflicts))}</b>" if conflicts else "")
        self.unsaved.setVisible(bool(conflicts))
        proposal = self.view.proposal
        if proposal is not None:
            self.view.set_state(self._state_text(proposal))

    def mark_stale(self, stale: Mapping[str, Sequence[str]]) -> None:
        """Mark the proposals whose files changed since the plan was made (issue 16)."""
        shown = ", ".join(list(stale)[:8]) + ("…" if len(stale) > 8 else "")
        self.stale_label.setText(
            f"<b>The library changed since this plan was made</b>: {len(stale)} proposal(s) "
            f"touch changed files ({shown}); applying them is refused until the plan is "
            "re-checked (Apply page)." if stale else "")
        self.stale_label.setVisible(bool(stale))
        for proposal_id, item in self.items.items():
            files = stale.get(proposal_id)
            counts = item.text(1).removeprefix(STALE_MARK)
            item.setText(1, f"{STALE_MARK}{counts}" if files else counts)
            if files:
                item.setToolTip(1, "Changed since the plan was made: " + ", ".join(files))

    @staticmethod
    def _first_to_show(plan: Plan) -> Proposal | None:
        """The first merge (the riskiest change to read), else the first proposal."""
        merges = [p for p in plan.proposals if p.kind is ProposalKind.MERGE]
        return merges[0] if merges else (plan.proposals[0] if plan.proposals else None)

    def _fill_filter(self) -> None:
        self.filter.blockSignals(True)
        current = self.filter.currentData()
        self.filter.clear()
        proposals = self.plan.proposals if self.plan is not None else []
        self.filter.addItem(f"All kinds ({len(proposals)})", "")
        for kind in ProposalKind:
            count = sum(1 for p in proposals if p.kind is kind)
            if count:
                self.filter.addItem(f"{KIND_TITLES[kind]} ({count})", kind.value)
        attention = sum(1 for p in proposals
                        if any(f.severity is not Severity.INFO for f in p.findings))
        self.filter.addItem(f"With warnings or blocks ({attention})", ATTENTION)
        index = self.filter.findData(current)
        self.filter.setCurrentIndex(max(0, index))
        self.filter.blockSignals(False)

    def _show_banner(self) -> None:
        plan = self.plan
        if plan is None:
            self.banner.hide()
            return
        lines = []
        for record in plan.passes:
            if record.status in BAD or record.status is PassStatus.SKIPPED:
                icon = "✗" if record.status in BAD else "–"
                lines.append(f"{icon} <b>{PASS_TITLES[record.dream_pass]}</b> "
                             f"{STATUS_TITLES[record.status]}: {_escape(record.reason or '')}")
                lines += [f"&nbsp;&nbsp;&nbsp;{_escape(n)}" for n in record.notes
                          if n.startswith("Safety guard")]
        if lines and any(r.status in BAD for r in plan.passes):
            lines.append("Proposals from a pass that failed, was refused or cancelled are not "
                         "pre-selected; tick them only if they stand on their own.")
        notes = self.wiz().plan_notes if self.wizard() is not None else []
        lines += [f"⚠ {_escape(n)}" for n in notes]
        self.banner.setText("<br>".join(lines))
        self.banner.setVisible(bool(lines))

    # ---------------------------------------------------------------- filter and checks

    def _shown(self, proposal: Proposal) -> bool:
        wanted = self.filter.currentData()
        if not wanted:
            return True
        if wanted == ATTENTION:
            return any(f.severity is not Severity.INFO for f in proposal.findings)
        return proposal.kind.value == wanted

    def _apply_filter(self) -> None:
        if self.plan is None:
            return
        for proposal in self.plan.proposals:
            self.items[proposal.id].setHidden(not self._shown(proposal))
        current = self.tree.currentItem()
        if current is None or current.isHidden():
            visible = self.visible_ids()
            if visible:
                self.tree.setCurrentItem(self.items[visible[0]])
        self._update_count()

    def visible_ids(self) -> list[str]:
        if self.plan is None:
            return []
        return [p.id for p in self.plan.proposals if not self.items[p.id].isHidden()]

    def checked_ids(self) -> list[str]:
        return [i for i, item in self.items.items() if item.checkState(0) == Qt.CheckState.Checked]

    def set_checked(self, proposal_id: str, checked: bool) -> None:
        """Tick or untick as the user would (dependencies follow)."""
        self.items[proposal_id].setCheckState(0, Qt.CheckState.Checked if checked
                                              else Qt.CheckState.Unchecked)

    def select_all(self) -> None:
        if self.selection is not None:
            if self.selection.accept_all(self.visible_ids()):
                self.user_changed = True
            self._selection_changed()

    def select_none(self) -> None:
        if self.selection is not None:
            if self.selection.reject_all(self.visible_ids()):
                self.user_changed = True
            self._selection_changed()

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._updating or column != 0 or self.selection is None:
            return
        proposal_id = item.data(0, ID_ROLE)
        wanted = item.checkState(0) == Qt.CheckState.Checked
        if wanted == (proposal_id in self.selection):
            return
        changed = self.selection.set(proposal_id, wanted)
        if changed:
            self.user_changed = True
        others = sorted(changed - {proposal_id})
        if others and self.plan is not None:
            verb = "ticked" if wanted else "unticked"
            self.wiz().ctx.status(f"Also {verb}: {', '.join(others)}", 6000)
        self._selection_changed()

    def _selection_changed(self) -> None:
        self._sync_checks()
        self._update_count()
        self._refresh_state()
        self.show_unsaved()
        self.completeChanged.emit()

    def _sync_checks(self) -> None:
        if self.selection is None:
            return
        self._updating = True
        for proposal_id, item in self.items.items():
            state = Qt.CheckState.Checked if proposal_id in self.selection else Qt.CheckState.Unchecked
            if item.checkState(0) != state:
                item.setCheckState(0, state)
        self._updating = False

    def _update_count(self) -> None:
        plan, selection = self.plan, self.selection
        if plan is None or selection is None:
            self.count.setText("")
            self.problems.setText("")
            return
        blocked = sum(1 for p in plan.proposals if p.blocked)
        advisory = sum(1 for p in plan.proposals if p.advisory)
        parts = [f"<b>{len(selection)} of {len(plan.proposals)} ticked</b>"]
        if blocked:
            parts.append(f"{blocked} blocked")
        if advisory:
            parts.append(f"{advisory} advisory")
        hidden = len(plan.proposals) - len(self.visible_ids())
        if hidden:
            parts.append(f"{hidden} hidden by the filter")
        self.count.setText(" · ".join(parts))
        problems = selection.problems()
        self.problems.setText("\n".join(problems))

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: object = None) -> None:
        if current is None or self.plan is None:
            return
        proposal = self.plan.get(current.data(0, ID_ROLE))
        self.view.show_proposal(self.plan, proposal, self._state_text(proposal))

    def _refresh_state(self) -> None:
        proposal = self.view.proposal
        if proposal is not None:
            self.view.set_state(self._state_text(proposal))

    def _state_text(self, proposal: Proposal) -> str:
        selection = self.selection
        if selection is None:
            return ""
        why_not = selection.why_not(proposal.id)
        if why_not is not None:
            return f"<b>Cannot be applied</b>: {_escape(why_not)}."
        default = self.defaults.get(proposal.id)
        caution = ""
        if default is not None and not default.ticked:
            caution = ("<br>Started unticked: " + "; ".join(_escape(r) for r in default.reasons)
                       + ".")
        if proposal.id in selection:
            return "<b>Ticked</b>: will be applied when you press Apply." + caution
        return "Not ticked: will not be applied." + caution

    def current_id(self) -> str | None:
        item = self.tree.currentItem()
        return item.data(0, ID_ROLE) if item is not None else None

    def show_proposal_id(self, proposal_id: str) -> None:
        self.filter.setCurrentIndex(0)
        self.tree.setCurrentItem(self.items[proposal_id])

    # ---------------------------------------------------------------- buttons

    def choose_save_path(self) -> None:
        wizard = self.wiz()
        start = str(wizard.plan_dir() / "dream-plan.json")
        path, _ = QFileDialog.getSaveFileName(self, "Save Dream Plan", start, "Dream plans (*.json)")
        if path:
            wizard.save_plan(Path(path))

    def show_recall_impact(self) -> QDialog | None:
        """The ticked proposals' effect on real queries (see ``recall_impact``)."""
        library = self.wiz().dream_library()
        if self.plan is None or library is None:
            return None
        from rockskills_gui.ui.dream.recall_impact import RecallImpactDialog

        dialog = RecallImpactDialog(library, self.plan, self.checked_ids(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def show_run_details(self) -> None:
        if self.plan is None:
            return
        dialog = QDialog(self)
        dialog.setObjectName("dreamRunDetailsDialog")
        dialog.setWindowTitle("Run Details")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        results = PassResults(dialog)
        results.show_plan(self.plan)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(results)
        layout.addWidget(buttons)
        dialog.resize(900, 600)
        dialog.open()

    # ---------------------------------------------------------------- QWizardPage

    def isComplete(self) -> bool:
        return self.selection is not None and len(self.selection) > 0 and not self.selection.problems()

    def nextId(self) -> int:
        return page_id("apply")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
