"""Change sets (what one operation wrote) and the undo/redo history over them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
    # A change kept in the journal as an undo record (a dream apply, or the undo of one):
    # ("apply", id of the apply transaction now in effect) or ("undo", id of the apply it undid).
    # Undo and redo of such a change write through the journal too, so the session history, the
    # wizard's Undo and `rockskills undo` tell one story.
    journal: tuple[str, str] | None = None

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


Writer = Callable[[ChangeSet], object]


class UndoRedo:
    """What both library kinds share: undo/redo over ``self.history`` (their ``_apply(change,
    record, writer)`` writes changes) and :meth:`name_error` over their ``_check_new_name``.

    A change with a :attr:`ChangeSet.journal` link (a dream apply, or the undo of one) is undone
    and redone through the journal, as ``rockskills undo`` would: undoing an apply records an
    ``undo`` transaction of it, redoing records a new ``apply``; the journal and this history
    always agree on which plan is in effect.
    """

    history: History

    def _apply(self, change: ChangeSet, record: bool,
               writer: Writer | None = None) -> ChangeSet:  # pragma: no cover - overridden
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
        entry = self.history.undo_stack[-1]
        self._check_replay(entry.inverse())
        writer, box = self._journal_writer(entry, forward=False)
        applied = self._apply(entry.inverse(), record=False, writer=writer)
        self.history.undo_stack.pop()
        self.history.redo_stack.append(_relinked(entry, box))
        self._follow_transaction(entry, box)
        return applied

    def redo(self) -> ChangeSet | None:
        """Apply the last undone operation again."""
        if not self.history.redo_stack:
            return None
        entry = self.history.redo_stack[-1]
        self._check_replay(entry)
        writer, box = self._journal_writer(entry, forward=True)
        applied = self._apply(entry, record=False, writer=writer)
        self.history.redo_stack.pop()
        self.history.undo_stack.append(_relinked(entry, box))
        self._follow_transaction(entry, box)
        return applied

    def _follow_transaction(self, entry: ChangeSet, box: dict[str, str]) -> None:
        """Re-point every other step linked to ``entry``'s transaction at the one now in effect.

        Applying a plan again (the undo of a wizard's "Undo", a redo) writes a new apply
        transaction; an older step of the same plan (its apply, further down the stack) must undo
        that one, or the history and the journal disagree on which plan is in effect.
        """
        if entry.journal is None or box.get("id", entry.journal[1]) == entry.journal[1]:
            return
        old, new = entry.journal[1], box["id"]
        for stack in (self.history.undo_stack, self.history.redo_stack):
            stack[:] = [replace(e, journal=(e.journal[0], new))
                        if e.journal is not None and e.journal[1] == old else e for e in stack]

    def _check_replay(self, change: ChangeSet) -> None:
        """Refuse (LibraryError, nothing written) an undo/redo the library cannot take any more,
        e.g. one bringing back a skill whose name another file now holds."""

    def _journal_writer(self, entry: ChangeSet, forward: bool) -> tuple[Writer | None, dict[str, str]]:
        """The journaled writer that undoes (``forward=False``) or redoes ``entry``, when it has a
        journal link; the box receives the id its entry links to afterwards."""
        box: dict[str, str] = {}
        if entry.journal is None:
            return None, box
        kind, tx_id = entry.journal
        # What the write does to the plan: apply it again, or undo the apply now in effect.
        reapply = (kind == "apply") == forward

        def write(cs: ChangeSet) -> None:
            box["id"] = self._journaled(cs, "apply" if reapply else "undo",
                                        None if reapply else tx_id)

        return write, box

    def _journaled(self, change: ChangeSet, kind: str,
                   undoes: str | None) -> str:  # pragma: no cover - overridden
        """Write ``change`` as a journal transaction of ``kind``; the id of the apply transaction
        in effect afterwards (the new one, or ``undoes`` once it is undone)."""
        raise NotImplementedError


def _relinked(entry: ChangeSet, box: dict[str, str]) -> ChangeSet:
    """``entry`` linked to the apply transaction its journaled undo/redo left in effect."""
    if entry.journal is None or "id" not in box:
        return entry
    return replace(entry, journal=(entry.journal[0], box["id"]))


def rename_label(pairs: tuple[tuple[str, str], ...]) -> str:
    """The undo label of a rename or move."""
    return "Rename '{}' to '{}'".format(*pairs[0]) if len(pairs) == 1 else f"Move {len(pairs)} skills"
