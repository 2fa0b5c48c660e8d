"""Command palette: type part of a command's name, press Enter to run it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QSortFilterProxyModel, QStringListModel, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QDialog, QLineEdit, QListView, QVBoxLayout, QWidget

from rockskills_gui.ui.actions import ActionRegistry


def _label(action: QAction) -> str:
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return f"{text}    {shortcut}" if shortcut else text


class CommandPalette(QDialog):
    """A filter box over the registry's enabled commands."""

    def __init__(self, registry: ActionRegistry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("commandPalette")
        self.setWindowTitle("Command Palette")
        self.actions_shown = [action for spec, action in registry.palette_actions()
                              if action.isEnabled()]
        self.model = QStringListModel([_label(a) for a in self.actions_shown], self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.query = QLineEdit(self)
        self.query.setPlaceholderText("Type a command…")
        self.query.textChanged.connect(self._filter)
        self.query.installEventFilter(self)
        self.list = QListView(self)
        self.list.setModel(self.proxy)
        self.list.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.list.activated.connect(self._run)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.list)
        self.resize(480, 320)
        self._filter("")

    def _filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self.list.setCurrentIndex(self.proxy.index(0, 0))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if event.key() == Qt.Key.Key_Down else -1
                row = max(0, min(self.proxy.rowCount() - 1, self.list.currentIndex().row() + step))
                self.list.setCurrentIndex(self.proxy.index(row, 0))
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._run(self.list.currentIndex())
                return True
        return super().eventFilter(watched, event)

    def _run(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        action = self.actions_shown[self.proxy.mapToSource(index).row()]
        self.accept()
        action.trigger()
