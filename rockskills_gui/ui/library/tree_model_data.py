"""What each row of the library tree model shows: label, path, badges, counts, filter match
spans, the summary snippet, tooltips, flags; an inline edit asks for a rename. A mixin of
``SkillTreeModel``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractItemModel, Qt, SignalInstance

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import (
    Facts,
    FilterResult,
    Node,
    SkillTree,
    match_spans,
    summary_snippet,
)
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.models import NAME_ROLE
from rockskills_gui.ui.library.tree_roles import (
    BADGE_TIPS,
    BADGES_ROLE,
    COUNT_ROLE,
    KIND_ROLE,
    PATH_ROLE,
    RESOURCE_ROLE,
    SNIPPET_ROLE,
    SPANS_ROLE,
    Badge,
    Index,
    ResourceRow,
)

_SKILL_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
_FOLDER_FLAGS = _SKILL_FLAGS | Qt.ItemFlag.ItemIsDropEnabled
_TOP_FLAGS = Qt.ItemFlag.ItemIsDropEnabled
_RESOURCE_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


if TYPE_CHECKING:  # (MCP freshness: RockBot (current) only, loaded with its first mcp/ skill)
    from rockskills_gui.core.model.mcp_freshness import SkillFreshness

if TYPE_CHECKING:  # the model is a QAbstractItemModel; at run time this is a plain mixin
    _ModelBase = QAbstractItemModel
else:
    _ModelBase = object


def _when(value: Timestamp | None) -> str:
    if value is None:
        return "never"
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")


class TreeItemData(_ModelBase):
    """``data``, ``flags`` and ``setData`` of ``SkillTreeModel``, and what they are made of."""

    library: Library | None
    tree: SkillTree
    facts: Facts
    result: FilterResult | None
    renameRequested: SignalInstance
    _terms: tuple[str, ...]
    _dirty: set[str]
    _invisible: frozenset[str]
    _lint: Mapping[str, list[str]]
    _resource_by_id: dict[int, ResourceRow]

    if TYPE_CHECKING:
        def node(self, index: Index) -> Node | None: ...
        def resource_row(self, index: Index) -> ResourceRow | None: ...

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
        if facts.never_used(skill) and (self.library is None or shows(Part.USAGE, self.library)):
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
        """A skill's lifecycle (CortexPrism's memory.db; None where the profile holds none)."""
        library = self.library
        if library is None or not shows(Part.LIFECYCLE, library):
            return None
        lifecycle = library.health_stats(name).get("lifecycle")
        return lifecycle if isinstance(lifecycle, str) else None

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
        import html  # (tooltips are asked for on hover: not at start)

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
        if skill is None or not shows(Part.MCP_FRESHNESS, library):
            return None
        from rockskills_gui.core.model.mcp_freshness import skill_freshness  # (RockBot (current))

        return skill_freshness(skill)

    def _freshness_marker(self, node: Node) -> tuple[str, list[tuple[int, int]]] | None:
        found = self.freshness(node)
        if found is None:
            return None
        from rockskills_gui.ui.library.mcp_freshness_text import freshness_marker

        return freshness_marker(found), []

    def tooltip(self, node: Node) -> str:
        import html  # (tooltips are asked for on hover: not at start)

        lines = [f"<b>{html.escape(node.path)}</b>"]
        skill = node.skill
        if skill is not None:
            summary = "(summary pending)" if skill.summary_pending else skill.summary or ""
            lines.append(html.escape(summary))
            found = self.freshness(node)
            if found is not None:
                from rockskills_gui.ui.library.mcp_freshness_text import freshness_tip

                lines.extend(freshness_tip(found))
            used = self.facts.last_use(skill)
            lines.append(f"Updated {_when(skill.updated_at)} · "
                         + (f"last used {_when(used)}" if used is not None else "never used"))
            linked = self.library.link_of(skill.name) if self.library is not None else None
            if linked is not None:  # (core.storage.links: reads follow links; writes need the target allowed)
                link, target = linked
                lines.append(f"Linked to {html.escape(str(target))} "
                             f"({html.escape(self.library.layout.display_path(link))} is a symbolic link)")
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
