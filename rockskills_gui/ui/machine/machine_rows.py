"""What the machine view's two trees show: the roots (agents, scope, path, count) and the skills,
one row each with its copies below, marked by digest; switched-off copies dimmed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from rockskills_gui.core.machine.scan import Copy, Machine, MachineRoot, MachineSkill
from rockskills_gui.core.model.profiles import PROFILES

ROOT_ROLE = Qt.ItemDataRole.UserRole + 40  # a root row: its MachineRoot
COPY_ROLE = Qt.ItemDataRole.UserRole + 41  # a copy row: its Copy
SKILL_ROLE = Qt.ItemDataRole.UserRole + 42  # a skill row: its MachineSkill

ROOT_COLUMNS = ["Skill folder", "Agents", "Scope", "Skills"]
SKILL_COLUMNS = ["Skill", "Copies", "Digest", "Where", "State"]


def tilde(path: Path, home: Path) -> str:
    """``path`` with the home folder written ``~`` (shorter, and as the agents' docs write it)."""
    if path == home:
        return "~"
    return "~/" + path.relative_to(home).as_posix() if home in path.parents else str(path)


def short_digest(digest: str | None) -> str:
    return digest.removeprefix("sha256:")[:12] if digest else "not hashed"


def agent_label(agent_id: str) -> str:
    profile = PROFILES.get(agent_id)
    return profile.label if profile is not None else agent_id


def copy_state(copy: Copy, home: Path) -> str:
    """One line: switched off where, linked, copy record, lock file, open findings, tags."""
    parts: list[str] = []
    if copy.disabled:
        parts.append("off for " + ", ".join(sorted(agent_label(a) for a in copy.disabled)))
    if copy.linked_to is not None:
        parts.append(f"link to {tilde(copy.linked_to, home)}")
    if copy.copy_state:
        parts.append(copy.copy_state)
    for other, state in copy.copied_to:
        parts.append(f"copied to {tilde(other.root.path, home)}: {state}")
    if copy.lock is not None:
        parts.append(f"{copy.lock.entry.source}: {copy.lock.state}")
    open_findings = [f for f in copy.gate if f.open]
    accepted = [f for f in copy.gate if f.accepted is not None]
    if open_findings:
        parts.append(f"{len(open_findings)} lint finding(s)")
    if accepted:
        parts.append(f"{len(accepted)} accepted")
    if copy.notes.tags:
        parts.append("tags: " + ", ".join(copy.notes.tags))
    if copy.problem:
        parts.append(copy.problem)
    return "; ".join(parts)


def fill_roots(tree: QTreeWidget, machine: Machine) -> None:
    tree.clear()
    for root in machine.roots:
        where = tilde(root.path, machine.home) + ("  (moved aside)" if root.aside else "")
        item = QTreeWidgetItem([where, root.agent_labels, root.scope, str(root.count)])
        item.setData(0, ROOT_ROLE, root)
        item.setToolTip(0, "\n".join([str(root.path), *root.problems]))
        item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        tree.addTopLevelItem(item)
    for column in range(tree.columnCount()):
        tree.resizeColumnToContents(column)


def _matches(skill: MachineSkill, needle: str) -> bool:
    if not needle:
        return True
    hay = [skill.name]
    for c in skill.copies:
        hay += [str(c.folder), c.digest or "", c.notes.note, *c.notes.tags, c.description]
    return any(needle in h.casefold() for h in hay)


def fill_skills(tree: QTreeWidget, machine: Machine, needle: str, dim: QColor,
                only_root: MachineRoot | None = None) -> int:
    """Fill the skills tree (``needle``: a case-insensitive filter on name, path, digest, tags,
    note and description; ``only_root``: copies in that root's skills only); the rows shown."""
    tree.clear()
    shown = 0
    for skill in machine.skills:
        if not _matches(skill, needle.casefold()):
            continue
        if only_root is not None and not any(c.root is only_root for c in skill.copies):
            continue
        marks = skill.marks()
        count = len(skill.copies)
        top = QTreeWidgetItem([skill.name, f"{count} cop{'y' if count == 1 else 'ies'}",
                               skill.sameness, "", ""])
        top.setData(0, SKILL_ROLE, skill)
        tags = sorted({t for c in skill.copies for t in c.notes.tags})
        if tags:
            top.setText(4, "tags: " + ", ".join(tags))
        for i, copy in enumerate(skill.copies):
            child = QTreeWidgetItem([copy.name, marks[i], short_digest(copy.digest),
                                     tilde(copy.folder, machine.home), copy_state(copy, machine.home)])
            child.setData(0, COPY_ROLE, copy)
            unread = "some file could not be read: " + "; ".join(copy.files.skipped)
            child.setToolTip(2, copy.digest or unread)
            child.setToolTip(4, copy_state(copy, machine.home))
            child.setToolTip(3, f"{copy.folder}\nseen by: "
                             + (", ".join(agent_label(a) for a in copy.seen_by) or "no agent"))
            if copy.disabled:
                for column in range(tree.columnCount()):
                    child.setForeground(column, dim)
            top.addChild(child)
        if all(c.disabled for c in skill.copies):
            for column in range(tree.columnCount()):
                top.setForeground(column, dim)
        tree.addTopLevelItem(top)
        top.setExpanded(count > 1)
        shown += 1
    for column in range(tree.columnCount() - 1):
        tree.resizeColumnToContents(column)
    return shown
