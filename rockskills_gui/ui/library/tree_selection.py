"""The Library pane's selection: which rows are selected and current, the skill they make
current in the context (and back: the tree reveals the context's current skill), a resource row
standing for its skill, and opening a row. A part of ``TreePane``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, Signal

from rockskills_gui.core.library.tree import Node
from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.library.tree_model import SkillTreeModel
from rockskills_gui.ui.library.tree_view import SkillTreeView


def _display_order(node: Node) -> list[bytes]:
    """Sort key putting nodes in the tree's display (depth-first, List) order."""
    keys = [node.sort]
    keys.extend(a.sort for a in node.ancestors())
    keys.reverse()
    return keys


class TreeSelection(QObject):
    """Follows ``view``'s current row into ``ctx`` (the current skill) and back.

    While :meth:`following` holds (the tree moving rows itself: a filter, a change), a current
    row that moves is not the user choosing a skill.

    Signals:
        openRequested(str): the user asked to open a skill (Enter, double-click).
        resourceSelected(str, str): a skill's resource row became current (skill, filename);
            ``(skill, "")`` when the skill's own row follows one of its resource rows.
        changed(): the selection changed (what the tree commands act on).
    """

    openRequested = Signal(str)
    resourceSelected = Signal(str, str)
    changed = Signal()

    def __init__(self, ctx: AppContext, model: SkillTreeModel, view: SkillTreeView,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.model = model
        self.view = view
        self._following = False
        view.selectionModel().currentChanged.connect(self._on_current_changed)
        view.selectionModel().selectionChanged.connect(lambda *_args: self.changed.emit())
        view.activated.connect(self.activate)

    @property
    def is_following(self) -> bool:
        return self._following

    @contextmanager
    def following(self) -> Iterator[None]:
        """The tree moves rows itself meanwhile (the user chooses nothing)."""
        following, self._following = self._following, True
        try:
            yield
        finally:
            self._following = following

    def selected_nodes(self) -> list[Node]:
        """Selected nodes in display order (the current one when nothing is selected)."""
        indexes = self.view.selectionModel().selectedRows() if self.view.selectionModel() else []
        nodes = [n for n in (self.model.node(i) for i in indexes) if n is not None]
        if not nodes:
            current = self.model.node(self.view.currentIndex())
            nodes = [current] if current is not None else []
        return sorted(nodes, key=_display_order)

    def current_node(self) -> Node | None:
        return self.model.node(self.view.currentIndex())

    def _on_current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        self.changed.emit()
        node = self.model.node(current)
        resource = self.model.resource_row(current)
        if resource is not None and not self._following:
            with self.following():  # the skill becomes current, its resource row stays selected
                self.ctx.select_skill(resource.skill)
            self.resourceSelected.emit(resource.skill, resource.resource.filename)
        if node is not None and node.skill is not None and not self._following:
            with self.following():
                self.ctx.select_skill(node.name)
            if self.model.resource_row(previous) is not None:
                self.resourceSelected.emit(node.name, "")  # back from a resource to the skill

    def reveal(self, name: str, select: bool = True) -> bool:
        """Select ``name`` (skill or folder), expanding its ancestors; False if it is not shown."""
        current = self.model.resource_row(self.view.currentIndex())
        if self._following and current is not None and name and fold(current.skill) == fold(name):
            return True  # a resource row of that skill was chosen: it stays current
        index = self.model.index_for(name) if name else QModelIndex()
        if not index.isValid():
            return False
        parent = index.parent()
        chain = []
        while parent.isValid():
            chain.append(parent)
            parent = parent.parent()
        for ancestor in reversed(chain):
            self.view.expand(ancestor)
        if not select:
            return True
        if index != self.view.currentIndex():
            with self.following():
                self.view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)
        return True

    def activate(self, index: QModelIndex) -> None:
        """Open the row: a skill, or a resource (its skill is opened, the resource shown)."""
        resource = self.model.resource_row(index)
        if resource is not None:
            self.resourceSelected.emit(resource.skill, resource.resource.filename)
            self.openRequested.emit(resource.skill)
            return
        node = self.model.node(index)
        if node is not None and node.skill is not None:
            self.ctx.select_skill(node.name)
            self.openRequested.emit(node.name)
