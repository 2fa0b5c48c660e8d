"""A lazy item model directly over the core prefix tree (no QStandardItemModel copy).

Row ``r`` under a node is ``node.children[r]`` (or, while a filter is on, the r-th *visible*
child, computed on first use). Indexes carry the node's ``uid``, so a stale index simply finds
nothing. Unfiltered, the tree's listener turns each change into begin/end insert/remove signals;
filtered, a change re-runs the filter inside one reset (the pane re-expands the matches).
"""

from __future__ import annotations

import html
import itertools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from rockskills_gui.core.library.resources import resource_owner, resources_of
from rockskills_gui.core.library.rockbot_library import Library, Resource
from rockskills_gui.core.library.tree import (
    Facts,
    FilterResult,
    Node,
    SkillTree,
    TreeFilter,
    drop_mapping,
    gc_paused,
    is_inside,
    match_spans,
    move_mapping,
    problems_by_name,
    run_filter,
    summary_snippet,
)
from rockskills_gui.core.model.mcp_freshness import SkillFreshness, skill_freshness
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.models import NAME_ROLE
from rockskills_gui.ui.library.mcp_freshness_text import freshness_marker, freshness_tip

Index = QModelIndex | QPersistentModelIndex
MIME_TYPE = "application/x-rockskills-tree-nodes"

PATH_ROLE = Qt.ItemDataRole.UserRole + 2  # full path as spelled (folders too)
COUNT_ROLE = Qt.ItemDataRole.UserRole + 3  # skills held (matching ones while filtering); None: leaf
BADGES_ROLE = Qt.ItemDataRole.UserRole + 4  # tuple[Badge, ...]
SPANS_ROLE = Qt.ItemDataRole.UserRole + 5  # [(start, length)] of the filter match in the label
KIND_ROLE = Qt.ItemDataRole.UserRole + 6  # "skill", "folder" or "skill+folder"
SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 7  # (summary excerpt, spans) when only it matched a term
RESOURCE_ROLE = Qt.ItemDataRole.UserRole + 8  # (skill name, resource filename) of a resource row
# Resource rows (RockBot (current): a skill's {name}.resources/ files and manifest entries) come
# after a skill node's child rows; their internal ids count up from here (node uids stay below).
RESOURCE_ID_BASE = 1 << 48
# Top-level rows handed to the view at a time (canFetchMore/fetchMore): the view lays out every
# top-level row it is given (a few calls into Python each): 27,000 of them (100,000 skills)
# blocked the UI for ~150 ms, 2,000 for ~60-90 ms; 500 take ~20 ms and still fill many screens.
FETCH_BATCH = 500


_SKILL_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
_FOLDER_FLAGS = _SKILL_FLAGS | Qt.ItemFlag.ItemIsDropEnabled
_TOP_FLAGS = Qt.ItemFlag.ItemIsDropEnabled
_RESOURCE_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


class Badge(StrEnum):
    """Markers a row can carry, in the order they are drawn."""

    UNSAVED = "unsaved"
    PROBLEM = "problem"
    SPARSE = "sparse"
    NEVER_USED = "never used"
    SUMMARY_PENDING = "summary pending"
    DEPRECATED = "deprecated"  # CortexPrism lifecycle (memory.db): no longer offered to the agent
    ARCHIVED = "archived"
    INVISIBLE = "not advertised"  # left out of the agent's skill list by a limit (Budget tab)
    LINT = "lint"  # lint warns about it in its format (e.g. an Agent Skills name unlike its folder)


BADGE_TIPS = {
    Badge.UNSAVED: "Unsaved edits in the editor",
    Badge.PROBLEM: "Problem",
    Badge.SPARSE: "Sparse: under 200 characters of content and older than 7 days "
                  "(RockBot's dream flags it as needing examples or steps)",
    Badge.NEVER_USED: "Never used (no lastUsedAt and no usage event)",
    Badge.SUMMARY_PENDING: "Summary pending: RockBot lists it as \"(summary pending)\"",
    Badge.DEPRECATED: "Deprecated in CortexPrism's memory.db: no longer offered to the agent",
    Badge.ARCHIVED: "Archived in CortexPrism's memory.db: no longer offered to the agent",
    Badge.INVISIBLE: "Not advertised: the agent's skill list leaves it out (see the Budget tab)",
    Badge.LINT: "Lint warns about it in this format (rockskills lint)",
}


