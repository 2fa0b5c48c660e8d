"""Drag and drop in the library tree model: skills and folders dragged (as their paths) onto a
folder or the top level ask for a move; nothing changes until the pane applies it. A mixin of
``SkillTreeModel``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, Qt, SignalInstance

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import Node, SkillTree, drop_mapping, is_inside, move_mapping
from rockskills_gui.ui.library.tree_roles import MIME_TYPE, Index

if TYPE_CHECKING:  # the model is a QAbstractItemModel; at run time this is a plain mixin
    _ModelBase = QAbstractItemModel
else:
    _ModelBase = object


class TreeDragDrop(_ModelBase):
    """The MIME data, drop checks and move requests of ``SkillTreeModel``."""

    library: Library | None
    tree: SkillTree
    moveRequested: SignalInstance

    if TYPE_CHECKING:
        def node(self, index: Index) -> Node | None: ...

    # ---------------------------------------------------------------- drag and drop

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        paths = []
        for index in indexes:
            node = self.node(index)
            if node is not None and node.path not in paths:
                paths.append(node.path)
        data = QMimeData()
        data.setData(MIME_TYPE, json.dumps(paths).encode("utf-8"))
        data.setText("\n".join(paths))
        return data

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def dragged_nodes(self, data: QMimeData) -> list[Node]:
        if not data.hasFormat(MIME_TYPE):
            return []
        try:
            paths = json.loads(bytes(data.data(MIME_TYPE).data()).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return []
        nodes = [self.tree.find(p) for p in paths if isinstance(p, str)]
        return [n for n in nodes if n is not None and n.parent is not None]

    def drop_target(self, parent: Index) -> Node | None:
        """The folder a drop on ``parent`` goes into (the root for the empty area)."""
        if not parent.isValid():
            return self.tree.root
        node = self.node(parent)
        return node if node is not None and node.children else None

    def drop_mapping(self, data: QMimeData, parent: Index) -> dict[str, str]:
        """The renames a drop would make (empty: the drop is refused or changes nothing)."""
        target = self.drop_target(parent)
        nodes = self.dragged_nodes(data)
        if target is None or not nodes or any(is_inside(n, target) for n in nodes):
            return {}
        return drop_mapping(self.tree, nodes, target)

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: Index) -> bool:
        del row, column
        return action == Qt.DropAction.MoveAction and bool(self.drop_mapping(data, parent))

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: Index) -> bool:
        """Dropping skills or folders on a folder asks for a move (see ``moveRequested``)."""
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        self.moveRequested.emit(self.drop_mapping(data, parent))
        return True

    def move_mapping(self, node: Node, new_path: str) -> dict[str, str]:
        return move_mapping(self.tree, node, new_path)
