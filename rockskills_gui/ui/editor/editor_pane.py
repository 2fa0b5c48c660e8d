"""Skill tab: header, Markdown source editor and live preview, with buffers that are never lost.

Each opened skill gets a :class:`~rockskills_gui.ui.common.buffers.Buffer` (its own text and undo
history) that survives switching skills. Saving goes through ``ctx.apply`` (the core's ``save``:
createdAt, lastUsedAt and seeAlso kept, updatedAt set). Files changed by someone else are
noticed by a :class:`~rockskills_gui.ui.common.library_watcher.LibraryWatcher`: a clean buffer reloads
silently, a dirty one asks (keep mine / take the disk version / merge), a vanished file is
marked and can be restored.

The pane is made of parts, each owning its state: ``editor_layout`` (the widgets),
``editor_buffers`` (the open buffers and the current one), ``editor_saving`` (save, the
unsaved-edits prompt), ``editor_outside_changes`` (following other operations and the disk,
conflicts) and ``editor_navigation`` (layout modes, scroll sync, focus, find, go to skill); this
module composes them, and opens, shows and edits buffers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QTimer, Signal
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import (
    QLabel,
    QMessageBox,
    QSplitter,
    QStackedLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.buffers import Buffer, document_text
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.library_watcher import DEFER_FROM, LibraryWatcher
from rockskills_gui.ui.editor.editor_buffers import MAX_CLEAN_BUFFERS, OpenBuffers
from rockskills_gui.ui.editor.editor_face import (
    EDITOR_COMMANDS,
    EMPTY_TEXT,
    NO_LIBRARY_TEXT,
    EmptySkillPage,
    listed_names,
)
from rockskills_gui.ui.editor.editor_layout import BODY_PLACEHOLDER, EditorWidgets, NoticeBar
from rockskills_gui.ui.editor.editor_navigation import MODES, EditorNavigation
from rockskills_gui.ui.editor.editor_outside_changes import EditorOutsideChanges
from rockskills_gui.ui.editor.editor_saving import AGENT_NOTICE_KEY, EditorSaving
from rockskills_gui.ui.editor.preview_view import PreviewView
from rockskills_gui.ui.editor.resource_view import ResourceView
from rockskills_gui.ui.editor.skill_header import SkillHeader, SummaryEdit
from rockskills_gui.ui.editor.source_editor import FindBar, SourceEditor

if TYPE_CHECKING:  # (loaded when first used: not before the window's first paint, issue 19)
    from rockskills_gui.ui.common.goto_skill import GoToSkillDialog
    from rockskills_gui.ui.editor.disk_conflict import DiskConflictDialog

RENDER_DELAY_MS = 120

__all__ = [  # names that lived here before the pane was split
    "AGENT_NOTICE_KEY", "BODY_PLACEHOLDER", "DEFER_FROM", "EMPTY_TEXT",
    "MAX_CLEAN_BUFFERS", "MODES", "NO_LIBRARY_TEXT", "RENDER_DELAY_MS", "EditorPane", "NoticeBar",
    "listed_names",
]


class EditorPane(QWidget):
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
        self._actions: dict[str, QAction] = {}
        self._created = ""  # a skill created a moment ago (its editor takes the focus)

        self.widgets = EditorWidgets(self, ctx)
        self.open_buffers = OpenBuffers(ctx, self.widgets.editor, self.widgets.blank)
        self.navigation = EditorNavigation(ctx, self, self.widgets, self.open_buffers,
                                           self._actions, remember)
        self.outside_changes = EditorOutsideChanges(ctx, self, self.open_buffers,
                                                    self.widgets.editor)
        self.saving = EditorSaving(ctx, self, self.open_buffers, self.outside_changes,
                                   self.widgets.agent_notice)
        self.navigation.modeChanged.connect(self.modeChanged)
        self.outside_changes.conflictSettled.connect(self._on_conflict_settled)
        header = self.widgets.header
        header.summaryEdited.connect(self._on_summary_edited)
        header.seeAlsoEdited.connect(self._on_see_also_edited)
        header.openSkill.connect(self._open_linked_skill)
        self.widgets.deleted_bar.add_button("restoreSkill", "&Restore", self.save)
        self.widgets.deleted_bar.add_button("closeSkill", "Close", self.close_current)

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

    # ---------------------------------------------------------------- the parts' widgets and state

    @property
    def header(self) -> SkillHeader:
        return self.widgets.header

    @property
    def editor(self) -> SourceEditor:
        return self.widgets.editor

    @property
    def preview(self) -> PreviewView:
        return self.widgets.preview

    @property
    def splitter(self) -> QSplitter:
        return self.widgets.splitter

    @property
    def find_bar(self) -> FindBar:
        return self.widgets.find_bar

    @property
    def stack(self) -> QStackedLayout:
        return self.widgets.stack

    @property
    def page(self) -> QWidget:
        return self.widgets.page

    @property
    def empty(self) -> EmptySkillPage:
        return self.widgets.empty

    @property
    def empty_label(self) -> QLabel:
        return self.widgets.empty.label  # (a QLabel: typed so once theme.secondary is generic)

    @property
    def blank(self) -> QTextDocument:
        return self.widgets.blank

    @property
    def deleted_bar(self) -> NoticeBar:
        return self.widgets.deleted_bar

    @property
    def agent_notice(self) -> NoticeBar:
        return self.widgets.agent_notice

    @property
    def resource_view(self) -> ResourceView:
        return self.widgets.resource_view

    @property
    def buffers(self) -> dict[str, Buffer]:
        """The open buffers by folded name, least recently shown first."""
        return self.open_buffers.buffers

    @property
    def current(self) -> Buffer | None:
        return self.open_buffers.current

    @property
    def mode(self) -> str:
        return self.navigation.mode

    @property
    def conflict_dialog(self) -> DiskConflictDialog | None:
        return self.outside_changes.conflict_dialog

    @property
    def unsaved_prompt(self) -> QMessageBox | None:
        return self.saving.unsaved_prompt

    @property
    def goto_dialog(self) -> GoToSkillDialog | None:
        return self.navigation.goto_dialog

    # ---------------------------------------------------------------- commands (EDITOR_COMMANDS)

    def save(self) -> bool:
        """Save the current skill; False if nothing was written (refused, or a conflict to settle)."""
        return self.saving.save()

    def save_all(self) -> bool:
        """Save every unsaved skill; False if any could not be saved."""
        return self.saving.save_all()

    def save_buffer(self, buffer: Buffer) -> bool:
        return self.saving.save_buffer(buffer)

    def save_like_agent(self) -> bool:
        """Save the current skill's content as the agent's ``edit_skill`` would (see
        :meth:`EditorSaving.save_like_agent`)."""
        return self.saving.save_like_agent()

    def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None:
        """Run ``then`` once no edits would be lost: asks Save all / Discard / Cancel if needed."""
        self.saving.resolve_unsaved(then, doing)

    def set_mode(self, mode: str) -> None:
        """Show the editor, the preview, or both side by side ("editor", "preview", "split")."""
        self.navigation.set_mode(mode)

    def focus_editor(self) -> None:
        self.navigation.focus_editor()

    def focus_preview(self) -> None:
        self.navigation.focus_preview()

    def open_find(self) -> None:
        """Open the find bar on the editor (or the preview when it has focus or is alone)."""
        self.navigation.open_find()

    def find_next(self) -> None:
        self.navigation.find_next()

    def find_previous(self) -> None:
        self.navigation.find_previous()

    def go_to_skill(self) -> None:
        """Open the fuzzy "go to skill" finder."""
        self.navigation.go_to_skill()

    def check_disk(self, paths: list[Path] | None = None) -> None:
        """Re-read ``paths`` (default: every open skill's file) and follow what changed."""
        self.outside_changes.check_disk(paths)

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
            for highlighter in self.open_buffers.highlighters.values():
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
        self.outside_changes.forget()
        self.open_buffers.drop_all()
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
        buffer = self.open_buffers.get(name) if name else None
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

        self.open_buffers.add(buffer, MarkdownHighlighter(buffer.document, self.palette()))
        self._watch_open_files()
        return buffer

    def _watch_open_files(self) -> None:
        self.watcher.set_files(self.open_buffers.open_paths())

    def close_current(self) -> None:
        """Let go of the current buffer (used for a skill deleted on disk)."""
        buffer = self.current
        if buffer is None:
            return
        self.open_buffers.drop(buffer)
        self._show_buffer(None)
        if fold(self.ctx.current_skill) == fold(buffer.name):
            self.ctx.select_skill("")
        self._watch_open_files()

    def _on_change_applied(self, change: ChangeSet) -> None:
        """Follow a change (our own save, another pane's operation, news from disk) and show
        the result."""
        if self.ctx.library is None:
            return
        if len(change.created) == 1 and change.label.startswith("Create "):
            self._created = change.created[0]  # focus its text when it is shown (show_skill)
        self.outside_changes.follow(change)
        if change.created or change.deleted or change.renamed:
            self._refresh_candidates()
        self._watch_open_files()
        current = self.ctx.current_skill
        wanted = self.open_buffers.get(current) if current else None
        if wanted is not None and wanted is not self.current:
            self._show_buffer(wanted)
        elif self.current is not None:
            self._show_fields(self.current)
        self._update_actions()

    def _on_conflict_settled(self, buffer: Buffer | None) -> None:
        if buffer is not None and buffer is self.current:
            self._show_fields(buffer)
        self._update_actions()

    def _show_buffer(self, buffer: Buffer | None) -> None:
        previous = self.current
        if previous is not None and previous is not buffer:
            previous.view_state = (self.editor.textCursor().position(),
                                   self.editor.verticalScrollBar().value())
        if buffer is None:
            self.open_buffers.current = None
            self.editor.setDocument(self.blank)
            self.editor.setEnabled(False)
            self.preview.clear_markdown()
            self.empty_label.setText(EMPTY_TEXT if self.ctx.library is not None
                                     else NO_LIBRARY_TEXT)
            self.stack.setCurrentWidget(self.empty)
            self.find_bar.hide()
            self._update_actions()
            return
        self.open_buffers.shown(buffer)  # most recently shown last
        if buffer is not previous:
            self.open_buffers.current = buffer
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
        current = self.current
        if current is None:
            return
        # re-rendering must not scroll the editor
        self.navigation.without_sync(
            lambda: self.preview.set_markdown(document_text(current.document)))
        self.navigation.sync()

    def unsaved_buffers(self) -> list[Buffer]:
        """Buffers holding edits that are not on disk (the quit prompt lists them)."""
        return self.open_buffers.unsaved()

    def _update_actions(self) -> None:
        current = self.current
        if "file.save" in self._actions:
            self._actions["file.save"].setEnabled(
                current is not None and (current.dirty or current.deleted))
            self._actions["file.save_all"].setEnabled(bool(self.unsaved_buffers()))
            agent_edits = self.ctx.library is not None and self.ctx.library.profile.injection.tools.edit_skill
            self._actions["file.save_like_agent"].setVisible(agent_edits)
            self._actions["file.save_like_agent"].setEnabled(
                agent_edits and current is not None and current.dirty and not current.deleted)
            for key in ("edit.find", "edit.find_next", "edit.find_previous",
                        "view.focus_editor", "view.focus_preview"):
                self._actions[key].setEnabled(current is not None)
        self.saveStateChanged.emit()
