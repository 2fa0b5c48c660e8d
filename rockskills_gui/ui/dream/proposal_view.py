"""The review page's detail: one proposal, its findings first, why it was made, and its text.

- merge: every source beside the merged skill (what each source loses is struck through, what the
  merged skill adds is tinted), and an intra-line diff against a chosen source;
- rewrite, see-also change, a create that overwrites: before beside after, and the diff;
- create: the new skill; delete and prune: the skill that goes, and why.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.dream.plan import Plan, Proposal, ProposalKind, Severity, SkillRecord
from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.theme import heading, secondary
from rockskills_gui.ui.dream import textdiff
from rockskills_gui.ui.dream.common import (
    KIND_TITLES,
    SEVERITY_WORDS,
    panel,
    pass_label,
    plural,
    severity_icon,
    sorted_findings,
)
from rockskills_gui.ui.dream.diffview import DiffView, SkillColumn, skill_dates, skill_text

ICON = 16
SOURCE_COLUMNS = 6  # a merge's sources shown side by side (the rest are counted)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class FindingsPanel(QFrame):
    """Findings as rows (icon, code, message), blocking ones first; a calm line when none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        panel(self, "dreamFindings")
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(8, 6, 8, 6)
        self.grid.setHorizontalSpacing(8)
        self.grid.setVerticalSpacing(4)
        self.grid.setColumnStretch(2, 1)
        self.rows: list[tuple[str, str]] = []  # (code, message), for tests and screen readers

    def show_proposal(self, proposal: Proposal) -> None:
        while self.grid.count():
            item = self.grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        self.rows = []
        findings = sorted_findings(proposal)
        if not findings:
            calm = secondary(QLabel("No findings: RockBot's rules and this app's checks pass.", self))
            self.grid.addWidget(calm, 0, 0, 1, 3)
            return
        for row, finding in enumerate(findings):
            icon = QLabel(self)
            icon.setPixmap(severity_icon(finding.severity, self).pixmap(ICON, ICON))
            icon.setAccessibleName(SEVERITY_WORDS[finding.severity])
            icon.setAlignment(Qt.AlignmentFlag.AlignTop)
            code = QLabel(f"<b>{_escape(finding.code)}</b>", self)
            code.setAlignment(Qt.AlignmentFlag.AlignTop)
            message = QLabel(_escape(finding.message), self)
            message.setObjectName("dreamFindingMessage")
            message.setWordWrap(True)
            message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if finding.severity is Severity.BLOCK:
                font = message.font()
                font.setBold(True)
                message.setFont(font)
            self.grid.addWidget(icon, row, 0)
            self.grid.addWidget(code, row, 1)
            self.grid.addWidget(message, row, 2)
            self.rows.append((finding.code, finding.message))


