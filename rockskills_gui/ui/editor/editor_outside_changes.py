"""How open buffers follow changes made elsewhere: another pane's operation (rename, delete,
dream apply, undo), and files changed on disk; an edit that would clash asks (keep mine / take
the disk version / merge) and is never lost. A part of ``EditorPane``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.buffers import EDITABLE_FIELDS, Buffer, editable_fields
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.editor_buffers import OpenBuffers
from rockskills_gui.ui.editor.source_editor import SourceEditor

if TYPE_CHECKING:  # (the dialog loads with the first conflict)
    from rockskills_gui.ui.editor.disk_conflict import DiskConflictDialog, DiskResolution


class EditorOutsideChanges(QObject):
    """The open ``buffers`` following the library and the disk, their conflicts queued and
    asked about one at a time (dialogs over ``host``'s window); ``editor`` keeps its place when
    the current buffer's text is replaced.

    Signals:
        conflictSettled(object): the user answered a conflict about that :class:`Buffer` (its
            fields may have changed).
    """

    conflictSettled = Signal(object)

    def __init__(self, ctx: AppContext, host: QWidget, buffers: OpenBuffers,
                 editor: SourceEditor) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.buffers = buffers
        self.editor = editor
        self.conflict_dialog: DiskConflictDialog | None = None
        self.conflict_queue: list[str] = []  # folded names, asked about in this order
        self._changed_by_app: set[str] = set()  # queued conflicts caused by an operation in the app
        self._recreated: set[str] = set()  # queued conflicts of a skill deleted and written again

    def waiting(self, name: str) -> bool:
        """A conflict about ``name`` waits for the user's answer."""
        return fold(name) in self.conflict_queue

    def forget(self) -> None:
        """Another library: no conflict is asked about any more."""
        self.conflict_queue.clear()
        if self.conflict_dialog is not None:
            self.conflict_dialog.close()

    # ---------------------------------------------------------------- changes from the library

    def follow(self, change: ChangeSet) -> None:
        """Follow a change: our own save, another pane's operation, or news from disk (the pane
        then shows the result)."""
        lib = self.ctx.library
        if lib is None:
            return
        from_disk = change.empty  # only ctx.refresh_from_disk emits change sets without files
        buffers = self.buffers.buffers
        # Buffers follow renames and moves (all lifted first: a change may swap two names).
        moving = [(buffers.pop(fold(old), None), new) for old, new in change.renamed]
        for buffer, _new in moving:
            if buffer is not None:
                self.ctx.set_dirty(buffer.name, False)
        for buffer, new in moving:
            if buffer is None:
                continue
            fresh = buffers.get(fold(new))
            if fresh is not None and fresh.dirty:
                # The name was free because its skill was deleted under unsaved edits: those
                # edits are never dropped. A clean buffer gives way (the kept one then asks
                # about the skill now at its name); edits on both sides keep both open.
                if not buffer.dirty:
                    self.buffers.drop(buffer)
                    continue
                del buffers[fold(new)]
                buffers[f"{fold(new)}\0{id(fresh)}"] = fresh  # listed as unsaved
            elif fresh is not None:
                self.buffers.drop(fresh)  # opened under the new name a moment ago; the old moves in
            buffer.name = new
            buffers[fold(new)] = buffer
            if buffer.dirty:
                self.ctx.set_dirty(new, True)
        for name in change.deleted:  # (the pane shows the marks of the current one after)
            buffer = buffers.get(fold(name))
            if buffer is None:
                continue
            if from_disk:
                buffer.deleted_on_disk = True
                self.ctx.status(f"'{name}' was deleted on disk; it stays open here, marked", 10000)
            elif buffer.dirty:
                # Kept open, marked: Save restores the skill with the edits, Discard drops them,
                # an undo of the operation brings the base back under them.
                buffer.deleted_by = f"{self.ctx.last_verb}{change.label}"
                self.ctx.status(f"'{name}' was deleted ({buffer.deleted_by}); your unsaved edits "
                                "are kept in the editor: save to restore it", 10000)
            else:
                self.buffers.drop(buffer)
        touched = [*change.created, *change.updated, *(new for _old, new in change.renamed),
                   *change.links_rewritten]
        for name in touched:
            buffer = buffers.get(fold(name))
            skill = lib.get(name)
            if buffer is None or skill is None:
                continue
            self._follow(buffer, skill, from_disk)

    def _follow(self, buffer: Buffer, skill: Skill, from_disk: bool) -> None:
        """Take a new library version of ``buffer``'s skill, asking when edits would clash."""
        revived = buffer.deleted
        if from_disk and revived and buffer.edits() != editable_fields(skill):
            # Deleted under its buffer and written again with other text: the buffer holds the
            # only copy of the old version (saved or not). It stays marked until the user
            # chooses (keep it, take the new one, merge), as for unsaved edits. A merge keeps
            # both texts: the two versions share no base.
            self._recreated.add(fold(buffer.name))
            self.queue_conflict(buffer)
            return
        buffer.deleted_on_disk = False
        buffer.deleted_by = ""
        if from_disk and buffer.disk_conflicts(skill):
            self.queue_conflict(buffer)
            return
        if not from_disk and buffer.clashes(skill):
            # Another operation (a dream apply, an undo, a see-also rewrite) rewrote what the user
            # is editing: the edits are kept and nothing is saved until the user chooses.
            self.queue_conflict(buffer, by_app=True)
            return
        was_clean = not buffer.dirty
        self._keep_view(buffer, lambda: buffer.rebase(skill))
        if from_disk and not revived:
            self.ctx.status(f"'{skill.name}' changed on disk and was reloaded" if was_clean
                            else f"'{skill.name}' changed on disk (dates only); your unsaved "
                                 "edits are kept", 8000)

    def _keep_view(self, buffer: Buffer, change: Callable[[], None]) -> None:
        """Run ``change`` on ``buffer`` keeping the editor's cursor line and scroll position."""
        if buffer is not self.buffers.current:
            change()
            return
        cursor = self.editor.textCursor()
        line, column = cursor.blockNumber(), cursor.positionInBlock()
        scroll = self.editor.verticalScrollBar().value()
        change()
        block = buffer.document.findBlockByNumber(min(line, buffer.document.blockCount() - 1))
        cursor = self.editor.textCursor()
        cursor.setPosition(block.position() + min(column, max(0, block.length() - 1)))
        self.editor.setTextCursor(cursor)
        self.editor.verticalScrollBar().setValue(scroll)

    # ---------------------------------------------------------------- changes on disk

    def check_disk(self, paths: list[Path] | None = None) -> None:
        """Re-read ``paths`` (default: every open skill's file) and follow what changed."""
        lib = self.ctx.library
        if lib is None:
            return
        if paths is None:
            paths = self.buffers.open_paths()
        self.ctx.refresh_from_disk(paths)

    def queue_conflict(self, buffer: Buffer, by_app: bool = False) -> None:
        """Ask about ``buffer`` (its edits and another version) when the dialogs before it are
        answered; ``by_app``: the other version was written by an operation in this app."""
        key = fold(buffer.name)
        if by_app:
            self._changed_by_app.add(key)
        if key not in self.conflict_queue:
            self.conflict_queue.append(key)
        if self.conflict_dialog is None:
            QTimer.singleShot(0, self._next_conflict)

    def _next_conflict(self) -> None:
        lib = self.ctx.library
        while self.conflict_dialog is None and self.conflict_queue and lib is not None:
            key = self.conflict_queue[0]
            buffer = self.buffers.buffers.get(key)
            disk = lib.get(key)
            if buffer is None or disk is None:
                self.conflict_queue.pop(0)
                continue
            from rockskills_gui.ui.editor.disk_conflict import DiskConflictDialog

            base = (buffer.base.model_copy(update={"summary": "", "content": "", "see_also": None})
                    if key in self._recreated else buffer.base)
            dialog = DiskConflictDialog(buffer.name, base, buffer.edits(), disk, self.host.window(),
                                        by_app=key in self._changed_by_app)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.resolved.connect(lambda answer, k=key: self._resolve_conflict(k, answer))
            self.conflict_dialog = dialog
            dialog.open()

    def _resolve_conflict(self, key: str, answer: DiskResolution) -> None:
        from rockskills_gui.ui.editor.disk_conflict import DiskChoice

        self.conflict_dialog = None
        self._changed_by_app.discard(key)
        self._recreated.discard(key)
        if key in self.conflict_queue:
            self.conflict_queue.remove(key)
        lib = self.ctx.library
        buffer = self.buffers.buffers.get(key)
        disk = lib.get(key) if lib is not None else None
        if buffer is not None and disk is not None:
            buffer.deleted_on_disk = False  # (a re-created skill: the choice revives the buffer)
            buffer.deleted_by = ""
            if answer.choice is DiskChoice.TAKE_DISK:
                self._keep_view(buffer, lambda: buffer.rebase(disk, take=set(EDITABLE_FIELDS)))
                self.ctx.status(f"'{buffer.name}': took the version on disk (Undo in the editor "
                                "brings your text back)", 8000)
            else:
                self._keep_view(buffer, lambda: buffer.rebase(disk, take=set()))
                if answer.choice is DiskChoice.MERGED and answer.fields is not None:
                    fields = answer.fields
                    self._keep_view(buffer, lambda: buffer.set_content(fields["content"] or ""))
                    buffer.set_summary(fields["summary"] or "")
                    buffer.set_see_also(tuple(fields["see_also"] or ()))
                    self.ctx.status(f"'{buffer.name}': merged; save to write the result", 8000)
                else:
                    self.ctx.status(f"'{buffer.name}': kept your version; saving will replace "
                                    "the version on disk", 8000)
        self.conflictSettled.emit(buffer)
        QTimer.singleShot(0, self._next_conflict)
