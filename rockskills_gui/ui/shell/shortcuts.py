"""Help > Keyboard Shortcuts: every command of the registry with its shortcut, by menu."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.ui.common.actions import MENUS, ActionRegistry
from rockskills_gui.ui.common.tree_items import child_items, top_level_items
from rockskills_gui.ui.shell.palette import plain, shortcut_text

OTHER = "Elsewhere"


def shortcut_rows(registry: ActionRegistry) -> list[tuple[str, str, str, str]]:
    """(menu, command, shortcut, description) for every command, in menu order."""
    titles = {key: title.replace("&", "") for key, title in MENUS}
    rows = [(titles.get(spec.menu or "", OTHER), plain(spec.title), shortcut_text(action),
             spec.tip) for spec, action in registry]
    order = [*titles.values(), OTHER]
    return sorted(rows, key=lambda r: order.index(r[0]))


class ShortcutsDialog(QDialog):
    """A searchable, read-only table of commands and shortcuts."""

    def __init__(self, registry: ActionRegistry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard Shortcuts")
        self.filter = QLineEdit(self)
        self.filter.setObjectName("shortcutsFilter")
        self.filter.setPlaceholderText("Filter commands…")
        self.filter.setAccessibleName("Filter commands")
        self.filter.setClearButtonEnabled(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("shortcutsTable")
        self.tree.setAccessibleName("Commands and their shortcuts")
        self.tree.setHeaderLabels(["Command", "Shortcut"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(False)
        groups: dict[str, QTreeWidgetItem] = {}
        for menu, command, shortcut, tip in shortcut_rows(registry):
            group = groups.get(menu)
            if group is None:
                group = groups[menu] = QTreeWidgetItem(self.tree, [menu, ""])
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setFirstColumnSpanned(True)
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item = QTreeWidgetItem(group, [command, shortcut])
            item.setToolTip(0, tip or command)
        self.tree.setRootIsDecorated(False)
        self.tree.expandAll()
        self.tree.setItemsExpandable(False)
        self.filter.textChanged.connect(self._filter)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(520, 560)

    def visible_commands(self) -> list[tuple[str, str]]:
        """(command, shortcut) of the rows not filtered out."""
        found: list[tuple[str, str]] = []
        for group in top_level_items(self.tree):
            for item in child_items(group):
                if not item.isHidden():
                    found.append((item.text(0), item.text(1)))
        return found

    def _filter(self, text: str) -> None:
        needle = text.strip().casefold()
        for group in top_level_items(self.tree):
            shown = 0
            for item in child_items(group):
                hit = not needle or needle in item.text(0).casefold() \
                    or needle in item.text(1).casefold()
                item.setHidden(not hit)
                shown += hit
            group.setHidden(shown == 0)
