"""The dialog shown when a skill with unsaved edits changed on disk: keep yours, take theirs, merge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.text.merge import MINE_MARKER, SEPARATOR, THEIRS_MARKER, merge3, unified_diff
from rockskills_gui.ui.common.buffers import EditableFields
from rockskills_gui.ui.common.markdown_highlighter import blend
from rockskills_gui.ui.common.theme import heading, monospace, secondary


class DiskChoice(Enum):
    KEEP_MINE = "keep-mine"
    TAKE_DISK = "take-disk"
    MERGED = "merged"


@dataclass(frozen=True)
class DiskResolution:
    """The user's answer; ``fields`` holds summary/content/see_also for a merge."""

    choice: DiskChoice
    fields: EditableFields | None = None


def skill_text(summary: str | None, see_also: Sequence[str] | None, content: str | None) -> str:
    """A skill's editable fields as one text, for the diff."""
    names = ", ".join(see_also) if see_also else "—"
    return f"Summary: {summary or ''}\nSee also: {names}\n\n{content or ''}"


T = TypeVar("T")


def _pick(base: T, mine: T, theirs: T) -> T:
    """Field-level three-way choice: a side that changed wins; both changed: mine."""
    if mine == base:
        return theirs
    return mine


class DiffHighlighter(QSyntaxHighlighter):
    """Colours a unified diff from the palette: additions, removals, hunk headers, conflicts."""

    def __init__(self, document: QTextDocument, palette: QPalette) -> None:
        super().__init__(document)
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        self.added = QTextCharFormat()
        self.added.setBackground(blend(base, palette.color(QPalette.ColorRole.Highlight), 0.22))
        self.removed = QTextCharFormat()
        self.removed.setBackground(blend(base, text, 0.1))
        self.removed.setForeground(blend(text, base, 0.3))
        self.meta = QTextCharFormat()
        self.meta.setForeground(palette.color(QPalette.ColorRole.Link))
        self.meta.setFontWeight(QFont.Weight.Bold)

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---", "@@")) or text in (MINE_MARKER, SEPARATOR, THEIRS_MARKER):
            self.setFormat(0, len(text), self.meta)
        elif text.startswith("+"):
            self.setFormat(0, len(text), self.added)
        elif text.startswith("-"):
            self.setFormat(0, len(text), self.removed)


