"""The review page's recall safety net: the real query corpus (logged first messages, saved query
sets) replayed before and after the ticked proposals, query by query."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.recall_guard import PlanEffect, corpus, plan_effect
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.recall.replay import QueryOutcome, SkillMove
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.common.tree_items import top_level_items

HEADERS = ["Query", "From", "Skill", "Before", "After", "Top 5 after"]
LOST = "✘ "  # marks a skill that leaves the top 5 (or a skill to avoid that enters it)


def _rank(rank: int | None) -> str:
    return f"#{rank}" if rank is not None else "—"


def _skill_text(move: SkillMove) -> str:
    if move.successor is None:
        return f"{move.name} (deleted)"
    if move.successor != move.name:
        return f"{move.name} → {move.successor}"
    return move.name


class RecallImpactDialog(QDialog):
    """Per query: the expected skill's rank before and after the ticked proposals."""

    def __init__(self, library: Library, plan: Plan, accepted: Sequence[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamRecallImpact")
        self.setWindowTitle("Recall Impact of the Ticked Proposals")
        # (logged sessions where the agent logs them: RockBot; saved query sets for any library)
        queries, notes = corpus(library.agent_dir, sessions=library.profile.holds.usage_log)
        self.effect: PlanEffect = plan_effect(plan, library.skills(), accepted, queries)
        report = self.effect.report
        self.summary = QLabel(self)
        self.summary.setObjectName("dreamRecallImpactSummary")
        self.summary.setWordWrap(True)
        self.summary.setText(
            f"{len(report.outcomes)} real quer{'y' if len(report.outcomes) == 1 else 'ies'} "
            f"(first messages of logged sessions, saved query sets) replayed with "
            f"{len(self.effect.accepted)} ticked proposal(s): <b>{len(report.regressions)} lose "
            f"their skill from the top 5</b>, {len(report.changed)} change."
            if report.outcomes else
            "No query to replay: no logged session used a skill, and there is no saved query set "
            "in recall-tests/.")
        self.only_changed = QCheckBox("Only queries that change", self)
        self.only_changed.setChecked(True)
        self.only_changed.toggled.connect(self._fill)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("dreamRecallImpactTable")
        self.tree.setHeaderLabels(HEADERS)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.columns = ColumnFitter(self.tree, order=[3, 4, 2, 1, 5], stretch=0,
                                    caps={2: 0.3, 1: 0.15, 5: 0.3})
        self.notes = secondary(QLabel("\n".join(notes), self))
        self.notes.setWordWrap(True)
        self.notes.setVisible(bool(notes))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.only_changed)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.notes)
        layout.addWidget(buttons)
        self.resize(960, 520)
        self._fill()

    def rows(self) -> list[tuple[str, ...]]:
        """The table as text (what a user reads), one tuple per row."""
        return [tuple(item.text(c) for c in range(len(HEADERS))) for item in top_level_items(self.tree)]

    def _fill(self) -> None:
        self.tree.clear()
        for index, outcome in enumerate(self.effect.report.outcomes):
            if self.only_changed.isChecked() and not (outcome.changed or outcome.regressed):
                continue
            self._add(outcome, self.effect.causes.get(index, ()))
        self.columns.refit()

    def _add(self, outcome: QueryOutcome, causes: Sequence[str]) -> None:
        moves = [*outcome.expected, *outcome.pulled_in]
        if self.only_changed.isChecked():
            moves = [m for m in moves if m.before != m.after or m.lost or m.pulled_in
                     or m.successor != m.name]
        shown: list[SkillMove | None] = [*moves] if moves else [None]  # None: the query's own row
        for move in shown:
            lost = move is not None and (move.lost or move.pulled_in)
            skill = _skill_text(move) if move is not None else ""
            item = QTreeWidgetItem(self.tree, [
                outcome.query.query, outcome.query.source, (LOST if lost else "") + skill,
                _rank(move.before) if move is not None else "", _rank(move.after) if move else "",
                ", ".join(outcome.after) or "(none)"])
            item.setToolTip(0, outcome.query.query)
            item.setToolTip(2, skill)
            item.setToolTip(5, "before: " + (", ".join(outcome.before) or "(none)")
                            + "\nafter: " + (", ".join(outcome.after) or "(none)"))
            if lost:
                item.setToolTip(2, f"{skill}: loses its place in the top 5" + (
                    f" (caused by {', '.join(causes)})" if causes else ""))
                for column in (2, 4):
                    font = QFont(item.font(column))
                    font.setBold(True)
                    item.setFont(column, font)
