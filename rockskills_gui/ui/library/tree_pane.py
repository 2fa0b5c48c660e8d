"""Library dock: the '/' skill tree with filter, badges, create/rename/move/delete.

Every change goes through ``ctx.apply`` as one core operation (one undo step); a rename or move
first shows the see-also references it will rewrite. The tree follows ``ctx.changeApplied``
name by name, so expanded folders and the selection survive edits.

The pane is made of parts, each owning its state: ``tree_selection`` (the current row and the
context's current skill), ``tree_filtering`` (filter box, flags, count line), ``tree_edits``
(create, rename, move, delete); ``tree_view`` (how rows look) and ``tree_jobs`` (usage and lint
read off the UI thread, ``ctx.query``). This module composes them and follows the library.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, Signal
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
from rockskills_gui.core.library.tree import Node, SkillTree, TreeFilter
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
from rockskills_gui.ui.library.tree_jobs import lint_marks, prepare_tree, read_last_used
from rockskills_gui.ui.library.tree_model import SkillTreeModel
from rockskills_gui.ui.library.tree_selection import TreeSelection
from rockskills_gui.ui.library.tree_view import PILL_TEXT, SkillTreeView, TreeDelegate

if TYPE_CHECKING:  # (the dialogs load when first shown: not before the first paint, issue 19)
    from rockskills_gui.ui.library.tree_dialogs import MoveDialog, NewSkillDialog, RenamePreviewDialog

USAGE_START_DELAY_MS = 150
SYNC_USAGE_BYTES = 2_000_000  # usage logs up to this size are read as soon as the tree has painted
LINT_MAX_SKILLS = 5_000  # the tree's lint marks are computed only for libraries up to this size

__all__ = [  # names that lived here before the pane was split (the shell, tests, benchmarks)
    "DEBOUNCE_LARGE_MS", "EXPAND_ALL_LIMIT", "LARGE_LIBRARY", "LINT_MAX_SKILLS", "PILL_TEXT",
    "SYNC_USAGE_BYTES", "UNUSED_CHOICES", "USAGE_START_DELAY_MS", "SkillTreeView", "TreeDelegate",
    "TreePane", "prepare_tree",
]


# ---------------------------------------------------------------- the pane


class TreePane(QWidget):
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
        # Reads off the UI thread (ctx.query), each asked for once the tree has painted.
        self._pending_usage: Callable[[], None] | None = None
        self._pending_lint: Callable[[], None] | None = None

        self.model = SkillTreeModel(self)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("libraryFilter")
        self.filter.setPlaceholderText("Filter by name or summary…")
        self.filter.setClearButtonEnabled(True)
        self.flags_button = QToolButton(self)
        self.flags_button.setObjectName("libraryFlags")
        self.flags_button.setText("Flags")
        self.flags_button.setToolTip("Show only skills that are never used, unused for a while, "
                                     "sparse or have problems")
        self.flags_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.flags_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)

        self.view = SkillTreeView(self)
        expanded_uids: set[int] = set()  # what the view shows, for the model's badge updates
        self.model.expanded_uids = expanded_uids
        self.view.expanded.connect(lambda index: expanded_uids.add(index.internalId()))
        self.view.collapsed.connect(lambda index: expanded_uids.discard(index.internalId()))
        self.model.modelReset.connect(expanded_uids.clear)
        self.delegate = TreeDelegate(self.view)
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

        self.selection = TreeSelection(ctx, self.model, self.view, self)
        self.filtering = TreeFiltering(ctx, self.model, self.view, self.filter, self.flags_button,
                                       self.count, self.selection, self)
        self.edits = TreeEdits(ctx, self, self.model, self.view, self.message, self.selection)
        self.delegate.on_edit_text.append(self.edits.on_inline_text)
        self.delegate.refuse = self.edits.inline_rename_error
        self.delegate.on_refused.append(self.edits.show_message)
        self.delegate.closeEditor.connect(lambda *_args: self.edits.show_message(None))

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

        self.selection.changed.connect(self._update_actions)
        self.selection.openRequested.connect(self.openRequested)
        self.selection.resourceSelected.connect(self.resourceSelected)
        self.filtering.applied.connect(self._update_actions)
        self.edits.openRequested.connect(self.openRequested)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.model.renameRequested.connect(self.edits.on_inline_rename)
        self.model.moveRequested.connect(
            lambda mapping: QTimer.singleShot(0, self, lambda: self.edits.request_rename(mapping)))

        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.currentSkillChanged.connect(self.reveal)
        ctx.dirtyChanged.connect(lambda _name: self.model.set_dirty(ctx.dirty_names))
        ctx.invisibleSkillsChanged.connect(self.model.set_invisible)
        ctx.machineChanged.connect(lambda _change: self._load_switches(ctx.library))
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- actions

    def bind_actions(self, commands: ActionRegistry) -> None:
        """Connect the registry's tree commands; rename/delete keys act only in this pane."""
        self.commands = commands
        commands.on("tree.rename", self.edits.rename_current)
        commands.on("tree.move", self.move_selected)
        commands.on("tree.delete", self.edits.delete_selected)
        commands.on("tree.filter", self.filtering.focus_filter)
        # Del edits text elsewhere, so it acts only in this pane; F2 renames from any focus
        # (the skill in the editor when the focus is outside the tree).
        delete = commands["tree.delete"]
        delete.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.addAction(delete)
        commands["tree.rename"].setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self._update_actions()

    def _action(self, action_id: str, text: str, slot: Callable[[], object], menu: QMenu) -> QAction:
        """The registry's action when bound (same text and shortcut), else a plain one."""
        if self.commands is not None:
            action = self.commands[action_id]
            menu.addAction(action)
            return action
        action = menu.addAction(text)
        action.triggered.connect(lambda _checked=False: slot())
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
        self.filtering.expanded.clear()
        tree = self.ctx.prepared.get("tree")
        self.model.set_library(library, tree if isinstance(tree, SkillTree) else None)
        self.model.set_dirty(self.ctx.dirty_names)
        self._load_usage(library)
        self._load_lint(library)
        self._load_switches(library)
        self.filtering.update_count()
        self._update_actions()

    def _load_usage(self, library: Library | None) -> None:
        """Last-use times from the usage logs, read off the UI thread once the tree has painted
        (the pills follow a frame later: the tree paints first, issue 19)."""
        self.ctx.channel(self, "usage").cancel()  # (an older library's times never arrive)
        self._pending_usage = None
        if library is None:
            return
        agent_dir = library.agent_dir
        prefetch = self.ctx.prepared.get("usage")  # (read while the library loaded)

        def pending() -> None:
            self.ctx.query(self, "usage", lambda _control: read_last_used(agent_dir, prefetch),
                           self._on_usage)

        def start() -> None:
            self._start_pending_usage(pending)

        self._pending_usage = pending
        if usage_bytes(library.agent_dir) <= SYNC_USAGE_BYTES:
            AfterPaint(self.view.painted, start, self)  # a few hundred kB
        else:
            # Not at once after that paint either: a Python worker started then would make each
            # of the next paint's calls into Python wait for the GIL (60-70 ms at 10,000 skills).
            QTimer.singleShot(USAGE_START_DELAY_MS, self, start)

    def _start_pending_usage(self, which: Callable[[], None] | None = None) -> None:
        """Ask for the usage read waiting for the paint (``which``: only if still that one)."""
        pending = self._pending_usage
        if pending is not None and which in (None, pending):
            self._pending_usage = None
            pending()

    def _on_usage(self, last_used: dict[str, Timestamp]) -> None:
        self.model.set_last_used(last_used)
        self.usageLoaded.emit()

    def wait_for_usage(self, msecs: int = 10_000) -> bool:
        """Block until the usage reader and the lint marks are done (shutdown and tests; jobs
        waiting for the first paint are started now)."""
        self._start_pending_usage()
        self._start_pending_lint()
        return all(self.ctx.channel(self, key).wait(msecs) for key in ("usage", "lint"))

    def _load_lint(self, library: Library | None) -> None:
        """Lint marks for the tree, on the worker after the first paint (small libraries only)."""
        self.ctx.channel(self, "lint").cancel()
        self._pending_lint = None
        if library is None or len(library) > LINT_MAX_SKILLS:
            return

        def pending() -> None:
            self.ctx.query(self, "lint", lambda _control: lint_marks(library), self.model.set_lint)

        self._pending_lint = pending
        QTimer.singleShot(USAGE_START_DELAY_MS, self, lambda: self._start_pending_lint(pending))

    def _start_pending_lint(self, which: Callable[[], None] | None = None) -> None:
        pending = self._pending_lint
        if pending is not None and which in (None, pending):
            self._pending_lint = None
            pending()

    def _load_switches(self, library: Library | None) -> None:
        """Dim the skills the library's own agent has switched off in its settings (read at
        once: a few small settings files; nothing for an agent without such a switch)."""
        from rockskills_gui.core.budget.entries import switched_off_names

        self.model.set_switched_off(switched_off_names(library, self.ctx.home) if library is not None else ())

    def _on_change_applied(self, change: ChangeSet) -> None:
        self._load_lint(self.ctx.library)  # the marks follow saves, renames and deletes
        # A removed row moves the view's current index to a neighbour: that is not the user
        # choosing it (a renamed skill stays current: the context already follows it).
        with self.selection.following():
            self.model.apply_change(change)
        current = self.ctx.current_skill
        if not (current and self.reveal(current)):
            node = self.current_node()  # the current skill went: the row now current is chosen
            if node is not None and node.skill is not None and not current:
                self.ctx.select_skill(node.name)
        self.filtering.update_count()
        self._update_actions()

    # ---------------------------------------------------------------- the parts, as before

    def selected_nodes(self) -> list[Node]:
        """Selected nodes in display order (the current one when nothing is selected)."""
        return self.selection.selected_nodes()

    def current_node(self) -> Node | None:
        return self.selection.current_node()

    def reveal(self, name: str, select: bool = True) -> bool:
        """Select ``name`` (skill or folder), expanding its ancestors; False if it is not shown."""
        return self.selection.reveal(name, select)

    @property
    def dialog(self) -> QWidget | None:
        """The dialog currently asking (tests drive it)."""
        return self.edits.dialog

    def new_skill(self, prefix: str | None = None) -> NewSkillDialog | None:
        """Ask for a name (checked live) and create the skill; the prefix is the chosen folder."""
        return self.edits.new_skill(prefix)

    def create_skill(self, name: str, summary: str = "") -> bool:
        return self.edits.create_skill(name, summary)

    def move_selected(self) -> MoveDialog | None:
        """Ask for a folder and move the selected skills and folders into it."""
        return self.edits.move_selected()

    def request_rename(self, mapping: Mapping[str, str], reveal: str = "") -> RenamePreviewDialog | None:
        """Check the new names, show the see-also references to rewrite, then rename as one
        step (see ``TreeEdits.request_rename``)."""
        return self.edits.request_rename(mapping, reveal)

    def current_filter(self) -> TreeFilter:
        return self.filtering.current_filter()

    def set_flags(self, never_used: bool = False, unused_days: int | None = None,
                  sparse: bool = False, has_problems: bool = False) -> None:
        """Set every flag filter at once (one refilter)."""
        self.filtering.set_flags(never_used, unused_days, sparse, has_problems)

    def apply_filter(self) -> None:
        self.filtering.apply_filter()

    def clear_filter(self) -> None:
        self.filtering.clear_filter()

    @property
    def never_used_action(self) -> QAction:
        return self.filtering.never_used_action

    @property
    def sparse_action(self) -> QAction:
        return self.filtering.sparse_action

    @property
    def problems_action(self) -> QAction:
        return self.filtering.problems_action

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
            open_action.triggered.connect(lambda: self.selection.activate(self.model.index_of(node)))
            menu.addSeparator()
        new = menu.addAction("&New Skill Here…" if node is not None else "&New Skill…")
        new.triggered.connect(lambda: self.new_skill())
        if nodes:
            self._action("tree.rename", "&Rename…", self.edits.rename_current, menu)
            self._action("tree.move", "&Move to Folder…", self.move_selected, menu)
            self._action("tree.delete", "&Delete…", self.edits.delete_selected, menu)
            menu.addSeparator()
            copy = menu.addAction("&Copy Name" if len(nodes) == 1 else "&Copy Names")
            copy.triggered.connect(
                lambda: QApplication.clipboard().setText("\n".join(n.path for n in nodes)))
        menu.addSeparator()
        menu.addAction("E&xpand All").triggered.connect(self.view.expandAll)
        menu.addAction("Co&llapse All").triggered.connect(self.view.collapseAll)
        return menu
