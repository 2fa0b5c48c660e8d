"""Drag and drop in the library tree model: skills and folders dragged (as their paths) onto a
folder or the top level ask for a move; nothing changes until the pane applies it. A part of
``SkillTreeModel``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from PySide6.QtCore import QMimeData, QModelIndex, Qt

from rockskills_gui.core.library.tree import Node, drop_mapping, is_inside, move_mapping
from rockskills_gui.ui.library.tree_roles import MIME_TYPE, Index, TreeSource


class TreeDragDrop:
    """The MIME data, drop checks and the moves a drop asks for, of ``model``'s rows."""

    def __init__(self, model: TreeSource) -> None:
        self.model = model

    def mime_data(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The dragged rows' paths (duplicates once)."""
        paths = []
        for index in indexes:
            node = self.model.node(index)
            if node is not None and node.path not in paths:
                paths.append(node.path)
        data = QMimeData()
        data.setData(MIME_TYPE, json.dumps(paths).encode("utf-8"))
        data.setText("\n".join(paths))
        return data

    def dragged_nodes(self, data: QMimeData) -> list[Node]:
        if not data.hasFormat(MIME_TYPE):
            return []
        try:
            paths = json.loads(bytes(data.data(MIME_TYPE).data()).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return []
        nodes = [self.model.tree.find(p) for p in paths if isinstance(p, str)]
        return [n for n in nodes if n is not None and n.parent is not None]

    def drop_target(self, parent: Index) -> Node | None:
        """The folder a drop on ``parent`` goes into (the root for the empty area)."""
        if not parent.isValid():
            return self.model.tree.root
        node = self.model.node(parent)
        return node if node is not None and node.children else None

    def drop_mapping(self, data: QMimeData, parent: Index) -> dict[str, str]:
        """The renames a drop would make (empty: the drop is refused or changes nothing)."""
        target = self.drop_target(parent)
        nodes = self.dragged_nodes(data)
        if target is None or not nodes or any(is_inside(n, target) for n in nodes):
            return {}
        return drop_mapping(self.model.tree, nodes, target)

    def can_drop(self, data: QMimeData, action: Qt.DropAction, parent: Index) -> bool:
        return action == Qt.DropAction.MoveAction and bool(self.drop_mapping(data, parent))

    def move_mapping(self, node: Node, new_path: str) -> dict[str, str]:
        return move_mapping(self.model.tree, node, new_path)