class ProposalView(QWidget):
    """Everything about one proposal; call :meth:`show_proposal`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamProposalView")
        self.title = QLabel(self)
        self.title.setObjectName("dreamProposalTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        heading(self.title, 1.2)
        self.meta = secondary(QLabel(self))
        self.meta.setObjectName("dreamProposalMeta")
        self.meta.setWordWrap(True)
        self.state = QLabel(self)
        self.state.setObjectName("dreamProposalState")
        self.state.setWordWrap(True)
        self.findings = FindingsPanel(self)
        self.why = QLabel(self)
        self.why.setObjectName("dreamProposalWhy")
        self.why.setWordWrap(True)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.why.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        header = QWidget(self)
        header_layout = QVBoxLayout(header)
        header_layout.setContentsMargins(0, 0, 4, 0)
        header_layout.setSpacing(6)
        header_layout.addWidget(self.title)
        header_layout.addWidget(self.meta)
        header_layout.addWidget(self.state)
        header_layout.addWidget(self.findings)
        header_layout.addWidget(self.why)
        header_layout.addStretch(1)
        self.header = header
        scroll = QScrollArea(self)
        scroll.setObjectName("dreamProposalHeader")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(header)
        self.header_scroll = scroll

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("dreamProposalTabs")
        self.tabs.setDocumentMode(True)
        self.columns_host = QWidget(self)
        self.columns_layout = QVBoxLayout(self.columns_host)
        self.columns_layout.setContentsMargins(0, 6, 0, 0)
        self.legend = secondary(QLabel(self.columns_host))
        self.legend.setObjectName("dreamDiffLegend")
        self.legend.setWordWrap(True)
        self.columns_layout.addWidget(self.legend)
        self.columns_splitter: QSplitter | None = None
        self.columns: list[SkillColumn] = []
        self.diff_host = QWidget(self)
        self.diff_against = QComboBox(self.diff_host)
        self.diff_against.setObjectName("dreamDiffAgainst")
        self.diff_against.setAccessibleName("Compare which source with the new text")
        self.diff_against.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.diff_against.setMinimumContentsLength(40)
        self.diff_against.currentIndexChanged.connect(self._show_diff)
        self.diff_stats = secondary(QLabel(self.diff_host))
        self.diff_stats.setWordWrap(True)
        self.diff = DiffView(self.diff_host, gutter=True)
        self.diff.setObjectName("dreamDiff")
        self.diff.setAccessibleName("Intra-line diff")
        diff_row = QHBoxLayout()
        diff_row.addWidget(QLabel("Compare", self.diff_host))
        diff_row.addWidget(self.diff_against)
        diff_row.addWidget(self.diff_stats, 1)
        diff_layout = QVBoxLayout(self.diff_host)
        diff_layout.setContentsMargins(0, 6, 0, 0)
        diff_layout.addLayout(diff_row)
        diff_layout.addWidget(self.diff, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("dreamProposalSplitter")
        self.splitter.addWidget(scroll)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 5)
        self.splitter.setChildrenCollapsible(False)
        self._user_sized = False
        self.splitter.splitterMoved.connect(self._user_moved)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.plan: Plan | None = None
        self.proposal: Proposal | None = None
        self._before_of: tuple[Proposal, dict[str, SkillRecord]] | None = None  # (see _before)
        self._pairs: list[tuple[str, str, str]] = []  # (label, old text, new text) for the diff tab

    # ---------------------------------------------------------------- showing

    def clear(self, message: str = "") -> None:
        self.proposal = None
        self.title.setText(message or "No proposal selected")
        for widget in (self.meta, self.state, self.findings, self.why, self.tabs):
            widget.setVisible(False)

    def show_proposal(self, plan: Plan, proposal: Proposal, state: str) -> None:
        self.plan = plan
        self.proposal = proposal
        for widget in (self.meta, self.state, self.findings, self.why, self.tabs):
            widget.setVisible(True)
        self.title.setText(proposal.title)
        self.meta.setText(self._meta(plan, proposal))
        self.state.setText(state)
        self.findings.show_proposal(proposal)
        self.why.setText(self._why(proposal))
        self.why.setVisible(bool(proposal.evidence))
        self._show_texts(proposal)
        self.fit_header()

    def _user_moved(self, *_args: object) -> None:
        self._user_sized = True

    def fit_header(self) -> None:
        """Give the header (title, findings, why) the height it needs, up to 45 %, unless the
        reviewer has moved the divider."""
        if self._user_sized:
            return
        total = sum(self.splitter.sizes()) or max(self.height(), 400)
        width = self.header_scroll.viewport().width() or max(self.width(), 400)
        layout = self.header.layout()
        wanted = layout.totalHeightForWidth(width) if layout is not None and \
            layout.hasHeightForWidth() else self.header.sizeHint().height()
        top = min(wanted + 2, int(total * 0.45))
        self.splitter.setSizes([top, max(1, total - top)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_header()

    def set_state(self, state: str) -> None:
        self.state.setText(state)

    def _meta(self, plan: Plan, proposal: Proposal) -> str:
        parts = [proposal.id, KIND_TITLES[proposal.kind], pass_label(proposal.dream_pass)]
        if proposal.offline:
            parts.append("offline suggestion")
        if proposal.advisory:
            parts.append("advisory: nothing to apply")
        if proposal.depends_on:
            parts.append("needs " + ", ".join(proposal.depends_on))
        dependents = plan.dependents(proposal.id)
        if dependents:
            parts.append("needed by " + ", ".join(dependents))
        if proposal.conflicts_with:
            parts.append("alternative to " + ", ".join(proposal.conflicts_with))
        return " · ".join(parts)

    def _why(self, proposal: Proposal) -> str:
        if not proposal.evidence:
            return ""
        items = "".join(f"<li><i>{_escape(e.kind)}</i>: {_escape(e.text)}</li>" for e in proposal.evidence)
        return f"<b>Why</b><ul style='margin-top:2px; margin-bottom:0px'>{items}</ul>"

    def _before(self, proposal: Proposal, name: str) -> SkillRecord | None:
        """The skill ``name`` as it was when ``proposal`` was made (a lookup by folded name)."""
        if self._before_of is None or self._before_of[0] is not proposal:
            folded: dict[str, SkillRecord] = {}
            for key, record in proposal.before.items():
                folded.setdefault(fold(key), record)  # the first spelling wins, as before
            self._before_of = (proposal, folded)
        return self._before_of[1].get(fold(name))

    def _show_texts(self, proposal: Proposal) -> None:
        record = proposal.record
        columns: list[tuple[str, str, list[textdiff.DiffLine]]] = []
        pairs: list[tuple[str, str, str]] = []
        new_text = skill_text(record)
        if proposal.kind is ProposalKind.MERGE and record is not None:
            sources = [(n, self._before(proposal, n)) for n in proposal.sources]
            known = [(n, r) for n, r in sources if r is not None]
            deleted = set(fold(n) for n in self._deleted_by_plan(proposal))
            for index, (name, source) in enumerate(known[:SOURCE_COLUMNS], start=1):
                old_text = skill_text(source)
                fate = ("kept as the merged skill" if fold(name) == fold(record.name)
                        else "deleted by " + ", ".join(self._deleters(name)) if fold(name) in deleted
                        else "not deleted by this plan")
                columns.append((f"Source {index} of {len(known)} · {name}",
                                f"{skill_dates(source)} · {fate}",
                                textdiff.one_side(old_text, new_text, "old")))
                pairs.append((f"{name} → {record.name}", old_text, new_text))
            joined = "\n".join(skill_text(r) for _n, r in known)
            meta = skill_dates(record)
            if len(known) > SOURCE_COLUMNS:  # (a reply may merge thousands: a column each froze)
                meta += f" · {len(known) - SOURCE_COLUMNS:,} more sources, not shown side by side"
            missing = [n for n, r in sources if r is None]
            if missing:
                meta += " · sources not in the library: " + ", ".join(missing[:SOURCE_COLUMNS]) + (
                    f" and {len(missing) - SOURCE_COLUMNS:,} more" if len(missing) > SOURCE_COLUMNS else "")
            columns.append((f"Merged · {record.name}", meta, textdiff.one_side(joined, new_text, "new")))
        elif record is not None:
            old_names = proposal.replaces or proposal.sources
            old_name = old_names[0] if old_names else None
            before = self._before(proposal, old_name) if old_name else None
            if before is not None:
                old_text = skill_text(before)
                columns.append((f"Before · {before.name}", skill_dates(before),
                                textdiff.one_side(old_text, new_text, "old")))
                columns.append((f"After · {record.name}", skill_dates(record),
                                textdiff.one_side(old_text, new_text, "new")))
                pairs.append((f"{before.name} → {record.name}", old_text, new_text))
            else:
                columns.append((f"New skill · {record.name}", skill_dates(record),
                                textdiff.one_side("", new_text, "new")))
        else:
            names = proposal.deletes or proposal.sources
            for name in names:
                before = self._before(proposal, name)
                verb = {ProposalKind.DELETE: "Deleted", ProposalKind.PRUNE: "Pruned"}.get(
                    proposal.kind, "Current text")
                if before is None:
                    columns.append((f"{verb} · {name}", "not in the library", []))
                    continue
                plain = [textdiff.DiffLine("equal", (textdiff.Segment(line),))
                         for line in skill_text(before).split("\n")]
                columns.append((f"{verb} · {before.name}", skill_dates(before), plain))
        self._set_columns(columns)
        self.legend.setText({
            ProposalKind.MERGE: "Struck through: what a source says that the merged skill no longer "
                                "does. Tinted: what the merged skill says that no source did.",
        }.get(proposal.kind, "Struck through: removed. Tinted: new." if pairs else ""))
        self.legend.setVisible(bool(self.legend.text()))
        self._pairs = pairs
        self.diff_against.blockSignals(True)
        self.diff_against.clear()
        for label, _old, _new in pairs:
            self.diff_against.addItem(label)
        self.diff_against.blockSignals(False)
        self.tabs.clear()
        side_title = {ProposalKind.MERGE: "Sources and merged skill"}.get(
            proposal.kind, "Before and after" if pairs else "Skill")
        self.tabs.addTab(self.columns_host, side_title)
        if pairs:
            self.tabs.addTab(self.diff_host, "Diff")
            self._show_diff()

    def _deleted_by_plan(self, proposal: Proposal) -> list[str]:
        if self.plan is None:
            return []
        return [n for p in self.plan.proposals for n in p.deletes]

    def _deleters(self, name: str) -> list[str]:
        if self.plan is None:
            return []
        return [p.id for p in self.plan.proposals if fold(name) in {fold(n) for n in p.deletes}]

    def _set_columns(self, columns: list[tuple[str, str, list[textdiff.DiffLine]]]) -> None:
        if self.columns_splitter is not None:
            self.columns_layout.removeWidget(self.columns_splitter)
            self.columns_splitter.hide()
            self.columns_splitter.deleteLater()
        splitter = QSplitter(Qt.Orientation.Horizontal, self.columns_host)
        splitter.setObjectName("dreamColumns")
        splitter.setChildrenCollapsible(False)
        self.columns = []
        for title, meta, lines in columns:
            column = SkillColumn(splitter)
            column.show_lines(title, meta, lines)
            splitter.addWidget(column)
            self.columns.append(column)
        sizes = [1000] * len(columns)
        splitter.setSizes(sizes)
        self.columns_layout.addWidget(splitter, 1)
        self.columns_splitter = splitter

    def _show_diff(self) -> None:
        index = self.diff_against.currentIndex()
        if not (0 <= index < len(self._pairs)):
            self.diff.set_plain("")
            self.diff_stats.setText("")
            return
        _label, old, new = self._pairs[index]
        lines = textdiff.unified(old, new)
        added, removed = textdiff.stats(lines)
        self.diff.set_lines(lines)
        self.diff_stats.setText(f"{plural(added, 'line')} added or changed, {removed} removed or changed "
                                "· struck-through text is removed, tinted text is new")
