"""The trigger-eval panel's rows: each query with whether it should trigger its skill (editable),
and what the last run found for it (trigger rate, pass/fail, which skills fired) and how that
compares with a snapshot or with the saved descriptions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from rockskills_gui.core.evals.report import NONE, RowResult
from rockskills_gui.core.evals.snapshots import RowDiff
from rockskills_gui.core.evals.trigger_file import TriggerRow
from rockskills_gui.ui.common.models import RIGHT, Column, RowModel

Index = QModelIndex | QPersistentModelIndex
SKILL_ROLE = Qt.ItemDataRole.UserRole + 40
QUERY_ROLE = Qt.ItemDataRole.UserRole + 41


@dataclass(frozen=True)
class RowItem:
    """One row as shown: the file's row, its skill, and the last results for it (if any)."""

    skill: str
    row: TriggerRow
    result: RowResult | None = None
    diff: RowDiff | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.skill, self.row.query


def mark(item: RowItem) -> str:
    passed = item.result.passed if item.result is not None else None
    return "—" if passed is None else ("✔" if passed else "✘")


def rate(item: RowItem) -> str:
    r = item.result
    if r is None or not r.runs:
        return ""
    return f"{r.triggers}/{r.runs}  {r.rate:.2f}"


def fired(item: RowItem) -> str:
    """Which skills fired, most first (the row's own skill first named as such)."""
    r = item.result
    if r is None or not r.runs:
        return ""
    parts = []
    for name, count in r.fired.items():
        shown = "no skill" if name == NONE else name
        parts.append(f"{shown} {count}")
    return ", ".join(parts)


def versus(item: RowItem) -> str:
    d = item.diff
    if d is None:
        return ""
    if d.a is None:
        return "new"
    if d.b is None:
        return "not run now"
    if d.regressed:
        return f"✘ {d.a.rate:.2f} → {d.b.rate:.2f} regressed"
    if d.fixed:
        return f"✔ {d.a.rate:.2f} → {d.b.rate:.2f} fixed"
    if not d.changed:
        return "same"
    return f"{d.a.rate:.2f} → {d.b.rate:.2f}"


def _tip(item: RowItem) -> str:
    want = "should trigger" if item.row.should_trigger else "near miss: should not trigger"
    lines = [item.row.query, f"{item.skill}: {want}"]
    r = item.result
    if r is not None and r.runs:
        lines.append(f"triggered in {r.triggers} of {r.runs} runs (threshold {r.threshold:g})")
        details = {o.detail for o in r.outcomes if o.detail}
        lines += [f"· {d}" for d in sorted(details)[:5]]
    return "\n".join(lines)


def _bold_if(test: Callable[[RowItem], bool]) -> Callable[[RowItem], object]:
    def font(item: RowItem) -> object:
        if not test(item):
            return None
        bold = QFont()
        bold.setBold(True)
        return bold

    return font


def _failing(item: RowItem) -> bool:
    return item.result is not None and item.result.passed is False


def _regressed(item: RowItem) -> bool:
    return item.diff is not None and item.diff.regressed


class TriggerRowsModel(RowModel[RowItem]):
    """The rows; the query and "should trigger" are editable while :attr:`editable`.

    Signals:
        rowsEdited(): the user changed a query or a "should trigger" mark.
    """

    rowsEdited = Signal()

    MARK, SKILL, QUERY, SHOULD, RATE, FIRED, VERSUS = range(7)

    def __init__(self, parent: QObject | None = None) -> None:
        font = Qt.ItemDataRole.FontRole
        super().__init__((
            Column("", mark, roles={font: _bold_if(_failing)}, header_tip="✔ pass · ✘ fail · — not run"),
            Column("Skill", lambda i: i.skill),
            Column("Query", lambda i: i.row.query),
            Column("Trigger?", lambda i: "yes" if i.row.should_trigger else "near miss",
                   header_tip="Should the model activate the skill for this query? A near miss "
                              "(no) passes when the rate stays below the threshold"),
            Column("Rate", rate, align=RIGHT, header_tip="runs that activated the skill"),
            Column("Fired", fired, header_tip="which skill each run activated"),
            Column("vs", versus, roles={font: _bold_if(_regressed)}),
        ), parent, tooltip=_tip, roles={SKILL_ROLE: lambda i: i.skill, QUERY_ROLE: lambda i: i.row.query})
        self.editable = True
        self.versus_label = ""

    def set_items(self, items: Sequence[RowItem], versus_label: str = "") -> None:
        self.versus_label = versus_label
        self.set_rows(items)
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, self.VERSUS, self.VERSUS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if section == self.VERSUS and orientation == Qt.Orientation.Horizontal \
                and role == Qt.ItemDataRole.DisplayRole:
            return f"vs {self.versus_label}" if self.versus_label else "vs snapshot"
        return super().headerData(section, orientation, role)

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if self.editable and index.column() == self.QUERY:
            flags |= Qt.ItemFlag.ItemIsEditable
        if self.editable and index.column() == self.SHOULD:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.CheckStateRole and index.column() == self.SHOULD:
            item = self.row_at(index.row())
            if item is None:
                return None
            return Qt.CheckState.Checked if item.row.should_trigger else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.EditRole and index.column() == self.QUERY:
            item = self.row_at(index.row())
            return item.row.query if item is not None else None
        return super().data(index, role)

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        item = self.row_at(index.row())
        if item is None or not self.editable:
            return False
        if index.column() == self.QUERY and role == Qt.ItemDataRole.EditRole:
            text = str(value).strip()
            if not text or text == item.row.query:
                return False
            updated = replace(item, row=replace(item.row, query=text), result=None, diff=None)
        elif index.column() == self.SHOULD and role == Qt.ItemDataRole.CheckStateRole:
            checked = Qt.CheckState(value) == Qt.CheckState.Checked if isinstance(value, int) \
                else value == Qt.CheckState.Checked
            if checked == item.row.should_trigger:
                return False
            row = replace(item.row, should_trigger=checked)  # the runs still hold: pass/fail changes
            result = replace(item.result, row=row) if item.result is not None else None
            updated = replace(item, row=row, result=result, diff=None)
        else:
            return False
        self.rows[index.row()] = updated
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), len(self.columns) - 1))
        self.rowsEdited.emit()
        return True

    def trigger_rows(self) -> list[TriggerRow]:
        return [item.row for item in self.rows]
