"""The preview of a machine change: every file and link it writes, what it also does (other agents
a move hides the skill from...), the refusals, and a diff when one side is brought up to date.
Nothing is written until Apply; Cancel is the default button."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from rockskills_gui.core.machine.changes import MachineChange
from rockskills_gui.ui.common.theme import monospace


class ChangePreview(QDialog):
    """Shows ``change`` (and ``refused``: why some skills are left out) before it is applied."""

    def __init__(self, change: MachineChange, refused: list[str], diff: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName("machinePreview")
        self.setWindowTitle(f"Preview: {change.label}")
        self.change = change
        layout = QVBoxLayout(self)
        files = change.preview()
        what = (f"{len(files)} file(s) and link(s) will be written, one undo step."
                if files else "Nothing to write.")
        title = QLabel(f"<b>{change.label}</b><br>{what}", self)
        title.setWordWrap(True)
        layout.addWidget(title)
        lines = [*files]
        if change.notes:
            lines += ["", "Also:", *(f"  {n}" for n in change.notes)]
        if refused:
            lines += ["", "Left out:", *(f"  {r}" for r in refused)]
        if diff:
            lines += ["", "Diff:", diff]
        self.text = QPlainTextEdit("\n".join(lines), self)
        self.text.setObjectName("machinePreviewText")
        self.text.setAccessibleName("Files the change writes")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        monospace(self.text)
        layout.addWidget(self.text, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Apply
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.apply_button = self.buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply_button.setEnabled(not change.empty)
        self.apply_button.setAutoDefault(False)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setDefault(True)
        self.apply_button.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(760, 420)
