"""The header above the editor: name, summary with a word counter, see-also chips, dates."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QStyle, QWidget

from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY, SummaryRule
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp
from rockskills_gui.ui.common.theme import heading, secondary
from rockskills_gui.ui.editor.see_also_editor import Chip, FlowLayout, SeeAlsoEditor
from rockskills_gui.ui.editor.summary_edit import SummaryEdit

__all__ = [  # names that lived here before the header was split
    "Chip", "FlowLayout", "SeeAlsoEditor", "SkillHeader", "SummaryEdit", "local_time", "utc_text",
]


def local_time(value: Timestamp | None) -> str:
    """``2026-06-10 15:22`` in the local time zone; "never" / "unknown" when there is none."""
    if value is None:
        return "never"
    if value == MIN_VALUE:
        return "unknown"
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")


def utc_text(value: Timestamp | None) -> str:
    """The stored value as UTC text (what the file says, in UTC)."""
    if value is None:
        return "not set (null in the file)"
    return f"{value.to_utc().isoformat()} (UTC)"


class SkillHeader(QWidget):
    """Name, badges, summary (with its word counter), see-also chips and dates of one skill.

    Signals:
        summaryEdited(str), seeAlsoEdited(tuple): the user changed a field.
        openSkill(str): a see-also chip was clicked.
    """

    summaryEdited = Signal(str)
    seeAlsoEdited = Signal(tuple)
    openSkill = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skillHeader")
        self.name = heading(QLabel(self), scale=1.45)
        self.name.setObjectName("skillName")
        self.name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.badge = QLabel(self)
        self.badge.setObjectName("skillBadge")
        self.badge.setStyleSheet("#skillBadge { border: 1px solid palette(mid); border-radius: 8px;"
                                 " padding: 0px 7px; background: palette(alternate-base); }")
        self.badge.hide()
        self.created = secondary(QLabel(self))
        self.updated = secondary(QLabel(self))
        self.last_used = secondary(QLabel(self))
        for label, name in ((self.created, "createdAt"), (self.updated, "updatedAt"),
                            (self.last_used, "lastUsedAt")):
            label.setObjectName(name)

        self.summary = SummaryEdit(self)
        self.summary.setObjectName("summaryEdit")
        self.summary.setPlaceholderText("No summary: RockBot lists this skill as "
                                        "\"(summary pending)\"")
        self.summary.textEdited.connect(self._on_summary_edited)
        self.summary.textChangedTo.connect(self._update_word_count)
        self.rule: SummaryRule = ROCKBOT_SUMMARY
        self.word_count = QLabel(self)
        self.word_count.setObjectName("summaryWordCount")
        self.word_warning = QLabel(self)
        self.word_warning.setObjectName("summaryWordWarning")
        size = self.fontMetrics().height()
        self.word_warning.setPixmap(self.style().standardIcon(
            QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size, size))
        self.word_warning.hide()
        self.see_also = SeeAlsoEditor(self)
        self.see_also.edited.connect(self.seeAlsoEdited)
        self.see_also.activated.connect(self.openSkill)

        top = QHBoxLayout()
        top.setSpacing(10)
        top.addWidget(self.name)
        top.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignVCenter)
        top.addStretch(1)
        self._dots: list[QLabel] = []
        for index, label in enumerate((self.created, self.updated, self.last_used)):
            if index:
                dot = secondary(QLabel("·", self))
                self._dots.append(dot)
                top.addWidget(dot)
            top.addWidget(label)
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)
        self.summary_label = summary_label = secondary(QLabel("Summary", self))
        see_also_label = secondary(QLabel("See also", self))
        grid.addWidget(summary_label, 0, 0, Qt.AlignmentFlag.AlignTop)
        summary_row = QHBoxLayout()
        summary_row.addWidget(self.summary, 1)
        summary_row.addWidget(self.word_warning, 0, Qt.AlignmentFlag.AlignTop)
        summary_row.addWidget(self.word_count, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(summary_row, 0, 1)
        grid.addWidget(see_also_label, 1, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.see_also, 1, 1)
        self.files_label = secondary(QLabel("Files", self))
        self.files = QLabel(self)
        self.files.setObjectName("skillFiles")
        self.files.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.files.setWordWrap(True)
        grid.addWidget(self.files_label, 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.files, 2, 1)
        self.files_label.hide()
        self.files.hide()
        grid.setColumnStretch(1, 1)
        layout = QGridLayout(self)
        layout.setContentsMargins(14, 10, 14, 8)
        layout.setVerticalSpacing(8)
        layout.addLayout(top, 0, 0)
        layout.addLayout(grid, 1, 0)

    # ---------------------------------------------------------------- showing

    def show_fields(self, name: str, summary: str, see_also: Sequence[str] | None,
                    exists: Callable[[str], bool]) -> None:
        """Show the editable fields (the summary field keeps its cursor when unchanged)."""
        self.name.setText(name)
        if self.summary.text() != summary:
            self.summary.setText(summary)
            self.summary.setCursorPosition(0)  # a long description shows from its start
        self.see_also.set_names(list(see_also or ()), exists)

    def show_dates(self, created: Timestamp, updated: Timestamp | None,
                   last_used: Timestamp | None, stored: bool = True) -> None:
        """RockBot's three dates; with ``stored=False`` (SKILL.md: no dates in the file) only the
        file's modification time, which ``created`` then carries."""
        rows: tuple[tuple[QLabel, str, Timestamp | None], ...] = (
            (self.created, "created", created), (self.updated, "updated", updated),
            (self.last_used, "last used", last_used))
        if not stored:
            rows = ((self.created, "file modified", created),)
        for label, word, value in rows:
            label.setText(f"{word} {local_time(value)}")
            label.setToolTip(f"{word.capitalize()}: {local_time(value)} local time\n"
                             f"{utc_text(value)}")
        for widget in (self.updated, self.last_used, *self._dots):
            widget.setVisible(stored)

    def show_files(self, files: Sequence[str], shown: int = 8) -> None:
        """A SKILL.md skill's resource files (scripts/, references/, assets/ ...); hidden if none."""
        text = ", ".join(files[:shown])
        if len(files) > shown:
            text += f" and {len(files) - shown} more"
        self.files.setText(text)
        self.files.setToolTip("\n".join(files))
        self.files_label.setText(f"Files ({len(files)})" if files else "Files")
        for widget in (self.files, self.files_label):
            widget.setVisible(bool(files))

    def set_read_only(self, read_only: bool) -> None:
        self.summary.setReadOnly(read_only)
        self.see_also.setEnabled(not read_only)

    def show_badge(self, text: str) -> None:
        self.badge.setText(text)
        self.badge.setVisible(bool(text))

    # ---------------------------------------------------------------- summary

    def _on_summary_edited(self, text: str) -> None:
        self.summaryEdited.emit(text)

    def set_summary_rule(self, rule: SummaryRule) -> None:
        """Show the open library's own rule for the summary (RockBot: 15 words; Agent Skills: a
        description of 1024 characters; some formats: no limit)."""
        self.rule = rule
        self.summary.set_multi_line(rule.unit != "words")  # RockBot's summary stays one line
        self.summary_label.setText(rule.field.capitalize())
        self.summary.setPlaceholderText(
            "No summary: RockBot lists this skill as \"(summary pending)\"" if rule.unit == "words"
            else f"No {rule.field}")
        self._update_word_count(self.summary.text())

    def _update_word_count(self, text: str) -> None:
        rule = self.rule
        over = rule.over(text)
        self.word_count.setText(rule.counter(text))
        font = self.word_count.font()
        font.setBold(over)
        self.word_count.setFont(font)
        self.word_count.setForegroundRole(QPalette.ColorRole.WindowText if over
                                          else QPalette.ColorRole.PlaceholderText)
        self.word_warning.setVisible(over)
        tip = rule.hint(text)
        self.word_count.setToolTip(tip)
        self.word_warning.setToolTip(tip)

    @property
    def word_limit_exceeded(self) -> bool:
        return not self.word_warning.isHidden()
