"""Skill tab: header, Markdown source editor and live preview, with buffers that are never lost.

Each opened skill gets a :class:`~rockskills_gui.ui.common.buffers.Buffer` (its own text and undo
history) that survives switching skills. Saving goes through ``ctx.apply`` (the core's ``save``:
createdAt, lastUsedAt and seeAlso kept, updatedAt set). Files changed by someone else are
noticed by a :class:`~rockskills_gui.ui.common.library_watcher.LibraryWatcher`: a clean buffer reloads
silently, a dirty one asks (keep mine / take the disk version / merge), a vanished file is
marked and can be restored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextDocumentLayout,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.buffers import EDITABLE_FIELDS, Buffer, document_text
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.goto_skill import GoToSkillDialog
from rockskills_gui.ui.common.library_watcher import LibraryWatcher
from rockskills_gui.ui.common.markdown_highlighter import MarkdownHighlighter
from rockskills_gui.ui.common.theme import heading, secondary
from rockskills_gui.ui.editor.disk_conflict import DiskChoice, DiskConflictDialog, DiskResolution
from rockskills_gui.ui.editor.preview_view import PreviewView
from rockskills_gui.ui.editor.resource_view import ResourceView
from rockskills_gui.ui.editor.skill_header import SkillHeader, SummaryEdit
from rockskills_gui.ui.editor.source_editor import FindBar, SourceEditor

MODES = ("editor", "split", "preview")
MAX_CLEAN_BUFFERS = 30  # clean buffers kept (with their undo history) besides the dirty ones
RENDER_DELAY_MS = 120
AGENT_NOTICE_KEY = "notices/agentRestartShown"
AGENT_NOTICE = (
    "RockBot reads its skills only when it starts: restart a running agent to see your edits. "
    "Until then the agent works from its old copy and may overwrite your edit the next time it "
    "saves this skill (it does so whenever it uses a skill, to record lastUsedAt)."
)



DEFER_FROM = 5_000  # skills from which watching and see-also candidates wait for the next event
EMPTY_TEXT = "Select a skill in the Library, or press Ctrl+P to go to one by name."
NO_LIBRARY_TEXT = ("No library is open. Open one with File ▸ Open Library… (Ctrl+O), or try the "
                   "demo library (File ▸ Open Demo Library).")
BODY_PLACEHOLDER = ("Write this skill's instructions in Markdown: when to use it, the steps to "
                    "follow, and an example. The summary above is what recall matches.")

def listed_names(library: Library) -> list[str]:
    """Skill names in RockBot's List order: the see-also candidates (a loader preparer too)."""
    return [s.name for s in library.listed()]

class NoticeBar(QFrame):
    """A strip above the editor with an icon, a message and buttons."""

    def __init__(self, name: str, icon: QStyle.StandardPixmap, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        size = self.fontMetrics().height() + 2
        self.icon = QLabel(self)
        self.icon.setPixmap(self.style().standardIcon(icon).pixmap(size, size))
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setObjectName(f"{name}Text")
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 10, 6)
        self._layout.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        self._layout.addWidget(self.text, 1)
        self.buttons: dict[str, QPushButton] = {}
        self.hide()

    def add_button(self, key: str, text: str, slot: Callable[[], None]) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(key)
        button.clicked.connect(lambda _checked=False: slot())
        self._layout.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.buttons[key] = button
        return button


