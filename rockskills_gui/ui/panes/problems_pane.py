"""Problems dock: files the core could not load, left untouched (path, kind, message)."""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTreeView, QVBoxLayout, QWidget

from rockskills_gui.core.library import Library
from rockskills_gui.ui.context import AppContext
from rockskills_gui.ui.models import ProblemsModel


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
        ctx.libraryChanged.connect(self.refresh)
        self.refresh(ctx.library)

    def refresh(self, library: Library | None = None) -> None:
        self.model.set_problems(library.problems if library is not None else [])
        self.view.resizeColumnToContents(0)
        self.view.resizeColumnToContents(1)

    def count(self) -> int:
        return self.model.rowCount()
