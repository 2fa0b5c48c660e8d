"""The items of a ``QTreeWidget`` as lists (Qt's stubs type each ``topLevelItem(i)`` and
``child(i)`` as optional; below the count there is always one)."""

from __future__ import annotations

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem


def top_level_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    """``tree``'s top-level items, in order."""
    return [item for i in range(tree.topLevelItemCount()) if (item := tree.topLevelItem(i)) is not None]


def child_items(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    """``item``'s children, in order."""
    return [child for i in range(item.childCount()) if (child := item.child(i)) is not None]
