"""Wizard page 4, the heart: every proposal with a checkbox, filtered by kind, and its detail.

Ticking a proposal ticks what it needs; unticking one unticks what depends on it (a merge's
deletions); blocked and advisory proposals cannot be ticked. A risky proposal (it deletes a skill
used recently, a starter skill or a protected one: ``core.dream.review_defaults``) starts
unticked, its reason in a line under its row. Nothing is written here: Next leads to the Apply
page, which shows the files that would change.

The rows and the kind filter live in :mod:`.review_rows`, the page's sentences in
:mod:`.review_text`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
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

from rockskills_gui.core.dream.plan import Plan, Proposal
from rockskills_gui.core.dream.review_defaults import ReviewDefault, unsaved_message
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.dream.common import panel
from rockskills_gui.ui.dream.proposal_view import ProposalView
from rockskills_gui.ui.dream.review_rows import (
    ID_ROLE,
    STALE_MARK,
    add_reason,
    fill_kind_filter,
    first_to_show,
    kind_shown,
    proposal_item,
)
from rockskills_gui.ui.dream.review_text import (
    banner_lines,
    count_text,
    escape,
    stale_text,
    state_text,
)
from rockskills_gui.ui.dream.run_page import PassResults
from rockskills_gui.ui.dream.selection import Selection
from rockskills_gui.ui.dream.state import WizardState, page_id, wizard_of


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
        panel(self.banner, "dreamReviewBanner")
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
        return wizard_of(self)

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
            item = proposal_item(proposal, selection.why_not(proposal.id), self)
            self.tree.addTopLevelItem(item)
            self.items[proposal.id] = item
            default = self.defaults.get(proposal.id)
            if default is not None and not default.ticked:
                add_reason(item, proposal.id, default)
        self._updating = False
        self._sync_checks()
        self._apply_filter()
        first = first_to_show(plan)
        if first is not None:
            self.tree.setCurrentItem(self.items[first.id])
        else:
            self.view.clear("No proposals")
        self.mark_stale(getattr(self.wizard(), "stale", {}))
        self.show_unsaved()

    def reason_text(self, proposal_id: str) -> str:
        """The "starts unticked" line shown under a proposal's row ("" when there is none)."""
        item = self.items.get(proposal_id)
        child = item.child(0) if item is not None else None
        return child.text(0) if child is not None else ""

    def show_unsaved(self) -> None:
        """Name the ticked proposals that touch skills with unsaved edits (Apply waits)."""
        conflicts = self.wiz().unsaved_conflicts() if self.wizard() is not None else {}
        self.unsaved.setText(f"<b>{escape(unsaved_message(conflicts))}</b>" if conflicts else "")
        self.unsaved.setVisible(bool(conflicts))
        proposal = self.view.proposal
        if proposal is not None:
            self.view.set_state(self._state_text(proposal))

    def mark_stale(self, stale: Mapping[str, Sequence[str]]) -> None:
        """Mark the proposals whose files changed since the plan was made (issue 16)."""
        self.stale_label.setText(stale_text(stale))
        self.stale_label.setVisible(bool(stale))
        for proposal_id, item in self.items.items():
            files = stale.get(proposal_id)
            counts = item.text(1).removeprefix(STALE_MARK)
            item.setText(1, f"{STALE_MARK}{counts}" if files else counts)
            if files:
                item.setToolTip(1, "Changed since the plan was made: " + ", ".join(files))

    def _fill_filter(self) -> None:
        fill_kind_filter(self.filter, self.plan.proposals if self.plan is not None else [])

    def _show_banner(self) -> None:
        plan = self.plan
        if plan is None:
            self.banner.hide()
            return
        notes = self.wiz().plan_notes if self.wizard() is not None else []
        lines = banner_lines(plan, notes)
        self.banner.setText("<br>".join(lines))
        self.banner.setVisible(bool(lines))

    # ---------------------------------------------------------------- filter and checks

    def _shown(self, proposal: Proposal) -> bool:
        return kind_shown(self.filter.currentData(), proposal)

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
        self.count.setText(count_text(plan, selection, len(self.visible_ids())))
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
        return state_text(self.selection, self.defaults, proposal) if self.selection is not None else ""

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
