"""A change to the machine: whole-file changes and symbolic links in several agents' folders, as
one undo step.

A write into another agent's root is a write into a library of its own. So a machine change is
cut into *parts*, one per *place*: the folder holding a skills root (``~/.claude`` for
``~/.claude/skills``: the root, its ``.disabled`` sibling and the agent's settings file are one
place) or, for a settings file elsewhere, its folder. Each part is a
:class:`~rockskills_gui.core.storage.changes.ChangeSet` written the way a library writes one
(:func:`~rockskills_gui.core.storage.change_writer.write_change`): every target checked (inside
the place, normalised, never *to* a link, never *through* a link leading outside the place unless
to another known root), conflict-checked against the bytes read, and journaled in
``<place>/.rockskills/journal/`` when it spans files, so a crash inside a part leaves that place
before or after it (recovered on the next scan, :func:`recover_places`).

Across places: every part is checked before anything is written (a conflict or refusal anywhere
writes nothing); the parts are then written one after another, and when one fails the parts
already written are put back (their inverse, checked the same way) before the error is raised.
A crash *between* two parts leaves each place whole, the earlier ones changed and the later ones
not: the machine view shows both sides as they are (the copy, or the switch, as it is on disk),
never a half-written skill.

Symbolic links (a skill linked into another agent's root) follow :mod:`~rockskills_gui.core.storage.links`:
a link is created only where nothing is (never replacing a file or folder), in a folder reached
without passing a link that leaves the place (other known roots are trusted), and removed on undo
only while it still points where it was made to.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rockskills_gui.core.storage import journal, links
from rockskills_gui.core.storage.change_writer import check_conflicts, write_change
from rockskills_gui.core.storage.changes import ChangeSet, ConflictError, FileChange, LibraryError
from rockskills_gui.core.storage.journal import RecoveryReport
from rockskills_gui.core.storage.layout import Layout

__all__ = ["LinkChange", "MachineChange", "MachineError", "MachineHistory", "Part", "apply_change",
           "place_of", "recover_places"]


class MachineError(LibraryError):
    """A machine operation that cannot be done; one readable sentence, nothing written."""


@dataclass(frozen=True)
class LinkChange:
    """A symbolic link made (``before`` None) or removed (``after`` None); the text is the link's."""

    path: Path
    before: str | None
    after: str | None

    def inverse(self) -> LinkChange:
        return LinkChange(self.path, self.after, self.before)


@dataclass(frozen=True)
class Part:
    """The files and links one machine change writes in one place."""

    place: Path
    files: tuple[FileChange, ...] = ()
    links: tuple[LinkChange, ...] = ()

    def inverse(self) -> Part:
        return Part(self.place, tuple(f.inverse() for f in reversed(self.files)),
                    tuple(k.inverse() for k in reversed(self.links)))


@dataclass(frozen=True)
class MachineChange:
    """One undo step of the machine view: its parts, what it is called, and what the preview
    must say besides the files (other agents a move hides the skill from, findings accepted...)."""

    label: str
    parts: tuple[Part, ...] = ()
    notes: tuple[str, ...] = ()
    trusted: tuple[Path, ...] = ()  # real folders writes may reach through a link (the known roots)
    keep: tuple[Path, ...] = ()  # root folders that exist and must still exist afterwards

    @property
    def empty(self) -> bool:
        return not any(p.files or p.links for p in self.parts)

    def inverse(self) -> MachineChange:
        return replace(self, parts=tuple(p.inverse() for p in reversed(self.parts)))

    def files(self) -> list[FileChange]:
        return [f for p in self.parts for f in p.files]

    def link_changes(self) -> list[LinkChange]:
        return [k for p in self.parts for k in p.links]

    def preview(self) -> list[str]:
        """One line per file and link written: what happens to it."""
        lines: list[str] = []
        for part in self.parts:
            for f in part.files:
                verb = "create" if f.before is None else "remove" if f.after is None else "rewrite"
                size = f" ({len(f.after)} bytes)" if f.after is not None else ""
                lines.append(f"{verb} {f.path}{size}")
            for k in part.links:
                lines.append(f"link {k.path} -> {k.after}" if k.after is not None
                             else f"remove link {k.path} (-> {k.before})")
        return lines


def place_of(path: Path, roots: Iterable[Path]) -> Path:
    """The place a path is written in: the folder holding the root it lies in (or that root's
    ``.disabled`` sibling), else the nearest folder above it that exists."""
    for root in sorted(roots, key=lambda r: len(r.parts), reverse=True):
        aside = root.with_name(root.name + ".disabled")
        if root in path.parents or path == root or aside in path.parents:
            return root.parent
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return folder


def group(files: Iterable[FileChange], link_changes: Iterable[LinkChange],
          roots: Sequence[Path]) -> tuple[Part, ...]:
    """Cut files and links into parts by place (in first-seen order)."""
    parts: dict[Path, tuple[list[FileChange], list[LinkChange]]] = {}
    for f in files:
        parts.setdefault(place_of(f.path, roots), ([], []))[0].append(f)
    for k in link_changes:
        parts.setdefault(place_of(k.path, roots), ([], []))[1].append(k)
    return tuple(Part(place, tuple(fs), tuple(ks)) for place, (fs, ks) in parts.items())


