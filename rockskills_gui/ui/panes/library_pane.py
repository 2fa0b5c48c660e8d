"""Library dock: the skills of the open library (plug point for the prefix tree).

For now a flat, filterable list in RockBot's List order; the skill-tree issue replaces the list
with the '/'-prefix tree (badges, drag to move) behind the same context signals.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QListView, QVBoxLayout, QWidget

from rockskills_gui.core.changes import ChangeSet
from rockskills_gui.core.library import Library
from rockskills_gui.ui.context import AppContext
from rockskills_gui.ui.models import NAME_ROLE, SkillListModel
from rockskills_gui.ui.theme import secondary


class LibraryPane(QWidget):
    """Filter box, skill list and a count; selecting a skill makes it the current skill."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("libraryPane")
        self.ctx = ctx
        self.model = SkillListModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

        self.filter = QLineEdit(self)
        self.filter.setObjectName("libraryFilter")
        self.filter.setPlaceholderText("Filter skills…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)

        self.view = QListView(self)
        self.view.setObjectName("libraryList")
        self.view.setModel(self.proxy)
        self.view.setUniformItemSizes(True)
        self.view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)

        self.count = secondary(QLabel(self))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.count)

        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.currentSkillChanged.connect(self._show_current)
        self._on_library_changed(ctx.library)

    def _on_library_changed(self, library: Library | None) -> None:
        self.model.set_skills(library.listed() if library is not None else [])
        self._update_count()

    def _on_change_applied(self, change: ChangeSet) -> None:
        # The placeholder reloads the whole list; the real tree refreshes only change.touched_names().
        del change
        self._on_library_changed(self.ctx.library)
        self._show_current(self.ctx.current_skill)

    def _update_count(self) -> None:
        total = self.model.rowCount()
        self.count.setText("No library open" if self.ctx.library is None
                           else f"{total} skill{'' if total == 1 else 's'} in List order")

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.ctx.select_skill(current.data(NAME_ROLE))

    def _show_current(self, name: str) -> None:
        row = self.model.row_of(name) if name else -1
        if row < 0:
            self.view.clearSelection()
            return
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid() and index != self.view.currentIndex():
            self.view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.view.scrollTo(index)