class EditorPane(QWidget):
    """Header over a source editor and a preview (editor / split / preview layouts).

    ``remember`` keeps the layout mode and splitter sizes in the settings (off for screenshots).

    Signals:
        saveStateChanged(): whether Save / Save all can do something changed.
        modeChanged(str): the layout mode changed ("editor", "split" or "preview").
    """

    saveStateChanged = Signal()
    modeChanged = Signal(str)

    def __init__(self, ctx: AppContext, remember: bool = True,
                 parent: QWidget | None = None) -> None:
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
        self.watcher = LibraryWatcher(self)
        self.watcher.changed.connect(self.check_disk)

        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.currentSkillChanged.connect(self.show_skill)
        ctx.changeApplied.connect(self._on_change_applied)
        self._restore_settings()
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- construction

    def _build(self) -> None:
        self.empty = QWidget(self)
        empty_layout = QVBoxLayout(self.empty)
        self.empty_title = heading(QLabel("No skill open", self.empty), scale=1.25)
        self.empty_label = secondary(QLabel(EMPTY_TEXT, self.empty))
        self.empty_label.setObjectName("editorEmptyText")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_title, 0, Qt.AlignmentFlag.AlignHCenter)
        # Full width (text centred by the label): an aligned word-wrapped label gets one line's
        # height from the layout and clips its second line.
        empty_layout.addWidget(self.empty_label)
        empty_layout.addStretch(2)

        self.page = QWidget(self)
        self.header = SkillHeader(self.page)
        self.header.summaryEdited.connect(self._on_summary_edited)
        self.header.seeAlsoEdited.connect(self._on_see_also_edited)
        self.header.openSkill.connect(self._open_linked_skill)

        self.deleted_bar = NoticeBar("deletedBar", QStyle.StandardPixmap.SP_MessageBoxWarning,
                                     self.page)
        self.deleted_bar.add_button("restoreSkill", "&Restore", self.save)
        self.deleted_bar.add_button("closeSkill", "Close", self.close_current)
        self.agent_notice = NoticeBar("agentNotice", QStyle.StandardPixmap.SP_MessageBoxInformation,
                                      self.page)
        self.agent_notice.text.setText(AGENT_NOTICE)
        self.agent_notice.add_button("agentNoticeOk", "Got It", self.agent_notice.hide)

        self.blank = QTextDocument(self)
        self.blank.setDocumentLayout(QPlainTextDocumentLayout(self.blank))
        self.editor = SourceEditor(self.page)
        self.editor.setDocument(self.blank)
        self.editor.setPlaceholderText(BODY_PLACEHOLDER)  # shown while a skill's text is empty
        self.editor.setEnabled(False)
        self.preview = PreviewView(self.page)
        self.preview.linkRefused.connect(
            lambda url: self.ctx.status(f"Not opened: {url} (only web and mail links open "
                                        "from the preview)", 8000))
        self.preview.highlighted.connect(
            lambda url: self.ctx.status(url.toString(), 4000) if not url.isEmpty() else None)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self.page)
        self.splitter.setObjectName("editorSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.editor)
        self.splitter.addWidget(self.preview)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.find_bar = FindBar(self.page)
        self.find_bar.hide()
        self.find_bar.closed.connect(self._after_find_closed)

        rule = QFrame(self.page)
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)
        page_layout = QVBoxLayout(self.page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.setSpacing(0)
        page_layout.addWidget(self.header)
        page_layout.addWidget(self.deleted_bar)
        page_layout.addWidget(self.agent_notice)
        page_layout.addWidget(rule)
        page_layout.addWidget(self.splitter, 1)
        page_layout.addWidget(self.find_bar)

        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.page)
        self.resource_view = ResourceView(self.ctx, self)  # a skill's resource, read-only
        self.stack.addWidget(self.resource_view)

        self.editor.verticalScrollBar().valueChanged.connect(self._sync_from_editor)
        self.preview.verticalScrollBar().valueChanged.connect(self._sync_from_preview)

    @property
    def name(self) -> QLabel:
        """The header's name label (kept from the read-only skill pane this one replaced)."""
        return self.header.name

    @property
    def summary(self) -> SummaryEdit:
        """The header's summary field."""
        return self.header.summary

    def connect_actions(self, registry: ActionRegistry) -> None:
        """Wire this pane's commands (declared in :mod:`rockskills_gui.ui.common.actions`)."""
        for action_id, slot in (
            ("file.save", self.save),
            ("file.save_all", self.save_all),
            ("edit.find", self.find),
            ("edit.find_next", self.find_next),
            ("edit.find_previous", self.find_previous),
            ("edit.goto_skill", self.go_to_skill),
            ("view.layout_editor", lambda: self.set_mode("editor")),
            ("view.layout_split", lambda: self.set_mode("split")),
            ("view.layout_preview", lambda: self.set_mode("preview")),
            ("view.focus_editor", self.focus_editor),
            ("view.focus_preview", self.focus_preview),
            ("view.skill", None),
        ):
            self._actions[action_id] = registry[action_id]
            if slot is not None:
                registry.on(action_id, slot)
        self.set_mode(self.mode)  # check the layout action that is in force
        self._update_actions()

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
        stored = lib is None or lib.has_timestamps
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

    # ---------------------------------------------------------------- saving

    def save(self) -> bool:
        """Save the current skill; False if nothing was written (refused, or a conflict to settle)."""
        return self.current is not None and self.save_buffer(self.current)

    def save_all(self) -> bool:
        """Save every unsaved skill; False if any could not be saved."""
        ok = True
        for buffer in self.unsaved_buffers():
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
            self.check_disk([lib.skill_path(buffer.name)])
            if fold(buffer.name) in self._conflict_queue or buffer.deleted_on_disk:
                return False
            if not buffer.dirty:
                return True
            current = lib.entry(buffer.name).skill
            if buffer.clashes(current):  # the edits apply to an older version: never overwrite it unseen
                self._changed_by_app.add(fold(buffer.name))
                self._queue_conflict(buffer)
                return False
            edited = current.model_copy(update=buffer.edits())
            change = self.ctx.apply(lambda library: library.save(edited))
        if change is None:
            return False
        self._show_agent_notice_once()
        return True

    def _show_agent_notice_once(self) -> None:
        settings = self.ctx.settings
        if settings.value(AGENT_NOTICE_KEY, False, type=bool):
            return
        settings.setValue(AGENT_NOTICE_KEY, True)
        self.agent_notice.show()

    def close_current(self) -> None:
        """Let go of the current buffer (used for a skill deleted on disk)."""
        buffer = self.current
        if buffer is None:
            return
        self._drop(buffer)
        self._show_buffer(None)
        if fold(self.ctx.current_skill) == fold(buffer.name):
            self.ctx.select_skill("")
        self._watch_open_files()

    # ---------------------------------------------------------------- unsaved edits on quit

    def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None:
        """Run ``then`` once no edits would be lost: asks Save all / Discard / Cancel if needed."""
        unsaved = self.unsaved_buffers()
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
                          | QMessageBox.StandardButton.Cancel, self.window())
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

    # ---------------------------------------------------------------- changes from the library

    def _on_change_applied(self, change: ChangeSet) -> None:
        """Follow a change: our own save, another pane's operation, or news from disk."""
        lib = self.ctx.library
        if lib is None:
            return
        from_disk = change.empty  # only ctx.refresh_from_disk emits change sets without files
        if len(change.created) == 1 and change.label.startswith("Create "):
            self._created = change.created[0]  # focus its text when it is shown (show_skill)
        # Buffers follow renames and moves (all lifted first: a change may swap two names).
        moving = [(self.buffers.pop(fold(old), None), new) for old, new in change.renamed]
        for buffer, _new in moving:
            if buffer is not None:
                self.ctx.set_dirty(buffer.name, False)
        for buffer, new in moving:
            if buffer is None:
                continue
            fresh = self.buffers.get(fold(new))
            if fresh is not None and fresh.dirty:
                # The name was free because its skill was deleted under unsaved edits: those
                # edits are never dropped. A clean buffer gives way (the kept one then asks
                # about the skill now at its name); edits on both sides keep both open.
                if not buffer.dirty:
                    self._drop(buffer)
                    continue
                del self.buffers[fold(new)]
                self.buffers[f"{fold(new)}\0{id(fresh)}"] = fresh  # listed as unsaved
            elif fresh is not None:
                self._drop(fresh)  # opened under the new name a moment ago; the old one moves in
            buffer.name = new
            self.buffers[fold(new)] = buffer
            if buffer.dirty:
                self.ctx.set_dirty(new, True)
        for name in change.deleted:
            buffer = self.buffers.get(fold(name))
            if buffer is None:
                continue
            if from_disk:
                buffer.deleted_on_disk = True
                self.ctx.status(f"'{name}' was deleted on disk; it stays open here, marked", 10000)
                if buffer is self.current:
                    self._show_fields(buffer)
            elif buffer.dirty:
                # Kept open, marked: Save restores the skill with the edits, Discard drops them,
                # an undo of the operation brings the base back under them.
                buffer.deleted_by = f"{self.ctx.last_verb}{change.label}"
                self.ctx.status(f"'{name}' was deleted ({buffer.deleted_by}); your unsaved edits "
                                "are kept in the editor: save to restore it", 10000)
                if buffer is self.current:
                    self._show_fields(buffer)
            else:
                self._drop(buffer)
        touched = [*change.created, *change.updated, *(new for _old, new in change.renamed),
                   *change.links_rewritten]
        for name in touched:
            buffer = self.buffers.get(fold(name))
            skill = lib.get(name)
            if buffer is None or skill is None:
                continue
            self._follow(buffer, skill, from_disk)
        if change.created or change.deleted or change.renamed:
            self._refresh_candidates()
        self._watch_open_files()
        current = self.ctx.current_skill
        wanted = self.buffers.get(fold(current)) if current else None
        if wanted is not None and wanted is not self.current:
            self._show_buffer(wanted)
        elif self.current is not None:
            self._show_fields(self.current)
        self._update_actions()

    def _follow(self, buffer: Buffer, skill: Skill, from_disk: bool) -> None:
        """Take a new library version of ``buffer``'s skill, asking when edits would clash."""
        revived = buffer.deleted
        buffer.deleted_on_disk = False
        buffer.deleted_by = ""
        if from_disk and buffer.disk_conflicts(skill):
            self._queue_conflict(buffer)
            return
        if not from_disk and buffer.clashes(skill):
            # Another operation (a dream apply, an undo, a see-also rewrite) rewrote what the user
            # is editing: the edits are kept and nothing is saved until the user chooses.
            self._changed_by_app.add(fold(buffer.name))
            self._queue_conflict(buffer)
            return
        was_clean = not buffer.dirty
        self._keep_view(buffer, lambda: buffer.rebase(skill))
        if from_disk and not revived:
            self.ctx.status(f"'{skill.name}' changed on disk and was reloaded" if was_clean
                            else f"'{skill.name}' changed on disk (dates only); your unsaved "
                                 "edits are kept", 8000)

    def _keep_view(self, buffer: Buffer, change: Callable[[], None]) -> None:
        """Run ``change`` on ``buffer`` keeping the editor's cursor line and scroll position."""
        if buffer is not self.current:
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
            paths = self._open_paths()
        self.ctx.refresh_from_disk(paths)

    def _open_paths(self) -> list[Path]:
        lib = self.ctx.library
        if lib is None:
            return []
        return [lib.skill_path(b.name) for b in self.buffers.values() if not b.deleted_by]

    def _watch_open_files(self) -> None:
        self.watcher.set_files(self._open_paths())

    def _queue_conflict(self, buffer: Buffer) -> None:
        key = fold(buffer.name)
        if key not in self._conflict_queue:
            self._conflict_queue.append(key)
        if self.conflict_dialog is None:
            QTimer.singleShot(0, self._next_conflict)

    def _next_conflict(self) -> None:
        lib = self.ctx.library
        while self.conflict_dialog is None and self._conflict_queue and lib is not None:
            key = self._conflict_queue[0]
            buffer = self.buffers.get(key)
            disk = lib.get(key)
            if buffer is None or disk is None:
                self._conflict_queue.pop(0)
                continue
            dialog = DiskConflictDialog(buffer.name, buffer.base, buffer.edits(), disk, self.window(),
                                        by_app=key in self._changed_by_app)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.resolved.connect(lambda answer, k=key: self._resolve_conflict(k, answer))
            self.conflict_dialog = dialog
            dialog.open()

    def _resolve_conflict(self, key: str, answer: DiskResolution) -> None:
        self.conflict_dialog = None
        self._changed_by_app.discard(key)
        if key in self._conflict_queue:
            self._conflict_queue.remove(key)
        lib = self.ctx.library
        buffer = self.buffers.get(key)
        disk = lib.get(key) if lib is not None else None
        if buffer is not None and disk is not None:
            if answer.choice is DiskChoice.TAKE_DISK:
                self._keep_view(buffer, lambda: buffer.rebase(disk, take=set(EDITABLE_FIELDS)))
                self.ctx.status(f"'{buffer.name}': took the version on disk (Undo in the editor "
                                "brings your text back)", 8000)
            else:
                self._keep_view(buffer, lambda: buffer.rebase(disk, take=set()))
                if answer.choice is DiskChoice.MERGED and answer.fields is not None:
                    fields = answer.fields
                    self._keep_view(buffer, lambda: buffer.set_content(str(fields["content"])))
                    buffer.set_summary(str(fields["summary"]))
                    see_also = fields["see_also"]
                    buffer.set_see_also(tuple(see_also) if see_also else ())  # type: ignore[arg-type]
                    self.ctx.status(f"'{buffer.name}': merged; save to write the result", 8000)
                else:
                    self.ctx.status(f"'{buffer.name}': kept your version; saving will replace "
                                    "the version on disk", 8000)
            if buffer is self.current:
                self._show_fields(buffer)
        self._update_actions()
        QTimer.singleShot(0, self._next_conflict)

    # ---------------------------------------------------------------- layout, scroll sync, focus

    def set_mode(self, mode: str) -> None:
        """Show the editor, the preview, or both side by side ("editor", "preview", "split")."""
        if mode not in MODES:
            raise ValueError(f"unknown layout {mode!r} (expected one of {', '.join(MODES)})")
        self.mode = mode
        self.editor.setVisible(mode != "preview")
        self.preview.setVisible(mode != "editor")
        if self.remember:
            self.ctx.settings.setValue("editor/mode", mode)
        for key in MODES:
            action = self._actions.get(f"view.layout_{key}")
            if action is not None:
                action.setChecked(key == mode)
        if mode == "split":
            self._sync_from_editor()
        self.modeChanged.emit(mode)

    def _sync_from_editor(self) -> None:
        if self._syncing or self.mode != "split" or self.current is None:
            return
        self._syncing = True
        try:
            bar = self.editor.verticalScrollBar()
            target = self.preview.verticalScrollBar()
            if bar.value() >= bar.maximum() > 0:
                target.setValue(target.maximum())
            else:
                self.preview.scroll_to_line(self.editor.top_line())
        finally:
            self._syncing = False

    def _sync_from_preview(self) -> None:
        if self._syncing or self.mode != "split" or self.current is None:
            return
        self._syncing = True
        try:
            bar = self.preview.verticalScrollBar()
            if bar.value() >= bar.maximum() > 0:
                editor_bar = self.editor.verticalScrollBar()
                editor_bar.setValue(editor_bar.maximum())
            else:
                self.editor.scroll_to_line(self.preview.top_line())
        finally:
            self._syncing = False

    def _bring_forward(self) -> None:
        action = self._actions.get("view.skill")
        if action is not None:
            action.trigger()

    def focus_editor(self) -> None:
        if self.current is None:
            return
        self._bring_forward()
        if self.mode == "preview":
            self.set_mode("split")
        self.editor.setFocus()

    def focus_preview(self) -> None:
        if self.current is None:
            return
        self._bring_forward()
        if self.mode == "editor":
            self.set_mode("split")
        self.preview.setFocus()

    def find(self) -> None:
        """Open the find bar on the editor (or the preview when it has focus or is alone)."""
        if self.current is None:
            return
        self._bring_forward()
        use_preview = self.mode == "preview" or (self.preview.hasFocus() and self.mode == "split")
        self.find_bar.open_on(self.preview if use_preview else self.editor)

    def find_next(self) -> None:
        if self.find_bar.isVisible():
            self.find_bar.find_next()
        else:
            self.find()

    def find_previous(self) -> None:
        if self.find_bar.isVisible():
            self.find_bar.find_previous()
        else:
            self.find()

    def _after_find_closed(self) -> None:
        target = self.find_bar.target
        if target is not None and target.isVisible():
            target.setFocus()

    def go_to_skill(self) -> None:
        """Open the fuzzy "go to skill" finder."""
        lib = self.ctx.library
        if lib is None:
            return
        names = [s.name for s in lib.listed()]
        names += [b.name for b in self.buffers.values() if b.deleted and b.dirty]  # still open

        def summary_of(name: str) -> str:
            skill = lib.get(name)
            return (skill.summary or "(summary pending)") if skill is not None else ""

        dialog = GoToSkillDialog(names, summary_of, self.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(self._go_to)
        dialog.destroyed.connect(self._forget_goto)
        self.goto_dialog = dialog
        dialog.open()

    def _forget_goto(self) -> None:
        self.goto_dialog = None

    def _go_to(self, name: str) -> None:
        if self.ctx.select_skill(name):
            self.focus_editor()
