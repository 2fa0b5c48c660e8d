"""What a trigger-eval run found beyond the rows: per skill precision and recall, the confusion
view (which skill fired instead; which descriptions compete for the same queries) and the runs
that counted as "no trigger" without a clean reply. A part of the trigger-eval panel.

Signals:
    openSkillRequested(str): the user opened a skill (double-click): compare its description.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.evals.report import Competition, Instead, SkillScore, TriggerReport
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.models import NAME_ROLE, RIGHT, Column, RowModel

SECOND_ROLE = Qt.ItemDataRole.UserRole + 42  # the other skill of a confusion row


def _table(parent: QWidget, name: str, model: RowModel[object]) -> QTableView:
    view = QTableView(parent)
    view.setObjectName(name)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    return view


def _score_tip(s: SkillScore) -> str:
    tip = (f"{s.skill}: TP {s.tp}, FP {s.fp}, FN {s.fn}, TN {s.tn} runs; precision = TP/(TP+FP), "
           "recall = TP/(TP+FN) over the runs of its own rows (1.00 when nothing is counted)")
    return tip + (f"\nNot in the listing: {s.hidden}" if s.hidden else "")


class TriggerResults(QTabWidget):
    """The tabs Skills, Confusion and Problems under the rows."""

    openSkillRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("triggerResults")
        self.setDocumentMode(True)
        self.describe: Callable[[str], str | None] = lambda _name: None  # a skill's description
        self.scores: RowModel[SkillScore] = RowModel((
            Column("Skill", lambda s: s.skill + (" (not listed)" if s.hidden else "")),
            Column("Precision", lambda s: f"{s.precision:.2f}", align=RIGHT),
            Column("Recall", lambda s: f"{s.recall:.2f}", align=RIGHT),
            Column("Passed", lambda s: f"{s.rows_passed}/{s.rows}", align=RIGHT,
                   header_tip="rows that pass, of the skill's rows"),
            Column("TP · FP · FN · TN", lambda s: f"{s.tp} · {s.fp} · {s.fn} · {s.tn}", align=RIGHT),
        ), self, tooltip=_score_tip, roles={NAME_ROLE: lambda s: s.skill})
        self.scores_view = _table(self, "triggerScores", self.scores)  # type: ignore[arg-type]
        self.scores_fit = ColumnFitter(self.scores_view, order=[0, 1, 2, 3], stretch=4,
                                       caps={0: 0.35})

        self.instead: RowModel[Instead] = RowModel((
            Column("Expected", lambda i: i.skill),
            Column("Fired instead", lambda i: i.fired),
            Column("Runs", lambda i: i.runs, align=RIGHT),
            Column("Queries", lambda i: "; ".join(i.queries)),
        ), self, tooltip=lambda i: "\n".join(i.queries),
            roles={NAME_ROLE: lambda i: i.skill, SECOND_ROLE: lambda i: i.fired})
        self.instead_view = _table(self, "triggerInstead", self.instead)  # type: ignore[arg-type]
        self.instead_fit = ColumnFitter(self.instead_view, order=[0, 1, 2], stretch=3, caps={0: 0.3, 1: 0.3})
        self.competing: RowModel[Competition] = RowModel((
            Column("Description", lambda c: c.a),
            Column("competes with", lambda c: c.b),
            Column("Queries", lambda c: c.count, align=RIGHT),
            Column("For example", lambda c: "; ".join(c.queries)),
        ), self, tooltip=self._competing_tip,
            roles={NAME_ROLE: lambda c: c.a, SECOND_ROLE: lambda c: c.b})
        self.competing_view = _table(self, "triggerCompeting", self.competing)  # type: ignore[arg-type]
        self.competing_fit = ColumnFitter(self.competing_view, order=[0, 1, 2], stretch=3,
                                          caps={0: 0.3, 1: 0.3})
        confusion = QWidget(self)
        box = QVBoxLayout(confusion)
        box.setContentsMargins(0, 4, 0, 0)
        self.instead_title = QLabel("Fired instead (on queries that should trigger a skill):", confusion)
        self.competing_title = QLabel("Descriptions competing for the same queries "
                                      "(double-click opens a skill):", confusion)
        for label in (self.instead_title, self.competing_title):
            label.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical, confusion)
        for title, view in ((self.instead_title, self.instead_view),
                            (self.competing_title, self.competing_view)):
            part = QWidget(split)
            pbox = QVBoxLayout(part)
            pbox.setContentsMargins(0, 0, 0, 0)
            pbox.addWidget(title)
            pbox.addWidget(view, 1)
            split.addWidget(part)
        split.setChildrenCollapsible(False)
        box.addWidget(split, 1)

        self.problems = QPlainTextEdit(self)
        self.problems.setObjectName("triggerProblems")
        self.problems.setReadOnly(True)
        self.problems.setAccessibleName("Runs without a clean reply")
        self.problems.setPlaceholderText("Runs that counted as no trigger without a clean reply, "
                                         "and notes on the run, show here.")
        self.addTab(self.scores_view, "Skills")
        self.addTab(confusion, "Confusion")
        self.addTab(self.problems, "Problems")
        for view in (self.scores_view, self.instead_view, self.competing_view):
            view.doubleClicked.connect(lambda index: self.openSkillRequested.emit(
                index.data(SECOND_ROLE) if index.column() == 1 and index.data(SECOND_ROLE)
                else index.data(NAME_ROLE)))

    def _competing_tip(self, c: Competition) -> str:
        """Both descriptions as the listing shows them, then the queries they compete for."""
        lines = [f"{name}: {self.describe(name) or '(no description)'}" for name in (c.a, c.b)]
        return "\n".join([*lines, "", f"{c.count} queries, e.g.:", *c.queries])

    def show_report(self, report: TriggerReport | None) -> None:
        """``report``'s skills, confusion and problems (None: clear)."""
        self.scores.set_rows(list(report.skills) if report is not None else [])
        self.instead.set_rows(list(report.instead) if report is not None else [])
        self.competing.set_rows(list(report.competing) if report is not None else [])
        lines: list[str] = []
        if report is not None:
            lines += [f"note: {n}" for n in report.notes]
            if report.aborted:
                lines.append(f"the run {report.aborted}")
            lines += list(report.problems)
        self.problems.setPlainText("\n".join(lines))
        self.setTabText(2, f"Problems ({len(report.problems)})" if report is not None
                        and report.problems else "Problems")
        self.instead_title.setText(
            "Fired instead (on queries that should trigger a skill):" if report is None or report.instead
            else "No other skill fired on a query that should trigger one.")
