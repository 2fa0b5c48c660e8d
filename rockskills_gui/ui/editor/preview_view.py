"""The rendered Markdown preview: a QTextBrowser that never loads anything and maps lines to pixels.

Rendering is :func:`rockskills_gui.core.text.markdown.render` (raw HTML off, images shown as links).
Nothing is fetched: :meth:`PreviewView.loadResource` refuses every resource, and a clicked
link is opened in the system browser only for ``http``, ``https`` and ``mailto``.
The style sheet is built from the palette (no chosen colours).
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QFontDatabase, QPalette, QTextDocument
from PySide6.QtWidgets import QFrame, QTextBrowser, QWidget

from rockskills_gui.ui.common.markdown_highlighter import blend

EXTERNAL_SCHEMES = ("http", "https", "mailto")


def preview_css(palette: QPalette) -> str:
    """The preview's style sheet, every colour taken from ``palette``."""
    text = palette.color(QPalette.ColorRole.Text)
    base = palette.color(QPalette.ColorRole.Base)
    link = palette.color(QPalette.ColorRole.Link)
    muted = blend(text, base, 0.4)
    rule = blend(text, base, 0.8)
    code_bg = blend(base, text, 0.05)
    code_rule = blend(base, text, 0.14)
    header_bg = blend(base, text, 0.035)
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()

    def c(colour: QColor) -> str:
        return colour.name()

    return f"""
body {{ color: {c(text)}; }}
p {{ margin-top: 0px; margin-bottom: 10px; line-height: 135%; }}
li {{ margin-bottom: 3px; line-height: 130%; }}
h1 {{ font-size: 22pt; font-weight: 600; margin-top: 6px; margin-bottom: 12px; }}
h2 {{ font-size: 16pt; font-weight: 600; margin-top: 20px; margin-bottom: 8px; }}
h3 {{ font-size: 13pt; font-weight: 600; margin-top: 16px; margin-bottom: 6px; }}
h4, h5, h6 {{ font-size: 11pt; font-weight: 600; margin-top: 14px; margin-bottom: 4px; }}
a {{ color: {c(link)}; text-decoration: none; }}
code {{ font-family: '{mono}'; background-color: {c(code_bg)}; }}
pre {{ font-family: '{mono}'; white-space: pre-wrap; margin-top: 0px; margin-bottom: 0px;
       margin-left: 0px; margin-right: 0px; line-height: 125%; }}
table.code {{ background-color: {c(code_bg)}; border: 1px solid {c(code_rule)};
              margin-top: 2px; margin-bottom: 14px; }}
table {{ border-collapse: collapse; border-style: solid; border-color: {c(rule)};
         margin-top: 4px; margin-bottom: 14px; }}
th {{ background-color: {c(header_bg)}; font-weight: 600; border: 1px solid {c(rule)};
      padding: 5px 10px; text-align: left; }}
td {{ border: 1px solid {c(rule)}; padding: 5px 10px; }}
blockquote {{ color: {c(muted)}; margin-left: 18px; font-style: italic; }}
hr {{ color: {c(rule)}; }}
"""


def boxed_code(html: str) -> str:
    """Put each ``<pre>`` in a one-cell table: Qt's rich text gives tables padding, not blocks."""
    return (html.replace("<pre>", '<table class="code" width="100%" cellspacing="0" '
                                  'cellpadding="10"><tr><td><pre>')
            .replace("</pre>", "</pre></td></tr></table>"))


