"""The Usage tab's "Resources" page: RockBot (current)'s resource reads per skill.

Read from ``skill-resource-usage.jsonl`` (:mod:`rockskills_gui.core.usage.resource_usage`) when
the page is first shown after a library change or a reload (the log is one small file). Each
skill lists its resources, read or not (the manifest and the resource folder), with reads,
sessions and the last read; reads of files the skill does not have are marked.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.rules import RESOURCE_USAGE_FILE
from rockskills_gui.core.usage.resource_usage import ResourceUsage, resource_usage
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.shown_refresh import RefreshWhenShown
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.usage.usage_widgets import when

NAME_ROLE = Qt.ItemDataRole.UserRole + 1  # the skill a row belongs to


class ResourceUsageView(RefreshWhenShown):
    """Skills with resources or resource reads, each with its files' reads."""

    openSkillRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usageResources")
        self.library: Library | None = None
        self.usage: ResourceUsage | None = None
        self._stale = True
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("usageResourceTree")
        self.tree.setHeaderLabels(["Skill / resource", "Reads", "Sessions", "Last read"])
        self.tree.setUniformRowHeights(True)
        self.columns = ColumnFitter(self.tree, order=[1, 2, 3, 0], stretch=0, caps={0: 0.6})
        self.note = secondary(QLabel(self))
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.note)
        self.tree.itemDoubleClicked.connect(
            lambda item, _col: self.openSkillRequested.emit(item.data(0, NAME_ROLE)))

    def set_library(self, library: Library | None) -> None:
        """Show ``library``'s resource reads (read when the page is shown)."""
        self.library = library
        self.reload()

    def reload(self) -> None:
        self.mark_stale()

    def refresh(self) -> None:
        self._stale = False
        self.tree.clear()
        self.usage = None
        library = self.library
        if library is None or not shows(Part.RESOURCE_READS, library):
            self.title.setText("Resource reads are logged by RockBot (current) agents.")
            self.note.clear()
            return
        usage = resource_usage(library.agent_dir)
        self.usage = usage
        if not usage.log.events and not usage.log.malformed:
            self.title.setText(f"No resource reads logged ({RESOURCE_USAGE_FILE} is absent or "
                               "empty): RockBot (current) logs each get_skill_resource call there.")
        else:
            total = sum(u.reads for uses in usage.by_skill.values() for u in uses)
            self.title.setText(f"{total} resource read(s) in {RESOURCE_USAGE_FILE}, "
                               f"{len(usage.by_skill)} skill(s)")
        names = self._names(usage)
        for name in names:
            self._add_skill(name, usage)
        self.tree.expandAll()
        self.columns.refit()
        malformed = len(usage.log.malformed)
        self.note.setText(f"{malformed} line(s) RockBot would skip" if malformed else "")

    def _names(self, usage: ResourceUsage) -> list[str]:
        """Skills read from first (most reads first), then skills with resources never read."""
        library = self.library
        names = usage.skills()
        seen = {fold(n) for n in names}
        if library is not None and shows(Part.RESOURCES, library):
            for skill in library.skills():
                if fold(skill.name) not in seen and library.resources(skill.name):
                    names.append(skill.name)
                    seen.add(fold(skill.name))
        return names

    def _add_skill(self, name: str, usage: ResourceUsage) -> None:
        library = self.library
        skill = library.get(name) if library is not None else None
        shown = skill.name if skill is not None else name
        uses = usage.of(name)
        last = max((u.last_read for u in uses if u.last_read is not None),
                   key=lambda t: t.utc_ticks, default=None)
        item = QTreeWidgetItem([shown + ("" if skill is not None else " (not in the library)"),
                                str(usage.reads(name)), str(usage.sessions(name)), when(last)])
        item.setData(0, NAME_ROLE, shown)
        self.tree.addTopLevelItem(item)
        files = ({r.filename.casefold(): r for r in library.resources(shown)}
                 if skill and library is not None else {})
        read = set()
        for use in uses:
            resource = files.get(use.filename.casefold())
            label = use.filename if resource is not None else f"{use.filename} (not a resource)"
            child = QTreeWidgetItem([label, str(use.reads), str(use.sessions), when(use.last_read)])
            child.setData(0, NAME_ROLE, shown)
            item.addChild(child)
            read.add(use.filename.casefold())
        for key, resource in files.items():
            if key not in read:
                child = QTreeWidgetItem([resource.filename, "0", "0", "never"])
                child.setData(0, NAME_ROLE, shown)
                item.addChild(child)
