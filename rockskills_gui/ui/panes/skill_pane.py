"""Skill tab: the current skill, read-only (plug point for the editor and live preview)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.changes import ChangeSet
from rockskills_gui.core.names import fold
from rockskills_gui.core.skill import Skill
from rockskills_gui.core.timestamps import Timestamp
from rockskills_gui.ui.context import AppContext
from rockskills_gui.ui.theme import heading, monospace, secondary


def _when(value: Timestamp | None) -> str:
    return value.to_datetime().strftime("%Y-%m-%d %H:%M") if value is not None else "never"


class SkillPane(QWidget):
    """Header (name, summary, see also, dates) over the Markdown content, read-only for now."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skillPane")
        self.ctx = ctx

        self.empty = QWidget(self)
        empty_layout = QVBoxLayout(self.empty)
        self.empty_label = secondary(QLabel("Select a skill in the Library to see it here.",
                                            self.empty))
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_label, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(2)

        self.page = QWidget(self)
        self.name = heading(QLabel(self.page))
        self.summary = QLabel(self.page)
        self.summary.setWordWrap(True)
        self.see_also = QLabel(self.page)
        self.see_also.setWordWrap(True)
        self.dates = secondary(QLabel(self.page))
        self.content = monospace(QPlainTextEdit(self.page))
        self.content.setObjectName("skillContent")
        self.content.setReadOnly(True)
        self.note = secondary(QLabel("Read-only view. The Markdown editor with live preview "
                                     "replaces it in a later version.", self.page))
        form = QFormLayout()
        form.addRow("Summary:", self.summary)
        form.addRow("See also:", self.see_also)
        form.addRow("Dates:", self.dates)
        page_layout = QVBoxLayout(self.page)
        page_layout.addWidget(self.name)
        page_layout.addLayout(form)
        page_layout.addWidget(self.content, 1)
        page_layout.addWidget(self.note)

        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.page)

        ctx.currentSkillChanged.connect(self.show_skill)
        ctx.changeApplied.connect(self._on_change_applied)
        self.show_skill(ctx.current_skill)

    def show_skill(self, name: str) -> None:
        lib = self.ctx.library
        skill = lib.get(name) if lib is not None and name else None
        if skill is None:
            self.stack.setCurrentWidget(self.empty)
            return
        self._fill(skill)
        self.stack.setCurrentWidget(self.page)

    def _fill(self, skill: Skill) -> None:
        self.name.setText(skill.name)
        words = len((skill.summary or "").split())
        self.summary.setText(f"{skill.summary}  ({words}/15 words)" if skill.summary
                             else "(summary pending)")
        self.see_also.setText(", ".join(skill.see_also) if skill.see_also else "—")
        self.dates.setText(f"created {_when(skill.created_at)} · updated "
                           f"{_when(skill.updated_at)} · last used {_when(skill.last_used_at)}")
        self.content.setPlainText(skill.content or "")

    def _on_change_applied(self, change: ChangeSet) -> None:
        current = fold(self.ctx.current_skill)
        if current and any(fold(name) == current for name in change.touched_names()):
            self.show_skill(self.ctx.current_skill)
