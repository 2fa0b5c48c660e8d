"""Command palette (Ctrl+Shift+P): type a few letters of any command, press Enter to run it.

Matching is fuzzy (:mod:`rockskills_gui.core.text.fuzzy`): "nsk" finds "New Skill…", "thd" finds
"Dark Theme" through its menu ("View"). Every command of the registry that is offered in the
palette and enabled right now is listed with its shortcut and menu.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QPainter, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.text.fuzzy import fuzzy_score
from rockskills_gui.ui.common.actions import MENUS, ActionRegistry, ActionSpec
from rockskills_gui.ui.common.models import Column, RowModel

MENU_TITLES = {key: title.replace("&", "") for key, title in MENUS}
SHORTCUT_ROLE = Qt.ItemDataRole.UserRole + 1
MENU_ROLE = Qt.ItemDataRole.UserRole + 2
ID_ROLE = Qt.ItemDataRole.UserRole + 3


def plain(text: str) -> str:
    """``text`` without mnemonic ampersands or a trailing ellipsis."""
    text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return text.removesuffix("…").strip()


def plain_text(action: QAction) -> str:
    """The action's current text, plain."""
    return plain(action.text())


def shortcut_text(action: QAction) -> str:
    return action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)


@dataclass(frozen=True)
class Command:
    """One palette entry."""

    spec: ActionSpec
    action: QAction
    title: str
    menu: str

    def score(self, query: str) -> int | None:
        """How well ``query`` matches the title (preferred) or "menu title"; None: no match."""
        best: int | None = None
        for text, penalty in ((self.title, 0), (f"{self.menu} {self.title}", 200),
                              (self.spec.id.replace(".", " "), 400)):
            match = fuzzy_score(query, text)
            if match is not None and (best is None or match.score - penalty > best):
                best = match.score - penalty
        return best


def palette_commands(registry: ActionRegistry, include_disabled: bool = False) -> list[Command]:
    """The commands offered by the palette, in registry order."""
    return [Command(spec, action, plain_text(action), MENU_TITLES.get(spec.menu or "", ""))
            for spec, action in registry.palette_actions()
            if include_disabled or action.isEnabled()]


def rank(commands: list[Command], query: str) -> list[Command]:
    """``commands`` matching ``query``, best first (registry order for an empty query)."""
    if not query.strip():
        return list(commands)
    scored = [(c.score(query), i, c) for i, c in enumerate(commands)]
    return [c for s, _i, c in sorted(((s, i, c) for s, i, c in scored if s is not None),
                                     key=lambda t: (-t[0], t[1]))]


def _accessible_text(command: Command) -> str:
    shortcut = shortcut_text(command.action)
    return f"{command.title}, {command.menu} menu" + (f", {shortcut}" if shortcut else "")


class CommandModel(RowModel[Command]):
    """The matching commands: display = title; shortcut, menu and id in user roles."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__((Column("Command", lambda c: c.title),), parent, roles={
            Qt.ItemDataRole.AccessibleTextRole: _accessible_text,
            SHORTCUT_ROLE: lambda c: shortcut_text(c.action),
            MENU_ROLE: lambda c: c.menu,
            ID_ROLE: lambda c: c.spec.id,
        }, tooltip=lambda c: c.spec.tip or c.title)

    @property
    def commands(self) -> list[Command]:
        return self.rows

    def set_commands(self, commands: list[Command]) -> None:
        self.set_rows(commands)


class CommandDelegate(QStyledItemDelegate):
    """Title on the left; menu and shortcut on the right in the de-emphasised colour."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        super().paint(painter, option, index)
        hint = "    ".join(t for t in (index.data(MENU_ROLE), index.data(SHORTCUT_ROLE)) if t)
        if not hint:
            return
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette: QPalette = option.palette
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText
        painter.save()
        painter.setPen(palette.color(role))
        rect: QRect = option.rect.adjusted(0, 0, -8, 0)
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), hint)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width(), max(size.height(), 24))


class CommandPalette(QDialog):
    """A query box over the registry's enabled commands, fuzzy-matched, best first."""

    def __init__(self, registry: ActionRegistry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("commandPalette")
        self.setWindowTitle("Command Palette")
        self.commands = palette_commands(registry)
        self.actions_shown = [c.action for c in self.commands]
        self.model = CommandModel(self)
        self.query = QLineEdit(self)
        self.query.setObjectName("paletteQuery")
        self.query.setPlaceholderText("Type a command…")
        self.query.setAccessibleName("Command")
        self.query.setClearButtonEnabled(True)
        self.query.textChanged.connect(self._filter)
        self.query.installEventFilter(self)
        self.list = QListView(self)
        self.list.setObjectName("paletteResults")
        self.list.setAccessibleName("Matching commands")
        self.list.setModel(self.model)
        self.list.setItemDelegate(CommandDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.list.activated.connect(self._run)
        self.list.clicked.connect(self._run)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.list)
        self.resize(560, 380)
        self._filter("")

    @property
    def proxy(self) -> CommandModel:
        """The model of the rows shown (kept under its earlier name)."""
        return self.model

    def shown_ids(self) -> list[str]:
        """The ids of the commands listed, best match first."""
        return [c.spec.id for c in self.model.commands]

    def _filter(self, text: str) -> None:
        self.model.set_commands(rank(self.commands, text))
        self.list.setCurrentIndex(self.model.index(0, 0))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress:
            rows = self.model.rowCount()
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 8,
                    Qt.Key.Key_PageUp: -8}.get(Qt.Key(event.key()))
            if step is not None and rows:
                row = max(0, min(rows - 1, self.list.currentIndex().row() + step))
                self.list.setCurrentIndex(self.model.index(row, 0))
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._run(self.list.currentIndex())
                return True
        return super().eventFilter(watched, event)

    def _run(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        action = self.model.commands[index.row()].action
        self.accept()
        if action.isEnabled():
            action.trigger()
