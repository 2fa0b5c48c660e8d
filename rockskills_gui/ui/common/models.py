"""Thin item models over plain core data (no QStandardItemModel copies).

:class:`RowModel` is the one table model: a list of rows of any type and a tuple of
:class:`Column` declarations (header, getter, optional tooltip, alignment, sort key, extra roles).
A pane's table is its columns, not another ``QAbstractTableModel`` subclass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.skill import Skill

Index = QModelIndex | QPersistentModelIndex
NAME_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 900  # the row object itself (any RowModel; clear of pane roles)
RIGHT = Qt.AlignmentFlag.AlignRight
LEFT = Qt.AlignmentFlag.AlignLeft

R = TypeVar("R")
Getter = Callable[[R], object]
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_ALIGN = Qt.ItemDataRole.TextAlignmentRole


@dataclass(frozen=True, slots=True)
class Column(Generic[R]):
    """One column of a :class:`RowModel`.

    ``value`` gives the display text (or number); ``tooltip`` the cell's tooltip (else the
    model's row tooltip); ``align`` the horizontal alignment (vertically centred); ``sort_key``
    what :meth:`RowModel.sort` and the model's ``sort_role`` compare (default: ``value``);
    ``header_tip`` the header's tooltip; ``roles`` any other role of this column's cells
    (a foreground, a font, a delegate's data), before the model's row roles.
    """

    header: str
    value: Callable[[R], object]
    tooltip: Callable[[R], object] | None = None
    align: Qt.AlignmentFlag | None = None
    sort_key: Callable[[R], Any] | None = None
    header_tip: str | None = None
    roles: Mapping[int, Callable[[R], object]] = field(default_factory=dict)


class RowModel(QAbstractTableModel, Generic[R]):
    """A flat table over ``rows`` (a list of ``R``), one :class:`Column` per column.

    ``roles`` answer a role for every cell of a row (``NAME_ROLE``, a foreground for the whole
    row, ...); ``tooltip`` is the row's tooltip where a column has none; ``sort_role``, when
    given, answers each column's sort key (for a ``QSortFilterProxyModel``);
    ``header_alignment`` aligns each header like its column (left where none is set).
    :data:`ROW_ROLE` answers the row object. A role is answered by the first that has it: the
    column's ``roles``, its value / tooltip / alignment, the row ``roles``, ``sort_role``,
    ``ROW_ROLE``. :meth:`sort` sorts the rows themselves, stably, keeping persistent indexes
    (selection, current row) on their rows; rows set later keep that sort.
    """

    def __init__(self, columns: Sequence[Column[R]], parent: QObject | None = None, *,
                 roles: Mapping[int, Getter[R]] | None = None,
                 tooltip: Getter[R] | None = None, sort_role: int | None = None,
                 header_alignment: bool = False) -> None:
        super().__init__(parent)
        self.columns: tuple[Column[R], ...] = tuple(columns)
        self.rows: list[R] = []
        self.row_roles: dict[int, Getter[R]] = dict(roles or {})
        self.row_tooltip = tooltip
        self.sort_role = sort_role
        self.header_alignment = header_alignment
        self._sorting: tuple[int, Qt.SortOrder] | None = None  # the last sort, kept by set_rows

    # ---------------------------------------------------------------- rows

    def set_rows(self, rows: Sequence[R]) -> None:
        """Show ``rows``: in the order given, or in the current :meth:`sort` order."""
        self.beginResetModel()
        self.rows = list(rows)
        if self._sorting is not None:
            self._sort_rows(*self._sorting)
        self.endResetModel()

    def row_at(self, row: int) -> R | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def find(self, found: Callable[[R], bool]) -> int:
        """The first row for which ``found(row)`` holds, or -1."""
        return next((k for k, row in enumerate(self.rows) if found(row)), -1)

    # ---------------------------------------------------------------- Qt

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _DISPLAY) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        column = self.columns[section]
        if role == _DISPLAY:
            return column.header
        if role == _TOOLTIP:
            return column.header_tip
        if role == _ALIGN and self.header_alignment:
            return int(column.align or LEFT) | int(Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: Index, role: int = _DISPLAY) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.rows) \
                or not 0 <= index.column() < len(self.columns):
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        getter = column.roles.get(role)
        if getter is not None:
            return getter(row)
        if role == _DISPLAY:
            return column.value(row)
        if role == _TOOLTIP:
            tip = column.tooltip or self.row_tooltip
            return tip(row) if tip is not None else None
        if role == _ALIGN:
            if column.align is None:
                return None
            return int(column.align) | int(Qt.AlignmentFlag.AlignVCenter)
        getter = self.row_roles.get(role)
        if getter is not None:
            return getter(row)
        if self.sort_role is not None and role == self.sort_role:
            return (column.sort_key or column.value)(row)
        return row if role == ROW_ROLE else None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by ``column``'s sort key (stable; persistent indexes follow their rows)."""
        if not 0 <= column < len(self.columns):
            return
        self._sorting = (column, order)
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        held = [(self.rows[i.row()], i.column()) for i in persistent if 0 <= i.row() < len(self.rows)]
        self._sort_rows(column, order)
        where = {id(row): k for k, row in enumerate(self.rows)}
        self.changePersistentIndexList(
            [i for i in persistent if 0 <= i.row() < len(where)],
            [self.index(where[id(row)], col) for row, col in held])
        self.layoutChanged.emit()

    def _sort_rows(self, column: int, order: Qt.SortOrder) -> None:
        """Put :attr:`rows` in ``column``'s ``order`` (a subclass may sort its own way)."""
        key = self.columns[column].sort_key or self.columns[column].value
        # (``value`` is typed to return object; a column without ``sort_key`` shows comparable values)
        self.rows.sort(key=key, reverse=order == Qt.SortOrder.DescendingOrder)  # type: ignore[arg-type]


class SkillListModel(RowModel[Skill]):
    """Skills by name, in the order given (the Library pane passes RockBot's List order)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__((Column("Skill", lambda s: s.name),), parent,
                         roles={NAME_ROLE: lambda s: s.name},
                         tooltip=lambda s: s.summary or "(no summary)")

    def set_skills(self, skills: Sequence[Skill]) -> None:
        self.set_rows(skills)

    def row_of(self, name: str) -> int:
        return self.find(lambda skill: skill.name == name)


def _problem_tip(problem: Problem) -> str:
    return f"{problem.path}\n{problem.kind.value}: {problem.message}"


class ProblemsModel(RowModel[Problem]):
    """Problems reported by the core: path, kind, message."""

    HEADERS = ("Path", "Kind", "Message")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__((Column("Path", lambda p: p.path),
                          Column("Kind", lambda p: p.kind.value),
                          Column("Message", lambda p: p.message)), parent, tooltip=_problem_tip)

    def set_problems(self, problems: Sequence[Problem]) -> None:
        self.set_rows(problems)

    def problem_at(self, row: int) -> Problem | None:
        return self.row_at(row)
