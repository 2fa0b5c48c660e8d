"""Change sets (what one operation wrote) and the undo/redo history over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


class LibraryError(Exception):
    """Base for refusals the user should read (one clear sentence)."""


class ConflictError(LibraryError):
    """A file changed on disk since the library read it; nothing was written."""

    def __init__(self, paths: list[Path], message: str) -> None:
        super().__init__(message)
        self.paths = paths


@dataclass(frozen=True)
class FileChange:
    """One file's bytes before and after (None = absent)."""

    path: Path
    before: bytes | None
    after: bytes | None

    def inverse(self) -> FileChange:
        return FileChange(self.path, self.after, self.before)


@dataclass(frozen=True)
class ChangeSet:
    """Everything one operation changed, by file and by meaning."""

    label: str
    files: tuple[FileChange, ...] = ()
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    links_rewritten: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.files

    def inverse(self) -> ChangeSet:
        return ChangeSet(
            label=self.label,
            files=tuple(change.inverse() for change in reversed(self.files)),
            created=self.deleted,
            updated=self.updated,
            deleted=self.created,
            renamed=tuple((new, old) for old, new in self.renamed),
            links_rewritten=self.links_rewritten,
        )

    def touched_names(self) -> set[str]:
        names = set(self.created) | set(self.updated) | set(self.deleted)
        names |= set(self.links_rewritten)
        for old, new in self.renamed:
            names |= {old, new}
        return names


@dataclass(frozen=True)
class DiskChanges:
    """What a library's ``refresh`` found changed on disk (written by someone else)."""

    updated: tuple[str, ...] = ()
    created: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    problems_changed: bool = False

    @property
    def empty(self) -> bool:
        return not (self.updated or self.created or self.deleted or self.problems_changed)

    def as_change_set(self) -> ChangeSet:
        """The same news as a file-less change set (the app wrote nothing), for listeners."""
        return ChangeSet(label="Changed on disk", created=self.created, updated=self.updated,
                         deleted=self.deleted)


@dataclass
class History:
    """Undo/redo stacks of applied change sets."""

    undo_stack: list[ChangeSet] = field(default_factory=list)
    redo_stack: list[ChangeSet] = field(default_factory=list)

    def push(self, change: ChangeSet) -> None:
        if change.empty:
            return
        self.undo_stack.append(change)
        self.redo_stack.clear()

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_stack)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    def undo_label(self) -> str | None:
        return self.undo_stack[-1].label if self.undo_stack else None

    def redo_label(self) -> str | None:
        return self.redo_stack[-1].label if self.redo_stack else None


class UndoRedo:
    """What both library kinds share: undo/redo over ``self.history`` (their ``_apply(change,
    record)`` writes changes) and :meth:`name_error` over their ``_check_new_name``."""

    history: History

    def _apply(self, change: ChangeSet, record: bool) -> ChangeSet:  # pragma: no cover - overridden
        raise NotImplementedError

    def _check_new_name(self, name: str, existing_ok: bool = False) -> str:  # pragma: no cover
        raise NotImplementedError

    def name_error(self, name: str) -> str | None:
        """Why ``name`` cannot be given to a new skill here (None when it can)."""
        try:
            self._check_new_name(name)
        except LibraryError as exc:
            return str(exc)
        return None

    def undo(self) -> ChangeSet | None:
        """Undo the last operation (refused with ConflictError if its files changed since)."""
        if not self.history.undo_stack:
            return None
        applied = self._apply(self.history.undo_stack[-1].inverse(), record=False)
        self.history.redo_stack.append(self.history.undo_stack.pop())
        return applied

    def redo(self) -> ChangeSet | None:
        """Apply the last undone operation again."""
        if not self.history.redo_stack:
            return None
        applied = self._apply(self.history.redo_stack[-1], record=False)
        self.history.undo_stack.append(self.history.redo_stack.pop())
        return applied


def rename_label(pairs: tuple[tuple[str, str], ...]) -> str:
    """The undo label of a rename or move."""
    return "Rename '{}' to '{}'".format(*pairs[0]) if len(pairs) == 1 else f"Move {len(pairs)} skills"
