"""Dialogs of the skill tree: new skill, rename/move preview, move to folder, delete, raw file.

They only ask; the tree pane applies the answer through ``ctx.apply`` (one undoable operation).
All are opened with ``open()`` (window-modal, non-blocking), so tests drive them as widgets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Reference
from rockskills_gui.core.model.names import fold, name_error
from rockskills_gui.core.model.skill import decode_file_text
from rockskills_gui.core.storage import fileio
from rockskills_gui.ui.common.theme import heading, monospace, secondary

SHOWN_LIMIT = 500  # rows listed in a preview; the rest are counted
RAW_LIMIT = 2_000_000  # bytes of a problem file shown


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def fit_height(dialog: QDialog) -> None:
    """Give word-wrapped labels the lines their text needs at the dialog's width.

    A window's layout sets only its minimum size, which ignores height-for-width: a label
    that wraps (or a message shown later) would be squeezed and clipped at top and bottom.
    """
    layout = dialog.layout()
    if layout is None:
        return
    layout.activate()
    width = dialog.width()
    needed = (layout.totalHeightForWidth(width) if layout.hasHeightForWidth()
              else layout.totalSizeHint().height())
    dialog.setMinimumHeight(needed)
    if dialog.height() < needed:
        dialog.resize(width, needed)


class NewSkillDialog(QDialog):
    """Name (validated live with RockBot's rules and messages) and an optional summary.

    ``check(name)`` adds the library's own refusals (name taken, claimed by a problem file).

    The name starts with ``prefix`` (the chosen folder, e.g. ``web/``), cursor at the end, so a
    bare name typed lands in that folder. A user who types or pastes the full name after it
    (``web/`` + ``web/scraper``) gets it once, not ``web/web/scraper``: while the field still
    begins with the untouched prefix, a repeat of it right after is dropped (once).
    """

    def __init__(self, prefix: str, check: Callable[[str], str | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("newSkillDialog")
        self.setWindowTitle("New Skill")
        self._check = check
        self._prefix = prefix
        self._undouble = bool(prefix)  # until the prefix is edited, or a repeat was dropped
        self.name = QLineEdit(prefix, self)
        self.name.setObjectName("newSkillName")
        self.name.setPlaceholderText("folder/skill-name")
        self.summary = QLineEdit(self)
        self.summary.setObjectName("newSkillSummary")
        self.summary.setPlaceholderText("optional: what it does and when to use it (≤ 15 words)")
        self.message = QLabel(self)
        self.message.setObjectName("newSkillMessage")
        self.message.setWordWrap(True)
        hint = secondary(QLabel("Letters, digits, '-' and '_'; '/' makes folders. "
                                "Case-insensitive, as in RockBot.", self))
        hint.setObjectName("newSkillHint")
        hint.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("&Name:", self.name)
        form.addRow("", hint)
        form.addRow("&Summary:", self.summary)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.name.textEdited.connect(self._keep_one_prefix)
        self.name.textChanged.connect(self._validate)
        self.resize(520, self.sizeHint().height())
        self._validate()  # (and fits the height to the wrapped hint)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            fit_height(self)

    def _keep_one_prefix(self, text: str) -> None:
        """Drop a typed or pasted repeat of the pre-filled folder prefix (see the class)."""
        if not self._undouble:
            return
        prefix = self._prefix
        if fold(text[:len(prefix)]) != fold(prefix):
            self._undouble = False  # the user edited the prefix: what they type is theirs
            return
        if fold(text[len(prefix):2 * len(prefix)]) == fold(prefix):
            self._undouble = False
            cursor = self.name.cursorPosition()
            self.name.setSelection(0, len(prefix))
            self.name.del_()  # (an edit, so Ctrl+Z in the field brings it back)
            self.name.setCursorPosition(max(0, cursor - len(prefix)))

    def error(self) -> str | None:
        """RockBot's message for the name (or the library's refusal); None when it can be created."""
        name = self.name.text()
        if not name.strip() or name.endswith("/"):
            return "Type a name." if not name.strip() else "Add the skill's name after the '/'."
        return name_error(name) or self._check(name)

    def _validate(self) -> None:
        error = self.error()
        self.ok.setEnabled(error is None)
        self.message.setText(error or "")
        self.message.setVisible(error is not None)
        fit_height(self)

    def accept(self) -> None:
        if self.error() is None:
            super().accept()


class RenamePreviewDialog(QDialog):
    """What a rename or move will do: every renamed skill and every see-also it rewrites."""

    def __init__(self, mapping: Mapping[str, str], references: Sequence[Reference],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("renamePreview")
        single = len(mapping) == 1
        old, new = next(iter(mapping.items()))
        verb = "Rename" if single and "/".join(old.split("/")[:-1]) == "/".join(
            new.split("/")[:-1]) else "Move"
        self.setWindowTitle(f"{verb} {_plural(len(mapping), 'skill')}")
        title = (f"{verb} '{old}' to '{new}'" if single
                 else f"{verb} {_plural(len(mapping), 'skill')}")
        self.title = heading(QLabel(title, self), 1.15)
        self.title.setWordWrap(True)

        self.renames = QTreeWidget(self)
        self.renames.setObjectName("renameList")
        self.renames.setHeaderLabels(["Skill", "New name"])
        self._fill(self.renames, [(a, b) for a, b in mapping.items()])
        renamed = {fold(a): b for a, b in mapping.items()}
        self.references = QTreeWidget(self)
        self.references.setObjectName("referenceList")
        self.references.setHeaderLabels(["See-also in", "Entry becomes"])
        self._fill(self.references, [
            (renamed.get(fold(r.referrer), r.referrer), f"{r.target} → {renamed[fold(r.target)]}")
            for r in references])
        refs = (f"{_plural(len(references), 'see-also reference')} will be rewritten:"
                if references else "No see-also reference names these skills.")
        self.references.setVisible(bool(references))
        note = secondary(QLabel("One undoable change (Edit → Undo). Renamed skills get a new "
                                "updatedAt; skills whose see-also is rewritten keep theirs.", self))
        note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText(verb)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        if not single:
            layout.addWidget(QLabel(f"{_plural(len(mapping), 'skill')} will be renamed:", self))
            layout.addWidget(self.renames, 1)
        else:
            self.renames.hide()
        layout.addWidget(QLabel(refs, self))
        layout.addWidget(self.references, 1)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        self.resize(640, 420 if (references or not single) else 180)

    @staticmethod
    def _fill(widget: QTreeWidget, rows: list[tuple[str, str]]) -> None:
        widget.setRootIsDecorated(False)
        widget.setUniformRowHeights(True)
        widget.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        items = [QTreeWidgetItem([a, b]) for a, b in rows[:SHOWN_LIMIT]]
        if len(rows) > SHOWN_LIMIT:
            items.append(QTreeWidgetItem([f"… and {len(rows) - SHOWN_LIMIT} more", ""]))
        widget.addTopLevelItems(items)
        widget.resizeColumnToContents(0)


class MoveDialog(QDialog):
    """Choose the folder to move skills into ('' = the top level), with completion."""

    def __init__(self, what: str, folders: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("moveDialog")
        self.setWindowTitle("Move to Folder")
        self.folder = QLineEdit(self)
        self.folder.setObjectName("moveFolder")
        self.folder.setPlaceholderText("folder, e.g. research/papers (empty: top level)")
        completer = QCompleter(QStringListModel(list(folders), self), self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.folder.setCompleter(completer)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Move")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Move {what} into:", self))
        layout.addWidget(self.folder)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.folder.textChanged.connect(self._validate)
        self.resize(460, self.sizeHint().height())
        self._validate()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            fit_height(self)

    def target(self) -> str:
        return self.folder.text().strip().strip("/")

    def error(self) -> str | None:
        target = self.target()
        return name_error(target) if target else None

    def _validate(self) -> None:
        error = self.error()
        self.ok.setEnabled(error is None)
        self.message.setText(error or "")
        self.message.setVisible(error is not None)
        fit_height(self)


def delete_box(names: Sequence[str], dangling: int, parent: QWidget | None = None,
               archives: bool = True) -> QMessageBox:
    """Confirmation for deleting skills (the change can be undone; where ``archives``, the skills
    go to the skill archive, where they stay after the undo history is gone)."""
    shown = (f"Delete '{names[0]}'?" if len(names) == 1
             else f"Delete {_plural(len(names), 'skill')}?")
    box = QMessageBox(QMessageBox.Icon.Question, "Delete", shown,
                      QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("deleteBox")
    details = []
    if len(names) > 1:
        listed = ", ".join(names[:12]) + (f", … and {len(names) - 12} more" if len(names) > 12
                                          else "")
        details.append(listed + ".")
    if dangling:
        details.append(f"{_plural(dangling, 'see-also reference')} to "
                       f"{'it' if len(names) == 1 else 'them'} will be kept and name nothing.")
    if archives:
        details.append(("It moves" if len(names) == 1 else "They move")
                       + " to the skill archive, out of the agent's sight: Edit → Undo puts "
                       + ("it" if len(names) == 1 else "them") + " back, and Tools → Skill "
                       "Archive… restores " + ("it" if len(names) == 1 else "them") + " later.")
    else:
        details.append(("The file is removed" if len(names) == 1 else "The files are removed")
                       + "; Edit → Undo puts them back.")
    box.setInformativeText("\n\n".join(details))
    delete = QPushButton("Delete", box)
    delete.setObjectName("confirmDelete")
    box.addButton(delete, QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box


class RawFileDialog(QDialog):
    """A file the core could not load, shown read-only as it is on disk (never written)."""

    def __init__(self, path: Path, shown_path: str, reason: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rawFileDialog")
        self.setWindowTitle(f"{shown_path} (read-only)")
        self.path = path
        title = heading(QLabel(shown_path, self), 1.1)
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason = QLabel(reason, self)
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = monospace(QPlainTextEdit(self))
        self.text.setObjectName("rawFileText")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.note = secondary(QLabel(self))
        self.note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.reason)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.resize(760, 520)
        self._load()

    def _load(self) -> None:
        notes = ["Read-only: rockskills-gui never writes a file it could not load."]
        try:  # (a FIFO or a link to a device: refused at once, never read)
            raw, _size = fileio.read_head(self.path, RAW_LIMIT + 1)
        except OSError as exc:
            self.text.setPlainText("")
            notes.insert(0, f"The file cannot be read: {exc.strerror or exc}.")
            self.note.setText(" ".join(notes))
            return
        if len(raw) > RAW_LIMIT:
            raw = raw[:RAW_LIMIT]
            notes.insert(0, f"Only the first {RAW_LIMIT // 1_000_000} MB are shown.")
        text, invalid = decode_file_text(raw)
        if invalid:
            notes.insert(0, "Bytes that are not valid UTF-8 are shown as �.")
        self.text.setPlainText(text)
        self.note.setText(" ".join(notes))
