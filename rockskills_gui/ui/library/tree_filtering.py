"""The Library pane's filter: the filter box, the Flags menu, expanding what matches, and the
count line (and what an empty tree says). A part of ``TreePane``."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QMenu, QToolButton

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import TreeFilter
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.library.tree_model import SkillTreeModel
from rockskills_gui.ui.library.tree_selection import TreeSelection
from rockskills_gui.ui.library.tree_view import SkillTreeView

UNUSED_CHOICES = (7, 30, 90, 180, 365)
EXPAND_ALL_LIMIT = 10_000  # rows a filter may show before folders stay collapsed
DEBOUNCE_LARGE_MS = 180  # typing in a filter over a large library waits for a pause
LARGE_LIBRARY = 5_000

def _empty_text(library: Library, total: int, filtered: bool) -> str:
    """What the empty tree says: why nothing is listed, and what to do."""
    if total and filtered:
        return "No skill matches the filter."
    if total:
        return ""
    problems = [p for p in library.problems if p.severity == "error"]
    if problems:
        return (f"No skill loaded: {len(problems):,} file{'' if len(problems) == 1 else 's'} could "
                "not be loaded (see Problems). If this folder holds another format, try File ▸ "
                "Reopen As.")
    return "This library has no skills yet. Ctrl+N creates one."


class TreeFiltering(QObject):
    """The filter box (``filter``), the flag filters (the Flags menu it gives ``flags_button``)
    and the ``count`` line of ``TreePane``, over ``model`` shown in ``view``; the folders the user
    expanded are opened again when the filter is cleared. ``selection`` is told while the rows
    move (and reveals the current skill after).

    Signals:
        applied(): a filter (or none) decides the rows now.
    """

    applied = Signal()

    def __init__(self, ctx: AppContext, model: SkillTreeModel, view: SkillTreeView,
                 filter: QLineEdit, flags_button: QToolButton, count: QLabel,
                 selection: TreeSelection, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.model = model
        self.view = view
        self.filter = filter
        self.flags_button = flags_button
        self.count = count
        self.selection = selection
        self.expanded: set[str] = set()  # folded paths the user expanded (unfiltered)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.timeout.connect(self.apply_filter)
        self._build_flag_menu()
        filter.installEventFilter(self)
        filter.textChanged.connect(self._on_filter_text)
        view.expanded.connect(lambda index: self._remember(index, True))
        view.collapsed.connect(lambda index: self._remember(index, False))
        model.filterApplied.connect(self._on_filter_applied)
        model.rowsInserted.connect(self.update_count)
        model.rowsRemoved.connect(self.update_count)

    # ---------------------------------------------------------------- filter

    def _build_flag_menu(self) -> None:
        menu = QMenu(self.flags_button)
        menu.setObjectName("libraryFlagsMenu")
        self.never_used_action = menu.addAction("&Never used")
        self.never_used_action.setToolTip("No lastUsedAt and no usage event")
        unused = menu.addMenu("&Unused for")
        self.unused_group = QActionGroup(self)
        self.unused_actions: dict[int | None, QAction] = {}
        for days in (None, *UNUSED_CHOICES):
            text = "Any time" if days is None else (f"{days} days" if days < 365 else "A year")
            action = unused.addAction(text)
            action.setCheckable(True)
            action.setData(days)
            self.unused_group.addAction(action)
            self.unused_actions[days] = action
        self.unused_actions[None].setChecked(True)
        self.sparse_action = menu.addAction("&Sparse (RockBot's rule)")
        self.problems_action = menu.addAction("Has &problems")
        for action in (self.never_used_action, self.sparse_action, self.problems_action):
            action.setCheckable(True)
            action.toggled.connect(lambda _on: self.apply_filter())
        self.unused_group.triggered.connect(lambda _action: self.apply_filter())
        menu.addSeparator()
        clear = menu.addAction("&Clear Filter")
        clear.triggered.connect(self.clear_filter)
        self.flags_button.setMenu(menu)

    def current_filter(self) -> TreeFilter:
        checked = self.unused_group.checkedAction()
        return TreeFilter(
            text=self.filter.text(),
            never_used=self.never_used_action.isChecked(),
            unused_days=checked.data() if checked is not None else None,
            sparse=self.sparse_action.isChecked(),
            has_problems=self.problems_action.isChecked(),
        )

    def set_flags(self, never_used: bool = False, unused_days: int | None = None,
                  sparse: bool = False, has_problems: bool = False) -> None:
        """Set every flag filter at once (one refilter)."""
        actions = (self.never_used_action, self.sparse_action, self.problems_action)
        for action in actions:
            action.blockSignals(True)
        self.never_used_action.setChecked(never_used)
        self.sparse_action.setChecked(sparse)
        self.problems_action.setChecked(has_problems)
        target = self.unused_actions.get(unused_days)
        if target is None:  # a custom number of days
            target = QAction(f"{unused_days} days", self)
            target.setCheckable(True)
            target.setData(unused_days)
            self.unused_group.addAction(target)
            self.unused_actions[unused_days] = target
        target.setChecked(True)
        for action in actions:
            action.blockSignals(False)
        self.apply_filter()

    def clear_filter(self) -> None:
        self.filter.blockSignals(True)
        self.filter.clear()
        self.filter.blockSignals(False)
        self.set_flags()

    def focus_filter(self) -> None:
        self.filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter.selectAll()

    def _on_filter_text(self, _text: str) -> None:
        if self.model.tree.skill_count >= LARGE_LIBRARY:
            self._debounce.start(DEBOUNCE_LARGE_MS)
        else:
            self.apply_filter()

    def apply_filter(self) -> None:
        """Filter now (typing waits for a pause in large libraries)."""
        self._debounce.stop()
        spec = self.current_filter()
        if spec == self.model.spec:
            return
        self.model.set_filter(spec)

    def _on_filter_applied(self) -> None:
        spec = self.model.spec
        flags = sum([spec.never_used, spec.unused_days is not None, spec.sparse, spec.has_problems])
        self.flags_button.setText(f"Flags ({flags})" if flags else "Flags")
        font = self.flags_button.font()
        font.setBold(bool(flags))
        self.flags_button.setFont(font)
        result = self.model.result
        with self.selection.following():
            if result is not None:
                if len(result.visible) <= EXPAND_ALL_LIMIT:
                    self.view.expandAll()  # every shown folder holds a match
                else:  # laying out every match would freeze the window: open the first one
                    first = next((n for n in self.model.tree if n.uid in result.matches), None)
                    if first is not None:
                        self.selection.reveal(first.path, select=False)
            else:
                for key in sorted(self.expanded, key=len):
                    index = self.model.index_of(self.model.tree.by_key.get(key))
                    if index.isValid():
                        self.view.expand(index)
        if not self.selection.reveal(self.ctx.current_skill) and result is not None and len(result):
            self.view.scrollToTop()
        self.update_count()
        self.applied.emit()

    def _remember(self, index: QModelIndex, expanded: bool) -> None:
        if self.selection.is_following or self.model.filtering:
            return
        node = self.model.node(index)
        if node is not None:
            (self.expanded.add if expanded else self.expanded.discard)(node.key)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.filter and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape and self.filter.text():
                self.filter.clear()
                return True
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.apply_filter()
                self.view.setFocus(Qt.FocusReason.OtherFocusReason)
                if not self.view.currentIndex().isValid():
                    self._select_first_match()
                return True
        return super().eventFilter(watched, event)

    def _select_first_match(self) -> None:
        result = self.model.result
        for node in self.model.tree:
            if node.skill is not None and (result is None or node.uid in result.matches):
                index = self.model.index_of(node)
                if index.isValid():
                    self.view.setCurrentIndex(index)
                return

    def update_count(self, *_args: object) -> None:
        """The count line (and what an empty tree says)."""
        library = self.ctx.library
        tree = self.model.tree
        if library is None:
            self.count.setText("No library open")
            self.view.set_empty_text("")
            return
        total = tree.skill_count
        self.view.set_empty_text(_empty_text(library, total, self.model.result is not None))
        result = self.model.result
        if result is None:
            folders = tree.folder_count()
            self.count.setText(f"{total:,} skill{'' if total == 1 else 's'} · "
                               f"{folders:,} folder{'' if folders == 1 else 's'}")
        else:
            spec = self.model.spec
            flags = [text for on, text in (
                (spec.never_used, "never used"),
                (spec.unused_days is not None, f"unused {spec.unused_days}+ days"),
                (spec.sparse, "sparse"), (spec.has_problems, "with problems")) if on]
            shown = f" · {', '.join(flags)}" if flags else ""
            if len(result.visible) > EXPAND_ALL_LIMIT:
                shown += " · open folders to see them"
            self.count.setText(f"{len(result):,} of {total:,} skills match{shown}")
