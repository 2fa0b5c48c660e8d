"""Library dock: the '/' skill tree with filter, badges, create/rename/move/delete.

Every change goes through ``ctx.apply`` as one core operation (one undo step); a rename or move
first shows the see-also references it will rewrite. The tree follows ``ctx.changeApplied``
name by name, so expanded folders and the selection survive edits.

The pane's parts: ``tree_view`` (how rows look), ``tree_filtering`` (filter box, flags, count
line), ``tree_edits`` (create, rename, move, delete) and ``tree_jobs`` (usage and lint reads off
the UI thread); this module composes them and follows the library and the selection.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import Node, SkillTree
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.after_paint import AfterPaint
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.common.usage_prefetch import usage_bytes
from rockskills_gui.ui.library.tree_edits import TreeEdits
from rockskills_gui.ui.library.tree_filtering import (
    DEBOUNCE_LARGE_MS,
    EXPAND_ALL_LIMIT,
    LARGE_LIBRARY,
    UNUSED_CHOICES,
    TreeFiltering,
)
from rockskills_gui.ui.library.tree_jobs import JobSignals, LintJob, UsageJob, prepare_tree
from rockskills_gui.ui.library.tree_model import SkillTreeModel
from rockskills_gui.ui.library.tree_view import PILL_TEXT, SkillTreeView, TreeDelegate

USAGE_START_DELAY_MS = 150
SYNC_USAGE_BYTES = 2_000_000  # usage logs up to this size are read as soon as the tree has painted
LINT_MAX_SKILLS = 5_000  # the tree's lint marks are computed only for libraries up to this size

__all__ = [  # names that lived here before the pane was split (the shell, tests, benchmarks)
    "DEBOUNCE_LARGE_MS", "EXPAND_ALL_LIMIT", "LARGE_LIBRARY", "LINT_MAX_SKILLS", "PILL_TEXT",
    "SYNC_USAGE_BYTES", "UNUSED_CHOICES", "USAGE_START_DELAY_MS", "SkillTreeView", "TreeDelegate",
    "TreePane", "prepare_tree",
]


def _display_order(node: Node) -> list[bytes]:
    """Sort key putting nodes in the tree's display (depth-first, List) order."""
    keys = [node.sort]
    keys.extend(a.sort for a in node.ancestors())
    keys.reverse()
    return keys


# ---------------------------------------------------------------- the pane


