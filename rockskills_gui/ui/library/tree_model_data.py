"""What each row of the library tree model shows: label, path, badges, counts, filter match
spans, the summary snippet, tooltips, flags; an inline edit asks for a rename. A part of
``SkillTreeModel``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from rockskills_gui.core.library.tree import Node, match_spans, summary_snippet
from rockskills_gui.core.model.names import fold
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
    TreeSource,
)

_SKILL_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
_FOLDER_FLAGS = _SKILL_FLAGS | Qt.ItemFlag.ItemIsDropEnabled
_TOP_FLAGS = Qt.ItemFlag.ItemIsDropEnabled
_RESOURCE_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


if TYPE_CHECKING:  # (MCP freshness: RockBot (current) only, loaded with its first mcp/ skill)
    from rockskills_gui.core.model.mcp_freshness import SkillFreshness

def _when(value: Timestamp | None) -> str:
    if value is None:
        return "never"
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")


class TreeItemData:
    """What the rows of ``model`` show (its ``data``, ``flags`` and ``setData``), and the marks
    this part keeps for them: unsaved edits, skills an agent does not see, lint findings."""

    def __init__(self, model: TreeSource) -> None:
        self.model = model
        self.dirty: set[str] = set()  # folded names whose editor buffer has unsaved edits
        self.invisible: frozenset[str] = frozenset()  # folded names left out of an agent's list
        self.switched_off: frozenset[str] = frozenset()  # folded names the agent's settings turn off
        self.lint: Mapping[str, list[str]] = {}  # folded name -> warning messages (pane's worker)

    def set_dirty(self, names: Iterable[str]) -> set[str]:
        """Names whose editor buffer has unsaved edits; returns the folded names that changed."""
        new = {fold(n) for n in names}
        changed = new ^ self.dirty
        self.dirty = new
        return changed

    def lint_messages(self, node: Node) -> list[str]:
        return self.lint.get(node.key, []) if node.skill is not None else []

    # ---------------------------------------------------------------- data

    def badges(self, node: Node) -> tuple[Badge, ...]:
        skill = node.skill
        if skill is None:
            return ()
        facts = self.model.facts
        library = self.model.library
        found = []
        if node.key in self.dirty:
            found.append(Badge.UNSAVED)
        if facts.problems(skill):
            found.append(Badge.PROBLEM)
        if facts.sparse(skill):
            found.append(Badge.SPARSE)
        if facts.never_used(skill) and (library is None or shows(Part.USAGE, library)):
            found.append(Badge.NEVER_USED)
        if skill.summary_pending:
            found.append(Badge.SUMMARY_PENDING)
        lifecycle = self._lifecycle(skill.name)
        if lifecycle in (Badge.DEPRECATED, Badge.ARCHIVED):
            found.append(Badge(lifecycle))
        if node.key in self.invisible:
            found.append(Badge.INVISIBLE)
        if node.key in self.switched_off:
            found.append(Badge.SWITCHED_OFF)
        if node.key in self.lint:
            found.append(Badge.LINT)
        return tuple(found)

    def _lifecycle(self, name: str) -> str | None:
        """A skill's lifecycle (CortexPrism's memory.db; None where the profile holds none)."""
        library = self.model.library
        if library is None or not shows(Part.LIFECYCLE, library):
            return None
        lifecycle = library.health_stats(name).get("lifecycle")
        return lifecycle if isinstance(lifecycle, str) else None

    def count(self, node: Node) -> int | None:
        if not node.children:
            return None
        result = self.model.result
        if result is not None:
            return result.counts.get(node.uid, 0)
        return node.count

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        model = self.model
        node = model.node(index)
        if node is None:
            resource = model.resource_row(index)
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
        terms = model.terms
        if role == SPANS_ROLE:
            return match_spans(node, terms) if terms else []
        if role == SNIPPET_ROLE:
            result = model.result
            if result is None or not terms or node.uid not in result.matches:
                return self._freshness_marker(node)
            text, spans = summary_snippet(node, terms)
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
        library, skill = self.model.library, node.skill
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

        library, facts, result = self.model.library, self.model.facts, self.model.result
        lines = [f"<b>{html.escape(node.path)}</b>"]
        skill = node.skill
        if skill is not None:
            summary = "(summary pending)" if skill.summary_pending else skill.summary or ""
            lines.append(html.escape(summary))
            found = self.freshness(node)
            if found is not None:
                from rockskills_gui.ui.library.mcp_freshness_text import freshness_tip

                lines.extend(freshness_tip(found))
            used = facts.last_use(skill)
            lines.append(f"Updated {_when(skill.updated_at)} · "
                         + (f"last used {_when(used)}" if used is not None else "never used"))
            linked = library.link_of(skill.name) if library is not None else None
            if linked is not None and library is not None:
                # (core.storage.links: reads follow links; writes need the target allowed)
                link, target = linked
                lines.append(f"Linked to {html.escape(str(target))} "
                             f"({html.escape(library.layout.display_path(link))} is a symbolic link)")
            for badge in self.badges(node):
                if badge == Badge.PROBLEM:
                    lines.extend(f"⚠ {html.escape(r)}" for r in facts.problems(skill))
                elif badge == Badge.LINT:
                    lines.extend(f"lint: {html.escape(m)}" for m in self.lint.get(node.key, []))
                else:
                    lines.append(f"• {html.escape(BADGE_TIPS[badge])}")
        if node.children:
            total = node.count
            held = f"{total} skill{'' if total == 1 else 's'} in this folder"
            if result is not None:
                held = f"{result.counts.get(node.uid, 0)} of {held} match"
            lines.append(held)
        return "<br>".join(lines)

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Every node can be renamed and dragged; folders (and the top level) take drops."""
        if not index.isValid():
            return _TOP_FLAGS
        node = self.model.tree.by_uid.get(index.internalId())
        if node is None:
            return _RESOURCE_FLAGS if self.model.resource_row(index) is not None else _NO_FLAGS
        return _FOLDER_FLAGS if node.children else _SKILL_FLAGS

    def rename_asked(self, index: Index, value: object, role: int) -> tuple[str, str] | None:
        """An inline edit (``setData``): the rename it asks for, ``(old path, new path)``, if
        any (the pane previews it; the model is unchanged)."""
        node = self.model.node(index)
        if node is None or role != Qt.ItemDataRole.EditRole or not isinstance(value, str):
            return None
        new = value.strip()
        return (node.path, new) if new and new != node.path else None
