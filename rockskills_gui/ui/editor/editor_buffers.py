"""The skills open in the Skill tab: their buffers (each its own text and undo history, kept
while other skills are shown), which one is current, and their Markdown highlighting. A part of
``EditorPane``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QTextDocument

from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.buffers import Buffer
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.source_editor import SourceEditor

if TYPE_CHECKING:  # (loaded with the first buffer)
    from rockskills_gui.ui.common.markdown_highlighter import MarkdownHighlighter

MAX_CLEAN_BUFFERS = 30  # clean buffers kept (with their undo history) besides the dirty ones


class OpenBuffers:
    """The open buffers, by folded name, least recently shown first; the current one; their
    highlighters. ``editor`` shows the current buffer's document (``blank`` when none)."""

    def __init__(self, ctx: AppContext, editor: SourceEditor, blank: QTextDocument) -> None:
        self.ctx = ctx
        self.editor = editor
        self.blank = blank
        self.buffers: dict[str, Buffer] = {}  # fold(name) -> buffer, least recently shown first
        self.current: Buffer | None = None
        self.highlighters: dict[int, MarkdownHighlighter] = {}

    def get(self, name: str) -> Buffer | None:
        return self.buffers.get(fold(name))

    def add(self, buffer: Buffer, highlighter: MarkdownHighlighter) -> None:
        self.highlighters[id(buffer)] = highlighter
        self.buffers[fold(buffer.name)] = buffer
        self.trim()

    def shown(self, buffer: Buffer) -> None:
        """``buffer`` is shown now: most recently shown last."""
        key = fold(buffer.name)
        self.buffers.pop(key, None)
        self.buffers[key] = buffer

    def drop(self, buffer: Buffer) -> None:
        """Let go of ``buffer`` (its edits too: the caller made sure none are lost)."""
        key = next((k for k, b in self.buffers.items() if b is buffer), None)
        if key is not None:
            del self.buffers[key]
        self.ctx.set_dirty(buffer.name, False)
        self.highlighters.pop(id(buffer), None)
        if self.current is buffer:
            self.current = None
        if self.editor.document() is buffer.document:
            self.editor.setDocument(self.blank)  # the editor must not keep a deleted document
        buffer.deleteLater()

    def drop_all(self) -> None:
        for buffer in list(self.buffers.values()):
            self.drop(buffer)
        self.current = None

    def trim(self) -> None:
        """Keep at most :data:`MAX_CLEAN_BUFFERS` clean buffers besides the current one."""
        clean = [b for b in self.buffers.values()
                 if not b.dirty and not b.deleted and b is not self.current]
        for buffer in clean[:max(0, len(clean) - MAX_CLEAN_BUFFERS)]:
            self.drop(buffer)

    def unsaved(self) -> list[Buffer]:
        """Buffers holding edits that are not on disk (the quit prompt lists them)."""
        return [b for b in self.buffers.values() if b.dirty]

    def open_paths(self) -> list[Path]:
        """The files of the open skills (not of one deleted by an operation in the app)."""
        lib = self.ctx.library
        if lib is None:
            return []
        return [lib.skill_path(b.name) for b in self.buffers.values() if not b.deleted_by]
