"""A lazy item model directly over the core prefix tree (no QStandardItemModel copy).

Row ``r`` under a node is ``node.children[r]`` (or, while a filter is on, the r-th *visible*
child, computed on first use). Indexes carry the node's ``uid``, so a stale index simply finds
nothing. Unfiltered, the tree's listener turns each change into begin/end insert/remove signals;
filtered, a change re-runs the filter inside one reset (the pane re-expands the matches).

The model is made of parts, each owning its state and reading the model through
``tree_roles.TreeSource``: ``tree_model_data`` (what a row shows, and the marks it keeps:
unsaved, not advertised, lint), ``tree_model_resources`` (a skill's resource rows) and
``tree_model_dnd`` (drag and drop); ``tree_roles`` holds the roles, badges and resource rows.
This module feeds the model, follows changes and filters, maps rows to nodes, and answers Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import overload

from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, QObject, Qt, Signal

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import (
    Facts,
    FilterResult,
    Node,
    SkillTree,
    TreeFilter,
    gc_paused,
    problems_by_name,
    run_filter,
)
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.library.tree_model_data import TreeItemData
from rockskills_gui.ui.library.tree_model_dnd import TreeDragDrop
from rockskills_gui.ui.library.tree_model_resources import TreeResourceRows
from rockskills_gui.ui.library.tree_roles import (
    BADGE_TIPS,
    BADGES_ROLE,
    COUNT_ROLE,
    KIND_ROLE,
    MIME_TYPE,
    PATH_ROLE,
    RESOURCE_ID_BASE,
    RESOURCE_ROLE,
    SNIPPET_ROLE,
    SPANS_ROLE,
    Badge,
    Index,
    ResourceRow,
)

# Top-level rows handed to the view at a time (canFetchMore/fetchMore): the view lays out every
# top-level row it is given (a few calls into Python each): 27,000 of them (100,000 skills)
# blocked the UI for ~150 ms, 2,000 for ~60-90 ms; 500 take ~20 ms and still fill many screens.
FETCH_BATCH = 500

__all__ = [  # names that lived here before the model was split (panes and tests use them)
    "BADGES_ROLE", "BADGE_TIPS", "COUNT_ROLE", "FETCH_BATCH", "KIND_ROLE", "MIME_TYPE", "PATH_ROLE",
    "RESOURCE_ID_BASE", "RESOURCE_ROLE", "SNIPPET_ROLE", "SPANS_ROLE", "Badge", "Index",
    "ResourceRow", "SkillTreeModel",
]


class SkillTreeModel(QAbstractItemModel):
    """The library's '/' tree, one column.

    Signals:
        moveRequested(object): a drop asks to rename ``{old: new}`` (nothing is changed yet).
        renameRequested(str, str): an inline edit asks to rename node path ``old`` to ``new``.
        filterApplied(): a filter (or no filter) now decides the rows.
    """

    moveRequested = Signal(object)
    renameRequested = Signal(str, str)
    filterApplied = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.library: Library | None = None
        self.tree = SkillTree()
        self.facts = Facts(Timestamp.now())
        self.spec = TreeFilter()
        self.result: FilterResult | None = None
        self._terms: tuple[str, ...] = ()
        self._kids: dict[int, list[Node]] = {}
        self._rows: dict[int, int] = {}
        self._last_used: Mapping[str, Timestamp] = {}
        # Kept by the view's owner: the uids of the folders the view has expanded (None: unknown).
        # Badge updates skip collapsed folders (their rows are asked for afresh when expanded):
        # at 100,000 skills, one dataChanged per folder took 0.3 s of the UI thread.
        self.expanded_uids: set[int] | None = None
        self.batch = FETCH_BATCH
        self._fetched = FETCH_BATCH  # top-level rows the view has been given so far
        self._fetching = False  # inside fetchMore's own insert signals
        self._pending: list[tuple[bool, bool]] = []  # listener insert/remove: (signalled, at root)
        self.look = TreeItemData(self)  # what rows show; unsaved, not-advertised, lint marks
        self.dnd = TreeDragDrop(self)
        # Resource rows per skill node, computed when the view first asks about the node (one
        # stat for a skill without resources).
        self.resources = TreeResourceRows(self)

    @property
    def terms(self) -> tuple[str, ...]:
        """The filter's search terms (the rows show where they match)."""
        return self._terms

    def beginResetModel(self) -> None:
        """Every reset starts again with one batch of top-level rows."""
        self._fetched = self.batch
        super().beginResetModel()

    def endResetModel(self) -> None:
        self._guarded(super().endResetModel)

    def _guarded(self, end: Callable[[], None]) -> None:
        """Finish a change with fetchMore held off (a slot reacting to it may ask for more)."""
        self._fetching = True
        try:
            end()
        finally:
            self._fetching = False

    # ---------------------------------------------------------------- feeding

    def set_library(self, library: Library | None, tree: SkillTree | None = None) -> None:
        """Show ``library`` (one reset); ``tree``: its SkillTree, when already built off the UI thread."""
        with gc_paused():
            self.beginResetModel()
            self.library = library
            self._last_used = {}
            self.look.lint = {}
            self._rebuild(tree)
            self.endResetModel()
            self.filterApplied.emit()

    def _rebuild(self, tree: SkillTree | None = None) -> None:
        library = self.library
        self.resources.clear()
        self.tree = tree if tree is not None else SkillTree(library.skills() if library is not None else ())
        self._refresh_facts()
        self._clear_filter_cache()
        self.result = run_filter(self.tree, self.spec, self.facts) if self.spec.active else None
        self.tree.listener = None if self.result is not None else self

    def _refresh_facts(self) -> None:
        library = self.library
        tree = self.tree
        self.facts = Facts(
            now=library.clock() if library is not None else Timestamp.now(),
            last_used=self._last_used,
            file_problems=problems_by_name(library.problems) if library is not None else {},
            exists=lambda name: tree.skill_node(name) is not None,
        )

    def set_last_used(self, last_used: Mapping[str, Timestamp]) -> None:
        """Latest usage-event time per folded name (read off the UI thread by the pane)."""
        self._last_used = last_used
        self._refresh_facts()
        if self.spec.never_used or self.spec.unused_days is not None:
            self.set_filter(self.spec)
        else:
            self._all_data_changed([BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def set_lint(self, marks: Mapping[str, list[str]]) -> None:
        """Warning-or-worse lint messages per folded name (computed off the UI thread by the pane)."""
        if not marks and not self.look.lint:
            return
        self.look.lint = marks
        self._all_data_changed([BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def lint_messages(self, node: Node) -> list[str]:
        return self.look.lint_messages(node)

    def set_dirty(self, names: Iterable[str]) -> None:
        """Names whose editor buffer has unsaved edits."""
        for key in self.look.set_dirty(names):
            node = self.tree.by_key.get(key)
            if node is not None:
                index = self.index_of(node)
                if index.isValid():
                    self.dataChanged.emit(index, index, [BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def set_invisible(self, names: Iterable[str]) -> None:
        """Names the agent's skill list leaves out (marked "not advertised")."""
        self.look.invisible = frozenset(fold(n) for n in names)
        self._all_data_changed([BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def set_switched_off(self, names: Iterable[str]) -> None:
        """Names the library's agent has switched off in its own settings (dimmed, "off")."""
        found = frozenset(fold(n) for n in names)
        if found != self.look.switched_off:
            self.look.switched_off = found
            self._all_data_changed([BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def apply_change(self, change: ChangeSet) -> None:
        """Follow a change set: name by name when unfiltered, else refilter in one reset."""
        library = self.library
        if library is None:
            return
        with gc_paused():
            self._follow(change, library)

    def _follow(self, change: ChangeSet, library: Library) -> None:
        self._refresh_facts()
        touched = self.resources.owners(change)
        if self.result is None:
            self._drop_resource_rows(touched)  # before the tree moves (their rows, signalled)
            if not self.tree.apply(change, library.get):
                self.beginResetModel()
                self._rebuild()
                self.endResetModel()
                self.filterApplied.emit()
                return
            self._add_resource_rows(touched)
            self._refresh_referrers(change)
            return
        self.beginResetModel()
        self.resources.clear()
        if not self.tree.apply(change, library.get):
            self.tree = SkillTree(library.skills())
            self._refresh_facts()
        self._clear_filter_cache()
        self.facts.now = library.clock()
        self.result = run_filter(self.tree, self.spec, self.facts)
        self.endResetModel()
        self.filterApplied.emit()


    def _refresh_referrers(self, change: ChangeSet) -> None:
        """Skills whose see-also now names (or no longer names) a skill may gain/lose a problem."""
        library = self.library
        names = {*change.created, *change.deleted, *(n for pair in change.renamed for n in pair)}
        if library is None or not names:
            return
        for ref in library.references_to(names):
            node = self.tree.skill_node(ref.referrer)
            if node is not None:
                index = self.index_of(node)
                self.dataChanged.emit(index, index, [BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def _all_data_changed(self, roles: list[int]) -> None:
        """Badges anywhere may differ: one dataChanged per shown folder's rows."""
        root = self.tree.root
        if self.expanded_uids is None:
            folders = (n for n in self.tree.by_uid.values() if n.children and n is not root)
        else:  # only what the view shows (see expanded_uids)
            folders = (n for n in map(self.tree.by_uid.get, list(self.expanded_uids))
                       if n is not None and n.children and n is not root)
        for node in [root, *folders]:
            parent = QModelIndex() if node is root else self.index_of(node)
            if node is not root and not parent.isValid():
                continue
            rows = self.rowCount(parent)
            if rows:
                self.dataChanged.emit(self.index(0, 0, parent), self.index(rows - 1, 0, parent),
                                      roles)

    # ---------------------------------------------------------------- the tree's listener

    def _signalled(self, parent: Node, row: int) -> bool:
        """Whether a row inserted/removed at ``parent``/``row`` is among those the view was given."""
        if parent is self.tree.root:  # (once everything was fetched, new rows are shown at once)
            return row < self._fetched or self._fetched >= self._top_total()
        return self.index_of(parent).isValid()

    def before_insert(self, parent: Node, row: int) -> None:
        shown = self._signalled(parent, row)
        self._pending.append((shown, parent is self.tree.root))
        if shown:
            self.beginInsertRows(self.index_of(parent), row, row)

    def after_insert(self) -> None:
        shown, at_root = self._pending.pop()
        if shown:
            self._fetched += at_root
            self._guarded(self.endInsertRows)

    def before_remove(self, parent: Node, row: int) -> None:
        shown = self._signalled(parent, row)
        self._pending.append((shown, parent is self.tree.root))
        if shown:
            self.beginRemoveRows(self.index_of(parent), row, row)

    def after_remove(self) -> None:
        shown, at_root = self._pending.pop()
        if shown:
            self._fetched -= at_root
            self._guarded(self.endRemoveRows)

    def node_changed(self, node: Node) -> None:
        index = self.index_of(node)
        if index.isValid():
            self.dataChanged.emit(index, index)

    # ---------------------------------------------------------------- filtering

    def set_filter(self, spec: TreeFilter) -> FilterResult | None:
        """Show only matching skills and their ancestors (``spec`` inactive: everything)."""
        with gc_paused():
            self.beginResetModel()
            self.spec = spec
            self._terms = spec.terms
            self._clear_filter_cache()
            self.resources.clear()
            if self.library is not None:
                self.facts.now = self.library.clock()
            self.result = run_filter(self.tree, spec, self.facts) if spec.active else None
            self.tree.listener = None if self.result is not None else self
            self.endResetModel()
            self.filterApplied.emit()  # the pane expands the matches inside the same pause
        return self.result

    def _clear_filter_cache(self) -> None:
        self._kids = {}
        self._rows = {}

    @property
    def filtering(self) -> bool:
        return self.result is not None

    # ---------------------------------------------------------------- structure

    def child_nodes(self, node: Node) -> list[Node]:
        """``node``'s child rows (the visible ones while a filter is on)."""
        result = self.result
        if result is None:
            return node.children
        kids = self._kids.get(node.uid)
        if kids is None:
            visible = result.visible
            kids = [child for child in node.children if child.uid in visible]
            self._kids[node.uid] = kids
            rows = self._rows
            for row, child in enumerate(kids):
                rows[child.uid] = row
        return kids

    def _row(self, node: Node) -> int:
        if self.result is None:
            return node.row
        row = self._rows.get(node.uid)
        if row is None:
            assert node.parent is not None
            self.child_nodes(node.parent)
            row = self._rows.get(node.uid, -1)
        return row

    def node(self, index: Index) -> Node | None:
        """The node behind an index (None for the root, stale or foreign indexes)."""
        if not index.isValid() or index.model() is not self:
            return None
        return self.tree.by_uid.get(index.internalId())

    def _node_or_root(self, index: Index) -> Node | None:
        """Hot path (the view asks for every laid-out row): no foreign-model check."""
        return self.tree.by_uid.get(index.internalId()) if index.isValid() else self.tree.root

    def index_of(self, node: Node | None) -> QModelIndex:
        """The index of a node that is shown (invalid for the root or a filtered-out node)."""
        if node is None or node.parent is None or self.tree.by_uid.get(node.uid) is not node:
            return QModelIndex()
        if self.result is not None and node.uid not in self.result.visible:
            return QModelIndex()
        if self._top_row(node) >= self._fetched:
            return QModelIndex()  # not handed to the view yet (see fetchMore)
        row = self._row(node)
        return self.createIndex(row, 0, node.uid) if row >= 0 else QModelIndex()

    def _top_row(self, node: Node) -> int:
        """The row of ``node``'s top-level ancestor (or of ``node`` itself at the top)."""
        root = self.tree.root
        while node.parent is not None and node.parent is not root:
            node = node.parent
        return self._row(node)

    def index_for(self, name: str) -> QModelIndex:
        """The index of a skill name or folder path (case-insensitive), fetching rows up to it."""
        node = self.tree.find(name) if name else None
        if node is None or node.parent is None:
            return QModelIndex()
        row = self._top_row(node)
        if row >= self._fetched:
            self._fetch_until(row + 1)
        return self.index_of(node)

    # ---------------------------------------------------------------- fetching top-level rows

    def _top_total(self) -> int:
        root = self.tree.root
        return len(root.children if self.result is None else self.child_nodes(root))

    def _fetch_until(self, rows: int) -> None:
        """Hand top-level rows up to ``rows`` to the view; never from inside another change's
        signals (a slot reacting to rowsInserted may ask for more: it is asked again later)."""
        if self._fetching or self._pending:
            return
        total = self._top_total()
        rows = min(total, rows)
        if rows > self._fetched:
            self._fetching = True
            try:
                self.beginInsertRows(QModelIndex(), self._fetched, rows - 1)
                self._fetched = rows
                self.endInsertRows()
            finally:
                self._fetching = False

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and self._fetched < self._top_total()

    def fetchMore(self, parent: Index) -> None:
        if not parent.isValid():
            self._fetch_until(self._fetched + self.batch)

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self.tree.by_uid.get(parent.internalId()) if parent.isValid() else self.tree.root
        if node is None or column != 0 or row < 0:
            return QModelIndex()
        kids = node.children if self.result is None else self.child_nodes(node)
        if node is self.tree.root and row >= self._fetched:
            return QModelIndex()
        if row >= len(kids):
            resources = self.resources.of(node) if node is not self.tree.root else []
            if row - len(kids) >= len(resources):
                return QModelIndex()
            return self.createIndex(row, 0, resources[row - len(kids)].id)
        return self.createIndex(row, 0, kids[row].uid)

    @overload
    def parent(self) -> QObject | None: ...
    @overload
    def parent(self, index: Index) -> QModelIndex: ...
    def parent(self, index: Index | None = None) -> QModelIndex | QObject | None:
        if index is None:  # QObject.parent()
            return super().parent()
        resource = self.resource_row(index)
        if resource is not None:
            owner = self.tree.by_uid.get(resource.owner)
            return self.index_of(owner) if owner is not None else QModelIndex()
        node = self.node(index)
        if node is None or node.parent is None or node.parent.parent is None:
            return QModelIndex()
        parent = node.parent
        return self.createIndex(self._row(parent), 0, parent.uid)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        node: Node | None
        if not parent.isValid():
            node = self.tree.root
        elif parent.column() > 0:
            return 0
        else:
            node = self.tree.by_uid.get(parent.internalId())
            if node is None:
                return 0
        rows = len(node.children if self.result is None else self.child_nodes(node))
        return min(rows, self._fetched) if node is self.tree.root \
            else rows + len(self.resources.of(node))

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        node: Node | None
        if not parent.isValid():
            node = self.tree.root
        else:
            node = self.tree.by_uid.get(parent.internalId())
            if node is None:
                return False
            if not node.children:
                return bool(self.resources.of(node))
        return bool(node.children if self.result is None else self.child_nodes(node)) \
            or (node is not self.tree.root and bool(self.resources.of(node)))

    # ---------------------------------------------------------------- what rows show (tree_model_data)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        return self.look.data(index, role)

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Every node can be renamed and dragged; folders (and the top level) take drops."""
        return self.look.flags(index)

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An inline edit: ask for the rename (the pane previews it); the model is unchanged."""
        asked = self.look.rename_asked(index, value, role)
        if asked is not None:
            self.renameRequested.emit(*asked)
        return False

    def badges(self, node: Node) -> tuple[Badge, ...]:
        return self.look.badges(node)

    def tooltip(self, node: Node) -> str:
        return self.look.tooltip(node)

    def count(self, node: Node) -> int | None:
        return self.look.count(node)

    # ---------------------------------------------------------------- drag and drop (tree_model_dnd)

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        return self.dnd.mime_data(indexes)

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: Index) -> bool:
        del row, column
        return self.dnd.can_drop(data, action, parent)

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: Index) -> bool:
        """Dropping skills or folders on a folder asks for a move (see ``moveRequested``)."""
        if not self.dnd.can_drop(data, action, parent):
            return False
        self.moveRequested.emit(self.dnd.drop_mapping(data, parent))
        return True

    def move_mapping(self, node: Node, new_path: str) -> dict[str, str]:
        return self.dnd.move_mapping(node, new_path)

    # ---------------------------------------------------------------- resource rows (tree_model_resources)

    def resource_row(self, index: Index) -> ResourceRow | None:
        """The resource behind an index (None for skill/folder rows, stale or foreign indexes)."""
        if not index.isValid() or index.model() is not self:
            return None
        return self.resources.by_id.get(index.internalId())

    def index_for_resource(self, name: str, filename: str) -> QModelIndex:
        """The index of skill ``name``'s resource ``filename`` (invalid when not shown)."""
        node = self.tree.skill_node(name) if name else None
        parent = self.index_for(name) if node is not None else QModelIndex()
        found = self.resources.find(node, filename) if node is not None else None
        if node is None or not parent.isValid() or found is None:
            return QModelIndex()
        offset, row = found
        return self.createIndex(len(self.child_nodes(node)) + offset, 0, row.id)

    def _drop_resource_rows(self, keys: set[str]) -> None:
        """Remove the reported resource rows of these skills (signalled where shown)."""
        for key in keys:
            node = self.tree.by_key.get(key)
            rows = self.resources.rows.get(node.uid) if node is not None else None
            if node is None or rows is None:
                continue
            parent = self.index_of(node) if rows else QModelIndex()
            if parent.isValid():
                kids = len(self.child_nodes(node))
                self.beginRemoveRows(parent, kids, kids + len(rows) - 1)
            self.resources.forget(node)
            if parent.isValid():
                self._guarded(self.endRemoveRows)

    def _add_resource_rows(self, keys: set[str]) -> None:
        """Report the resource rows of these skills again, where the view is shown them."""
        for key in keys:
            node = self.tree.by_key.get(key)
            if node is None or node.skill is None or node.uid in self.resources.rows:
                continue
            parent = self.index_of(node)
            if not parent.isValid():
                continue  # asked for afresh when shown
            found = self.library.resources(node.skill.name) if self.library is not None else []
            if not found:
                self.resources.keep(node, [])
                continue
            kids = len(self.child_nodes(node))
            self.resources.rows[node.uid] = []  # what the view knows until the rows are in
            self.beginInsertRows(parent, kids, kids + len(found) - 1)
            self.resources.keep(node, found)
            self._guarded(self.endInsertRows)