class PreviewView(QTextBrowser):
    """Shows rendered Markdown; maps source lines to scroll positions for scroll sync.

    Signals:
        linkRefused(str): a link that is not opened (not http/https/mailto), for the status bar.
    """

    linkRefused = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownPreview")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.document().setDocumentMargin(18)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self._lines: tuple[int, ...] = ()
        self._map: tuple[list[float], list[float]] | None = None  # (source lines, y positions)
        self.document().documentLayout().documentSizeChanged.connect(self._forget_map)
        self.source_text: str | None = None

    # ---------------------------------------------------------------- content

    def set_markdown(self, text: str) -> None:
        """Render ``text``, keeping the scroll position."""
        if text == self.source_text:
            return
        self.source_text = text
        from rockskills_gui.core.text.markdown import render  # (at the first skill shown)

        rendered = render(text)
        bar = self.verticalScrollBar()
        keep = bar.value()
        self.document().setDefaultStyleSheet(preview_css(self.palette()))
        self.setHtml(boxed_code(rendered.html))
        self._lines = rendered.anchored_lines
        self._map = None
        bar.setValue(keep)

    def changeEvent(self, event: QEvent) -> None:
        """A new palette (light/dark switch): render again with a style sheet in its colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.source_text is not None:
            text, self.source_text = self.source_text, None
            self.set_markdown(text)

    def clear_markdown(self) -> None:
        self.source_text = None
        self._lines = ()
        self._map = None
        self.clear()

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        """Nothing is ever loaded (no images, no style sheets, local or remote)."""
        del kind, name
        return None

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() in EXTERNAL_SCHEMES:
            QDesktopServices.openUrl(url)
        elif url.hasFragment() and not url.path() and not url.scheme():
            self.scrollToAnchor(url.fragment())
        else:
            self.linkRefused.emit(url.toString())

    # ---------------------------------------------------------------- line <-> position

    def _forget_map(self) -> None:
        self._map = None

    def _line_map(self) -> tuple[list[float], list[float]]:
        """Anchored source lines and their y positions, both increasing."""
        if self._map is not None:
            return self._map
        from rockskills_gui.core.text.markdown import RenderedMarkdown

        line_of_anchor = RenderedMarkdown.line_of_anchor
        doc: QTextDocument = self.document()
        layout = doc.documentLayout()
        lines: list[float] = []
        ys: list[float] = []
        block = doc.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                for name in fragments.fragment().charFormat().anchorNames():
                    line = line_of_anchor(name)
                    if line is None:
                        continue
                    y = layout.blockBoundingRect(block).top()
                    if (not lines or line > lines[-1]) and (not ys or y >= ys[-1]):
                        lines.append(float(line))
                        ys.append(y)
                fragments += 1
            block = block.next()
        self._map = (lines, ys)
        return self._map

    def y_for_line(self, line: float) -> float:
        """The document y of a (fractional) source line, interpolated between anchors."""
        lines, ys = self._line_map()
        if not lines:
            return 0.0
        i = bisect_right(lines, line) - 1
        if i < 0:
            return ys[0] * (line / lines[0]) if lines[0] > 0 else ys[0]
        if i >= len(lines) - 1:
            end_y = self.document().size().height()
            last_line = lines[-1]
            span = max(1.0, (self._source_line_count() - last_line))
            return ys[-1] + (end_y - ys[-1]) * min(1.0, (line - last_line) / span)
        t = (line - lines[i]) / (lines[i + 1] - lines[i])
        return ys[i] + (ys[i + 1] - ys[i]) * t

    def line_for_y(self, y: float) -> float:
        """The (fractional) source line shown at document y."""
        lines, ys = self._line_map()
        if not lines:
            return 0.0
        i = bisect_right(ys, y) - 1
        if i < 0:
            return lines[0] * (y / ys[0]) if ys[0] > 0 else lines[0]
        if i >= len(ys) - 1:
            end_y = self.document().size().height()
            span = max(1.0, end_y - ys[-1])
            return lines[-1] + (self._source_line_count() - lines[-1]) * min(1.0, (y - ys[-1]) / span)
        if ys[i + 1] == ys[i]:
            return lines[i]
        t = (y - ys[i]) / (ys[i + 1] - ys[i])
        return lines[i] + (lines[i + 1] - lines[i]) * t

    def _source_line_count(self) -> int:
        return (self.source_text or "").count("\n") + 1

    def top_line(self) -> float:
        """The source line at the top of the view."""
        return self.line_for_y(float(self.verticalScrollBar().value()))

    def scroll_to_line(self, line: float) -> None:
        """Scroll so that source ``line`` is at the top."""
        bar = self.verticalScrollBar()
        bar.setValue(round(self.y_for_line(line)))
