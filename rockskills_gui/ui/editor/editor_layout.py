"""The Skill tab's widgets: the empty page, the header, notice bars, the source editor and the
preview side by side, the find bar and the resource view (:class:`EditorWidgets`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextDocumentLayout,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.editor_face import EmptySkillPage
from rockskills_gui.ui.editor.preview_view import PreviewView
from rockskills_gui.ui.editor.resource_view import ResourceView
from rockskills_gui.ui.editor.skill_header import SkillHeader
from rockskills_gui.ui.editor.source_editor import FindBar, SourceEditor

BODY_PLACEHOLDER = ("Write this skill's instructions in Markdown: when to use it, the steps to "
                    "follow, and an example. The summary above is what recall matches.")

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


class EditorWidgets:
    """The widgets of ``EditorPane``, built on ``pane``: a stack of the empty page, the skill's
    page (header, notice bars, source editor and preview side by side, find bar) and the
    resource view. The pane connects what they do."""

    def __init__(self, pane: QWidget, ctx: AppContext) -> None:
        self.empty = EmptySkillPage(pane)
        self.page = QWidget(pane)
        self.header = SkillHeader(self.page)
        self.deleted_bar = NoticeBar("deletedBar", QStyle.StandardPixmap.SP_MessageBoxWarning,
                                     self.page)
        self.agent_notice = NoticeBar("agentNotice", QStyle.StandardPixmap.SP_MessageBoxInformation,
                                      self.page)
        # (its text is the open library's own note: core.model.agent_note)
        self.agent_notice.add_button("agentNoticeOk", "Got It", self.agent_notice.hide)

        self.blank = QTextDocument(pane)
        self.blank.setDocumentLayout(QPlainTextDocumentLayout(self.blank))
        self.editor = SourceEditor(self.page)
        self.editor.setDocument(self.blank)
        self.editor.setPlaceholderText(BODY_PLACEHOLDER)  # shown while a skill's text is empty
        self.editor.setEnabled(False)
        self.preview = PreviewView(self.page)
        self.preview.linkRefused.connect(
            lambda url: ctx.status(f"Not opened: {url} (only web and mail links open "
                                   "from the preview)", 8000))
        self.preview.highlighted.connect(
            lambda url: ctx.status(url.toString(), 4000) if not url.isEmpty() else None)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self.page)
        self.splitter.setObjectName("editorSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.editor)
        self.splitter.addWidget(self.preview)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.find_bar = FindBar(self.page)
        self.find_bar.hide()

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

        self.stack = QStackedLayout(pane)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.page)
        self.resource_view = ResourceView(ctx, pane)  # a skill's resource, read-only
        self.stack.addWidget(self.resource_view)
