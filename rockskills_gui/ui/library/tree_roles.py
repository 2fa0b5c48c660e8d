"""What the library tree model's rows carry: the item data roles, the badges a skill row can
show (with their tooltips), and the resource rows listed under a RockBot (current) skill; and
what the model's parts read of it (:class:`TreeSource`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from rockskills_gui.core.library.library import Library, Resource
from rockskills_gui.core.library.tree import Facts, FilterResult, Node, SkillTree

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
    SWITCHED_OFF = "switched off"  # the library's agent has it off in its own settings (issue 33)


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
    Badge.SWITCHED_OFF: "Switched off for this library's agent in its own settings (see the Machine tab); "
                        "its files are untouched",
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


class TreeSource(Protocol):
    """What the parts of ``SkillTreeModel`` (how rows look, drag and drop, resource rows) read
    of it: the library and its tree, the filter in force, and where a node's row is."""

    @property
    def library(self) -> Library | None: ...
    @property
    def tree(self) -> SkillTree: ...
    @property
    def facts(self) -> Facts: ...
    @property
    def result(self) -> FilterResult | None: ...
    @property
    def terms(self) -> tuple[str, ...]: ...
    def node(self, index: Index) -> Node | None: ...
    def resource_row(self, index: Index) -> ResourceRow | None: ...
    def index_of(self, node: Node | None) -> QModelIndex: ...
    def index_for(self, name: str) -> QModelIndex: ...
    def child_nodes(self, node: Node) -> list[Node]: ...
