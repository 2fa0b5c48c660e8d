"""Read-only text views that paint :mod:`dream_textdiff` lines with palette-derived colours.

Additions are tinted towards the palette's Highlight colour, removed lines towards its Mid
colour, so the marks follow a light or dark theme; removed words are struck through in the
theme's struck colours (readable in both), so they stay readable without colour too.
A changed line gets a light tint; the words that changed inside it a stronger one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from rockskills_gui.core.dream.plan import SkillRecord
from rockskills_gui.ui.common.markdown_highlighter import blend
from rockskills_gui.ui.common.theme import monospace, secondary, struck_colours
from rockskills_gui.ui.dream.common import SHOWN_LINE, viewable
from rockskills_gui.ui.dream.textdiff import DiffLine

GUTTER = {"equal": "  ", "added": "+ ", "removed": "− ", "filler": "  "}


@dataclass(frozen=True)
class DiffColours:
    added_line: QColor
    added_word: QColor
    removed_line: QColor
    removed_word: QColor
    removed_text: QColor
    gutter: QColor
    struck_text: QColor  # removed words (struck through) on ``removed_word``

    @classmethod
    def of(cls, palette: QPalette) -> DiffColours:
        base = palette.color(QPalette.ColorRole.Base)
        highlight = palette.color(QPalette.ColorRole.Highlight)
        mid = palette.color(QPalette.ColorRole.Mid)
        text = palette.color(QPalette.ColorRole.Text)
        struck_background, struck_text = struck_colours(palette)
        return cls(added_line=blend(base, highlight, 0.13), added_word=blend(base, highlight, 0.38),
                   removed_line=blend(base, mid, 0.35), removed_word=struck_background,
                   removed_text=blend(text, base, 0.25),
                   gutter=palette.color(QPalette.ColorRole.PlaceholderText),
                   struck_text=struck_text)


def skill_text(record: SkillRecord | None) -> str:
    """What a diff compares: the summary, the see-also list, a blank line, the content."""
    if record is None:
        return ""
    see_also = ", ".join(record.see_also) if record.see_also else "(none)"
    return f"summary: {record.summary or ''}\nsee also: {see_also}\n\n{record.content or ''}"


def skill_dates(record: SkillRecord) -> str:
    """``created 2026-05-06 · last used 2026-11-22`` (RockBot's text cut to the day)."""
    parts = [f"created {record.created_at[:10]}"]
    if record.updated_at:
        parts.append(f"updated {record.updated_at[:10]}")
    parts.append(f"last used {record.last_used_at[:10]}" if record.last_used_at else "never used")
    return " · ".join(parts)


class DiffView(QPlainTextEdit):
    """Diff lines (or plain text) in the fixed-pitch font; ``gutter`` prefixes ``+``/``−``."""

    def __init__(self, parent: QWidget | None = None, gutter: bool = False) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        monospace(self)
        self.gutter = gutter
        self._lines: list[DiffLine] | None = None
        self._plain = ""

    def set_lines(self, lines: Sequence[DiffLine]) -> None:
        self._lines = list(lines)
        self._render()

    def set_plain(self, text: str) -> None:
        self._lines = None
        self._plain = text
        self._render()

    def lines(self) -> list[DiffLine]:
        return list(self._lines or [])

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._render()

    def _render(self) -> None:
        self.clear()
        if self._lines is None:
            self.setPlainText(viewable(self._plain))
            return
        colours = DiffColours.of(self.palette())
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        plain = QTextCharFormat()
        gutter_format = QTextCharFormat()
        gutter_format.setForeground(colours.gutter)
        for index, line in enumerate(self._lines):
            block = QTextBlockFormat()
            if line.kind == "added":
                block.setBackground(colours.added_line)
            elif line.kind == "removed":
                block.setBackground(colours.removed_line)
            if index == 0:
                cursor.setBlockFormat(block)
            else:
                cursor.insertBlock(block, plain)
            if self.gutter:
                cursor.insertText(GUTTER[line.kind], gutter_format)
            length = 0  # of the shown line: a longer one goes on in a new block (see viewable)
            for segment in line.segments:
                fmt = QTextCharFormat()
                if segment.mark == "added":
                    fmt.setBackground(colours.added_word)
                elif segment.mark == "removed":
                    fmt.setBackground(colours.removed_word)
                    fmt.setFontStrikeOut(True)
                    fmt.setForeground(colours.struck_text)
                elif line.kind == "removed":
                    fmt.setForeground(colours.removed_text)
                text = segment.text
                while length + len(text) > SHOWN_LINE:
                    cursor.insertText(text[:SHOWN_LINE - length], fmt)
                    text = text[SHOWN_LINE - length:]
                    cursor.insertBlock(block, plain)
                    length = 0
                cursor.insertText(text, fmt)
                length += len(text)
        cursor.endEditBlock()
        self.moveCursor(QTextCursor.MoveOperation.Start)


class SkillColumn(QWidget):
    """A titled column: a heading, a secondary line (dates, role) and a :class:`DiffView`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        self.title.setObjectName("dreamColumnTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.meta = secondary(QLabel(self))
        self.meta.setWordWrap(True)
        self.view = DiffView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.meta)
        layout.addWidget(self.view, 1)

    def show_lines(self, title: str, meta: str, lines: Sequence[DiffLine]) -> None:
        self.title.setText(title)
        self.meta.setText(meta)
        self.meta.setVisible(bool(meta))
        self.view.set_lines(lines)
        self.view.setAccessibleName(title)
