"""A RockBot (current) skill resource, shown read-only in the Skill tab.

Text files show their text in a read-only, monospaced view; binary ones show "binary, N bytes";
a file the manifest lists but the folder lacks shows "missing". Nothing here writes: resources
are changed by the agent (or by rename/move/delete/convert of their skill, in the core).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.resources import ResourceContent, read_resource
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import heading, monospace, secondary


class ResourceView(QWidget):
    """Header (file, owning skill, type, size, description) over the file's text or a note."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resourceView")
        self.ctx = ctx
        self.skill = ""  # the owning skill's name ("" when nothing is shown)
        self.filename = ""
        self.content: ResourceContent | None = None

        self.title = heading(QLabel(self), scale=1.2)
        self.title.setObjectName("resourceTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.detail = secondary(QLabel(self))
        self.detail.setObjectName("resourceDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.text = monospace(QPlainTextEdit(self))
        self.text.setObjectName("resourceText")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.note = secondary(QLabel(self))
        self.note.setObjectName("resourceNote")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)

        body = QWidget(self)
        self.body = QStackedLayout(body)
        self.body.addWidget(self.text)
        self.body.addWidget(self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.title)
        layout.addWidget(self.detail)
        layout.addWidget(body, 1)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.libraryChanged.connect(lambda _library: self.clear())

    @property
    def editable(self) -> bool:
        """Never: resources are shown, not edited."""
        return False

    def clear(self) -> None:
        self.skill = self.filename = ""
        self.content = None
        self.title.clear()
        self.detail.clear()
        self.text.clear()
        self.note.clear()

    def show_resource(self, skill: str, filename: str) -> bool:
        """Read and show skill ``skill``'s resource ``filename``; False when there is none."""
        library = self.ctx.library
        if library is None or not shows(Part.RESOURCES, library) or library.get(skill) is None:
            self.clear()
            self.note.setText(f"No skill '{skill}' (deleted?): its resources are gone with it.")
            self.body.setCurrentWidget(self.note)
            return False
        content = read_resource(library, skill, filename)
        self.skill, self.filename, self.content = content.skill, filename, content
        self.title.setText(f"{filename} — a resource of {content.skill}")
        parts = [html.escape(content.summary), "read-only"]
        if content.truncated:
            parts.append("only its first MiB is shown")
        if content.entry is None and not content.error:
            parts.append("in the folder, not in the manifest")
        lines = [" · ".join(parts)]
        if content.description:
            lines.append(html.escape(content.description))
        self.detail.setText("<br>".join(lines))
        if content.text is not None:
            self.text.setPlainText(content.text)
            self.body.setCurrentWidget(self.text)
        else:
            self.text.clear()
            if content.error:
                note = f"Could not be read: {content.error}"
            elif content.missing:
                note = ("Missing: the manifest lists this file, but it is not in the skill's "
                        "resource folder (get_skill_resource would find nothing).")
            else:
                note = f"binary, {content.size:,} bytes"
            self.note.setText(note)
            self.body.setCurrentWidget(self.note)
        return content.error != "no such resource"

    def _on_change_applied(self, change: ChangeSet) -> None:
        """Follow the owning skill through a rename; re-read after a change that touched it."""
        if not self.skill:
            return
        library = self.ctx.library
        key = fold(self.skill)
        renamed = {fold(old): new for old, new in change.renamed}
        touched = {fold(n) for n in (*change.created, *change.updated, *change.deleted)}
        if library is not None:
            touched.update(fold(owner) for fc in change.files
                           if (owner := library.resource_owner(fc.path)) is not None)
        if key in renamed:
            self.show_resource(renamed[key], self.filename)
        elif key in touched:
            self.show_resource(self.skill, self.filename)
