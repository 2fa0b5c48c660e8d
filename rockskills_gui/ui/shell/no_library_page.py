"""The page the main window shows with no library open: how to open one."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from rockskills_gui.ui.common.theme import heading, secondary


class NoLibraryPage(QWidget):
    """What the window shows with no library open: how to open one."""

    def __init__(self, open_action: QAction, demo_action: QAction,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noLibraryPage")
        keys = open_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.title = heading(QLabel("No library open", self), scale=1.25)
        self.text = secondary(QLabel(
            f"Open a skill library folder (a RockBot agent directory, SKILL.md skills or a "
            f"CortexPrism project) with File ▸ Open Library… ({keys}), pick one from "
            f"File ▸ Open Recent, or look around in the demo library.", self))
        self.text.setObjectName("noLibraryText")
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setFixedWidth(460)
        self.open_button = QPushButton("&Open Library…", self)
        self.open_button.setObjectName("noLibraryOpen")
        self.open_button.clicked.connect(open_action.trigger)
        self.recent_button = QPushButton("Open &Recent", self)  # the window gives it its menu
        self.recent_button.setObjectName("noLibraryRecent")
        self.demo_button = QPushButton("Open &Demo Library", self)
        self.demo_button.setObjectName("noLibraryDemo")
        self.demo_button.clicked.connect(demo_action.trigger)
        for button, action in ((self.open_button, open_action), (self.demo_button, demo_action)):
            button.setToolTip(action.toolTip())
            action.enabledChanged.connect(button.setEnabled)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.open_button, self.recent_button, self.demo_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        text_row = QHBoxLayout()  # (no alignment flag: a wrapped label keeps its full height)
        text_row.addStretch(1)
        text_row.addWidget(self.text)
        text_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addLayout(text_row)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addStretch(2)
