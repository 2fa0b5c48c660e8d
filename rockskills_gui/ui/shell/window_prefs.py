"""What the main window takes from the layout memory: the sizes of the panes' splitters (the
editor pane keeps its own splitter itself)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, QTimer
from PySide6.QtWidgets import QSplitter, QWidget

SELF_REMEMBERING = frozenset({"editorSplitter"})  # EditorPane saves this one as editor/splitter
PREFIX = "splitters/"


def splitter_key(splitter: QSplitter, root: QWidget) -> str:
    """A stable key: the nearest named ancestor's name, the splitter's name (or its index)."""
    owner: QWidget | None = splitter.parentWidget()
    while owner is not None and owner is not root and not owner.objectName():
        owner = owner.parentWidget()
    owner_name = owner.objectName() if owner is not None else ""
    if splitter.objectName():
        return f"{owner_name}.{splitter.objectName()}" if owner_name else splitter.objectName()
    siblings = [s for s in (owner or root).findChildren(QSplitter) if not s.objectName()]
    return f"{owner_name or 'window'}.splitter{siblings.index(splitter)}"


def remembered_splitters(root: QWidget) -> dict[str, QSplitter]:
    found: dict[str, QSplitter] = {}
    for splitter in root.findChildren(QSplitter):
        if splitter.objectName() in SELF_REMEMBERING or splitter.window() is not root:
            continue
        found[splitter_key(splitter, root)] = splitter
    return found


class SplitterMemory(QObject):
    """Restores each remembered splitter the first time it is shown (a hidden tab's splitter has
    no size before that, so restoring earlier would be lost), and saves only splitters that were
    shown in this session (the others keep what was saved before).

    The window starts without a splitter of its own (a scan of all its widgets costs milliseconds
    before the first paint); each pane that has one is watched as it is built (:meth:`watch`)."""

    def __init__(self, root: QWidget, settings: QSettings) -> None:
        super().__init__(root)
        self._root = root
        self._settings = settings
        self._shown: set[int] = set()

    def watch(self, widget: QWidget) -> None:
        """Remember the splitters under ``widget`` too (a pane built after the window was)."""
        for splitter in remembered_splitters(self._root).values():
            if splitter is widget or widget.isAncestorOf(splitter):
                splitter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QSplitter) \
                and id(watched) not in self._shown:
            self._shown.add(id(watched))
            watched.removeEventFilter(self)
            QTimer.singleShot(0, watched, lambda s=watched: self._restore(s))
        return False

    def _restore(self, splitter: QSplitter) -> None:
        state = self._settings.value(PREFIX + splitter_key(splitter, self._root))
        if isinstance(state, QByteArray):
            splitter.restoreState(state)

    def save(self) -> None:
        for key, splitter in remembered_splitters(self._root).items():
            if id(splitter) in self._shown:
                self._settings.setValue(PREFIX + key, splitter.saveState())