class TreePane(TreeFiltering, TreeEdits, QWidget):
    """Filter box and flag filters over the skill tree, with a count line below.

    Signals:
        openRequested(str): the user asked to open a skill (Enter, double-click, menu).
        resourceSelected(str, str): a skill's resource row became current (skill, filename);
            ``(skill, "")`` when the skill's own row follows one of its resource rows.
        usageLoaded(): last-use times from the usage logs reached the tree.
    """

    openRequested = Signal(str)
    resourceSelected = Signal(str, str)
    usageLoaded = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("libraryPane")
        self.ctx = ctx
        self.commands: ActionRegistry | None = None
        self.dialog: QWidget | None = None  # the dialog currently asking (tests drive it)
        self._expanded: set[str] = set()  # folded paths the user expanded (unfiltered)
        self._following = False
        self._usage_ticket = 0
        self._usage_signals = JobSignals()
        self._usage_signals.done.connect(self._on_usage)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._pending_usage: UsageJob | None = None  # started after the first paint
        self._lint_ticket = 0
        self._lint_signals = JobSignals()
        self._lint_signals.done.connect(self._on_lint)
        self._pending_lint: LintJob | None = None

        self.model = SkillTreeModel(self)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("libraryFilter")
        self.filter.setPlaceholderText("Filter by name or summary…")
        self.filter.setClearButtonEnabled(True)
        self.filter.installEventFilter(self)
        self.flags_button = QToolButton(self)
        self.flags_button.setObjectName("libraryFlags")
        self.flags_button.setText("Flags")
        self.flags_button.setToolTip("Show only skills that are never used, unused for a while, "
                                     "sparse or have problems")
        self.flags_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.flags_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._build_flag_menu()

        self.view = SkillTreeView(self)
        expanded_uids: set[int] = set()  # what the view shows, for the model's badge updates
        self.model.expanded_uids = expanded_uids
        self.view.expanded.connect(lambda index: expanded_uids.add(index.internalId()))
        self.view.collapsed.connect(lambda index: expanded_uids.discard(index.internalId()))
        self.model.modelReset.connect(expanded_uids.clear)
        self.delegate = TreeDelegate(self.view)
        self.delegate.on_edit_text.append(self._on_inline_text)
        self.delegate.refuse = self._inline_rename_error
        self.delegate.on_refused.append(self._show_message)
        self.delegate.closeEditor.connect(lambda *_args: self._show_message(None))
        self.view.setItemDelegate(self.delegate)
        self.view.setModel(self.model)
        # Why a name typed in the inline editor would be refused: shown at that editor, over
        # the rows just below it (above it at the bottom of the tree).
        self.message = QLabel(self.view.viewport())
        self.message.setObjectName("libraryMessage")
        self.message.setWordWrap(True)
        self.message.setFrameShape(QFrame.Shape.Box)
        self.message.setMargin(3)
        self.message.setAutoFillBackground(True)
        self.message.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.message.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.message.hide()
        self.count = secondary(QLabel(self))
        self.count.setObjectName("libraryCount")

        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.filter, 1)
        top.addWidget(self.flags_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.count)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.timeout.connect(self.apply_filter)
        self.filter.textChanged.connect(self._on_filter_text)
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)
        self.view.selectionModel().selectionChanged.connect(lambda *_args: self._update_actions())
        self.view.activated.connect(self._on_activated)
        self.view.expanded.connect(lambda index: self._remember(index, True))
        self.view.collapsed.connect(lambda index: self._remember(index, False))
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.model.filterApplied.connect(self._on_filter_applied)
        self.model.renameRequested.connect(self._on_inline_rename)
        self.model.moveRequested.connect(
            lambda mapping: QTimer.singleShot(0, lambda: self.request_rename(mapping)))
        self.model.rowsInserted.connect(self._update_count)
        self.model.rowsRemoved.connect(self._update_count)

        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.currentSkillChanged.connect(self.reveal)
        ctx.dirtyChanged.connect(lambda _name: self.model.set_dirty(ctx.dirty_names))
        ctx.invisibleSkillsChanged.connect(self.model.set_invisible)
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- actions

    def bind_actions(self, commands: ActionRegistry) -> None:
        """Connect the registry's tree commands; rename/delete keys act only in this pane."""
        self.commands = commands
        commands.on("tree.rename", self.rename_current)
        commands.on("tree.move", self.move_selected)
        commands.on("tree.delete", self.delete_selected)
        commands.on("tree.filter", self.focus_filter)
        # Del edits text elsewhere, so it acts only in this pane; F2 renames from any focus
        # (the skill in the editor when the focus is outside the tree).
        delete = commands["tree.delete"]
        delete.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.addAction(delete)
        commands["tree.rename"].setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self._update_actions()

    def _action(self, action_id: str, text: str, slot: object, menu: QMenu) -> QAction:
        """The registry's action when bound (same text and shortcut), else a plain one."""
        if self.commands is not None:
            action = self.commands[action_id]
            menu.addAction(action)
            return action
        action = menu.addAction(text)
        action.triggered.connect(lambda _checked=False: slot())  # type: ignore[operator]
        return action

    def _update_actions(self) -> None:
        if self.commands is None:
            return
        nodes = self.selected_nodes()
        has = self.ctx.library is not None and bool(nodes)
        self.commands["tree.rename"].setEnabled(has and len(nodes) == 1)
        self.commands["tree.move"].setEnabled(has)
        delete = self.commands["tree.delete"]
        delete.setEnabled(has)
        if len(nodes) > 1:
            delete.setText(f"&Delete {len(nodes)} Items…")
        elif nodes and nodes[0].skill is None:
            delete.setText("&Delete Folder…")
        else:
            delete.setText("&Delete Skill…")

    # ---------------------------------------------------------------- library and changes

    def _on_library_changed(self, library: Library | None) -> None:
        self._expanded.clear()
        tree = self.ctx.prepared.get("tree")
        self.model.set_library(library, tree if isinstance(tree, SkillTree) else None)
        self.model.set_dirty(self.ctx.dirty_names)
        self._load_usage(library)
        self._load_lint(library)
        self._update_count()
        self._update_actions()

    def _load_usage(self, library: Library | None) -> None:
        """Last-use times from the usage logs, read off the UI thread once the tree has painted
        (the pills follow a frame later: the tree paints first, issue 19)."""
        self._usage_ticket += 1
        if library is None:
            return
        self._pending_usage = UsageJob(self._usage_ticket, library.agent_dir, self._usage_signals,
                                       self.ctx.prepared.get("usage"))  # (read while it loaded)
        if usage_bytes(library.agent_dir) <= SYNC_USAGE_BYTES:
            AfterPaint(self.view.painted, self._start_pending_usage, self)  # a few hundred kB
        else:
            # Not at once after that paint either: a Python worker started then would make each
            # of the next paint's calls into Python wait for the GIL (60-70 ms at 10,000 skills).
            QTimer.singleShot(USAGE_START_DELAY_MS, self, self._start_pending_usage)

    def _start_pending_usage(self) -> None:
        job, self._pending_usage = self._pending_usage, None
        if job is not None and job.ticket == self._usage_ticket:
            self._pool.start(job)

    def _on_usage(self, ticket: int, last_used: dict[str, Timestamp]) -> None:
        if ticket != self._usage_ticket:
            return
        self.model.set_last_used(last_used)
        self.usageLoaded.emit()

    def wait_for_usage(self, msecs: int = 10_000) -> bool:
        """Block until the usage reader and the lint marks are done (shutdown and tests; jobs
        waiting for the first paint are started now)."""
        self._start_pending_usage()
        self._start_pending_lint()
        return self._pool.waitForDone(msecs)

    def _load_lint(self, library: Library | None) -> None:
        """Lint marks for the tree, on the worker after the first paint (small libraries only)."""
        self._lint_ticket += 1
        self._pending_lint = None
        if library is None or len(library) > LINT_MAX_SKILLS:
            return
        self._pending_lint = LintJob(self._lint_ticket, library, self._lint_signals)
        QTimer.singleShot(USAGE_START_DELAY_MS, self, self._start_pending_lint)

    def _start_pending_lint(self) -> None:
        job, self._pending_lint = self._pending_lint, None
        if job is not None and job.ticket == self._lint_ticket:
            self._pool.start(job)

    def _on_lint(self, ticket: int, marks: dict[str, list[str]]) -> None:
        if ticket == self._lint_ticket:
            self.model.set_lint(marks)

    def _on_change_applied(self, change: ChangeSet) -> None:
        self._load_lint(self.ctx.library)  # the marks follow saves, renames and deletes
        # A removed row moves the view's current index to a neighbour: that is not the user
        # choosing it (a renamed skill stays current: the context already follows it).
        following, self._following = self._following, True
        try:
            self.model.apply_change(change)
        finally:
            self._following = following
        current = self.ctx.current_skill
        if not (current and self.reveal(current)):
            node = self.current_node()  # the current skill went: the row now current is chosen
            if node is not None and node.skill is not None and not current:
                self.ctx.select_skill(node.name)
        self._update_count()
        self._update_actions()

    # ---------------------------------------------------------------- selection

    def selected_nodes(self) -> list[Node]:
        """Selected nodes in display order (the current one when nothing is selected)."""
        indexes = self.view.selectionModel().selectedRows() if self.view.selectionModel() else []
        nodes = [n for n in (self.model.node(i) for i in indexes) if n is not None]
        if not nodes:
            current = self.model.node(self.view.currentIndex())
            nodes = [current] if current is not None else []
        return sorted(nodes, key=_display_order)

    def current_node(self) -> Node | None:
        return self.model.node(self.view.currentIndex())

    def _on_current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        self._update_actions()
        node = self.model.node(current)
        resource = self.model.resource_row(current)
        if resource is not None and not self._following:
            self._following = True  # the skill becomes current, its resource row stays selected
            try:
                self.ctx.select_skill(resource.skill)
            finally:
                self._following = False
            self.resourceSelected.emit(resource.skill, resource.resource.filename)
        if node is not None and node.skill is not None and not self._following:
            self._following = True
            try:
                self.ctx.select_skill(node.name)
            finally:
                self._following = False
            if self.model.resource_row(previous) is not None:
                self.resourceSelected.emit(node.name, "")  # back from a resource to the skill

    def reveal(self, name: str, select: bool = True) -> bool:
        """Select ``name`` (skill or folder), expanding its ancestors; False if it is not shown."""
        current = self.model.resource_row(self.view.currentIndex())
        if self._following and current is not None and name and fold(current.skill) == fold(name):
            return True  # a resource row of that skill was chosen: it stays current
        index = self.model.index_for(name) if name else QModelIndex()
        if not index.isValid():
            return False
        parent = index.parent()
        chain = []
        while parent.isValid():
            chain.append(parent)
            parent = parent.parent()
        for ancestor in reversed(chain):
            self.view.expand(ancestor)
        if not select:
            return True
        if index != self.view.currentIndex():
            following, self._following = self._following, True
            try:
                self.view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)
            finally:
                self._following = following
        self.view.scrollTo(index)
        return True

    def _on_activated(self, index: QModelIndex) -> None:
        resource = self.model.resource_row(index)
        if resource is not None:
            self.resourceSelected.emit(resource.skill, resource.resource.filename)
            self.openRequested.emit(resource.skill)
            return
        node = self.model.node(index)
        if node is not None and node.skill is not None:
            self.ctx.select_skill(node.name)
            self.openRequested.emit(node.name)

    # ---------------------------------------------------------------- context menu

    def _context_menu(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if index.isValid() and not self.view.selectionModel().isSelected(index):
            self.view.setCurrentIndex(index)
        elif not index.isValid():
            self.view.clearSelection()
            self.view.setCurrentIndex(QModelIndex())
        menu = self.build_context_menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    def build_context_menu(self) -> QMenu:
        """The menu for the current selection (also what the context-menu key shows)."""
        menu = QMenu(self)
        menu.setObjectName("libraryContextMenu")
        nodes = self.selected_nodes()
        node = nodes[0] if len(nodes) == 1 else None
        if node is not None and node.skill is not None:
            open_action = menu.addAction("&Open")
            open_action.triggered.connect(lambda: self._on_activated(self.model.index_of(node)))
            menu.addSeparator()
        new = menu.addAction("&New Skill Here…" if node is not None else "&New Skill…")
        new.triggered.connect(lambda: self.new_skill())
        if nodes:
            self._action("tree.rename", "&Rename…", self.rename_current, menu)
            self._action("tree.move", "&Move to Folder…", self.move_selected, menu)
            self._action("tree.delete", "&Delete…", self.delete_selected, menu)
            menu.addSeparator()
            copy = menu.addAction("&Copy Name" if len(nodes) == 1 else "&Copy Names")
            copy.triggered.connect(
                lambda: QApplication.clipboard().setText("\n".join(n.path for n in nodes)))
        menu.addSeparator()
        menu.addAction("E&xpand All").triggered.connect(self.view.expandAll)
        menu.addAction("Co&llapse All").triggered.connect(self.view.collapseAll)
        return menu
