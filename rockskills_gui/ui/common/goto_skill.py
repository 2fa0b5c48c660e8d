"""Go to skill: type a few letters of a name (fuzzy), press Enter to open it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLineEdit, QTreeView, QVBoxLayout, QWidget

from rockskills_gui.core.text.fuzzy import FuzzyMatch, fuzzy_filter
from rockskills_gui.ui.common.models import Column, RowModel

RESULT_LIMIT = 200
LIVE_LIMIT = 5000  # up to this many names, results follow every keystroke


class MatchModel(RowModel[FuzzyMatch]):
    """Matches: name and summary (each also the cell's tooltip)."""

    def __init__(self, summary_of: Callable[[str], str], parent: QObject | None = None) -> None:
        super().__init__((Column("Skill", lambda m: m.name, tooltip=lambda m: m.name),
                          Column("Summary", lambda m: summary_of(m.name),
                                 tooltip=lambda m: summary_of(m.name))), parent)

    @property
    def matches(self) -> list[FuzzyMatch]:
        return self.rows

    def set_matches(self, matches: Sequence[FuzzyMatch]) -> None:
        self.set_rows(matches)


class GoToSkillDialog(QDialog):
    """A fuzzy finder over skill names.

    Signals:
        chosen(str): the user picked a skill.
    """

    chosen = Signal(str)

    def __init__(self, names: Sequence[str], summary_of: Callable[[str], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("goToSkill")
        self.setWindowTitle("Go to Skill")
        self.names = list(names)
        self.query = QLineEdit(self)
        self.query.setObjectName("goToQuery")
        self.query.setPlaceholderText("Skill name (fuzzy: 'mcem' finds mcp/email)…")
        self.query.installEventFilter(self)
        self.model = MatchModel(summary_of, self)
        self.view = QTreeView(self)
        self.view.setObjectName("goToResults")
        self.view.setModel(self.model)
        self.view.setRootIsDecorated(False)
        self.view.setUniformRowHeights(True)
        self.view.setHeaderHidden(True)
        self.view.setAlternatingRowColors(True)
        self.view.activated.connect(self._choose)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(60)
        self._timer.timeout.connect(self._refresh)
        self.query.textChanged.connect(self._on_text_changed)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.view)
        self.resize(620, 420)
        self._refresh()

    def _on_text_changed(self, _text: str) -> None:
        if len(self.names) > LIVE_LIMIT:
            self._timer.start()  # a large library: wait for a pause in typing
        else:
            self._refresh()

    def _refresh(self) -> None:
        self.model.set_matches(fuzzy_filter(self.query.text(), self.names, RESULT_LIMIT))
        self.view.setColumnWidth(0, 260)
        if self.model.rowCount():
            self.view.setCurrentIndex(self.model.index(0, 0))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown,
                               Qt.Key.Key_PageUp):
                step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1,
                        Qt.Key.Key_PageDown: 10, Qt.Key.Key_PageUp: -10}[Qt.Key(event.key())]
                row = self.view.currentIndex().row() + step
                row = max(0, min(self.model.rowCount() - 1, row))
                self.view.setCurrentIndex(self.model.index(row, 0))
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self._timer.isActive():
                    self._timer.stop()
                    self._refresh()
                self._choose(self.view.currentIndex())
                return True
        return super().eventFilter(watched, event)

    def _choose(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        name = self.model.matches[index.row()].name
        self.accept()
        self.chosen.emit(name)
