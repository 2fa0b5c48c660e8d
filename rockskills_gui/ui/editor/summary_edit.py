"""The header's summary / description field: a plain-text edit that behaves like a line edit
where the editor needs it, and grows to its content when the text wraps."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy, QWidget


class SummaryEdit(QPlainTextEdit):
    """The summary / description field, with the part of :class:`QLineEdit`'s API the editor
    uses (``text``, ``setText``, ``textEdited``, ``cursorPosition`` ...).

    Single-line (RockBot's summary): no wrapping, one line high, like a line edit. Multi-line
    (a SKILL.md description, up to 1024 characters): wraps at the field's width and grows from one
    to :attr:`MAX_LINES` lines (then scrolls), shown from its start. In both, Enter does not insert
    a line break (a pasted one becomes a space), so what is saved is what the format's writer
    produces for one paragraph; a description that already has line breaks keeps them, and an
    unedited text is given back exactly as it was set. Line breaks that end the value (a YAML
    ``>`` or ``|`` block's) are not shown, and an edited text keeps them (they are the block's,
    not the user's: typing at the end never lands after them).

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
        self._tail = ""  # the line breaks ending the text set, not shown
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
        if plain == self._set_plain:
            return self._set_text
        return plain + self._tail if plain.strip() else plain

    def setText(self, text: str) -> None:
        shown = text.rstrip("\r\n")
        self._tail = text[len(shown):]
        self._setting = True
        try:
            self.setPlainText(shown)
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