class DiskConflictDialog(QDialog):
    """Shows how the disk version differs from the user's unsaved edits and asks what to keep.

    Closing the dialog keeps the user's version (nothing is lost; the buffer stays unsaved).

    Signals:
        resolved(object): a :class:`DiskResolution`.
    """

    resolved = Signal(object)

    def __init__(self, name: str, base: Skill, mine: EditableFields, disk: Skill,
                 parent: QWidget | None = None, by_app: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("diskConflictDialog")
        self.by_app = by_app  # changed by another operation in the app, not by another program
        self.setWindowTitle(f"'{name}' changed by another operation" if by_app
                            else f"'{name}' changed on disk")
        self.setModal(True)
        self.name = name
        self.base = base
        self.mine = mine
        self.disk = disk
        self._answered = False
        self._confirm_markers = False

        self.pages = QStackedWidget(self)
        self.pages.addWidget(self._build_choice_page())
        self.pages.addWidget(self._build_merge_page())
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages)
        self.resize(900, 620)

    # ---------------------------------------------------------------- pages

    def _build_choice_page(self) -> QWidget:
        page = QWidget(self)
        if self.by_app:
            title = heading(QLabel(f"'{self.name}' was changed by another operation", page), scale=1.2)
            explain = QLabel(
                "Another operation in this window (an applied dream plan, a rename's see-also "
                "rewrite, an undo or redo) rewrote this skill while you have unsaved edits. "
                "Below: what differs between the library's new version (−) and your version "
                "(+). Nothing is saved until you choose.", page)
        else:
            title = heading(QLabel(f"'{self.name}' was changed on disk", page), scale=1.2)
            explain = QLabel(
                "Another program (a running agent, an editor, a sync tool) wrote this skill's file "
                "while you have unsaved edits. Below: what differs between the file on disk "
                "(−) and your version (+).", page)
        explain.setWordWrap(True)
        mine_text = skill_text(self.mine["summary"], self.mine["see_also"], self.mine["content"])
        disk_text = skill_text(self.disk.summary, self.disk.see_also, self.disk.content)
        self.diff = monospace(QPlainTextEdit(page))
        self.diff.setObjectName("diskDiff")
        self.diff.setReadOnly(True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setPlainText(unified_diff(disk_text, mine_text, "on disk", "yours")
                               or "(the texts are the same; only dates differ)")
        self._diff_highlighter = DiffHighlighter(self.diff.document(), self.palette())
        self.keep_button = QPushButton("&Keep My Version", page)
        self.keep_button.setObjectName("keepMine")
        self.keep_button.setToolTip("Keep your edits (unsaved); saving will replace the disk version")
        self.take_button = QPushButton("&Take Disk Version", page)
        self.take_button.setObjectName("takeDisk")
        self.take_button.setToolTip("Discard your unsaved edits and show the file as it is on disk "
                                    "(Undo in the editor brings your text back)")
        self.merge_button = QPushButton("&Merge…", page)
        self.merge_button.setObjectName("mergeButton")
        self.merge_button.setToolTip("Combine both versions and edit the result")
        self.keep_button.clicked.connect(lambda: self._answer(DiskResolution(DiskChoice.KEEP_MINE)))
        self.take_button.clicked.connect(lambda: self._answer(DiskResolution(DiskChoice.TAKE_DISK)))
        self.merge_button.clicked.connect(lambda: self.pages.setCurrentIndex(1))
        buttons = QHBoxLayout()
        buttons.addWidget(self.merge_button)
        buttons.addStretch(1)
        buttons.addWidget(self.take_button)
        buttons.addWidget(self.keep_button)
        self.keep_button.setDefault(True)
        layout = QVBoxLayout(page)
        layout.addWidget(title)
        layout.addWidget(explain)
        layout.addWidget(self.diff, 1)
        layout.addLayout(buttons)
        return page

    def _build_merge_page(self) -> QWidget:
        page = QWidget(self)
        merged = merge3(self.base.content or "", self.mine["content"] or "",
                        self.disk.content or "")
        summary = _pick(self.base.summary or "", self.mine["summary"] or "", self.disk.summary or "")
        self.merged_see_also = _pick(self.base.see_also, self.mine["see_also"], self.disk.see_also)
        note = ("Edit the result on the right; the disk version is on the left. "
                + (f"{merged.conflicts} conflicting region(s) are marked <<<<<<< yours … "
                   "======= … >>>>>>> on disk." if merged.conflicts
                   else "Both sets of changes were combined without conflicts."))
        self.merge_note = QLabel(note, page)
        self.merge_note.setWordWrap(True)
        self.merge_note.setObjectName("mergeNote")
        self.merge_summary = QLineEdit(summary, page)
        self.merge_summary.setObjectName("mergeSummary")
        self.disk_view = monospace(QPlainTextEdit(page))
        self.disk_view.setObjectName("mergeDisk")
        self.disk_view.setReadOnly(True)
        self.disk_view.setPlainText(self.disk.content or "")
        self.result_edit = monospace(QPlainTextEdit(page))
        self.result_edit.setObjectName("mergeResult")
        self.result_edit.setPlainText(merged.text)
        self._merge_highlighter = DiffHighlighter(self.result_edit.document(), self.palette())
        splitter = QSplitter(Qt.Orientation.Horizontal, page)
        for label, widget in (("On disk (read-only)", self.disk_view), ("Result", self.result_edit)):
            column = QWidget(splitter)
            column_layout = QVBoxLayout(column)
            column_layout.setContentsMargins(0, 0, 0, 0)
            column_layout.addWidget(secondary(QLabel(label, column)))
            column_layout.addWidget(widget)
            splitter.addWidget(column)
        back = QPushButton("&Back", page)
        back.clicked.connect(lambda: self.pages.setCurrentIndex(0))
        self.use_button = QPushButton("&Use Result", page)
        self.use_button.setObjectName("useMerge")
        self.use_button.setDefault(True)
        self.use_button.clicked.connect(self._use_merge)
        summary_row = QHBoxLayout()
        summary_row.addWidget(secondary(QLabel("Summary", page)))
        summary_row.addWidget(self.merge_summary, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(back)
        buttons.addStretch(1)
        buttons.addWidget(self.use_button)
        layout = QVBoxLayout(page)
        layout.addWidget(self.merge_note)
        layout.addLayout(summary_row)
        layout.addWidget(splitter, 1)
        layout.addLayout(buttons)
        return page

    # ---------------------------------------------------------------- answers

    def _use_merge(self) -> None:
        text = self.result_edit.toPlainText()
        markers = [line for line in text.splitlines() if line in (MINE_MARKER, THEIRS_MARKER)]
        if markers and not self._confirm_markers:
            self._confirm_markers = True
            self.merge_note.setText("The result still has conflict markers (<<<<<<< yours / "
                                    ">>>>>>> on disk). Edit them away, or press Use Result again "
                                    "to keep them as they are.")
            return
        self._answer(DiskResolution(DiskChoice.MERGED, {
            "summary": self.merge_summary.text(),
            "content": text,
            "see_also": self.merged_see_also,
        }))

    def _answer(self, resolution: DiskResolution) -> None:
        if self._answered:
            return
        self._answered = True
        self.resolved.emit(resolution)
        self.accept()

    def reject(self) -> None:
        self._answer(DiskResolution(DiskChoice.KEEP_MINE))
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        self._answer(DiskResolution(DiskChoice.KEEP_MINE))
        super().closeEvent(event)