@dataclass(frozen=True)
class ResourceRow:
    """A resource shown under its skill (read-only: no rename, drag or drop)."""

    id: int  # the index's internal id
    owner: int  # the skill node's uid
    skill: str  # the skill's name
    resource: Resource

    @property
    def detail(self) -> str:
        """``Python``, ``Markdown · missing``, ``not in the manifest``."""
        kind = self.resource.type or "not in the manifest"
        return f"{kind} · missing" if self.resource.path is None else kind


def _when(value: Timestamp | None) -> str:
    if value is None:
        return "never"
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")


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
        self._dirty: set[str] = set()
        self._invisible: frozenset[str] = frozenset()
        self._last_used: Mapping[str, Timestamp] = {}
        self._lint: Mapping[str, list[str]] = {}  # folded name -> warning messages (pane's worker)
        # Kept by the view's owner: the uids of the folders the view has expanded (None: unknown).
        # Badge updates skip collapsed folders (their rows are asked for afresh when expanded):
        # at 100,000 skills, one dataChanged per folder took 0.3 s of the UI thread.
        self.expanded_uids: set[int] | None = None
        self.batch = FETCH_BATCH
        self._fetched = FETCH_BATCH  # top-level rows the view has been given so far
        self._fetching = False  # inside fetchMore's own insert signals
        self._pending: list[tuple[bool, bool]] = []  # listener insert/remove: (signalled, at root)
        # Resource rows per skill node uid, computed when the view first asks about the node (one
        # stat for a skill without resources); an entry means the rows were reported to the view.
        self._resource_rows: dict[int, list[ResourceRow]] = {}
        self._resource_by_id: dict[int, ResourceRow] = {}
        self._resource_ids = itertools.count(RESOURCE_ID_BASE)

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
            self._lint = {}
            self._rebuild(tree)
            self.endResetModel()
            self.filterApplied.emit()

    def _rebuild(self, tree: SkillTree | None = None) -> None:
        library = self.library
        self._clear_resources()
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
        if not marks and not self._lint:
            return
        self._lint = marks
        self._all_data_changed([BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def lint_messages(self, node: Node) -> list[str]:
        return self._lint.get(node.key, []) if node.skill is not None else []

    def set_dirty(self, names: Iterable[str]) -> None:
        """Names whose editor buffer has unsaved edits."""
        new = {fold(n) for n in names}
        changed = new ^ self._dirty
        self._dirty = new
        for key in changed:
            node = self.tree.by_key.get(key)
            if node is not None:
                index = self.index_of(node)
                if index.isValid():
                    self.dataChanged.emit(index, index, [BADGES_ROLE, Qt.ItemDataRole.ToolTipRole])

    def set_invisible(self, names: Iterable[str]) -> None:
        """Names the agent's skill list leaves out (marked "not advertised")."""
        self._invisible = frozenset(fold(n) for n in names)
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
        touched = self._resource_owners(change)
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
        self._clear_resources()
        if not self.tree.apply(change, library.get):
            self.tree = SkillTree(library.skills())
            self._refresh_facts()
        self._clear_filter_cache()
        self.facts.now = library.clock()
        self.result = run_filter(self.tree, self.spec, self.facts)
        self.endResetModel()
        self.filterApplied.emit()

    # ---------------------------------------------------------------- resource rows

    def _clear_resources(self) -> None:
        self._resource_rows = {}
        self._resource_by_id = {}

    def _resources(self, node: Node) -> list[ResourceRow]:
        """The resource rows under ``node`` (computed and kept on first use)."""
        rows = self._resource_rows.get(node.uid)
        if rows is not None:
            return rows
        skill = node.skill
        found = resources_of(self.library, skill.name) if skill is not None else []
        rows = [ResourceRow(next(self._resource_ids), node.uid, skill.name, r)
                for r in found if skill is not None]
        self._resource_rows[node.uid] = rows
        for row in rows:
            self._resource_by_id[row.id] = row
        return rows

    def resource_row(self, index: Index) -> ResourceRow | None:
        """The resource behind an index (None for skill/folder rows, stale or foreign indexes)."""
        if not index.isValid() or index.model() is not self:
            return None
        return self._resource_by_id.get(index.internalId())

    def index_for_resource(self, name: str, filename: str) -> QModelIndex:
        """The index of skill ``name``'s resource ``filename`` (invalid when not shown)."""
        node = self.tree.skill_node(name) if name else None
        parent = self.index_for(name) if node is not None else QModelIndex()
        if node is None or not parent.isValid():
            return QModelIndex()
        kids = len(self._children(node))
        for offset, row in enumerate(self._resources(node)):
            if row.resource.filename == filename:
                return self.createIndex(kids + offset, 0, row.id)
        return QModelIndex()

    def _resource_owners(self, change: ChangeSet) -> set[str]:
        """Folded names of the skills whose resources ``change`` may alter."""
        library = self.library
        if library is None or not self._resource_rows:
            return set()
        names = {*change.created, *change.updated, *change.deleted,
                 *(n for pair in change.renamed for n in pair)}
        for fc in change.files:
            owner = resource_owner(library, fc.path) if isinstance(library, Library) else None
            if owner is not None:
                names.add(owner)
        return {fold(n) for n in names}

    def _drop_resource_rows(self, keys: set[str]) -> None:
        """Remove the reported resource rows of these skills (signalled where shown)."""
        for key in keys:
            node = self.tree.by_key.get(key)
            rows = self._resource_rows.get(node.uid) if node is not None else None
            if node is None or rows is None:
                continue
            parent = self.index_of(node) if rows else QModelIndex()
            if parent.isValid():
                kids = len(self._children(node))
                self.beginRemoveRows(parent, kids, kids + len(rows) - 1)
            del self._resource_rows[node.uid]
            for row in rows:
                self._resource_by_id.pop(row.id, None)
            if parent.isValid():
                self._guarded(self.endRemoveRows)

    def _add_resource_rows(self, keys: set[str]) -> None:
        """Report the resource rows of these skills again, where the view is shown them."""
        for key in keys:
            node = self.tree.by_key.get(key)
            if node is None or node.skill is None or node.uid in self._resource_rows:
                continue
            parent = self.index_of(node)
            if not parent.isValid():
                continue  # asked for afresh when shown
            found = resources_of(self.library, node.skill.name)
            if not found:
                self._resource_rows[node.uid] = []
                continue
            kids = len(self._children(node))
            self._resource_rows[node.uid] = []  # what the view knows until the rows are in
            self.beginInsertRows(parent, kids, kids + len(found) - 1)
            rows = [ResourceRow(next(self._resource_ids), node.uid, node.skill.name, r)
                    for r in found]
            self._resource_rows[node.uid] = rows
            for row in rows:
                self._resource_by_id[row.id] = row
            self._guarded(self.endInsertRows)

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
            self._clear_resources()
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

    def _children(self, node: Node) -> list[Node]:
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
            self._children(node.parent)
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
        return len(root.children if self.result is None else self._children(root))

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
        kids = node.children if self.result is None else self._children(node)
        if node is self.tree.root and row >= self._fetched:
            return QModelIndex()
        if row >= len(kids):
            resources = self._resources(node) if node is not self.tree.root else []
            if row - len(kids) >= len(resources):
                return QModelIndex()
            return self.createIndex(row, 0, resources[row - len(kids)].id)
        return self.createIndex(row, 0, kids[row].uid)

    def parent(self, index: Index | None = None) -> QModelIndex | QObject:  # type: ignore[override]
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
        if not parent.isValid():
            node = self.tree.root
        elif parent.column() > 0:
            return 0
        else:
            node = self.tree.by_uid.get(parent.internalId())
            if node is None:
                return 0
        rows = len(node.children if self.result is None else self._children(node))
        return min(rows, self._fetched) if node is self.tree.root else rows + len(self._resources(node))

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            node = self.tree.root
        else:
            node = self.tree.by_uid.get(parent.internalId())
            if node is None:
                return False
            if not node.children:
                return bool(self._resources(node))
        return bool(node.children if self.result is None else self._children(node)) \
            or (node is not self.tree.root and bool(self._resources(node)))

    # ---------------------------------------------------------------- data

    def badges(self, node: Node) -> tuple[Badge, ...]:
        skill = node.skill
        if skill is None:
            return ()
        facts = self.facts
        found = []
        if node.key in self._dirty:
            found.append(Badge.UNSAVED)
        if facts.problems(skill):
            found.append(Badge.PROBLEM)
        if facts.sparse(skill):
            found.append(Badge.SPARSE)
        if facts.never_used(skill) and (self.library is None or self.library.has_usage_log):
            found.append(Badge.NEVER_USED)
        if skill.summary_pending:
            found.append(Badge.SUMMARY_PENDING)
        lifecycle = self._lifecycle(skill.name)
        if lifecycle in (Badge.DEPRECATED, Badge.ARCHIVED):
            found.append(Badge(lifecycle))
        if node.key in self._invisible:
            found.append(Badge.INVISIBLE)
        if node.key in self._lint:
            found.append(Badge.LINT)
        return tuple(found)

    def _lifecycle(self, name: str) -> str | None:
        """A CortexPrism skill's lifecycle from memory.db (None for other formats)."""
        library = self.library
        if library is None or library.format != "cortex":
            return None
        stats = getattr(library.entry(name), "stats", None) or {}
        return stats.get("lifecycle")

    def count(self, node: Node) -> int | None:
        if not node.children:
            return None
        if self.result is not None:
            return self.result.counts.get(node.uid, 0)
        return node.count

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        node = self.node(index)
        if node is None:
            resource = self.resource_row(index)
            return self._resource_data(resource, role) if resource is not None else None
        if role == Qt.ItemDataRole.DisplayRole:
            return node.label
        if role == Qt.ItemDataRole.EditRole or role == PATH_ROLE:
            return node.path
        if role == NAME_ROLE:
            return node.name
        if role == COUNT_ROLE:
            return self.count(node)
        if role == BADGES_ROLE:
            return self.badges(node)
        if role == SPANS_ROLE:
            return match_spans(node, self._terms) if self._terms else []
        if role == SNIPPET_ROLE:
            if self.result is None or not self._terms or node.uid not in self.result.matches:
                return self._freshness_marker(node)
            text, spans = summary_snippet(node, self._terms)
            return (text, spans) if text else self._freshness_marker(node)
        if role == KIND_ROLE:
            return ("skill+folder" if node.skill is not None and node.children
                    else "skill" if node.skill is not None else "folder")
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(node)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            badges = ", ".join(self.badges(node))
            return f"{node.path} ({badges})" if badges else node.path
        return None

    def _resource_data(self, row: ResourceRow, role: int) -> object:
        resource = row.resource
        if role == Qt.ItemDataRole.DisplayRole:
            return resource.filename
        if role == RESOURCE_ROLE:
            return (row.skill, resource.filename)
        if role == KIND_ROLE:
            return "resource"
        if role == SNIPPET_ROLE:  # drawn dimmed after the file name
            return (row.detail, [])
        if role == BADGES_ROLE:
            return ()
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [f"<b>{html.escape(resource.filename)}</b> — a resource of "
                     f"{html.escape(row.skill)}", html.escape(row.detail)]
            description = (resource.entry or {}).get("description")
            if isinstance(description, str) and description:
                lines.append(html.escape(description))
            if resource.path is None:
                lines.append("The manifest lists it; the file is not in the resource folder.")
            elif not resource.in_manifest:
                lines.append("In the resource folder; the manifest does not list it.")
            return "<br>".join(lines)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{row.skill} resource {resource.filename} ({row.detail})"
        return None

    def freshness(self, node: Node) -> SkillFreshness | None:
        """RockBot (current): the MCP freshness of an ``mcp/{server}`` skill node (offline:
        Unknown, see :mod:`rockskills_gui.core.model.mcp_freshness`); None otherwise."""
        library, skill = self.library, node.skill
        if skill is None or not isinstance(library, Library) or not library.rules.current:
            return None
        return skill_freshness(skill)

    def _freshness_marker(self, node: Node) -> tuple[str, list[tuple[int, int]]] | None:
        found = self.freshness(node)
        return (freshness_marker(found), []) if found is not None else None

    def tooltip(self, node: Node) -> str:
        lines = [f"<b>{html.escape(node.path)}</b>"]
        skill = node.skill
        if skill is not None:
            summary = "(summary pending)" if skill.summary_pending else skill.summary or ""
            lines.append(html.escape(summary))
            found = self.freshness(node)
            if found is not None:
                lines.extend(freshness_tip(found))
            used = self.facts.last_use(skill)
            lines.append(f"Updated {_when(skill.updated_at)} · "
                         + (f"last used {_when(used)}" if used is not None else "never used"))
            for badge in self.badges(node):
                if badge == Badge.PROBLEM:
                    lines.extend(f"⚠ {html.escape(r)}" for r in self.facts.problems(skill))
                elif badge == Badge.LINT:
                    lines.extend(f"lint: {html.escape(m)}" for m in self._lint.get(node.key, []))
                else:
                    lines.append(f"• {html.escape(BADGE_TIPS[badge])}")
        if node.children:
            total = node.count
            held = f"{total} skill{'' if total == 1 else 's'} in this folder"
            if self.result is not None:
                held = f"{self.result.counts.get(node.uid, 0)} of {held} match"
            lines.append(held)
        return "<br>".join(lines)

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Every node can be renamed and dragged; folders (and the top level) take drops."""
        if not index.isValid():
            return _TOP_FLAGS
        node = self.tree.by_uid.get(index.internalId())
        if node is None:
            return _RESOURCE_FLAGS if index.internalId() in self._resource_by_id else _NO_FLAGS
        return _FOLDER_FLAGS if node.children else _SKILL_FLAGS

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An inline edit: ask for the rename (the pane previews it); the model is unchanged."""
        node = self.node(index)
        if node is None or role != Qt.ItemDataRole.EditRole or not isinstance(value, str):
            return False
        new = value.strip()
        if new and new != node.path:
            self.renameRequested.emit(node.path, new)
        return False

    # ---------------------------------------------------------------- drag and drop

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        paths = []
        for index in indexes:
            node = self.node(index)
            if node is not None and node.path not in paths:
                paths.append(node.path)
        data = QMimeData()
        data.setData(MIME_TYPE, json.dumps(paths).encode("utf-8"))
        data.setText("\n".join(paths))
        return data

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def dragged_nodes(self, data: QMimeData) -> list[Node]:
        if not data.hasFormat(MIME_TYPE):
            return []
        try:
            paths = json.loads(bytes(data.data(MIME_TYPE).data()).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return []
        nodes = [self.tree.find(p) for p in paths if isinstance(p, str)]
        return [n for n in nodes if n is not None and n.parent is not None]

    def drop_target(self, parent: Index) -> Node | None:
        """The folder a drop on ``parent`` goes into (the root for the empty area)."""
        if not parent.isValid():
            return self.tree.root
        node = self.node(parent)
        return node if node is not None and node.children else None

    def drop_mapping(self, data: QMimeData, parent: Index) -> dict[str, str]:
        """The renames a drop would make (empty: the drop is refused or changes nothing)."""
        target = self.drop_target(parent)
        nodes = self.dragged_nodes(data)
        if target is None or not nodes or any(is_inside(n, target) for n in nodes):
            return {}
        return drop_mapping(self.tree, nodes, target)

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: Index) -> bool:
        del row, column
        return action == Qt.DropAction.MoveAction and bool(self.drop_mapping(data, parent))

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: Index) -> bool:
        """Dropping skills or folders on a folder asks for a move (see ``moveRequested``)."""
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        self.moveRequested.emit(self.drop_mapping(data, parent))
        return True

    def move_mapping(self, node: Node, new_path: str) -> dict[str, str]:
        return move_mapping(self.tree, node, new_path)
