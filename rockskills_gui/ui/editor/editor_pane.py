"""Skill tab: header, Markdown source editor and live preview, with buffers that are never lost.

Each opened skill gets a :class:`~rockskills_gui.ui.common.buffers.Buffer` (its own text and undo
history) that survives switching skills. Saving goes through ``ctx.apply`` (the core's ``save``:
createdAt, lastUsedAt and seeAlso kept, updatedAt set). Files changed by someone else are
noticed by a :class:`~rockskills_gui.ui.common.library_watcher.LibraryWatcher`: a clean buffer reloads
silently, a dirty one asks (keep mine / take the disk version / merge), a vanished file is
marked and can be restored.

The pane's parts: ``editor_layout`` (the widgets and the state the parts share),
``editor_saving`` (save, close, the unsaved-edits prompt), ``editor_outside_changes`` (following
other operations and the disk, conflicts) and ``editor_navigation`` (layout modes, scroll sync,
focus, find, go to skill); this module opens, shows and edits buffers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.buffers import Buffer, document_text
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.library_watcher import DEFER_FROM, LibraryWatcher
from rockskills_gui.ui.editor.editor_face import (
    EDITOR_COMMANDS,
    EMPTY_TEXT,
    NO_LIBRARY_TEXT,
    listed_names,
)
from rockskills_gui.ui.editor.editor_layout import BODY_PLACEHOLDER, NoticeBar
from rockskills_gui.ui.editor.editor_navigation import MODES, EditorNavigation
from rockskills_gui.ui.editor.editor_outside_changes import EditorOutsideChanges
from rockskills_gui.ui.editor.editor_saving import AGENT_NOTICE_KEY, EditorSaving
from rockskills_gui.ui.editor.skill_header import SummaryEdit

if TYPE_CHECKING:  # (loaded when first used: not before the window's first paint, issue 19)
    from rockskills_gui.ui.common.goto_skill import GoToSkillDialog
    from rockskills_gui.ui.common.markdown_highlighter import MarkdownHighlighter
    from rockskills_gui.ui.editor.disk_conflict import DiskConflictDialog

MAX_CLEAN_BUFFERS = 30  # clean buffers kept (with their undo history) besides the dirty ones
RENDER_DELAY_MS = 120

__all__ = [  # names that lived here before the pane was split
    "AGENT_NOTICE_KEY", "BODY_PLACEHOLDER", "DEFER_FROM", "EMPTY_TEXT",
    "MAX_CLEAN_BUFFERS", "MODES", "NO_LIBRARY_TEXT", "RENDER_DELAY_MS", "EditorPane", "NoticeBar",
    "listed_names",
]


class EditorPane(EditorSaving, EditorOutsideChanges, EditorNavigation, QWidget):
    """Header over a source editor and a preview (editor / split / preview layouts).

    ``remember`` keeps the layout mode and splitter sizes in the settings (off for screenshots).

    Signals:
        saveStateChanged(): whether Save / Save all can do something changed.
        modeChanged(str): the layout mode changed ("editor", "split" or "preview").
    """

    saveStateChanged = Signal()
    modeChanged = Signal(str)

    def __init__(self, ctx: AppContext, remember: bool = True, parent: QWidget | None = None,
                 watcher: LibraryWatcher | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editorPane")
        self.ctx = ctx
        self.remember = remember
        self.buffers: dict[str, Buffer] = {}  # fold(name) -> buffer, least recently shown first
        self.current: Buffer | None = None
        self.mode = "split"
        self.conflict_dialog: DiskConflictDialog | None = None
        self.unsaved_prompt: QMessageBox | None = None
        self.goto_dialog: GoToSkillDialog | None = None
        self._conflict_queue: list[str] = []
        self._changed_by_app: set[str] = set()  # queued conflicts caused by an operation in the app
        self._highlighters: dict[int, MarkdownHighlighter] = {}
        self._syncing = False
        self._actions: dict[str, QAction] = {}
        self._created = ""  # a skill created a moment ago (its editor takes the focus)

        self._build()
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_DELAY_MS)
        self._render_timer.timeout.connect(self._render_preview)
        # The window's watcher, which it points at each library and whose reports it follows
        # itself (before this pane exists too); else this pane's own.
        self._own_watcher = watcher is None
        self.watcher = watcher if watcher is not None else LibraryWatcher(self)
        if self._own_watcher:
            self.watcher.changed.connect(self.check_disk)

        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.currentSkillChanged.connect(self.show_skill)
        ctx.changeApplied.connect(self._on_change_applied)
        self._restore_settings()
        self._on_library_changed(ctx.library)

    @property
    def name(self) -> QLabel:
        """The header's name label (kept from the read-only skill pane this one replaced)."""
        return self.header.name

    @property
    def summary(self) -> SummaryEdit:
        """The header's summary field."""
        return self.header.summary

    def adopt_actions(self, registry: ActionRegistry) -> None:
        """Keep the states of this pane's commands (enabled, the layout in force), whose
        triggers someone else runs: the window, which wires them before the pane is built."""
        for action_id in (*EDITOR_COMMANDS, "view.skill"):
            self._actions[action_id] = registry[action_id]
        self.set_mode(self.mode)  # check the layout action that is in force
        self._update_actions()

    def focus_when_shown(self, name: str) -> None:
        """Give ``name``'s text the focus when it is next shown (a skill just created)."""
        self._created = name

    def changeEvent(self, event: QEvent) -> None:
        """A new palette (light/dark switch): recolour the Markdown highlighting."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            for highlighter in self._highlighters.values():
                highlighter.set_palette(self.palette())

    def _restore_settings(self) -> None:
        settings = self.ctx.settings
        mode = settings.value("editor/mode", "split") if self.remember else "split"
        sizes = settings.value("editor/splitter") if self.remember else None
        if isinstance(sizes, QByteArray):
            self.splitter.restoreState(sizes)
        self.set_mode(mode if mode in MODES else "split")
        if self.remember:
            self.splitter.splitterMoved.connect(
                lambda _pos, _index: self.ctx.settings.setValue("editor/splitter",
                                                                self.splitter.saveState()))

    # ---------------------------------------------------------------- showing a skill

    def _on_library_changed(self, library: Library | None) -> None:
        self._conflict_queue.clear()
        if self.conflict_dialog is not None:
            self.conflict_dialog.close()
        for buffer in list(self.buffers.values()):
            self._drop(buffer)
        self.current = None
        if library is not None:
            self.header.set_summary_rule(library.summary_rule())  # each format's own rule
        folders = self.ctx.prepared.get("watch_folders")  # listed while the library loaded
        names = self.ctx.prepared.get("listed_names")

        def watch_and_list() -> None:
            if self.ctx.library is not library:
                return  # another library arrived meanwhile
            if self._own_watcher:
                self.watcher.watch(library.skill_roots() if library is not None else None,
                                   folders if isinstance(folders, list) else None)
            self._refresh_candidates(names if isinstance(names, list) else None)

        if library is not None and len(library) >= DEFER_FROM:
            # A big library's watches and see-also candidates take 50 ms: after the other
            # panes have shown it, as an event of their own (the UI never stalls that long).
            QTimer.singleShot(0, self, watch_and_list)
        else:
            watch_and_list()
        self.show_skill(self.ctx.current_skill)

    def show_skill(self, name: str) -> None:
        """Show ``name``'s buffer (opened on first use); "" shows the empty page."""
        lib = self.ctx.library
        buffer = self.buffers.get(fold(name)) if name else None
        if buffer is None and name and lib is not None:
            skill = lib.get(name)
            if skill is not None:
                buffer = self._open(skill)
        self._show_buffer(buffer)
        if buffer is not None and self._created and fold(self._created) == fold(name):
            # A skill just created: type its text at once (after the window shows this tab).
            self._created = ""
            QTimer.singleShot(0, self, self.focus_editor)

    def show_resource(self, name: str, filename: str) -> None:
        """Show skill ``name``'s resource ``filename`` read-only ("": the skill itself)."""
        if not filename:
            self.show_skill(name)
        elif self.resource_view.show_resource(name, filename):
            self.stack.setCurrentWidget(self.resource_view)

    def _open(self, skill: Skill) -> Buffer:
        buffer = Buffer(skill, self)
        buffer.dirtyChanged.connect(lambda dirty, b=buffer: self._on_dirty_changed(b, dirty))
        buffer.fieldsChanged.connect(lambda b=buffer: self._on_fields_changed(b))
        buffer.document.contentsChanged.connect(lambda b=buffer: self._on_text_changed(b))
        from rockskills_gui.ui.common.markdown_highlighter import MarkdownHighlighter

        self._highlighters[id(buffer)] = MarkdownHighlighter(buffer.document, self.palette())
        self.buffers[fold(skill.name)] = buffer
        self._trim_buffers()
        self._watch_open_files()
        return buffer

    def _drop(self, buffer: Buffer) -> None:
        key = next((k for k, b in self.buffers.items() if b is buffer), None)
        if key is not None:
            del self.buffers[key]
        self.ctx.set_dirty(buffer.name, False)
        self._highlighters.pop(id(buffer), None)
        if self.current is buffer:
            self.current = None
        if self.editor.document() is buffer.document:
            self.editor.setDocument(self.blank)  # the editor must not keep a deleted document
        buffer.deleteLater()

    def _trim_buffers(self) -> None:
        clean = [b for b in self.buffers.values()
                 if not b.dirty and not b.deleted and b is not self.current]
        for buffer in clean[:max(0, len(clean) - MAX_CLEAN_BUFFERS)]:
            self._drop(buffer)

    def _show_buffer(self, buffer: Buffer | None) -> None:
        previous = self.current
        if previous is not None and previous is not buffer:
            previous.view_state = (self.editor.textCursor().position(),
                                   self.editor.verticalScrollBar().value())
        if buffer is None:
            self.current = None
            self.editor.setDocument(self.blank)
            self.editor.setEnabled(False)
            self.preview.clear_markdown()
            self.empty_label.setText(EMPTY_TEXT if self.ctx.library is not None
                                     else NO_LIBRARY_TEXT)
            self.stack.setCurrentWidget(self.empty)
            self.find_bar.hide()
            self._update_actions()
            return
        key = fold(buffer.name)
        self.buffers.pop(key, None)
        self.buffers[key] = buffer  # most recently shown last
        if buffer is not previous:
            self.current = buffer
            self.editor.setDocument(buffer.document)
            self.editor.setEnabled(True)
            if buffer.view_state is not None:
                position, scroll = buffer.view_state
                cursor = self.editor.textCursor()
                cursor.setPosition(min(position, buffer.document.characterCount() - 1))
                self.editor.setTextCursor(cursor)
                self.editor.verticalScrollBar().setValue(scroll)
            else:
                self.editor.verticalScrollBar().setValue(0)
            self.preview.clear_markdown()
        self._show_fields(buffer)
        self._render_preview()
        self.stack.setCurrentWidget(self.page)
        self._update_actions()

    def _show_fields(self, buffer: Buffer) -> None:
        lib = self.ctx.library

        def exists(name: str) -> bool:
            return lib is not None and name in lib

        self.header.show_fields(buffer.name, buffer.summary, buffer.see_also, exists)
        base = buffer.base
        stored = lib is None or shows(Part.TIMESTAMPS, lib)
        self.header.show_dates(base.created_at, base.updated_at, base.last_used_at, stored)
        entry = lib.entry(buffer.name) if lib is not None and buffer.name in lib else None
        self.header.show_files(getattr(entry, "resources", ()))
        read_only = lib is not None and lib.is_read_only(buffer.name)
        self.header.set_read_only(read_only)
        self.editor.setReadOnly(read_only)
        if buffer.deleted_on_disk:
            self.header.show_badge("deleted on disk")
        elif buffer.deleted_by:
            self.header.show_badge("deleted")
        elif read_only:
            self.header.show_badge("read only: memory.db")
        elif buffer.dirty:
            self.header.show_badge("unsaved")
        else:
            self.header.show_badge("")
        if buffer.deleted_by:
            self.deleted_bar.text.setText(
                f"'{buffer.name}' was deleted by an operation in this window "
                f"({buffer.deleted_by}) while you had unsaved edits. Your text is still here: "
                "Save restores the skill with it, Discard lets it go (Edit ▸ Undo brings the "
                "skill back as it was).")
            self.deleted_bar.buttons["closeSkill"].setText("&Discard")
        else:
            self.deleted_bar.text.setText(
                f"The file of '{buffer.name}' was deleted on disk (by the agent or another "
                "program). Your text is still here: Restore writes it back, Close lets it go.")
            self.deleted_bar.buttons["closeSkill"].setText("Close")
        self.deleted_bar.setVisible(buffer.deleted)

    def _refresh_candidates(self, names: list[str] | None = None) -> None:
        lib = self.ctx.library
        if names is None:
            names = listed_names(lib) if lib else []
        self.header.see_also.set_candidates(names)

    # ---------------------------------------------------------------- editing

    def _on_summary_edited(self, text: str) -> None:
        if self.current is not None:
            self.current.set_summary(text)

    def _on_see_also_edited(self, names: tuple[str, ...]) -> None:
        if self.current is not None:
            self.current.set_see_also(names)

    def _open_linked_skill(self, name: str) -> None:
        if not self.ctx.select_skill(name):
            self.ctx.status(f"No skill named '{name}' in this library (a dangling see-also name)")

    def _on_text_changed(self, buffer: Buffer) -> None:
        if buffer is self.current:
            self._render_timer.start()

    def _on_fields_changed(self, buffer: Buffer) -> None:
        if buffer is self.current:
            self._show_fields(buffer)

    def _on_dirty_changed(self, buffer: Buffer, dirty: bool) -> None:
        self.ctx.set_dirty(buffer.name, dirty)
        if buffer is self.current:
            self._show_fields(buffer)
        self._update_actions()

    def _render_preview(self) -> None:
        self._render_timer.stop()
        if self.current is None:
            return
        syncing, self._syncing = self._syncing, True  # re-rendering must not scroll the editor
        try:
            self.preview.set_markdown(document_text(self.current.document))
        finally:
            self._syncing = syncing
        if self.mode == "split":
            self._sync_from_editor()

    def unsaved_buffers(self) -> list[Buffer]:
        """Buffers holding edits that are not on disk (the quit prompt lists them)."""
        return [b for b in self.buffers.values() if b.dirty]

    def _update_actions(self) -> None:
        current = self.current
        if "file.save" in self._actions:
            self._actions["file.save"].setEnabled(
                current is not None and (current.dirty or current.deleted))
            self._actions["file.save_all"].setEnabled(bool(self.unsaved_buffers()))
            for key in ("edit.find", "edit.find_next", "edit.find_previous",
                        "view.focus_editor", "view.focus_preview"):
                self._actions[key].setEnabled(current is not None)
        self.saveStateChanged.emit()
