"""Markdown → HTML for the preview (markdown-it-py), with a source-line map for scroll sync.

CommonMark plus GFM tables, strikethrough and task lists. Raw HTML is **off** (markdown-it's
presets turn it on by default): ``<script>`` in a skill is shown as text. Images are never
loaded: each becomes a link labelled with its alt text, so nothing remote (or local) is fetched
just by previewing. Links are kept; opening them is the viewer's decision.

Every rendered block that starts on a source line gets an empty anchor ``<a name="L{line}">``
(0-based line) in front of its first text, and fenced or indented code gets one per line; the
viewer finds those anchors in its laid-out document to map source lines to positions. No Qt here.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # markdown-it loads with the first preview, not with the window
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

ANCHOR_PREFIX = "L"
_TASK_CHECKBOX = "task-list-item-checkbox"


@dataclass(frozen=True)
class RenderedMarkdown:
    """The HTML body fragment and the source lines that carry an anchor, in document order."""

    html: str
    anchored_lines: tuple[int, ...]

    @staticmethod
    def anchor_name(line: int) -> str:
        return f"{ANCHOR_PREFIX}{line}"

    @staticmethod
    def line_of_anchor(name: str) -> int | None:
        """The source line an anchor name stands for (None for other anchors)."""
        if name.startswith(ANCHOR_PREFIX) and name[len(ANCHOR_PREFIX):].isdigit():
            return int(name[len(ANCHOR_PREFIX):])
        return None


def make_parser() -> MarkdownIt:
    """CommonMark + GFM tables, strikethrough, task lists; raw HTML off, no typographer."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.tasklists import tasklists_plugin

    md = MarkdownIt("commonmark", {"html": False, "typographer": False, "linkify": False})
    md.enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("fence", _render_code)
    md.add_render_rule("code_block", _render_code)
    md.add_render_rule("html_inline", _render_raw_as_text)
    md.add_render_rule("html_block", _render_raw_as_text)
    return md


_PARSER: MarkdownIt | None = None


def _parser() -> MarkdownIt:
    global _PARSER
    if _PARSER is None:
        _PARSER = make_parser()
    return _PARSER


def render(source: str) -> RenderedMarkdown:
    """Render ``source`` for the preview (see the module doc)."""
    from markdown_it.token import Token

    md = _parser()
    tokens = md.parse(source)
    anchored: list[int] = []
    seen: set[int] = set()
    for index, token in enumerate(tokens):
        if token.type == "list_item_open":
            _mark_task_item(tokens, index)
        elif token.type in ("fence", "code_block") and token.map:
            token.meta = {**(token.meta or {}), "first_line": _code_first_line(token)}
            first = token.meta["first_line"]
            for offset in range(len(_code_lines(token.content))):
                if first + offset not in seen:
                    seen.add(first + offset)
                    anchored.append(first + offset)
        elif token.type == "inline" and token.map:
            line = token.map[0]
            if line not in seen and token.children:
                seen.add(line)
                anchored.append(line)
                anchor = Token("html_inline", "", 0)
                anchor.content = f'<a name="{RenderedMarkdown.anchor_name(line)}"></a>'
                anchor.meta = {"trusted": True}
                token.children.insert(0, anchor)
    body = md.renderer.render(tokens, md.options, {})
    return RenderedMarkdown(body, tuple(anchored))


def _mark_task_item(tokens: Sequence[Token], index: int) -> None:
    """A task-list item becomes ``<li class="checked|unchecked">`` (Qt draws that as a checkbox).

    The tasklist plugin's ``<input>`` (which Qt cannot show) is removed from the item's text.
    """
    inline = next((t for t in tokens[index + 1:index + 3] if t.type == "inline"), None)
    children = inline.children if inline is not None else None
    if not children or children[0].type != "html_inline" or _TASK_CHECKBOX not in children[0].content:
        return
    checked = 'checked="checked"' in children[0].content
    del children[0]
    if children and children[0].type == "text":
        children[0].content = children[0].content.removeprefix(" ")
    tokens[index].attrSet("class", "checked" if checked else "unchecked")


def _code_lines(content: str) -> list[str]:
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines or [""]


def _code_first_line(token: Token) -> int:
    """The source line of the code's first line (a fence's opening line is not code)."""
    assert token.map is not None
    return token.map[0] + (1 if token.type == "fence" else 0)


def _render_code(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """``<pre>`` with one anchor per code line; the info string's first word as a class."""
    del self, options, env
    token = tokens[idx]
    first = (token.meta or {}).get("first_line")
    lines = _code_lines(token.content)
    parts = []
    for offset, line in enumerate(lines):
        anchor = (f'<a name="{RenderedMarkdown.anchor_name(first + offset)}"></a>'
                  if first is not None else "")
        parts.append(anchor + (html.escape(line, quote=False) or "\u00a0"))
    info = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    lang = f' class="language-{html.escape(info)}"' if info else ""
    return f"<pre><code{lang}>" + "\n".join(parts) + "</code></pre>\n"


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """An image is shown as a link to it (never loaded); the label is its alt text."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) if token.children else ""
    src = token.attrGet("src") or ""
    label = html.escape(f"[image: {alt}]" if alt else "[image]", quote=False)
    if not src:
        return label
    return f'<a href="{html.escape(str(src))}" title="{html.escape(str(src))}">{label}</a>'


def _render_raw_as_text(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """Raw HTML never reaches the viewer: escaped, except the anchors :func:`render` inserts."""
    del self, options, env
    token = tokens[idx]
    if (token.meta or {}).get("trusted"):
        return token.content
    return html.escape(token.content, quote=False)
