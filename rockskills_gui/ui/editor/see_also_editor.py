"""The header's see-also field: one chip per name (click opens it, ✕ removes it, a dangling
name marked) in a wrapping flow layout, and an input that completes skill names."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QCompleter,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QSizePolicy,
    QStyle,
    QToolButton,
    QWidget,
    QWidgetItem,
)

from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.lazy_names import LazyNameModel


class FlowLayout(QLayout):
    """Lays widgets out left to right, wrapping to new lines (for chips)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def insert_widget(self, index: int, widget: QWidget) -> None:
        self.addChildWidget(widget)
        self._items.insert(index, QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _arrange(self, rect: QRect, apply: bool) -> int:
        x, y, line_height = rect.x(), rect.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            if x + hint.width() > rect.right() + 1 and line_height > 0:
                x = rect.x()
                y += line_height + self._spacing
                line_height = 0
            if apply:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y()


class Chip(QFrame):
    """One see-also name: click to open it, ✕ to remove it. A dangling name is marked.

    Signals:
        activated(str): the name was clicked.
        removed(str): the ✕ was clicked.
    """

    activated = Signal(str)
    removed = Signal(str)

    def __init__(self, name: str, dangling: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.dangling = dangling
        self.setObjectName("seeAlsoChip")
        self.setProperty("dangling", dangling)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.label = QLabel(name, self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(9, 1, 3, 1)
        layout.setSpacing(2)
        if dangling:
            icon = QLabel(self)
            size = self.fontMetrics().height() - 2
            icon.setPixmap(self.style().standardIcon(
                QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size, size))
            layout.addWidget(icon)
            font = self.label.font()
            font.setItalic(True)
            self.label.setFont(font)
            self.setToolTip(f"Dangling: no skill named '{name}' in this library. RockBot "
                            "would name it in its see-also hint anyway.")
        else:
            self.setToolTip(f"Open '{name}'")
        layout.addWidget(self.label)
        self.remove_button = QToolButton(self)
        self.remove_button.setObjectName("chipRemove")
        self.remove_button.setText("✕")
        self.remove_button.setAutoRaise(True)
        self.remove_button.setToolTip(f"Remove '{name}' from see also")
        self.remove_button.setCursor(Qt.CursorShape.ArrowCursor)
        self.remove_button.clicked.connect(lambda: self.removed.emit(self.name))
        layout.addWidget(self.remove_button)
        self.setStyleSheet(
            "#seeAlsoChip { background: palette(alternate-base); border: 1px solid palette(mid);"
            " border-radius: 11px; }"
            "#seeAlsoChip[dangling=\"true\"] { border-style: dashed; background: palette(base); }"
            "#chipRemove { border: none; padding: 0px 2px; }")

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.activated.emit(self.name)


class SeeAlsoEditor(QWidget):
    """Chips for the see-also names plus a field (with autocomplete) to add one.

    Signals:
        edited(tuple): the list of names changed.
        activated(str): a chip was clicked.
    """

    edited = Signal(tuple)
    activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("seeAlsoEditor")
        self.names: list[str] = []
        self.chips: list[Chip] = []
        self._exists: Callable[[str], bool] = lambda _name: True
        self.flow = FlowLayout(self)
        self.input = QLineEdit(self)
        self.input.setObjectName("seeAlsoInput")
        self.input.setPlaceholderText("add a skill…")
        self.input.setFrame(False)
        self.input.setMinimumWidth(140)
        self.input.setMaximumWidth(220)
        self.input.setToolTip("Type a skill name and press Enter (or type a comma); Backspace "
                              "in the empty field removes the last name")
        self.input.installEventFilter(self)
        self.completion_model = LazyNameModel(self)
        self.completer = QCompleter(self.completion_model, self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setMaxVisibleItems(12)
        self.input.setCompleter(self.completer)
        self.completer.activated.connect(self._add_from_completer)
        self.input.returnPressed.connect(self._add_from_input)
        self.input.textEdited.connect(self._on_text_edited)
        self.flow.addWidget(self.input)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def set_candidates(self, names: Sequence[str]) -> None:
        """The names the field completes; a long list is handed to the completer only when the
        field is focused (see :class:`LazyNameModel`)."""
        self.completion_model.set_names(names, now=self.input.hasFocus())

    def set_names(self, names: Sequence[str], exists: Callable[[str], bool]) -> None:
        """Show ``names`` as chips; ``exists`` tells which are dangling."""
        self._exists = exists
        if list(names) == self.names and all(c.dangling == (not exists(c.name)) for c in self.chips):
            return
        self.names = list(names)
        for chip in self.chips:
            self.flow.removeWidget(chip)
            chip.deleteLater()
        self.chips = []
        for index, name in enumerate(self.names):
            chip = Chip(name, not exists(name), self)
            chip.activated.connect(self.activated)
            chip.removed.connect(self.remove)
            self.flow.insert_widget(index, chip)
            self.chips.append(chip)
        self.updateGeometry()

    def add(self, name: str) -> None:
        name = name.strip()
        if not name or fold(name) in {fold(n) for n in self.names}:
            self.input.clear()
            return
        self.input.clear()
        self.set_names([*self.names, name], self._exists)
        self.edited.emit(tuple(self.names))

    def remove(self, name: str) -> None:
        if name in self.names:
            self.set_names([n for n in self.names if n != name], self._exists)
            self.edited.emit(tuple(self.names))
            self.input.setFocus()

    def _add_from_completer(self, text: str) -> None:
        self.add(text)
        # QLineEdit connects the completer's activated() to its own setText() on focus-in, so
        # after this slot: the chosen text is written back into the field once this signal is
        # done (and a Return key reaches returnPressed first). Clear what it wrote, after it.
        QTimer.singleShot(0, self.input, lambda: self._clear_if(text))

    def _clear_if(self, text: str) -> None:
        if fold(self.input.text().strip()) == fold(text.strip()):
            self.input.clear()

    def _add_from_input(self) -> None:
        popup = self.completer.popup()
        if popup is not None:
            popup.hide()
        for part in self.input.text().split(","):
            self.add(part)

    def _on_text_edited(self, text: str) -> None:
        """A comma (typed, even while the completion popup has the keyboard, or pasted) ends
        a name, as Enter does; what follows the last comma stays in the field."""
        if "," not in text:
            return
        *done, rest = text.split(",")
        popup = self.completer.popup()
        if popup is not None:
            popup.hide()
        for part in done:
            self.add(part)
        self.input.setText(rest.lstrip())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() == QEvent.Type.FocusIn:
            self.completion_model.ensure()
        if watched is self.input and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress \
                and event.key() == Qt.Key.Key_Backspace and not self.input.text() and self.names:
            self.remove(self.names[-1])
            return True
        return super().eventFilter(watched, event)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.flow.heightForWidth(width)

    def sizeHint(self) -> QSize:
        width = max(self.width(), 300)
        return QSize(width, self.flow.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(160, self.input.sizeHint().height())
