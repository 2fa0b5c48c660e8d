"""The Skill tab's widgets: the empty page, the header, notice bars, the source editor and the
preview side by side, the find bar and the resource view; and the state the editor pane's
parts share. ``EditorLayout`` is the base of ``EditorPane``'s mixins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
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

from rockskills_gui.ui.common.buffers import Buffer
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.library_watcher import LibraryWatcher
from rockskills_gui.ui.editor.editor_face import EmptySkillPage
from rockskills_gui.ui.editor.preview_view import PreviewView
from rockskills_gui.ui.editor.resource_view import ResourceView
from rockskills_gui.ui.editor.skill_header import SkillHeader
from rockskills_gui.ui.editor.source_editor import FindBar, SourceEditor

BODY_PLACEHOLDER = ("Write this skill's instructions in Markdown: when to use it, the steps to "
                    "follow, and an example. The summary above is what recall matches.")

if TYPE_CHECKING:
    from rockskills_gui.ui.common.goto_skill import GoToSkillDialog
    from rockskills_gui.ui.editor.disk_conflict import DiskConflictDialog

if TYPE_CHECKING:  # the pane is a QWidget; at run time this is a plain mixin
    _PaneBase = QWidget
else:
    _PaneBase = object


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

    def add_button(self, key: str, text: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(key)
        button.clicked.connect(lambda _checked=False: slot())
        self._layout.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.buttons[key] = button
        return button


class EditorLayout(_PaneBase):
    """Builds the widgets of ``EditorPane``; declares the state that its parts share."""

    ctx: AppContext
    remember: bool
    buffers: dict[str, Buffer]  # fold(name) -> buffer, least recently shown first
    current: Buffer | None
    mode: str
    watcher: LibraryWatcher
    conflict_dialog: DiskConflictDialog | None
    unsaved_prompt: QMessageBox | None
    goto_dialog: GoToSkillDialog | None
    _conflict_queue: list[str]
    _changed_by_app: set[str]
    _recreated: set[str]
    _actions: dict[str, QAction]
    _syncing: bool

    if TYPE_CHECKING:  # behaviour from the other parts (EditorPane and its mixins)
        def _on_summary_edited(self, text: str) -> None: ...
        def _on_see_also_edited(self, names: tuple[str, ...]) -> None: ...
        def _open_linked_skill(self, name: str) -> None: ...
        def _drop(self, buffer: Buffer) -> None: ...
        def _show_buffer(self, buffer: Buffer | None) -> None: ...
        def _show_fields(self, buffer: Buffer) -> None: ...
        def _refresh_candidates(self, names: list[str] | None = None) -> None: ...
        def _update_actions(self) -> None: ...
        def unsaved_buffers(self) -> list[Buffer]: ...
        def save(self) -> bool: ...
        def save_all(self) -> bool: ...
        def close_current(self) -> None: ...
        def check_disk(self, paths: list[Path] | None = None) -> None: ...
        def _watch_open_files(self) -> None: ...
        def _queue_conflict(self, buffer: Buffer) -> None: ...
        def _after_find_closed(self) -> None: ...
        def _sync_from_editor(self) -> None: ...
        def _sync_from_preview(self) -> None: ...
        def focus_editor(self) -> None: ...

    # ---------------------------------------------------------------- construction

    def _build(self) -> None:
        self.empty = EmptySkillPage(self)
        self.empty_title, self.empty_label = self.empty.title, self.empty.label

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
        # (its text is the open library's own note: core.model.agent_note)
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
