"""Resource rows of the library tree model: a RockBot (current) skill's ``{name}.resources/``
files listed after its child rows, computed when the view first asks about the skill and
following changes that touch them. A mixin of ``SkillTreeModel``."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractItemModel, QModelIndex

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import Node, SkillTree
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.library.tree_roles import Index, ResourceRow

if TYPE_CHECKING:  # the model is a QAbstractItemModel; at run time this is a plain mixin
    _ModelBase = QAbstractItemModel
else:
    _ModelBase = object


class TreeResourceRows(_ModelBase):
    """The resource rows of ``SkillTreeModel`` (read-only: no rename, drag or drop)."""

    library: Library | None
    tree: SkillTree
    _resource_rows: dict[int, list[ResourceRow]]
    _resource_by_id: dict[int, ResourceRow]
    _resource_ids: itertools.count[int]

    if TYPE_CHECKING:
        def _children(self, node: Node) -> list[Node]: ...
        def index_of(self, node: Node | None) -> QModelIndex: ...
        def index_for(self, name: str) -> QModelIndex: ...
        def _guarded(self, end: Callable[[], None]) -> None: ...

    # ---------------------------------------------------------------- resource rows

    def _clear_resources(self) -> None:
        self._resource_rows = {}
        self._resource_by_id = {}

    def _resources(self, node: Node) -> list[ResourceRow]:
        """The resource rows under ``node`` (computed and kept on first use)."""
        rows = self._resource_rows.get(node.uid)
        if rows is not None:
            return rows
        skill = node.skill
        found = self.library.resources(skill.name) if skill is not None and self.library is not None else []
        rows = [ResourceRow(next(self._resource_ids), node.uid, skill.name, r)
                for r in found if skill is not None]
        self._resource_rows[node.uid] = rows
        for row in rows:
            self._resource_by_id[row.id] = row
        return rows

    def resource_row(self, index: Index) -> ResourceRow | None:
        """The resource behind an index (None for skill/folder rows, stale or foreign indexes)."""
        if not index.isValid() or index.model() is not self:
            return None
        return self._resource_by_id.get(index.internalId())

    def index_for_resource(self, name: str, filename: str) -> QModelIndex:
        """The index of skill ``name``'s resource ``filename`` (invalid when not shown)."""
        node = self.tree.skill_node(name) if name else None
        parent = self.index_for(name) if node is not None else QModelIndex()
        if node is None or not parent.isValid():
            return QModelIndex()
        kids = len(self._children(node))
        for offset, row in enumerate(self._resources(node)):
            if row.resource.filename == filename:
                return self.createIndex(kids + offset, 0, row.id)
        return QModelIndex()

    def _resource_owners(self, change: ChangeSet) -> set[str]:
        """Folded names of the skills whose resources ``change`` may alter."""
        library = self.library
        if library is None or not self._resource_rows:
            return set()
        names = {*change.created, *change.updated, *change.deleted,
                 *(n for pair in change.renamed for n in pair)}
        for fc in change.files:
            owner = library.resource_owner(fc.path)
            if owner is not None:
                names.add(owner)
        return {fold(n) for n in names}

    def _drop_resource_rows(self, keys: set[str]) -> None:
        """Remove the reported resource rows of these skills (signalled where shown)."""
        for key in keys:
            node = self.tree.by_key.get(key)
            rows = self._resource_rows.get(node.uid) if node is not None else None
            if node is None or rows is None:
                continue
            parent = self.index_of(node) if rows else QModelIndex()
            if parent.isValid():
                kids = len(self._children(node))
                self.beginRemoveRows(parent, kids, kids + len(rows) - 1)
            del self._resource_rows[node.uid]
            for row in rows:
                self._resource_by_id.pop(row.id, None)
            if parent.isValid():
                self._guarded(self.endRemoveRows)

    def _add_resource_rows(self, keys: set[str]) -> None:
        """Report the resource rows of these skills again, where the view is shown them."""
        for key in keys:
            node = self.tree.by_key.get(key)
            if node is None or node.skill is None or node.uid in self._resource_rows:
                continue
            parent = self.index_of(node)
            if not parent.isValid():
                continue  # asked for afresh when shown
            found = self.library.resources(node.skill.name) if self.library is not None else []
            if not found:
                self._resource_rows[node.uid] = []
                continue
            kids = len(self._children(node))
            self._resource_rows[node.uid] = []  # what the view knows until the rows are in
            self.beginInsertRows(parent, kids, kids + len(found) - 1)
            rows = [ResourceRow(next(self._resource_ids), node.uid, node.skill.name, r)
                    for r in found]
            self._resource_rows[node.uid] = rows
            for row in rows:
                self._resource_by_id[row.id] = row
            self._guarded(self.endInsertRows)
