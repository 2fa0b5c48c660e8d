"""Saving in the Skill tab: save one or all buffers through ``ctx.apply`` (never over a version
the user has not seen), restore a deleted skill, close a buffer, and the unsaved-changes prompt
before quitting (closing a buffer is the pane's). A part of ``EditorPane``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.agent_note import ROCKBOT_NOTE
from rockskills_gui.core.recall.agent_tools import agent_edit_to
from rockskills_gui.core.storage.changes import ChangeSet, LibraryError
from rockskills_gui.ui.common.buffers import Buffer
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.editor_buffers import OpenBuffers
from rockskills_gui.ui.editor.editor_layout import NoticeBar
from rockskills_gui.ui.editor.editor_outside_changes import EditorOutsideChanges

AGENT_NOTICE_KEY = ROCKBOT_NOTE.key  # (RockBot's; each format's note has its own key)


class EditorSaving(QObject):
    """Save, Save all and the unsaved-edits prompt (over ``host``'s window) for the open
    ``buffers``; a save first takes in what changed on disk (``outside``), and the first one
    in a format whose agents have a rule for edited skills shows it in ``agent_notice``."""

    def __init__(self, ctx: AppContext, host: QWidget, buffers: OpenBuffers,
                 outside: EditorOutsideChanges, agent_notice: NoticeBar) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.buffers = buffers
        self.outside = outside
        self.agent_notice = agent_notice
        self.unsaved_prompt: QMessageBox | None = None

    # ---------------------------------------------------------------- saving

    def save(self) -> bool:
        """Save the current skill; False if nothing was written (refused, or a conflict to settle)."""
        current = self.buffers.current
        return current is not None and self.save_buffer(current)

    def save_all(self) -> bool:
        """Save every unsaved skill; False if any could not be saved."""
        ok = True
        for buffer in self.buffers.unsaved():
            ok = self.save_buffer(buffer) and ok
        return ok

    def save_buffer(self, buffer: Buffer) -> bool:
        lib = self.ctx.library
        if lib is None:
            return False
        if buffer.deleted:
            edited = buffer.edited_skill().model_copy(update={"name": buffer.name})
            change = self.ctx.apply(lambda library: library.restore(edited))
        else:
            if not buffer.dirty:
                return True
            # Pick up what someone else wrote first, so nothing is overwritten unseen.
            self.outside.check_disk([lib.skill_path(buffer.name)])
            if self.outside.waiting(buffer.name) or buffer.deleted_on_disk:
                return False
            if not buffer.dirty:
                return True
            current = lib.entry(buffer.name).skill
            if buffer.clashes(current):  # the edits apply to an older version: never overwrite it unseen
                self.outside.queue_conflict(buffer, by_app=True)
                return False
            edited = current.model_copy(update=buffer.edits())
            change = self.ctx.apply(lambda library: library.save(edited))
        if change is None:
            return False
        self._show_agent_notice_once()
        return True

    def save_like_agent(self) -> bool:
        """Save the current skill's edited content as the agent's ``edit_skill`` would write it
        (``core.recall.agent_tools.agent_edit_to``): one undoable change, the agent's answer in
        the status bar. Edits to the summary or see-also are left unsaved (edit_skill keeps them)."""
        lib, buffer = self.ctx.library, self.buffers.current
        if lib is None or buffer is None or buffer.deleted or not buffer.dirty:
            return False
        if not lib.profile.injection.tools.edit_skill:
            self.ctx.status(f"{lib.profile.label} has no edit_skill tool: use Save", 8000)
            return False
        self.outside.check_disk([lib.skill_path(buffer.name)])
        if self.outside.waiting(buffer.name) or buffer.deleted_on_disk or not buffer.dirty:
            return False
        if buffer.clashes(lib.entry(buffer.name).skill):
            self.outside.queue_conflict(buffer, by_app=True)
            return False
        others = sorted(buffer.changed_fields() - {"content"})
        if "content" not in buffer.changed_fields():
            self.ctx.status("edit_skill changes only the content, and it is unchanged: save the "
                            f"{' and '.join(f.replace('_', '-') for f in others)} with Save", 10000)
            return False
        answers: list[str] = []

        def edit(library: Library) -> ChangeSet:
            written = agent_edit_to(library, buffer.name, buffer.content() or "")
            if written.change is None:
                raise LibraryError(written.message)  # the agent's own refusal, word for word
            answers.append(written.message)
            return written.change

        if self.ctx.apply(edit) is None:
            return False
        kept = (f" Unsaved here: the {' and '.join(f.replace('_', '-') for f in others)} "
                "(edit_skill keeps the saved ones)." if others else "")
        self.ctx.status(f"Saved like the agent: {answers[0]}{kept}", 15000)
        self._show_agent_notice_once()
        return True

    def _show_agent_notice_once(self) -> None:
        """After the first save in a format whose agents have a known rule for edited skills
        (RockBot: restart it), say that rule once; a format without one says nothing."""
        library = self.ctx.library
        note = library.agent_note() if library is not None else None
        if note is None:
            return
        settings = self.ctx.settings
        if settings.value(note.key, False, type=bool):
            return
        settings.setValue(note.key, True)
        self.agent_notice.text.setText(note.banner)
        self.agent_notice.show()

    # ---------------------------------------------------------------- unsaved edits on quit

    def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None:
        """Run ``then`` once no edits would be lost: asks Save all / Discard / Cancel if needed."""
        unsaved = self.buffers.unsaved()
        if not unsaved:
            then()
            return
        if self.unsaved_prompt is not None:
            self.unsaved_prompt.raise_()
            return
        count = len(unsaved)
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved Changes",
                          f"{count} skill{'' if count == 1 else 's'} "
                          f"{'has' if count == 1 else 'have'} unsaved changes. "
                          f"Save before {doing}?",
                          QMessageBox.StandardButton.SaveAll | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.host.window())
        box.setObjectName("unsavedPrompt")
        box.setInformativeText("\n".join(f"• {b.name}"
                                          + (" (deleted on disk)" if b.deleted_on_disk
                                             else " (deleted; saving restores it)" if b.deleted_by
                                             else "")
                                          for b in unsaved))
        box.setDefaultButton(QMessageBox.StandardButton.SaveAll)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(result: int) -> None:
            self.unsaved_prompt = None
            if result == QMessageBox.StandardButton.SaveAll:
                if self.save_all():
                    then()
            elif result == QMessageBox.StandardButton.Discard:
                then()

        box.finished.connect(answered)
        self.unsaved_prompt = box
        box.open()
