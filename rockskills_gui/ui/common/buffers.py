"""Editor buffers: one skill being edited, its base version and the user's unsaved edits.

A buffer owns a QTextDocument (so each skill keeps its own text undo history while the user
switches between skills) plus the edited summary and see-also list. ``base`` is the library's
version the edits apply to; saving writes ``base`` with the edited fields through the core.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal, TypedDict

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QPlainTextDocumentLayout

from rockskills_gui.core.model.skill import Skill

Field = Literal["summary", "content", "see_also"]
EDITABLE_FIELDS: tuple[Field, ...] = ("summary", "content", "see_also")


class EditableFields(TypedDict):
    """A skill's editable fields (None where the skill has none: null stays null)."""

    summary: str | None
    content: str | None
    see_also: tuple[str, ...] | None


def document_text(document: QTextDocument) -> str:
    """The document's text with ``\\n`` line ends (non-breaking spaces kept, unlike toPlainText)."""
    return document.toRawText().replace("\u2029", "\n")


def display_text(content: str | None) -> str:
    """What ``content`` reads as once in the editor (Qt turns CR LF, CR and U+2029 into breaks)."""
    return (content or "").replace("\r\n", "\n").replace("\r", "\n").replace("\u2029", "\n")


def editable_fields(skill: Skill) -> EditableFields:
    return {"summary": skill.summary, "content": skill.content, "see_also": skill.see_also}


class Buffer(QObject):
    """One skill's editing state.

    Signals:
        dirtyChanged(bool): the edits started or stopped differing from ``base``.
        fieldsChanged(): summary or see-also changed (from the header or a reload).
    """

    dirtyChanged = Signal(bool)
    fieldsChanged = Signal()

    def __init__(self, skill: Skill, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = skill.name
        self.base = skill
        self.summary = skill.summary or ""
        self.see_also: tuple[str, ...] | None = skill.see_also
        self.deleted_on_disk = False
        # Deleted by an operation in the app (a delete, a dream apply, an undo of a create) while
        # the buffer held unsaved edits: the operation's label. The buffer stays open, marked;
        # saving restores the skill with the edits, undoing the operation brings the base back.
        self.deleted_by = ""
        self.view_state: tuple[int, int] | None = None  # (cursor position, scroll value)
        self.document = QTextDocument(self)
        self.document.setDocumentLayout(QPlainTextDocumentLayout(self.document))
        self.document.setPlainText(skill.content or "")
        self.document.setModified(False)
        self.document.clearUndoRedoStacks()
        self._loaded_text = display_text(skill.content)
        self._rebasing = False
        self.dirty = False
        self.document.contentsChanged.connect(self.update_dirty)

    @property
    def deleted(self) -> bool:
        """The skill is gone (on disk, or by an operation) while this buffer keeps its text."""
        return self.deleted_on_disk or bool(self.deleted_by)

    # ---------------------------------------------------------------- what the user has

    def content(self) -> str | None:
        """The edited content (the base's exact value while the text is as loaded)."""
        text = document_text(self.document)
        return self.base.content if text == self._loaded_text else text

    def edited_summary(self) -> str | None:
        return self.base.summary if self.summary == (self.base.summary or "") else self.summary

    def edits(self) -> EditableFields:
        """The editable fields as the user has them."""
        return {"summary": self.edited_summary(), "content": self.content(),
                "see_also": self.see_also}

    def edited_skill(self) -> Skill:
        """``base`` with the user's edits."""
        return self.base.model_copy(update=self.edits())

    def changed_fields(self) -> set[Field]:
        """Editable fields that differ from ``base``."""
        base, edits = editable_fields(self.base), self.edits()
        return {field for field in EDITABLE_FIELDS if edits[field] != base[field]}

    def update_dirty(self) -> None:
        if self._rebasing:
            return
        dirty = bool(self.changed_fields())
        if dirty != self.dirty:
            self.dirty = dirty
            self.dirtyChanged.emit(dirty)

    # ---------------------------------------------------------------- editing

    def set_summary(self, summary: str) -> None:
        if summary != self.summary:
            self.summary = summary
            self.fieldsChanged.emit()
            self.update_dirty()

    def set_see_also(self, names: tuple[str, ...]) -> None:
        value: tuple[str, ...] | None = names
        if not names and not self.base.see_also:
            value = self.base.see_also  # null stays null, [] stays []
        if value != self.see_also:
            self.see_also = value
            self.fieldsChanged.emit()
            self.update_dirty()

    def set_content(self, text: str) -> None:
        """Replace the whole text as one undoable step (the user can undo a reload or merge)."""
        if text == document_text(self.document):
            return
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()

    # ---------------------------------------------------------------- following the library

    def rebase(self, new_base: Skill, take: Collection[str] | None = None) -> None:
        """Make ``new_base`` the version the edits apply to.

        Fields in ``take`` are replaced by ``new_base``'s values; by default that is every
        field the user has not changed (so a clean buffer simply follows the library).
        """
        untouched = set(EDITABLE_FIELDS) - self.changed_fields()
        take = untouched if take is None else take
        self._rebasing = True
        try:
            self.base = new_base
            self.name = new_base.name
            self._loaded_text = display_text(new_base.content)
            if "content" in take:
                self.set_content(self._loaded_text)
            if "summary" in take:
                self.summary = new_base.summary or ""
            if "see_also" in take:
                self.see_also = new_base.see_also
        finally:
            self._rebasing = False
        self.fieldsChanged.emit()
        self.update_dirty()

    def clashes(self, new_base: Skill) -> set[str]:
        """Fields the user edited that ``new_base`` also changed, to something else (a version of
        the skill that is not the one these edits started from)."""
        if not self.dirty:
            return set()
        old, new, mine = editable_fields(self.base), editable_fields(new_base), self.edits()
        return {field for field in self.changed_fields()
                if old[field] != new[field] and mine[field] != new[field]}

    def disk_conflicts(self, new_base: Skill) -> set[str]:
        """Editable fields changed on disk (``new_base`` vs ``base``) while the buffer is dirty."""
        if not self.dirty:
            return set()
        old = editable_fields(self.base)
        new = editable_fields(new_base)
        return {field for field in EDITABLE_FIELDS if old[field] != new[field]}
