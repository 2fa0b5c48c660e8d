"""The header above the editor: name, summary with a word counter, see-also chips, dates."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QMimeData, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPalette, QResizeEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import (
    QCompleter,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QStyle,
    QToolButton,
    QWidget,
    QWidgetItem,
)

from rockskills_gui.core.library.summary_rule import ROCKBOT_SUMMARY, SummaryRule
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp
from rockskills_gui.ui.common.lazy_names import LazyNameModel
from rockskills_gui.ui.common.theme import heading, secondary


def local_time(value: Timestamp | None) -> str:
    """``2026-06-10 15:22`` in the local time zone; "never" / "unknown" when there is none."""
    if value is None:
        return "never"
    if value == MIN_VALUE:
        return "unknown"
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")


def utc_text(value: Timestamp | None) -> str:
    """The stored value as UTC text (what the file says, in UTC)."""
    if value is None:
        return "not set (null in the file)"
    return f"{value.to_utc().isoformat()} (UTC)"


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
            if item.widget() is not None and item.widget().isHidden():
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
        self.completer.popup().hide()
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


class SummaryEdit(QPlainTextEdit):
    """The summary / description field, with the part of :class:`QLineEdit`'s API the editor
    uses (``text``, ``setText``, ``textEdited``, ``cursorPosition`` ...).

    Single-line (RockBot's summary): no wrapping, one line high, like a line edit. Multi-line
    (a SKILL.md description, up to 1024 characters): wraps at the field's width and grows from one
    to :attr:`MAX_LINES` lines (then scrolls), shown from its start. In both, Enter does not insert
    a line break (a pasted one becomes a space), so what is saved is what the format's writer
    produces for one paragraph; a description that already has line breaks keeps them, and an
    unedited text is given back exactly as it was set.

    Signals:
        textEdited(str): the user changed the text (not emitted by :meth:`setText`).
        textChangedTo(str): the text changed, by the user or by :meth:`setText`.
        returnPressed(): Enter was pressed (and ignored).
    """

    MAX_LINES = 4

    textEdited = Signal(str)
    textChangedTo = Signal(str)
    returnPressed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._setting = False
        self._set_text = ""
        self._set_plain = ""
        self._multi_line = False
        self.setTabChangesFocus(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().setDocumentMargin(2)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.textChanged.connect(self._on_changed)
        self.set_multi_line(False)

    # -- QLineEdit's API

    def text(self) -> str:
        plain = self.toPlainText()
        return self._set_text if plain == self._set_plain else plain

    def setText(self, text: str) -> None:
        self._setting = True
        try:
            self.setPlainText(text)
        finally:
            self._setting = False
        self._set_text, self._set_plain = text, self.toPlainText()
        self.textChangedTo.emit(self.text())

    def cursorPosition(self) -> int:
        return self.textCursor().position()

    def setCursorPosition(self, position: int) -> None:
        cursor = self.textCursor()
        cursor.setPosition(max(0, min(position, len(self.toPlainText()))))
        self.setTextCursor(cursor)
        if position == 0:
            self.verticalScrollBar().setValue(0)
            self.horizontalScrollBar().setValue(0)

    def end(self, mark: bool) -> None:
        mode = QTextCursor.MoveMode.KeepAnchor if mark else QTextCursor.MoveMode.MoveAnchor
        self.moveCursor(QTextCursor.MoveOperation.End, mode)

    # -- one line or several

    def set_multi_line(self, multi_line: bool) -> None:
        """Wrap and grow up to :attr:`MAX_LINES` lines (True) or stay one line (False)."""
        self._multi_line = multi_line
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if multi_line
                             else QPlainTextEdit.LineWrapMode.NoWrap)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if multi_line
                                        else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._fit_height()

    @property
    def multi_line(self) -> bool:
        return self._multi_line

    def visual_lines(self) -> int:
        """How many lines the text takes at the field's width (wrapped lines counted)."""
        lines = 0
        block = self.document().begin()
        while block.isValid():
            layout = block.layout()
            lines += max(1, layout.lineCount() if layout is not None else 1)
            block = block.next()
        return max(1, lines)

    def _fit_height(self) -> None:
        lines = min(self.visual_lines(), self.MAX_LINES) if self._multi_line else 1
        margins = self.contentsMargins()
        frame = margins.top() + margins.bottom()
        doc = 2 * int(self.document().documentMargin())
        height = lines * (self.fontMetrics().lineSpacing() + 1) + frame + doc + 4
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            QTimer.singleShot(0, self, self._fit_height)  # rewrapped at the new width

    # -- editing

    def _on_changed(self) -> None:
        self._fit_height()
        if not self._setting:
            self.textEdited.emit(self.text())
        self.textChangedTo.emit(self.text())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.returnPressed.emit()
            event.ignore()  # no line break; the key goes on to the parent, as a line edit's does
            return
        super().keyPressEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:
        text = source.text() if source.hasText() else ""
        if text:
            self.insertPlainText(" ".join(text.splitlines()))


class SkillHeader(QWidget):
    """Name, badges, summary (with its word counter), see-also chips and dates of one skill.

    Signals:
        summaryEdited(str), seeAlsoEdited(tuple): the user changed a field.
        openSkill(str): a see-also chip was clicked.
    """

    summaryEdited = Signal(str)
    seeAlsoEdited = Signal(tuple)
    openSkill = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skillHeader")
        self.name = heading(QLabel(self), scale=1.45)
        self.name.setObjectName("skillName")
        self.name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.badge = QLabel(self)
        self.badge.setObjectName("skillBadge")
        self.badge.setStyleSheet("#skillBadge { border: 1px solid palette(mid); border-radius: 8px;"
                                 " padding: 0px 7px; background: palette(alternate-base); }")
        self.badge.hide()
        self.created = secondary(QLabel(self))
        self.updated = secondary(QLabel(self))
        self.last_used = secondary(QLabel(self))
        for label, name in ((self.created, "createdAt"), (self.updated, "updatedAt"),
                            (self.last_used, "lastUsedAt")):
            label.setObjectName(name)

        self.summary = SummaryEdit(self)
        self.summary.setObjectName("summaryEdit")
        self.summary.setPlaceholderText("No summary: RockBot lists this skill as "
                                        "\"(summary pending)\"")
        self.summary.textEdited.connect(self._on_summary_edited)
        self.summary.textChangedTo.connect(self._update_word_count)
        self.rule: SummaryRule = ROCKBOT_SUMMARY
        self.word_count = QLabel(self)
        self.word_count.setObjectName("summaryWordCount")
        self.word_warning = QLabel(self)
        self.word_warning.setObjectName("summaryWordWarning")
        size = self.fontMetrics().height()
        self.word_warning.setPixmap(self.style().standardIcon(
            QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size, size))
        self.word_warning.hide()
        self.see_also = SeeAlsoEditor(self)
        self.see_also.edited.connect(self.seeAlsoEdited)
        self.see_also.activated.connect(self.openSkill)

        top = QHBoxLayout()
        top.setSpacing(10)
        top.addWidget(self.name)
        top.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignVCenter)
        top.addStretch(1)
        self._dots: list[QLabel] = []
        for index, label in enumerate((self.created, self.updated, self.last_used)):
            if index:
                dot = secondary(QLabel("·", self))
                self._dots.append(dot)
                top.addWidget(dot)
            top.addWidget(label)
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)
        self.summary_label = summary_label = secondary(QLabel("Summary", self))
        see_also_label = secondary(QLabel("See also", self))
        grid.addWidget(summary_label, 0, 0, Qt.AlignmentFlag.AlignTop)
        summary_row = QHBoxLayout()
        summary_row.addWidget(self.summary, 1)
        summary_row.addWidget(self.word_warning, 0, Qt.AlignmentFlag.AlignTop)
        summary_row.addWidget(self.word_count, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(summary_row, 0, 1)
        grid.addWidget(see_also_label, 1, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.see_also, 1, 1)
        self.files_label = secondary(QLabel("Files", self))
        self.files = QLabel(self)
        self.files.setObjectName("skillFiles")
        self.files.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.files.setWordWrap(True)
        grid.addWidget(self.files_label, 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.files, 2, 1)
        self.files_label.hide()
        self.files.hide()
        grid.setColumnStretch(1, 1)
        layout = QGridLayout(self)
        layout.setContentsMargins(14, 10, 14, 8)
        layout.setVerticalSpacing(8)
        layout.addLayout(top, 0, 0)
        layout.addLayout(grid, 1, 0)

    # ---------------------------------------------------------------- showing

    def show_fields(self, name: str, summary: str, see_also: Sequence[str] | None,
                    exists: Callable[[str], bool]) -> None:
        """Show the editable fields (the summary field keeps its cursor when unchanged)."""
        self.name.setText(name)
        if self.summary.text() != summary:
            self.summary.setText(summary)
            self.summary.setCursorPosition(0)  # a long description shows from its start
        self.see_also.set_names(list(see_also or ()), exists)

    def show_dates(self, created: Timestamp, updated: Timestamp | None,
                   last_used: Timestamp | None, stored: bool = True) -> None:
        """RockBot's three dates; with ``stored=False`` (SKILL.md: no dates in the file) only the
        file's modification time, which ``created`` then carries."""
        rows = ((self.created, "created", created), (self.updated, "updated", updated),
                (self.last_used, "last used", last_used))
        if not stored:
            rows = ((self.created, "file modified", created),)
        for label, word, value in rows:
            label.setText(f"{word} {local_time(value)}")
            label.setToolTip(f"{word.capitalize()}: {local_time(value)} local time\n"
                             f"{utc_text(value)}")
        for widget in (self.updated, self.last_used, *self._dots):
            widget.setVisible(stored)

    def show_files(self, files: Sequence[str], shown: int = 8) -> None:
        """A SKILL.md skill's resource files (scripts/, references/, assets/ ...); hidden if none."""
        text = ", ".join(files[:shown])
        if len(files) > shown:
            text += f" and {len(files) - shown} more"
        self.files.setText(text)
        self.files.setToolTip("\n".join(files))
        self.files_label.setText(f"Files ({len(files)})" if files else "Files")
        for widget in (self.files, self.files_label):
            widget.setVisible(bool(files))

    def set_read_only(self, read_only: bool) -> None:
        self.summary.setReadOnly(read_only)
        self.see_also.setEnabled(not read_only)

    def show_badge(self, text: str) -> None:
        self.badge.setText(text)
        self.badge.setVisible(bool(text))

    # ---------------------------------------------------------------- summary

    def _on_summary_edited(self, text: str) -> None:
        self.summaryEdited.emit(text)

    def set_summary_rule(self, rule: SummaryRule) -> None:
        """Show the open library's own rule for the summary (RockBot: 15 words; Agent Skills: a
        description of 1024 characters; some formats: no limit)."""
        self.rule = rule
        self.summary.set_multi_line(rule.unit != "words")  # RockBot's summary stays one line
        self.summary_label.setText(rule.field.capitalize())
        self.summary.setPlaceholderText(
            "No summary: RockBot lists this skill as \"(summary pending)\"" if rule.unit == "words"
            else f"No {rule.field}")
        self._update_word_count(self.summary.text())

    def _update_word_count(self, text: str) -> None:
        rule = self.rule
        over = rule.over(text)
        self.word_count.setText(rule.counter(text))
        font = self.word_count.font()
        font.setBold(over)
        self.word_count.setFont(font)
        self.word_count.setForegroundRole(QPalette.ColorRole.WindowText if over
                                          else QPalette.ColorRole.PlaceholderText)
        self.word_warning.setVisible(over)
        tip = rule.hint(text)
        self.word_count.setToolTip(tip)
        self.word_warning.setToolTip(tip)

    @property
    def word_limit_exceeded(self) -> bool:
        return not self.word_warning.isHidden()

