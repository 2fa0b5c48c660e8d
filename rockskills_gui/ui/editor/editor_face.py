"""What the window needs of the Skill tab before its editor is built (issue 19): the empty page
("No skill open"), and the editor's commands with the methods they call.

The window paints with :class:`EmptySkillPage` in the Skill tab and builds ``EditorPane`` after
its first paint (or at once, when a skill is opened or a command asks for it); the pane shows the
same page, built by the same function, until a skill is open. This module loads no part of the
editor itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from rockskills_gui.ui.common.theme import heading, secondary

if TYPE_CHECKING:
    from rockskills_gui.core.library.library import Library

EMPTY_TITLE = "No skill open"
EMPTY_TEXT = "Select a skill in the Library, or press Ctrl+P to go to one by name."
NO_LIBRARY_TEXT = ("No library is open. Open one with File ▸ Open Library… (Ctrl+O), or try the "
                   "demo library (File ▸ Open Demo Library).")

# The editor's commands: action id -> (EditorPane method, its arguments).
EDITOR_COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "file.save": ("save", ()),
    "file.save_all": ("save_all", ()),
    "file.save_like_agent": ("save_like_agent", ()),
    "edit.find": ("open_find", ()),
    "edit.find_next": ("find_next", ()),
    "edit.find_previous": ("find_previous", ()),
    "edit.goto_skill": ("go_to_skill", ()),
    "view.layout_editor": ("set_mode", ("editor",)),
    "view.layout_split": ("set_mode", ("split",)),
    "view.layout_preview": ("set_mode", ("preview",)),
    "view.focus_editor": ("focus_editor", ()),
    "view.focus_preview": ("focus_preview", ()),
}
# Commands that need an open skill (or an unsaved one): off until the editor says otherwise.
NEED_A_SKILL = ("file.save", "file.save_all", "file.save_like_agent", "edit.find", "edit.find_next",
                "edit.find_previous", "view.focus_editor", "view.focus_preview")


class EmptySkillPage(QWidget):
    """"No skill open" over a hint (:data:`EMPTY_TEXT`, or :data:`NO_LIBRARY_TEXT`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.title = heading(QLabel(EMPTY_TITLE, self), scale=1.25)
        self.label = secondary(QLabel(EMPTY_TEXT, self))
        self.label.setObjectName("editorEmptyText")
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addStretch(1)
        layout.addWidget(self.title, 0, Qt.AlignmentFlag.AlignHCenter)
        # Full width (text centred by the label): an aligned word-wrapped label gets one line's
        # height from the layout and clips its second line.
        layout.addWidget(self.label)
        layout.addStretch(2)


def listed_names(library: Library) -> list[str]:
    """Skill names in RockBot's List order: the see-also candidates (a loader preparer too)."""
    return [s.name for s in library.listed()]
