"""Thin item models over plain core data (no QStandardItemModel copies)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import (
    QAbstractListModel,
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


class SkillListModel(QAbstractListModel):
    """Skills by name, in the order given (the Library pane passes RockBot's List order)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._skills: list[Skill] = []

    def set_skills(self, skills: Sequence[Skill]) -> None:
        self.beginResetModel()
        self._skills = list(skills)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._skills)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._skills):
            return None
        skill = self._skills[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, NAME_ROLE):
            return skill.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return skill.summary or "(no summary)"
        return None

    def row_of(self, name: str) -> int:
        for row, skill in enumerate(self._skills):
            if skill.name == name:
                return row
        return -1


class ProblemsModel(QAbstractTableModel):
    """Problems reported by the core: path, kind, message."""

    HEADERS = ("Path", "Kind", "Message")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._problems: list[Problem] = []

    def set_problems(self, problems: Sequence[Problem]) -> None:
        self.beginResetModel()
        self._problems = list(problems)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._problems)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def problem_at(self, row: int) -> Problem | None:
        return self._problems[row] if 0 <= row < len(self._problems) else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._problems):
            return None
        problem = self._problems[index.row()]
        values = (problem.path, problem.kind.value, problem.message)
        if role == Qt.ItemDataRole.DisplayRole:
            return values[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{problem.path}\n{problem.kind.value}: {problem.message}"
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if (orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole
                and 0 <= section < len(self.HEADERS)):
            return self.HEADERS[section]
        return None
