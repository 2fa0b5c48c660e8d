"""Markdown source highlighting: headings, lists, code, links, emphasis, quotes, tables.

Colours come from the widget palette (mixed where a softer tone is needed), so a dark system
palette restyles the source as it restyles everything else.
"""

from __future__ import annotations

import re

from PySide6.QtGui import (
    QColor,
    QFont,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)

NORMAL = 0
# Inside a fenced code block: FENCE_BASE + 2 * fence length + (1 for "~", 0 for "`").
FENCE_BASE = 1000

_CONFLICT = re.compile(r"^(<{7} .*|={7}|>{7} .*)$")  # merge conflict markers (core.merge)
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?=\s|$)(.*)$")
_SETEXT = re.compile(r"^ {0,3}=+\s*$")
_LIST = re.compile(r"^(\s*)([-+*]|\d{1,9}[.)])(\s+)(\[[ xX]\](?=\s))?")
_QUOTE = re.compile(r"^ {0,3}>+")
_RULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]*)(\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+|mailto:[^>\s]+)>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![*_\w])([*_])(?![*_\s])(.+?)(?<![*_\s])\1(?![*_\w])")
_STRIKE = re.compile(r"(~~)(?=\S)(.+?)(?<=\S)~~")
_TABLE_PIPE = re.compile(r"\|")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def blend(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` (0..1) of the way towards ``b``."""
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * amount,
        a.greenF() + (b.greenF() - a.greenF()) * amount,
        a.blueF() + (b.blueF() - a.blueF()) * amount,
    )


class MarkdownHighlighter(QSyntaxHighlighter):
    """Highlights one Markdown document; call :meth:`set_palette` when the palette changes."""

    def __init__(self, document: QTextDocument, palette: QPalette) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        self.set_palette(palette)

    def set_palette(self, palette: QPalette) -> None:
        text = palette.color(QPalette.ColorRole.Text)
        base = palette.color(QPalette.ColorRole.Base)
        accent = palette.color(QPalette.ColorRole.Accent)
        link = palette.color(QPalette.ColorRole.Link)
        muted = blend(text, base, 0.45)
        code_bg = blend(base, text, 0.06)

        def fmt(colour: QColor | None = None, bold: bool = False, italic: bool = False,
                background: QColor | None = None, underline: bool = False,
                strike: bool = False) -> QTextCharFormat:
            f = QTextCharFormat()
            if colour is not None:
                f.setForeground(colour)
            if bold:
                f.setFontWeight(QFont.Weight.Bold)
            if italic:
                f.setFontItalic(True)
            if background is not None:
                f.setBackground(background)
            if underline:
                f.setFontUnderline(True)
            if strike:
                f.setFontStrikeOut(True)
            return f

        self.formats = {
            "heading": fmt(blend(accent, text, 0.15), bold=True),
            "heading_marker": fmt(blend(accent, base, 0.35), bold=True),
            "list_marker": fmt(accent, bold=True),
            "task": fmt(accent),
            "quote": fmt(muted, italic=True),
            "rule": fmt(muted),
            "fence": fmt(muted, background=code_bg),
            "code_block": fmt(blend(text, link, 0.25), background=code_bg),
            "code": fmt(blend(text, link, 0.25), background=code_bg),
            "link_text": fmt(link, underline=True),
            "link_url": fmt(muted),
            "strong": fmt(bold=True),
            "emphasis": fmt(italic=True),
            "strike": fmt(muted, strike=True),
            "syntax": fmt(muted),
            "table": fmt(muted),
            "conflict": fmt(link, bold=True, background=blend(base, link, 0.15)),
        }
        self.rehighlight()

    # ---------------------------------------------------------------- highlighting

    def highlightBlock(self, text: str) -> None:
        state = self.previousBlockState()
        if state >= FENCE_BASE:
            self._in_fence(text, state)
            return
        self.setCurrentBlockState(NORMAL)
        if _CONFLICT.match(text):
            self.setFormat(0, len(text), self.formats["conflict"])
            return
        opened = _FENCE_OPEN.match(text)
        if opened and not (opened[1][0] == "`" and "`" in opened[2]):
            fence = opened[1]
            self.setFormat(0, len(text), self.formats["fence"])
            self.setCurrentBlockState(FENCE_BASE + 2 * len(fence) + (1 if fence[0] == "~" else 0))
            return
        heading = _HEADING.match(text)
        if heading:
            self.setFormat(0, len(text), self.formats["heading"])
            self.setFormat(heading.start(1), len(heading[1]), self.formats["heading_marker"])
            self._inline(text, heading.start(2))
            return
        if _RULE.match(text):
            self.setFormat(0, len(text), self.formats["rule"])
            return
        if _SETEXT.match(text) and self._previous_has_text():
            self.setFormat(0, len(text), self.formats["heading_marker"])
            return
        start = 0
        quote = _QUOTE.match(text)
        if quote:
            self.setFormat(0, len(text), self.formats["quote"])
            start = quote.end()
        listed = _LIST.match(text[start:])
        if listed:
            offset = start
            self.setFormat(offset + listed.start(2), len(listed[2]), self.formats["list_marker"])
            if listed[4]:
                self.setFormat(offset + listed.start(4), len(listed[4]), self.formats["task"])
            start = offset + listed.end()
        if _TABLE_RULE.match(text) and "|" in text:
            self.setFormat(0, len(text), self.formats["table"])
            return
        self._inline(text, start)

    def _in_fence(self, text: str, state: int) -> None:
        length, tilde = divmod(state - FENCE_BASE, 2)
        char = "~" if tilde else "`"
        closing = re.match(rf"^ {{0,3}}{re.escape(char)}{{{length},}}\s*$", text)
        if closing:
            self.setFormat(0, len(text), self.formats["fence"])
            self.setCurrentBlockState(NORMAL)
        else:
            self.setFormat(0, len(text), self.formats["code_block"])
            self.setCurrentBlockState(state)

    def _previous_has_text(self) -> bool:
        previous = self.currentBlock().previous()
        return previous.isValid() and bool(previous.text().strip()) \
            and previous.userState() < FENCE_BASE

    def _inline(self, text: str, start: int) -> None:
        """Code spans first (nothing inside them is Markdown), then links, emphasis, pipes."""
        masked = list(text)
        for match in _INLINE_CODE.finditer(text, start):
            self.setFormat(match.start(), match.end() - match.start(), self.formats["code"])
            for i in range(match.start(), match.end()):
                masked[i] = "\0"
        plain = "".join(masked)
        for match in _LINK.finditer(plain, start):
            self.setFormat(match.start(), match.end() - match.start(), self.formats["syntax"])
            self.setFormat(match.start(2), len(match[2]), self.formats["link_text"])
            self.setFormat(match.start(3), len(match[3]), self.formats["link_url"])
        for match in _AUTOLINK.finditer(plain, start):
            self.setFormat(match.start(1), len(match[1]), self.formats["link_text"])
        for pattern, key in ((_STRONG, "strong"), (_EMPHASIS, "emphasis"), (_STRIKE, "strike")):
            for match in pattern.finditer(plain, start):
                self._merge(match.start(), match.end() - match.start(), self.formats[key])
                self._merge(match.start(), len(match[1]), self.formats["syntax"])
                self._merge(match.end() - len(match[1]), len(match[1]), self.formats["syntax"])
        if "|" in plain:
            for match in _TABLE_PIPE.finditer(plain, start):
                if match.start() == 0 or plain[match.start() - 1] != "\\":
                    self.setFormat(match.start(), 1, self.formats["table"])

    def _merge(self, start: int, length: int, extra: QTextCharFormat) -> None:
        """Add ``extra`` on top of what is already set (bold inside a link stays a link)."""
        for i in range(start, start + length):
            current = self.format(i)
            current.merge(extra)
            self.setFormat(i, 1, current)
