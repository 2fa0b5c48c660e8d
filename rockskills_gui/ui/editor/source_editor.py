"""The Markdown source editor and the find bar shared by the editor and the preview."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QFontDatabase,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextBrowser,
    QTextEdit,
    QToolButton,
    QWidget,
)

from rockskills_gui.ui.common.markdown_highlighter import blend
from rockskills_gui.ui.common.theme import secondary

_LIST_ITEM = re.compile(r"^(\s*)(?:([-+*])|(\d{1,9})([.)]))(\s+)(\[[ xX]\]\s+)?")
_QUOTE_PREFIX = re.compile(r"^(\s*>+\s?)")
FIND_LIMIT = 9999


class SourceEditor(QPlainTextEdit):
    """Plain-text Markdown editing with a current-line band, find highlights and list continuation.

    Enter in a list item starts the next item (numbers count up, task boxes start empty);
    Enter on an empty item ends the list.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownSource")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 1.05)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.document().setDocumentMargin(12)
        self.find_matches: list[QTextCursor] = []
        self.cursorPositionChanged.connect(self._update_extra_selections)

    def setDocument(self, document: QTextDocument) -> None:
        super().setDocument(document)
        document.setDefaultFont(self.font())  # a buffer's document starts in the app's font
        document.setDocumentMargin(12)
        self.find_matches = []
        self._update_extra_selections()

    # ---------------------------------------------------------------- decorations

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the current-line band follows the theme
            self._update_extra_selections()

    def _update_extra_selections(self) -> None:
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        selections = []
        band = QTextEdit.ExtraSelection()
        band.format.setBackground(blend(base, text, 0.045))
        band.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        band.cursor = self.textCursor()
        band.cursor.clearSelection()
        if not self.document().isEmpty():  # the band would hide the placeholder's first line
            selections.append(band)
        found = QTextCharFormat()
        found.setBackground(blend(base, palette.color(QPalette.ColorRole.Highlight), 0.35))
        for cursor in self.find_matches:
            match = QTextEdit.ExtraSelection()
            match.format = found
            match.cursor = cursor
            selections.append(match)
        self.setExtraSelections(selections)

    def set_find_matches(self, matches: list[QTextCursor]) -> None:
        self.find_matches = matches
        self._update_extra_selections()

    # ---------------------------------------------------------------- lines

    def top_line(self) -> float:
        """The (fractional) source line at the top of the view."""
        block = self.firstVisibleBlock()
        if not block.isValid():
            return 0.0
        value = self.verticalScrollBar().value()
        within = max(0, value - block.firstLineNumber())
        return block.blockNumber() + within / max(1, block.lineCount())

    def scroll_to_line(self, line: float) -> None:
        """Scroll so that source ``line`` (fractional) is at the top."""
        block = self.document().findBlockByNumber(max(0, int(line)))
        if not block.isValid():
            block = self.document().lastBlock()
        within = int((line - int(line)) * block.lineCount())
        self.verticalScrollBar().setValue(block.firstLineNumber() + within)

    def go_to_line(self, line: int) -> None:
        """Put the cursor at the start of source ``line`` and show it."""
        block = self.document().findBlockByNumber(max(0, line))
        if block.isValid():
            cursor = QTextCursor(block)
            self.setTextCursor(cursor)
            self.centerCursor()

    # ---------------------------------------------------------------- typing

    def keyPressEvent(self, event: QKeyEvent) -> None:
        plain = event.modifiers() in (Qt.KeyboardModifier.NoModifier,
                                      Qt.KeyboardModifier.KeypadModifier)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and plain \
                and not self.textCursor().hasSelection() and self._continue_list():
            return
        super().keyPressEvent(event)

    def _continue_list(self) -> bool:
        cursor = self.textCursor()
        line = cursor.block().text()
        column = cursor.positionInBlock()
        if column < len(line.rstrip()):
            return False  # in the middle of the text: a plain line break
        item = _LIST_ITEM.match(line)
        found = item or _QUOTE_PREFIX.match(line)  # a list item, else a quote
        if found is None:
            return False
        prefix_end = found.end()
        if not line[prefix_end:].strip():
            # an empty item or quote line ends the list: remove the marker
            cursor.beginEditBlock()
            cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            cursor.endEditBlock()
            self.setTextCursor(cursor)
            return True
        if item is not None:
            indent, bullet, number, delimiter, space, task = item.groups()
            marker = bullet if bullet else f"{int(number) + 1}{delimiter}"
            prefix = f"{indent}{marker}{space}{'[ ] ' if task else ''}"
        else:
            prefix = found[1]
        cursor.insertText("\n" + prefix)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        return True


