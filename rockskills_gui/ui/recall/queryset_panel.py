"""The Recall tab's query sets: saved messages with the skills they should (and should not)
recall, how recall does on them, and named snapshots compared per query."""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from PySide6.QtCore import QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall import snapshots
from rockskills_gui.core.recall.queryset import (
    QUERY_SET_DIR,
    AnyLayout,
    CaseResult,
    QueryCase,
    QuerySet,
    QuerySetError,
    QuerySetReport,
    default_query_set_path,
    evaluate_case,
    load_query_set,
    save_query_set,
)
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, SkillRecall
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.recall.queryset_snapshots import (
    EDITS_LABEL,
    QuerySetRenames,
    QuerySetSnapshots,
    list_query_sets,
)
from rockskills_gui.ui.recall.recall_panels import QUERY_ROLE, NameEdit

__all__ = [  # names that lived here before the panel was split
    "EDITS_LABEL", "QuerySetPanel", "list_query_sets",
]


def _bold(item: QTreeWidgetItem, column: int = 0) -> None:
    font = QFont(item.font(column))
    font.setBold(True)
    item.setFont(column, font)


class QuerySetPanel(QWidget):
    """Saved queries with the skills they should recall, and how recall does on them.

    Signals:
        evaluated(): a report for the current set is on screen.
        queryRequested(str): the user wants to look at a saved query (double-click).
        failed(str): a set could not be read or written.
    """

    evaluated = Signal()
    queryRequested = Signal(str)
    failed = Signal(str)

    BUDGET_S = 0.03  # evaluation time per event-loop turn

    def __init__(self, names: QStringListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recallQuerySetPanel")
        self.layout_: AnyLayout | None = None
        self.recall: SkillRecall | None = None
        self.query_set: QuerySet | None = None
        self.path: Path | None = None
        self.report: QuerySetReport | None = None
        self.current_query: Callable[[], str] = lambda: ""
        self._pending: Iterator[QueryCase] | None = None
        self._results: list[CaseResult] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._step)

        self.sets = QComboBox(self)
        self.sets.setObjectName("recallQuerySets")
        self.sets.setMinimumContentsLength(12)
        self.sets.currentIndexChanged.connect(self._on_set_chosen)
        self.new_name = QLineEdit(self)
        self.new_name.setPlaceholderText("new set name")
        self.new_name.returnPressed.connect(self._create_from_edit)
        self.new_button = QPushButton("New set", self)
        self.new_button.clicked.connect(self._create_from_edit)
        self.expected = NameEdit(names, multiple=True, parent=self)
        self.expected.setObjectName("recallExpected")
        self.expected.setPlaceholderText("expected skills, comma-separated")
        self.add_button = QPushButton("Save query", self)
        self.add_button.setToolTip("Save the current query with these expected skills in the set")
        self.add_button.clicked.connect(self.add_current)
        self.remove_button = QPushButton("Remove query", self)
        self.remove_button.clicked.connect(self.remove_selected)
        self.metrics = QLabel(self)
        self.metrics.setObjectName("recallMetrics")
        self.metrics.setWordWrap(True)
        self.metrics.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("recallCases")
        self.tree.setHeaderLabels(["", "Query", "Expected", "Rank", "Result", "vs snapshot"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.columns = ColumnFitter(self.tree, order=[0, 3, 4, 5, 2], stretch=1,
                                    caps={2: 0.25, 4: 0.3, 5: 0.3})
        self.tree.itemDoubleClicked.connect(
            lambda item, _col: self.queryRequested.emit(item.data(1, QUERY_ROLE)))
        self.where = secondary(QLabel(self))
        self.where.setWordWrap(True)
        self.snapshot_box = QComboBox(self)
        self.snapshot_box.setObjectName("recallSnapshots")
        self.snapshot_box.setAccessibleName("Snapshots of this set")
        self.snapshot_box.setMinimumContentsLength(10)
        self.snapshot_button = QPushButton("Save snapshot", self)
        self.snapshot_button.setToolTip("Keep this set's results now (top 5 with exact scores, the "
                                        "expected skills' ranks) to compare with later")
        self.snapshot_button.clicked.connect(lambda: self.save_snapshot())
        self.compare_button = QPushButton("Compare to now", self)
        self.compare_button.setToolTip("Per query: what changed since the chosen snapshot")
        self.compare_button.clicked.connect(lambda: self.compare_snapshot())
        self.edits_button = QPushButton("With unsaved edits", self)
        self.edits_button.setToolTip("Per query: what the editor's unsaved edits would change (a "
                                     "query that loses its skill is marked ✘); nothing is saved")
        self.edits_button.clicked.connect(lambda: self.compare_edits())
        self.edits_provider: Callable[[], list[Skill]] = list
        self.rename_banner = QWidget(self)
        self.rename_banner.setObjectName("recallRenameBanner")
        self.rename_label = QLabel(self.rename_banner)
        self.rename_label.setWordWrap(True)
        self.rename_button = QPushButton("Update them", self.rename_banner)
        self.rename_button.setToolTip("Rewrite the saved query sets to the new names")
        self.rename_button.clicked.connect(lambda: self.update_renamed())
        banner = QHBoxLayout(self.rename_banner)
        banner.setContentsMargins(0, 0, 0, 0)
        banner.addWidget(self.rename_label, 1)
        banner.addWidget(self.rename_button)
        self.rename_banner.hide()
        # The parts: snapshots (and the comparison shown), renamed skills (offered as an update).
        self.comparisons = QuerySetSnapshots(self, self.snapshot_box, self.failed.emit)
        self.renamed = QuerySetRenames(self, self.rename_banner, self.rename_label,
                                       self.failed.emit)

        top = QHBoxLayout()
        top.addWidget(QLabel("Set:", self))
        top.addWidget(self.sets, 1)
        create = QHBoxLayout()  # a row of its own: the name field gets the panel's width
        create.addWidget(self.new_name, 1)
        create.addWidget(self.new_button)
        add = QHBoxLayout()
        add.addWidget(self.expected, 1)
        add.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.rename_banner)
        layout.addLayout(top)
        layout.addLayout(create)
        layout.addLayout(add)
        snaps = QHBoxLayout()
        snaps.addWidget(self.snapshot_box, 1)
        snaps.addWidget(self.snapshot_button)
        layout.addLayout(snaps)
        versus = QHBoxLayout()  # a row of its own: the side panel keeps its narrow width
        versus.addWidget(self.compare_button)
        versus.addWidget(self.edits_button)
        versus.addStretch(1)
        layout.addLayout(versus)
        layout.addWidget(self.metrics)
        layout.addWidget(self.tree, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.where, 1)
        bottom.addWidget(self.remove_button)
        layout.addLayout(bottom)
        self.update_enabled()

    # ---------------------------------------------------------------- the parts, as before

    @property
    def diffs(self) -> dict[str, snapshots.QueryDiff]:
        """The comparison shown in the last column, per query."""
        return self.comparisons.diffs

    @property
    def compared_with(self) -> str:
        """What the last column compares with (a snapshot's name, unsaved edits, or "")."""
        return self.comparisons.compared_with

    def save_snapshot(self, name: str | None = None) -> str | None:
        """Keep the current set's results as snapshot ``name`` (default: set name and UTC time)."""
        return self.comparisons.save_snapshot(name)

    def compare_snapshot(self, name: str | None = None) -> list[snapshots.QueryDiff]:
        """Per query: the chosen snapshot against the library now (shown in the last column)."""
        return self.comparisons.compare_snapshot(name)

    def compare_edits(self) -> list[snapshots.QueryDiff]:
        """Per query: the library now against the library with the unsaved edits laid over it."""
        return self.comparisons.compare_edits()

    def follow_edits(self, recompute: bool = True) -> None:
        """The library or the editor's edits changed: redo (or drop) a comparison with them."""
        self.comparisons.follow_edits(recompute)

    def note_renames(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Skills were renamed or moved: offer to rewrite the sets that still name them."""
        self.renamed.note_renames(pairs)

    def update_renamed(self) -> int:
        """Rewrite every saved set's queries to the new names; the number of queries rewritten."""
        return self.renamed.update_renamed()

    # ---------------------------------------------------------------- sets

    def set_library(self, layout: AnyLayout | None, recall: SkillRecall | None) -> None:
        """A library (or none) was opened: list its sets and evaluate the first one."""
        self.layout_ = layout
        self.recall = recall
        self.renamed.renames = {}
        self.rename_banner.hide()
        self.where.setText(f"Stored in {layout.agent_dir / QUERY_SET_DIR} (outside what the "
                           "agent loads)" if layout is not None else "")
        self._reload_sets()

    def set_recall(self, recall: SkillRecall | None) -> None:
        self.recall = recall
        self.evaluate()

    def _reload_sets(self, select: Path | None = None) -> None:
        paths = list_query_sets(self.layout_) if self.layout_ is not None else []
        self.sets.blockSignals(True)
        self.sets.clear()
        for path in paths:
            self.sets.addItem(path.stem, str(path))
        if select is not None and str(select) in [str(p) for p in paths]:
            self.sets.setCurrentIndex(paths.index(select))
        self.sets.blockSignals(False)
        self._on_set_chosen()

    def _on_set_chosen(self) -> None:
        data = self.sets.currentData()
        self.path = Path(data) if data else None
        self.query_set = None
        if self.path is not None:
            try:
                self.query_set = load_query_set(self.path)
            except QuerySetError as exc:
                self.failed.emit(str(exc))
        self.comparisons.forget()
        self.comparisons.reload()
        self.update_enabled()
        self.evaluate()

    def _create_from_edit(self) -> None:
        name = self.new_name.text().strip()
        if name and self.create_set(name):
            self.new_name.clear()

    def create_set(self, name: str) -> bool:
        """Create (or open, if it exists) ``<agent>/recall-tests/<name>.json``."""
        if self.layout_ is None:
            return False
        try:
            path = default_query_set_path(self.layout_, name)
            if not path.exists():
                save_query_set(self.layout_, path, QuerySet(name=name, queries=[]))
        except (QuerySetError, OSError) as exc:
            self.failed.emit(str(exc) if isinstance(exc, QuerySetError)
                             else f"could not create the set: {exc.strerror or exc}")
            return False
        self._reload_sets(select=path)
        return True

    def _save(self, query_set: QuerySet) -> bool:
        assert self.layout_ is not None and self.path is not None
        try:
            save_query_set(self.layout_, self.path, query_set)
        except (QuerySetError, OSError) as exc:
            self.failed.emit(str(exc) if isinstance(exc, QuerySetError)
                             else f"could not save the set: {exc.strerror or exc}")
            return False
        self.query_set = query_set
        self.evaluate()
        return True

    def add_current(self) -> bool:
        """Save the current query with the expected names (replacing the same query's case)."""
        query = self.current_query()
        expected = self.expected.names()
        if self.query_set is None or not query.strip() or not expected:
            self.failed.emit("type a query, choose a set and name at least one expected skill")
            return False
        case = QueryCase(query=query, expected=expected)
        cases = [c for c in self.query_set.queries if c.query != query] + [case]
        return self._save(self.query_set.model_copy(update={"queries": cases}))

    def remove_selected(self) -> bool:
        item = self.tree.currentItem()
        if item is None or self.query_set is None:
            return False
        query = item.data(1, QUERY_ROLE)
        cases = [c for c in self.query_set.queries if c.query != query]
        return self._save(self.query_set.model_copy(update={"queries": cases}))

    def suggest_expected(self, names: Sequence[str]) -> None:
        """Prefill the expected skills (from the selected results) unless the user typed some."""
        if not self.expected.hasFocus():
            self.expected.setText(", ".join(names))

    def update_enabled(self) -> None:
        has_set = self.query_set is not None
        widget: QWidget
        for widget in (self.expected, self.add_button, self.remove_button, self.snapshot_button,
                       self.edits_button):
            widget.setEnabled(has_set)
        self.compare_button.setEnabled(has_set and self.snapshot_box.count() > 0)
        self.snapshot_box.setEnabled(self.snapshot_box.count() > 0)
        for widget in (self.new_name, self.new_button):
            widget.setEnabled(self.layout_ is not None)

    # ---------------------------------------------------------------- evaluation

    def evaluate(self) -> None:
        """Start evaluating the current set (a few queries per event-loop turn)."""
        self._timer.stop()
        self._results = []
        self.report = None
        if self.query_set is None or self.recall is None:
            self._pending = None
            self.show_report()
            return
        self._pending = iter(self.query_set.queries)
        self.metrics.setText(f"Evaluating {len(self.query_set.queries)} queries…")
        self._step()

    @property
    def busy(self) -> bool:
        return self._pending is not None

    def _step(self) -> None:
        if self._pending is None or self.recall is None or self.query_set is None:
            return
        start = time.perf_counter()
        for case in self._pending:
            self._results.append(evaluate_case(self.recall, case))
            if time.perf_counter() - start > self.BUDGET_S:
                self._timer.start()
                return
        self._pending = None
        self.report = QuerySetReport(self.query_set.name, tuple(self._results))
        self.show_report()
        self.evaluated.emit()

    def show_report(self) -> None:
        """The set's report (and the comparison, if any) in the tree and the metrics line."""
        self.tree.clear()
        self.tree.headerItem().setText(5, f"vs {self.compared_with}" if self.compared_with
                                       else "vs snapshot")
        report = self.report
        if self.query_set is None:
            self.metrics.setText("No query set yet: name one and press New set, then save "
                                 "queries with the skills they should recall."
                                 if self.layout_ is not None else "")
            return
        if report is None:
            return
        if not report.cases:
            self.metrics.setText(f"<b>{html.escape(report.name)}</b>: no queries yet. Type a "
                                 "query, name the skills it should recall, press Save query.")
            return
        failing = len(report.failing)
        verdict = (f"<b>{failing} failing</b>" if failing
                   else "all pass")
        self.metrics.setText(
            f"<b>{html.escape(report.name)}</b> · {len(report.cases)} queries · "
            f"hit@1 <b>{report.hit_at_1:.2f}</b> · hit@5 <b>{report.hit_at_5:.2f}</b> · "
            f"MRR <b>{report.mrr:.3f}</b> · {verdict} (a query passes when every expected "
            f"skill is in the top {RECALL_TOP_N})")
        for case in report.cases:
            rank = f"#{case.first_rank}" if case.first_rank is not None else "—"
            if case.passed:
                result = "pass"
            else:
                result = "; ".join(part for part in (
                    "missing " + ", ".join(case.missing) if case.missing else "",
                    "recalls " + ", ".join(case.intruders) + " (to avoid)" if case.intruders else "")
                    if part)
            if case.unknown:
                result += f" (not skills: {', '.join(case.unknown)})"
            expected = ", ".join(case.case.expected)
            if case.case.avoid:
                expected += (" · " if expected else "") + "not " + ", ".join(case.case.avoid)
            item = QTreeWidgetItem(self.tree, ["✔" if case.passed else "✘", case.case.query,
                                               expected, rank, result,
                                               self._versus(case.case.query)])
            item.setData(1, QUERY_ROLE, case.case.query)
            item.setToolTip(1, case.case.query)
            item.setToolTip(4, "top 5: " + ", ".join(case.top) if case.top else "no match")
            if not case.passed:
                _bold(item, 0)
                _bold(item, 4)
            diff = self.diffs.get(case.case.query)
            if diff is not None and diff.regressed:
                _bold(item, 5)
            if diff is not None and diff.a is not None:
                item.setToolTip(5, f"{self.compared_with}: " + (", ".join(
                    f"{n} ({score:.4f})" for n, score in diff.a.top) or "no match"))
        self.columns.refit()

    def _versus(self, query: str) -> str:
        """The last column: how this query changed since the compared snapshot."""
        if not self.compared_with:
            return ""
        diff = self.diffs.get(query)
        if diff is None or diff.a is None:
            return f"new since {self.compared_with}"
        if diff.regressed:
            parts = [f"lost {', '.join(diff.lost)}" if diff.lost else "",
                     f"now recalls {', '.join(diff.pulled_in)}" if diff.pulled_in else ""]
            return "✘ " + "; ".join(p for p in parts if p)
        if not diff.changed:
            return "same"
        after = diff.b.ranks if diff.b is not None else {}
        moved = [f"{n} {_rank(diff.a.ranks.get(n))}→{_rank(after.get(n))}"
                 for n in diff.a.expected if diff.a.ranks.get(n) != after.get(n)]
        return ", ".join(moved) or "top 5 changed"


def _rank(rank: int | None) -> str:
    return f"#{rank}" if rank is not None else "—"
