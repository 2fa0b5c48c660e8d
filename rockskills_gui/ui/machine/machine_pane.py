"""The Machine tab (issue 33): every agent skill root in the home folder and in the projects the
user adds, every skill with its copies marked identical or different by digest, and the batch
operations on a selection (copy or link to another agent's folder, switch off or on for an agent,
archive, move, tags, notes, accepting gate findings, bringing a copy up to date) — each previewed
file by file, applied as one undo step of the tab's own history (core/machine), announced on
``ctx.machineChanged`` so the Budget tab and the open library follow.

The scan runs off the UI thread (newest request wins); a root opens as the library with one
double-click (or "Open as Library").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.machine import ops
from rockskills_gui.core.machine.changes import MachineChange, MachineHistory
from rockskills_gui.core.machine.gate import GateFinding
from rockskills_gui.core.machine.scan import Copy, Machine, MachineRoot, machine_profiles, scan_machine
from rockskills_gui.core.model.profile import AgentProfile, FileKind
from rockskills_gui.core.storage.changes import LibraryError
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import monospace, readable
from rockskills_gui.ui.common.tree_items import child_items, top_level_items
from rockskills_gui.ui.machine.change_preview import ChangePreview
from rockskills_gui.ui.machine.machine_rows import (
    COPY_ROLE,
    ROOT_COLUMNS,
    ROOT_ROLE,
    SKILL_COLUMNS,
    SKILL_ROLE,
    agent_label,
    fill_roots,
    fill_skills,
    short_digest,
    tilde,
)

PROJECTS_KEY = "machine/projects"
SCAN_KEY = "machine-scan"
FINDING_ROLE = Qt.ItemDataRole.UserRole + 43


class MachinePane(QWidget):
    """The machine view. Signals: ``openLibraryRequested(str path, str format)``; ``scanned()``
    after each scan is shown."""

    openLibraryRequested = Signal(str, str)
    scanned = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("machinePane")
        self.ctx = ctx
        self.machine: Machine | None = None
        self.history = MachineHistory()
        self.preview: ChangePreview | None = None
        saved = ctx.settings.value(PROJECTS_KEY, [])
        self.projects: list[Path] = [Path(p) for p in (saved if isinstance(saved, list) else [saved])
                                     if isinstance(p, str) and p]
        self.scan = ctx.channel(self, SCAN_KEY)  # one scan at a time, the newest request wins
        self._build()
        self.refresh()

    # ---------------------------------------------------------------- building

    def _button(self, text: str, name: str, slot: object, tip: str = "") -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    @staticmethod
    def _box(parent: QWidget) -> tuple[QWidget, QVBoxLayout]:
        box = QWidget(parent)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        return box, layout

    @staticmethod
    def _tree(parent: QWidget, name: str, accessible: str, headers: list[str]) -> QTreeWidget:
        tree = QTreeWidget(parent)
        tree.setObjectName(name)
        tree.setAccessibleName(accessible)
        tree.setHeaderLabels(headers)
        return tree

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.where_label = QLabel(self)
        self.where_label.setObjectName("machineWhere")
        self.where_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.where_label, 1)
        top.addWidget(self._button("Add Project…", "machineAddProject", self.choose_project,
                                   "Look for agents' skill folders in a project folder too"))
        top.addWidget(self._button("Remove Project", "machineRemoveProject", self.remove_project,
                                   "Stop looking in the selected root's project"))
        top.addWidget(self._button("Refresh", "machineRefresh", self.refresh))
        self.undo_button = self._button("Undo", "machineUndo", self.undo)
        self.redo_button = self._button("Redo", "machineRedo", self.redo)
        top.addWidget(self.undo_button)
        top.addWidget(self.redo_button)
        layout.addLayout(top)

        split = QSplitter(Qt.Orientation.Vertical, self)
        split.setObjectName("machineSplit")
        roots_box, roots_layout = self._box(split)
        self.roots = self._tree(roots_box, "machineRoots", "Agents' skill folders", ROOT_COLUMNS)
        self.roots.setRootIsDecorated(False)
        self.roots.setMinimumHeight(self.fontMetrics().height() * 8)
        self.roots.itemActivated.connect(lambda _item, _col: self.open_root())
        self.roots.itemSelectionChanged.connect(self._show_skills)
        roots_layout.addWidget(self.roots)
        row = QHBoxLayout()
        row.addWidget(self._button("Open as Library", "machineOpenRoot", self.open_root,
                                   "Open the selected folder as its agent's library"))
        self.only_root = QPushButton("Only This Folder's Skills", roots_box)
        self.only_root.setObjectName("machineOnlyRoot")
        self.only_root.setCheckable(True)
        self.only_root.toggled.connect(lambda _on: self._show_skills())
        row.addWidget(self.only_root)
        row.addStretch(1)
        self.filter = QLineEdit(roots_box)
        self.filter.setObjectName("machineFilter")
        self.filter.setAccessibleName("Filter skills")
        self.filter.setPlaceholderText("Filter: name, tag, note, path or digest")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda _text: self._show_skills())
        row.addWidget(self.filter, 1)
        roots_layout.addLayout(row)

        skills_box, skills_layout = self._box(split)
        self.skills = self._tree(skills_box, "machineSkills", "Skills and their copies", SKILL_COLUMNS)
        self.skills.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.skills.itemSelectionChanged.connect(self._on_selection)
        skills_layout.addWidget(self.skills, 1)
        skills_layout.addLayout(self._action_rows(skills_box))

        details = QSplitter(Qt.Orientation.Horizontal, split)
        self.details = QPlainTextEdit(details)
        self.details.setObjectName("machineDetails")
        self.details.setAccessibleName("The selected copy")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        monospace(self.details)
        findings_box, findings_layout = self._box(details)
        self.findings = self._tree(findings_box, "machineFindings", "Lint findings of the selected copy",
                                   ["Finding", "Where", "Accepted"])
        self.findings.setWordWrap(True)
        self.findings.setRootIsDecorated(False)
        findings_layout.addWidget(self.findings, 1)
        accept = QHBoxLayout()
        self.reason = QLineEdit(findings_box)
        self.reason.setObjectName("machineReason")
        self.reason.setAccessibleName("Why the ticked findings are accepted")
        self.reason.setPlaceholderText("Why the ticked findings are acceptable (kept with them)")
        accept.addWidget(self.reason, 1)
        accept.addWidget(self._button("Accept Ticked", "machineAccept", self.accept_ticked))
        findings_layout.addLayout(accept)
        details.addWidget(self.details)
        details.addWidget(findings_box)
        split.addWidget(roots_box)
        split.addWidget(skills_box)
        split.addWidget(details)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 5)
        split.setStretchFactor(2, 2)
        layout.addWidget(split, 1)
        self.message = QLabel(self)
        self.message.setObjectName("machineMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.message)
        self._update_history()

    def _action_rows(self, parent: QWidget) -> QVBoxLayout:
        rows = QVBoxLayout()
        first = QHBoxLayout()
        first.addWidget(QLabel("Agent:", parent))
        self.agent_box = QComboBox(parent)
        self.agent_box.setObjectName("machineAgent")
        self.agent_box.setAccessibleName("Agent the action is for")
        for profile in machine_profiles():
            if FileKind.SKILL_MD in profile.storage.file_kinds:
                self.agent_box.addItem(profile.label, profile.id)
        self.agent_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.agent_box.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        first.addWidget(self.agent_box)
        first.addWidget(self._button("Disable", "machineDisable", lambda: self.set_enabled(False),
                                     "Switch the selected copies off for this agent, with its own setting "
                                     "where it has one, else by moving the folder aside"))
        first.addWidget(self._button("Enable", "machineEnable", lambda: self.set_enabled(True)))
        first.addWidget(self._button("Archive", "machineArchive", self.archive,
                                     "Move the selected copies into their folder's .archive (no agent "
                                     "reads it)"))
        first.addSpacing(12)
        first.addWidget(QLabel("To:", parent))
        self.target_box = QComboBox(parent)
        self.target_box.setObjectName("machineTarget")
        self.target_box.setAccessibleName("Skill folder to copy, link or move to")
        self.target_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.target_box.setMinimumContentsLength(22)
        first.addWidget(self.target_box, 1)
        first.addWidget(self._button("Copy", "machineCopy", lambda: self.copy_selected("copy"),
                                     "Copy the selected skills into that folder (checked by its agent "
                                     "and the security gate first)"))
        first.addWidget(self._button("Link", "machineLink", lambda: self.copy_selected("link"),
                                     "Link the selected skills into that folder (one copy, shared)"))
        first.addWidget(self._button("Move", "machineMove", self.move_selected))
        rows.addLayout(first)
        second = QHBoxLayout()
        self.words = QLineEdit(parent)
        self.words.setObjectName("machineWords")
        self.words.setAccessibleName("Tag or note")
        self.words.setPlaceholderText("Tag or note (kept beside the skills, never in SKILL.md)")
        second.addWidget(self.words, 1)
        second.addWidget(self._button("Add Tag", "machineTag", lambda: self.tag_selected(True)))
        second.addWidget(self._button("Remove Tag", "machineUntag", lambda: self.tag_selected(False)))
        second.addWidget(self._button("Set Note", "machineNote", self.note_selected))
        second.addSpacing(12)
        second.addWidget(self._button("Update Copy…", "machineSyncCopy", lambda: self.sync_selected(True),
                                      "Bring the selected copy up to date with where it was copied "
                                      "from (a diff first)"))
        second.addWidget(self._button("Update Source…", "machineSyncSource",
                                      lambda: self.sync_selected(False),
                                      "Bring the source up to date with the selected copy (a diff first)"))
        rows.addLayout(second)
        return rows

    # ---------------------------------------------------------------- scanning

    @property
    def home(self) -> Path:
        return self.ctx.home

    @property
    def busy(self) -> bool:
        return self.scan.busy

    def refresh(self) -> None:
        """Scan the home folder and the projects again (off the UI thread)."""
        home, projects = self.home, tuple(self.projects)
        shown = ", ".join(tilde(p, home) for p in projects)
        self.where_label.setText(f"Home: {home}" + (f" · projects: {shown}" if projects
                                                     else " · no project added"))
        self.ctx.query(self, SCAN_KEY, lambda _control: scan_machine(home, projects), self._on_scanned,
                       failure=lambda error: self._say(f"The scan failed: {type(error).__name__}: {error}"))

    def _on_scanned(self, machine: Machine) -> None:
        kept = self._selected_keys()
        root_kept = self._selected_root()
        self.machine = machine
        fill_roots(self.roots, machine)
        if root_kept is not None:
            for item in top_level_items(self.roots):
                if item.data(0, ROOT_ROLE).path == root_kept.path:
                    item.setSelected(True)
        self.target_box.blockSignals(True)
        current = self.target_box.currentData()
        self.target_box.clear()
        for root in machine.roots:
            if not root.aside and root.kind is FileKind.SKILL_MD:
                self.target_box.addItem(tilde(root.path, machine.home), str(root.path))
                self.target_box.setItemData(self.target_box.count() - 1, f"{root.path}: {root.agent_labels}",
                                            Qt.ItemDataRole.ToolTipRole)
        index = self.target_box.findData(current)
        self.target_box.setCurrentIndex(max(index, 0))
        self.target_box.blockSignals(False)
        self._show_skills(kept)
        if machine.problems:
            self._say("Problems: " + "; ".join(machine.problems[:3])
                      + (f" and {len(machine.problems) - 3} more" if len(machine.problems) > 3 else ""))
        self.scanned.emit()

    def _show_skills(self, keep: set[tuple[str, str]] | None = None) -> None:
        if self.machine is None:
            return
        keep = keep if keep is not None else self._selected_keys()
        root = self._selected_root() if self.only_root.isChecked() else None
        dim = self.dim_colour()
        fill_skills(self.skills, self.machine, self.filter.text().strip(), dim, root)
        for item in self._items():
            if self._key(item) in keep:
                item.setSelected(True)

    def dim_colour(self) -> QColor:
        """Switched-off copies: the disabled text colour, still readable (WCAG AA)."""
        palette = self.skills.palette()
        return readable(palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text),
                        palette.color(QPalette.ColorRole.Base))

    # ---------------------------------------------------------------- selection

    def _items(self) -> list[QTreeWidgetItem]:
        found: list[QTreeWidgetItem] = []
        for top in top_level_items(self.skills):
            found.append(top)
            found += child_items(top)
        return found

    @staticmethod
    def _key(item: QTreeWidgetItem) -> tuple[str, str]:
        copy = item.data(0, COPY_ROLE)
        if isinstance(copy, Copy):
            return ("copy", str(copy.folder))
        return ("skill", item.text(0))

    def _selected_keys(self) -> set[tuple[str, str]]:
        return {self._key(item) for item in self.skills.selectedItems()}

    def _selected_root(self) -> MachineRoot | None:
        items = self.roots.selectedItems()
        root = items[0].data(0, ROOT_ROLE) if items else None
        return root if isinstance(root, MachineRoot) else None

    def selected_copies(self) -> list[Copy]:
        """The copies selected: a copy row is itself, a skill row all its copies (once each)."""
        found: dict[Path, Copy] = {}
        for item in self.skills.selectedItems():
            copy = item.data(0, COPY_ROLE)
            if isinstance(copy, Copy):
                found.setdefault(copy.folder, copy)
                continue
            skill = item.data(0, SKILL_ROLE)
            for c in skill.copies if skill is not None else ():
                found.setdefault(c.folder, c)
        return list(found.values())

    def select_copy(self, folder: Path, add: bool = False) -> bool:
        """Select the row of the copy in ``folder`` (``add``: keep the selection); False if none."""
        if not add:
            self.skills.clearSelection()
        for item in self._items():
            if self._key(item) == ("copy", str(folder)):
                item.setSelected(True)
                self.skills.scrollToItem(item)
                return True
        return False

    def select_root(self, path: Path) -> bool:
        for item in top_level_items(self.roots):
            if item.data(0, ROOT_ROLE).path == path:
                self.roots.setCurrentItem(item)
                return True
        return False

    def agent(self) -> AgentProfile:
        from rockskills_gui.core.model.profiles import PROFILES

        return PROFILES[str(self.agent_box.currentData())]

    def set_agent(self, agent_id: str) -> None:
        self.agent_box.setCurrentIndex(self.agent_box.findData(agent_id))

    def target(self) -> MachineRoot | None:
        path = self.target_box.currentData()
        return self.machine.root_at(Path(path)) if self.machine is not None and path else None

    def set_target(self, path: Path) -> None:
        self.target_box.setCurrentIndex(self.target_box.findData(str(path)))

    def _on_selection(self) -> None:
        copies = self.selected_copies()
        self.findings.clear()
        if not copies:
            self.details.setPlainText("")
            return
        copy = copies[0]
        if copy.root.agents and self.agent().id not in copy.root.agent_ids:
            self.set_agent(copy.root.own_agent.id)
        lines = [f"{copy.name}  ({len(copies)} selected)" if len(copies) > 1 else copy.name,
                 f"folder:  {copy.folder}", f"digest:  {copy.digest or 'not hashed'}",
                 f"root:    {copy.root.path} ({copy.root.scope}; {copy.root.agent_labels})",
                 "seen by: " + (", ".join(agent_label(a) for a in copy.seen_by) or "no agent")]
        for agent_id, where in sorted(copy.disabled.items()):
            lines.append(f"off for {agent_label(agent_id)}: {where}")
        if copy.linked_to is not None:
            lines.append(f"link to: {copy.linked_to}")
        if copy.notes.copied is not None:
            record = copy.notes.copied
            lines.append(f"{record.mode} of {record.source} at {short_digest(record.digest)} "
                         f"({record.at}): {copy.copy_state}")
        for other, state in copy.copied_to:
            lines.append(f"copied to {other.folder}: {state}")
        if copy.lock is not None:
            entry = copy.lock.entry
            lines.append(f"lock:    {copy.lock.lock.path}")
            lines.append(f"         {entry.source} ({entry.source_type}): {copy.lock.state}")
        if copy.notes.tags:
            lines.append("tags:    " + ", ".join(copy.notes.tags))
        if copy.notes.note:
            lines.append(f"note:    {copy.notes.note}")
        if copy.files.skipped:
            lines.append("not hashed: " + "; ".join(copy.files.skipped))
        self.details.setPlainText("\n".join(lines))
        for finding in copy.gate:
            accepted = finding.accepted.reason if finding.accepted is not None else ""
            state = f"{accepted} (no longer found)" if finding.gone else accepted
            item = QTreeWidgetItem([f"{finding.severity}: {finding.message}",
                                    f"{finding.file}:{finding.line}", state])
            item.setData(0, FINDING_ROLE, finding)
            item.setToolTip(0, f"{finding.kind}: {finding.message}")
            if finding.open:
                item.setCheckState(0, Qt.CheckState.Unchecked)  # nothing destructive is pre-selected
            self.findings.addTopLevelItem(item)
        self.findings.resizeColumnToContents(1)
        self.findings.setColumnWidth(0, max(self.findings.viewport().width() * 3 // 5, 200))

    # ---------------------------------------------------------------- projects and opening

    def add_project(self, folder: Path) -> None:
        folder = folder.absolute()
        if folder not in self.projects:
            self.projects.append(folder)
            self.ctx.settings.setValue(PROJECTS_KEY, [str(p) for p in self.projects])
        self.refresh()

    def choose_project(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Add a project folder", str(self.home))
        if chosen:
            self.add_project(Path(chosen))

    def remove_project(self) -> None:
        root = self._selected_root()
        if root is None or root.project is None:
            self._say("Select a project's skill folder first.")
            return
        self.projects = [p for p in self.projects if p != root.project]
        self.ctx.settings.setValue(PROJECTS_KEY, [str(p) for p in self.projects])
        self.refresh()

    def open_root(self) -> None:
        """Open the selected root as its own agent's library (the window does the opening)."""
        root = self._selected_root()
        if root is None:
            self._say("Select a skill folder first.")
            return
        fmt = "rockbot" if root.kind is FileKind.ROCKBOT_JSON else root.own_agent.id
        self.openLibraryRequested.emit(str(root.path), fmt)

    # ---------------------------------------------------------------- operations

    def _say(self, text: str) -> None:
        self.message.setText(text)

    def _copies_or_say(self) -> list[Copy]:
        copies = self.selected_copies()
        if not copies:
            self._say("Select one or more skills (or copies) first.")
        return copies

    def _propose(self, b: ops.Builder, label: str, refused: list[str],
                 diff: str = "") -> ChangePreview | None:
        change = b.build(label)
        if change.empty and not refused:
            self._say(f"{label}: nothing to change.")
            return None
        dialog = ChangePreview(change, refused, diff, self)
        dialog.accepted.connect(lambda: self.apply(change))
        dialog.finished.connect(dialog.deleteLater)
        self.preview = dialog
        dialog.open()
        return dialog

    def _guard(self, label: str, build: Callable[[], ChangePreview | None]) -> ChangePreview | None:
        if self.machine is None:
            return None
        try:
            return build()
        except LibraryError as exc:
            self._say(f"{label}: {exc}")
            return None
        except OSError as exc:  # a folder that changed under the view: nothing was written
            self._say(f"{label}: {exc.strerror or exc} ({exc.filename or 'a file'}); nothing was changed. "
                      "Refresh and try again.")
            return None

    def copy_selected(self, mode: str = "copy") -> ChangePreview | None:
        """Copy (or link) the selected skills into the target folder, checked by its agent."""
        copies, target = self._copies_or_say(), self.target()
        if not copies or target is None or self.machine is None:
            return None
        agent = self.agent() if self.agent().id in target.agent_ids else target.own_agent
        b = ops.Builder(self.machine)
        refused: list[str] = []
        done: set[str] = set()
        for copy in copies:
            if copy.name in done or copy.root.home_of_root == target.path:
                continue
            check = ops.copy_to(b, copy, target, agent, mode)
            if check.refused:
                refused.append(f"{copy.folder}: {check.refused}")
            elif check.findings:
                refused.append(f"{copy.folder}: {len(check.findings)} lint finding(s) not accepted yet "
                               "(select the copy, tick them and accept them with a reason first)")
            else:
                done.add(copy.name)
        verb = "Link" if mode == "link" else "Copy"
        return self._propose(b, f"{verb} {self._count(len(done))} to {target.path} ({agent.label})", refused)

    @staticmethod
    def _count(n: int) -> str:
        return f"{n} skill{'' if n == 1 else 's'}"

    def set_enabled(self, on: bool) -> ChangePreview | None:
        """Switch the selected copies on or off for the chosen agent (its own switch, or a move)."""
        copies, agent = self._copies_or_say(), self.agent()
        if not copies or self.machine is None:
            return None
        machine = self.machine

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            refused = [f"{c.folder}: {agent.label} does not read {c.root.home_of_root}"
                       for c in copies if agent.id not in c.root.agent_ids]
            for copy in copies:
                if agent.id in copy.root.agent_ids:
                    ops.set_enabled(b, copy, agent, on)
            word = "Enable" if on else "Disable"
            return self._propose(b, f"{word} {self._count(b.count)} for {agent.label}", refused)

        return self._guard("Enable" if on else "Disable", build)

    def archive(self) -> ChangePreview | None:
        copies = self._copies_or_say()
        if not copies or self.machine is None:
            return None
        machine = self.machine

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            for copy in copies:
                ops.archive_copy(b, copy)
            return self._propose(b, f"Archive {self._count(b.count)}", [])

        return self._guard("Archive", build)

    def move_selected(self) -> ChangePreview | None:
        copies, target = self._copies_or_say(), self.target()
        if not copies or target is None or self.machine is None:
            return None
        machine = self.machine

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            refused: list[str] = []
            for copy in copies:
                check = ops.check_copy(copy, target, target.own_agent)
                if check.refused:
                    refused.append(f"{copy.folder}: {check.refused}")
                else:
                    ops.move_to(b, copy, target)
            return self._propose(b, f"Move {self._count(b.count)} to {target.path}", refused)

        return self._guard("Move", build)

    def tag_selected(self, add: bool) -> ChangePreview | None:
        copies, word = self._copies_or_say(), self.words.text().strip()
        if not copies or self.machine is None:
            return None
        if not word:
            self._say("Type the tag first.")
            return None
        machine = self.machine

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            for copy in copies:
                ops.tag(b, copy, word, add)
            label = f"{'Tag' if add else 'Untag'} {self._count(b.count)} '{word}'"
            return self._propose(b, label, [])

        return self._guard("Tag", build)

    def note_selected(self) -> ChangePreview | None:
        copies = self._copies_or_say()
        if not copies or self.machine is None:
            return None
        machine, text = self.machine, self.words.text()

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            for copy in copies:
                ops.set_note(b, copy, text)
            return self._propose(b, f"Note on {self._count(len(copies))}", [])

        return self._guard("Note", build)

    def ticked_findings(self) -> list[GateFinding]:
        found: list[GateFinding] = []
        for item in top_level_items(self.findings):
            if item.checkState(0) == Qt.CheckState.Checked:
                found.append(item.data(0, FINDING_ROLE))
        return found

    def accept_ticked(self) -> ChangePreview | None:
        """Accept the ticked findings of the selected copy with the typed reason (kept for good)."""
        copies, ticked = self.selected_copies(), self.ticked_findings()
        if not copies or not ticked or self.machine is None:
            self._say("Select a copy and tick the findings to accept first.")
            return None
        machine, reason = self.machine, self.reason.text()

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            for finding in ticked:
                ops.accept_finding(b, copies[0], finding, reason)
            return self._propose(b, f"Accept {len(ticked)} finding(s) of {copies[0].name}", [])

        return self._guard("Accept", build)

    def sync_selected(self, from_source: bool) -> ChangePreview | None:
        """Bring the selected copy (or its source) up to date with the other side, diff shown."""
        copies = self._copies_or_say()
        if not copies or self.machine is None:
            return None
        machine, copy = self.machine, copies[0]

        def build() -> ChangePreview | None:
            b = ops.Builder(machine)
            diff = ops.sync_copy(b, copy, from_source)
            text = "\n".join(d for _path, d in diff)
            side = copy.folder if from_source else (copy.notes.copied.source if copy.notes.copied else "")
            return self._propose(b, f"Bring {side} up to date", [], text)

        return self._guard("Update", build)

    # ---------------------------------------------------------------- applying and undoing

    def apply(self, change: MachineChange) -> bool:
        """Write ``change`` (what the preview showed) as one undo step; False when refused."""
        try:
            self.history.apply(change)
        except LibraryError as exc:
            self._say(str(exc))
            self.ctx.operationFailed.emit(str(exc))
            self.refresh()
            return False
        self._done(change, "")
        return True

    def undo(self) -> None:
        self._step(self.history.undo, "Undid: ")

    def redo(self) -> None:
        self._step(self.history.redo, "Redid: ")

    def _step(self, call: Callable[[], MachineChange | None], verb: str) -> None:
        try:
            change = call()
        except LibraryError as exc:
            self._say(str(exc))
            self.refresh()
            return
        if isinstance(change, MachineChange):
            self._done(change, verb)

    def _done(self, change: MachineChange, verb: str) -> None:
        self._say(f"{verb}{change.label}.")
        self.ctx.status(f"{verb}{change.label}", 8000)
        self._update_history()
        library = self.ctx.library
        if library is not None:
            roots = [Path(r) for r in library.skill_roots()]
            paths = [f.path for f in change.files()] + [k.path for k in change.link_changes()]
            touched = [p for p in paths if any(r == p or r in p.parents for r in roots)]
            if touched:
                self.ctx.refresh_from_disk(touched)
        self.ctx.machineChanged.emit(change)
        self.refresh()

    def _update_history(self) -> None:
        undo, redo = self.history.undo_label(), self.history.redo_label()
        self.undo_button.setEnabled(undo is not None)
        self.redo_button.setEnabled(redo is not None)
        self.undo_button.setToolTip(f"Undo {undo}" if undo else "Nothing to undo")
        self.redo_button.setToolTip(f"Redo {redo}" if redo else "Nothing to redo")