def _layout(part: Part, trusted: Sequence[Path]) -> Layout:
    return Layout(part.place, part.place, tuple(trusted))


def _conflict(paths: list[Path]) -> ConflictError:
    shown = ", ".join(str(p) for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return ConflictError(paths, f"{shown} changed on disk since it was read (an agent or an installer may "
                                "have written it); nothing was written. Refresh the view and try again.")


def _check_link(layout: Layout, change: LinkChange) -> None:
    path = change.path
    text = str(path)
    if "\0" in text or not path.is_absolute() or os.path.normpath(text) != text \
            or layout.skills_dir not in path.parents:
        raise MachineError(f"refusing to place a link outside {layout.skills_dir}: {text!r}")
    found = links.blocking_link(path.parent, layout.agent_dir, layout.trusted, final=False)
    if found is not None:
        raise MachineError(f"refusing to write through the symbolic link {found[0]} (it leads to "
                    f"{links.link_target(found[0])}, outside the agent's folder); nothing was written")
    if change.before is None:
        if os.path.lexists(path):
            raise MachineError(f"{path} already exists; a link is never made over a file or folder. "
                               "Nothing was written.")
    elif not path.is_symlink() or os.readlink(path) != change.before:
        raise _conflict([path])


def _preflight(change: MachineChange) -> None:
    for part in change.parts:
        layout = _layout(part, change.trusted)
        for f in part.files:
            journal.check_target(layout, f.path)
        for k in part.links:
            _check_link(layout, k)
        try:
            conflicts = check_conflicts(ChangeSet(change.label, part.files))
        except OSError as exc:
            raise MachineError(f"cannot read {exc.filename or 'a file'}: {exc.strerror or exc}; "
                               "nothing was written") from exc
        if conflicts:
            raise _conflict(conflicts)


def _write_part(part: Part, label: str, trusted: Sequence[Path]) -> None:
    layout = _layout(part, trusted)
    removals = [k for k in part.links if k.after is None]
    made = [k for k in part.links if k.after is not None]
    for k in removals:
        _check_link(layout, k)
        os.unlink(k.path)
    if part.files:
        write_change(layout, ChangeSet(label, part.files), _conflict)
    for k in made:
        _check_link(layout, k)
        assert k.after is not None
        os.symlink(k.after, k.path, target_is_directory=True)


def apply_change(change: MachineChange) -> MachineChange:
    """Write ``change`` (see the module doc); returns it. Raises MachineError / ConflictError
    with nothing written, or with what was written put back."""
    if change.empty:
        return change
    _preflight(change)
    done: list[Part] = []
    try:
        for part in change.parts:
            _write_part(part, change.label, change.trusted)
            done.append(part)
    except (OSError, LibraryError) as exc:
        undone = True
        for part in reversed(done):
            try:
                _write_part(part.inverse(), change.label, change.trusted)
            except (OSError, LibraryError):
                undone = False
        _keep(change.keep)
        if isinstance(exc, LibraryError) and undone:
            raise
        how = "what was written was put back" if undone else \
            "some of what was written could not be put back: refresh the view to see each side"
        raise MachineError(f"{change.label}: {exc}; {how}") from exc
    _keep(change.keep)
    return change


def _keep(folders: Iterable[Path]) -> None:
    """Root folders a move emptied (the journal removes emptied folders) are made again."""
    for folder in folders:
        if not os.path.lexists(folder):
            folder.mkdir(parents=True, exist_ok=True)


def recover_places(places: Iterable[Path], trusted: Sequence[Path] = ()) -> list[RecoveryReport]:
    """Finish what a crash interrupted in each place's journal (the scan calls this first)."""
    reports: list[RecoveryReport] = []
    for place in dict.fromkeys(places):
        found = journal.recover_if_needed(Layout(place, place, tuple(trusted)))
        if found is not None:
            reports.append(found)
    return reports


@dataclass
class MachineHistory:
    """The machine view's undo and redo: every applied change, one step each."""

    undo_stack: list[MachineChange] = field(default_factory=list)
    redo_stack: list[MachineChange] = field(default_factory=list)

    def apply(self, change: MachineChange) -> MachineChange:
        applied = apply_change(change)
        if not applied.empty:
            self.undo_stack.append(applied)
            self.redo_stack.clear()
        return applied

    def undo(self) -> MachineChange | None:
        if not self.undo_stack:
            return None
        step = self.undo_stack[-1]
        apply_change(step.inverse())
        self.redo_stack.append(self.undo_stack.pop())
        return step

    def redo(self) -> MachineChange | None:
        if not self.redo_stack:
            return None
        step = self.redo_stack[-1]
        apply_change(step)
        self.undo_stack.append(self.redo_stack.pop())
        return step

    def undo_label(self) -> str | None:
        return self.undo_stack[-1].label if self.undo_stack else None

    def redo_label(self) -> str | None:
        return self.redo_stack[-1].label if self.redo_stack else None
