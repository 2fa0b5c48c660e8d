"""The Review page's proposal rows: one checkable row per proposal, the "starts unticked" reason
line under a risky one, and the kind filter."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QComboBox, QTreeWidgetItem, QWidget

from rockskills_gui.core.dream.plan import Plan, Proposal, ProposalKind, Severity
from rockskills_gui.core.dream.review_defaults import ReviewDefault
from rockskills_gui.ui.dream.common import KIND_TITLES, finding_counts, severity_icon, worst

ID_ROLE = Qt.ItemDataRole.UserRole
REASON_ROLE = Qt.ItemDataRole.UserRole + 1  # marks the "starts unticked" line under a row
STALE_MARK = "changed since the plan · "  # before a stale proposal's finding counts
ATTENTION = "attention"


def proposal_item(proposal: Proposal, why_not: str | None, icons: QWidget) -> QTreeWidgetItem:
    """The row of ``proposal``: checkable unless ``why_not`` says why it can never be ticked."""
    item = QTreeWidgetItem([f"{proposal.id}  {proposal.title}", finding_counts(proposal)])
    item.setData(0, ID_ROLE, proposal.id)
    item.setToolTip(0, proposal.title)
    severity = worst(proposal.findings)
    if severity is not None:
        item.setIcon(1, severity_icon(severity, icons))
        item.setToolTip(1, "\n".join(f"{f.severity.value}: {f.code}: {f.message}"
                                     for f in proposal.findings))
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
    return item


def add_reason(item: QTreeWidgetItem, proposal_id: str, default: ReviewDefault) -> None:
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


def first_to_show(plan: Plan) -> Proposal | None:
    """The first merge (the riskiest change to read), else the first proposal."""
    merges = [p for p in plan.proposals if p.kind is ProposalKind.MERGE]
    return merges[0] if merges else (plan.proposals[0] if plan.proposals else None)


def fill_kind_filter(combo: QComboBox, proposals: list[Proposal]) -> None:
    """All kinds, each kind present (with its count), and those needing attention; keeps the
    current choice when it is still there."""
    combo.blockSignals(True)
    current = combo.currentData()
    combo.clear()
    combo.addItem(f"All kinds ({len(proposals)})", "")
    for kind in ProposalKind:
        count = sum(1 for p in proposals if p.kind is kind)
        if count:
            combo.addItem(f"{KIND_TITLES[kind]} ({count})", kind.value)
    attention = sum(1 for p in proposals
                    if any(f.severity is not Severity.INFO for f in p.findings))
    combo.addItem(f"With warnings or blocks ({attention})", ATTENTION)
    index = combo.findData(current)
    combo.setCurrentIndex(max(0, index))
    combo.blockSignals(False)


def kind_shown(wanted: str, proposal: Proposal) -> bool:
    """Whether the kind filter's choice ``wanted`` ("" for all) shows ``proposal``."""
    if not wanted:
        return True
    if wanted == ATTENTION:
        return any(f.severity is not Severity.INFO for f in proposal.findings)
    return proposal.kind.value == wanted
