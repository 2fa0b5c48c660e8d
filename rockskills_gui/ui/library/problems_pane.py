"""Problems dock: files the core could not load, left untouched (path, kind, message), and the
skills with problems: what the Library's Flags ▸ Has problems filter finds (a see-also naming no
skill or the skill itself, a problem file claiming the name).

Double-click (or Enter) shows a file as it is on disk, read-only; nothing here is ever written.
On a skill, it opens the skill.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.tree import Facts, problems_by_name
from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.models import ProblemsModel
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.library.tree_dialogs import RawFileDialog


def skill_problems(library: Library | None) -> list[tuple[str, str]]:
    """``(name, reasons)`` of every skill the tree's "Has problems" filter lists (same facts)."""
    if library is None:
        return []
    skills = library.skills()
    known = {fold(skill.name) for skill in skills}
    facts = Facts(now=library.clock(), file_problems=problems_by_name(library.problems),
                  exists=lambda name: fold(name) in known)
    found = []
    for skill in skills:
        reasons = facts.problems(skill)
        if reasons:
            found.append((skill.name, "; ".join(reasons)))
    return sorted(found, key=lambda row: fold(row[0]))


class ProblemsPane(QWidget):
    """A table of ``ctx.library.problems``, the skills with problems, or a short empty state.

    Signals:
        openSkillRequested(str): a skill row was activated (it is already the current skill).
    """

    openSkillRequested = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("problemsPane")
        self.ctx = ctx
        self.model = ProblemsModel(self)
        self.view = QTreeView(self)
        self.view.setObjectName("problemsView")
        self.view.setModel(self.model)
        self.view.setRootIsDecorated(False)
        self.view.setAlternatingRowColors(True)
        self.view.setUniformRowHeights(True)
        self.view.setWordWrap(False)
        header = self.view.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.skills_view = QTreeWidget(self)
        self.skills_view.setObjectName("skillProblemsView")
        self.skills_view.setHeaderLabels(["Skill", "Problem"])
        self.skills_view.setRootIsDecorated(False)
        self.skills_view.setAlternatingRowColors(True)
        self.skills_view.setUniformRowHeights(True)
        self.skills_view.setToolTip("Double-click a skill to open it")
        self.skills_view.itemActivated.connect(self._open_skill)
        self.empty_label = secondary(QLabel(self))
        self.empty_label.setObjectName("problemsEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        layout.addWidget(self.skills_view)
        layout.addWidget(self.empty_label, 1)
        self.view.setToolTip("Double-click a file to see it as it is on disk (read-only)")
        self.view.activated.connect(self.open_raw)
        self._skill_rows: list[tuple[str, str]] = []
        self.viewer: RawFileDialog | None = None
        ctx.libraryChanged.connect(self.refresh)
        ctx.changeApplied.connect(lambda _change: self.refresh(ctx.library))
        self.refresh(ctx.library)

    def refresh(self, library: Library | None = None) -> None:
        self.model.set_problems(library.problems if library is not None else [])
        self.view.resizeColumnToContents(0)
        self.view.resizeColumnToContents(1)
        self._skill_rows = skill_problems(library)
        self.skills_view.clear()
        for name, reasons in self._skill_rows:
            item = QTreeWidgetItem(self.skills_view, [name, reasons])
            item.setToolTip(1, reasons)
        self.skills_view.resizeColumnToContents(0)
        files, skills = self.count(), self.skill_count()
        self.view.setVisible(files > 0)
        self.skills_view.setVisible(skills > 0)
        self.empty_label.setVisible(not files and not skills)
        self.empty_label.setText(
            "No library open." if library is None else
            "No problems: every file loaded and every see-also names a skill.")

    def count(self) -> int:
        """Files that could not be loaded (or loaded with a warning)."""
        return self.model.rowCount()

    def skill_count(self) -> int:
        """Skills with problems: what the Library's Flags ▸ Has problems filter lists."""
        return len(self._skill_rows)

    def skill_rows(self) -> list[tuple[str, str]]:
        return list(self._skill_rows)

    def _open_skill(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        name = item.text(0)
        if self.ctx.select_skill(name):
            self.openSkillRequested.emit(name)

    def open_raw(self, index: QModelIndex) -> RawFileDialog | None:
        """Show the problem file of ``index``'s row read-only (a non-modal viewer)."""
        library = self.ctx.library
        problem = self.model.problem_at(index.row()) if index.isValid() else None
        if library is None or problem is None:
            return None
        reason = f"{problem.kind.value}: {problem.message}"
        viewer = RawFileDialog(library.agent_dir / problem.path, problem.path, reason, self)
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        viewer.destroyed.connect(lambda: setattr(self, "viewer", None))
        self.viewer = viewer
        viewer.show()
        return viewer
