"""Problems dock: files the core could not load, left untouched (path, kind, message).

Double-click (or Enter) shows a file as it is on disk, read-only; nothing here is ever written.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QHeaderView, QTreeView, QVBoxLayout, QWidget

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.models import ProblemsModel
from rockskills_gui.ui.library.tree_dialogs import RawFileDialog


class ProblemsPane(QWidget):
    """A table of ``ctx.library.problems``."""

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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.view.setToolTip("Double-click a file to see it as it is on disk (read-only)")
        self.view.activated.connect(self.open_raw)
        self.viewer: RawFileDialog | None = None
        ctx.libraryChanged.connect(self.refresh)
        ctx.changeApplied.connect(lambda _change: self.refresh(ctx.library))
        self.refresh(ctx.library)

    def refresh(self, library: Library | None = None) -> None:
        self.model.set_problems(library.problems if library is not None else [])
        self.view.resizeColumnToContents(0)
        self.view.resizeColumnToContents(1)

    def count(self) -> int:
        return self.model.rowCount()

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