class FindBar(QWidget):
    """Find text in the editor or the preview (whichever is given as target).

    Enter / F3 finds the next match, Shift+Enter / Shift+F3 the previous one, Escape closes.
    Every match in the source editor is also highlighted.

    Signals:
        closed(): the bar was closed (focus should return to the target).
    """

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.target: QPlainTextEdit | QTextBrowser | None = None
        self.query = QLineEdit(self)
        self.query.setObjectName("findQuery")
        self.query.setPlaceholderText("Find in skill…")
        self.query.setClearButtonEnabled(True)
        self.query.installEventFilter(self)
        self.case = QToolButton(self)
        self.case.setText("Aa")
        self.case.setCheckable(True)
        self.case.setToolTip("Match case")
        self.previous_button = QToolButton(self)
        self.previous_button.setArrowType(Qt.ArrowType.UpArrow)
        self.previous_button.setToolTip("Previous match (Shift+F3)")
        self.next_button = QToolButton(self)
        self.next_button.setArrowType(Qt.ArrowType.DownArrow)
        self.next_button.setToolTip("Next match (F3)")
        self.count = secondary(QLabel(self))
        self.count.setObjectName("findCount")
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Close (Escape)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.query, 1)
        layout.addWidget(self.case)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.count)
        layout.addWidget(self.close_button)
        self.query.textChanged.connect(lambda _text: self._search(from_start=True))
        self.case.toggled.connect(lambda _on: self._search(from_start=True))
        self.next_button.clicked.connect(self.find_next)
        self.previous_button.clicked.connect(self.find_previous)
        self.close_button.clicked.connect(self.close_bar)

    def open_on(self, target: QPlainTextEdit | QTextBrowser) -> None:
        """Show the bar searching ``target``; a selection in it becomes the query."""
        self._clear_marks()
        self.target = target
        selected = target.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.query.setText(selected)
        self.show()
        self.query.setFocus()
        self.query.selectAll()
        self._search(from_start=False)

    def close_bar(self) -> None:
        self._clear_marks()
        self.hide()
        self.closed.emit()

    def _clear_marks(self) -> None:
        if isinstance(self.target, SourceEditor):
            self.target.set_find_matches([])

    def _flags(self, backward: bool = False) -> QTextDocument.FindFlag:
        flags = QTextDocument.FindFlag(0)
        if self.case.isChecked():
            flags |= QTextDocument.FindFlag.FindCaseSensitively
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        return flags

    def _all_matches(self) -> list[QTextCursor]:
        if self.target is None or not self.query.text():
            return []
        doc = self.target.document()
        found: list[QTextCursor] = []
        cursor = QTextCursor(doc)
        while len(found) < FIND_LIMIT:
            cursor = doc.find(self.query.text(), cursor, self._flags())
            if cursor.isNull():
                break
            found.append(QTextCursor(cursor))
        return found

    def _search(self, from_start: bool) -> None:
        if self.target is None:
            return
        if from_start:
            cursor = self.target.textCursor()
            cursor.setPosition(cursor.selectionStart())
            self.target.setTextCursor(cursor)
        self._step(backward=False)

    def find_next(self) -> None:
        self._step(backward=False)

    def find_previous(self) -> None:
        self._step(backward=True)

    def _step(self, backward: bool) -> None:
        target = self.target
        if target is None:
            return
        matches = self._all_matches()
        if isinstance(target, SourceEditor):
            target.set_find_matches(matches)
        if not matches:
            self.count.setText("No matches" if self.query.text() else "")
            return
        if not target.find(self.query.text(), self._flags(backward)):
            cursor = target.textCursor()  # wrap around
            cursor.movePosition(QTextCursor.MoveOperation.End if backward
                                else QTextCursor.MoveOperation.Start)
            target.setTextCursor(cursor)
            target.find(self.query.text(), self._flags(backward))
        current = target.textCursor().selectionStart()
        index = next((i for i, m in enumerate(matches) if m.selectionStart() == current), 0)
        more = "+" if len(matches) >= FIND_LIMIT else ""
        self.count.setText(f"{index + 1} of {len(matches)}{more}")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    self.find_previous()
                else:
                    self.find_next()
                return True
            if event.matches(QKeySequence.StandardKey.FindNext):
                self.find_next()
                return True
            if event.matches(QKeySequence.StandardKey.FindPrevious):
                self.find_previous()
                return True
        return super().eventFilter(watched, event)
