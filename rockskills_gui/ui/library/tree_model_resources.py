"""Resource rows of the library tree model: a RockBot (current) skill's ``{name}.resources/``
files listed after its child rows, computed when the view first asks about the skill and
following changes that touch them (the model signals the rows it adds and removes). A part of
``SkillTreeModel``."""

from __future__ import annotations

import itertools

from rockskills_gui.core.library.library import Resource
from rockskills_gui.core.library.tree import Node
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.library.tree_roles import RESOURCE_ID_BASE, ResourceRow, TreeSource


class TreeResourceRows:
    """The resource rows of ``model`` (read-only: no rename, drag or drop), by skill node and
    by id; an entry for a node means its rows were reported to the view."""

    def __init__(self, model: TreeSource) -> None:
        self.model = model
        self.rows: dict[int, list[ResourceRow]] = {}  # skill node uid -> its resource rows
        self.by_id: dict[int, ResourceRow] = {}
        self._ids = itertools.count(RESOURCE_ID_BASE)

    def clear(self) -> None:
        self.rows = {}
        self.by_id = {}

    def of(self, node: Node) -> list[ResourceRow]:
        """The resource rows under ``node`` (computed and kept on first use)."""
        rows = self.rows.get(node.uid)
        if rows is not None:
            return rows
        skill = node.skill
        found = self.model.library.resources(skill.name) if (
            skill is not None and self.model.library is not None) else []
        return self.keep(node, found)

    def keep(self, node: Node, found: list[Resource]) -> list[ResourceRow]:
        """Make and keep the rows of ``found`` under ``node``."""
        name = node.skill.name if node.skill is not None else node.path
        rows = [ResourceRow(next(self._ids), node.uid, name, r) for r in found]
        self.rows[node.uid] = rows
        for row in rows:
            self.by_id[row.id] = row
        return rows

    def forget(self, node: Node) -> None:
        """Drop ``node``'s rows (they are asked for afresh)."""
        for row in self.rows.pop(node.uid, []):
            self.by_id.pop(row.id, None)

    def find(self, node: Node, filename: str) -> tuple[int, ResourceRow] | None:
        """``node``'s resource ``filename``: its place among the resource rows, and the row."""
        for offset, row in enumerate(self.of(node)):
            if row.resource.filename == filename:
                return offset, row
        return None

    def owners(self, change: ChangeSet) -> set[str]:
        """Folded names of the skills whose resources ``change`` may alter."""
        library = self.model.library
        if library is None or not self.rows:
            return set()
        names = {*change.created, *change.updated, *change.deleted,
                 *(n for pair in change.renamed for n in pair)}
        for fc in change.files:
            owner = library.resource_owner(fc.path)
            if owner is not None:
                names.add(owner)
        return {fold(n) for n in names}
