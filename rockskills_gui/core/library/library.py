"""Library: the one library contract (read, create, save, delete, rename/move, apply a change
set, undo/redo), written once over a store's hooks.

Every operation builds a :class:`ChangeSet` of whole-file changes, checks that no file it touches
changed on disk since it was read (a running agent or an editor may have written it), writes
atomically (journaled when it spans files) and pushes the change set on the history; undo/redo
(:class:`~rockskills_gui.core.storage.changes.UndoRedo`) apply the inverse the same careful way.
A format (RockBot's JSON files, a SKILL.md tree) is a subclass that says how its skills are read,
which bytes a skill becomes, which files a delete or a move carries along, and where a change is
journaled: the small abstract hooks below.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol

from typing_extensions import TypeVar

from rockskills_gui.core.library.listing import AdEntry
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.agent_note import AgentNote
from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES, SKILL_FILE_MAX_BYTES, too_large
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.summary_rule import SummaryRule
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, links
from rockskills_gui.core.storage.changes import (
    ChangeSet,
    ConflictError,
    DiskChanges,
    FileChange,
    History,
    LibraryError,
    UndoRedo,
    rename_label,
)
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.storage.progress import SILENT, Progress
from rockskills_gui.core.storage.writable import check_writable

if TYPE_CHECKING:  # (the journal and the change writer load with the first write, issue 19)
    from rockskills_gui.core.storage.journal import RecoveryReport

Clock = Callable[[], Timestamp]
Writer = Callable[[ChangeSet], object]


class NameTakenError(LibraryError):
    """The name (case-insensitively) already belongs to a skill or to a problem file."""


class UnknownSkillError(LibraryError):
    """No skill of that name (case-insensitive)."""


class ReadOnlySkillError(LibraryError):
    """The skill lives in a store this app only reads (CortexPrism's memory.db)."""


@dataclass(frozen=True)
class Reference:
    """``referrer``'s see-also (seeAlso) names ``target`` at position ``index``."""

    referrer: str
    index: int
    target: str


class Entry(Protocol):
    """A loaded skill: its record, the file it lives in and the bytes last read or written there."""

    @property
    def skill(self) -> Skill: ...

    @property
    def path(self) -> Path: ...

    @property
    def raw(self) -> bytes: ...


class FrontmatterFile(Protocol):
    """A skill file with YAML frontmatter (a SKILL.md), as lint reads it: its parts, values, the
    file line of each key, and the folder it is named after."""

    @property
    def path(self) -> Path: ...

    @property
    def folder(self) -> Path: ...

    @property
    def skill(self) -> Skill: ...

    @property
    def doc(self) -> fm.Document: ...

    @property
    def frontmatter(self) -> fm.Frontmatter: ...

    @property
    def body_prefix(self) -> str: ...

    @property
    def name_from_folder(self) -> bool: ...

    @property
    def own_name(self) -> str:
        """The name in the file (or its folder's), without the plugin and category folders."""
        ...

    @property
    def values(self) -> dict[str, Any]: ...

    def file_line(self, key: str) -> int | None: ...


@dataclass(frozen=True)
class Resource:
    """A file that belongs to a skill (RockBot (current): its resource folder), or a manifest
    entry naming a file that is not there (``path`` None). ``entry`` is its manifest entry, as
    parsed (None: in the folder, not in the manifest)."""

    filename: str
    path: Path | None
    entry: dict[str, Any] | None = None

    @property
    def type(self) -> str | None:
        value = (self.entry or {}).get("type")
        return value if isinstance(value, str) else None

    @property
    def in_manifest(self) -> bool:
        return self.entry is not None


class Where(Protocol):
    """Where a library's things live: the opened folder, the (primary) skills folder, the file
    a new skill of a name is written to, and how a path is shown."""

    @property
    def agent_dir(self) -> Path: ...

    @property
    def skills_dir(self) -> Path: ...

    @property
    def skill_folders(self) -> bool:
        """True when each skill is a folder of its own (a SKILL.md), not a file below
        ``skills_dir``."""
        ...

    def path_for(self, name: str) -> Path: ...

    def display_path(self, path: Path) -> str: ...


# Outside core/library a library is just ``Library`` (its entries ``Any``): a format's entry types
# are its own business (PEP 696 defaults, so the bare name needs no type arguments).
E = TypeVar("E", bound=Entry, default=Any)  # any loaded skill
W = TypeVar("W", bound=Entry, default=Any)  # a skill this app may write


class FileWrites:
    """The whole-file writes one operation collects; a path written twice keeps its first
    ``before`` (what is on disk) and its last ``after``."""

    def __init__(self) -> None:
        self._by_path: dict[Path, FileChange] = {}

    def __contains__(self, path: object) -> bool:
        return path in self._by_path

    def put(self, path: Path, before: bytes | None, after: bytes | None) -> None:
        prior = self._by_path.get(path)
        self._by_path[path] = FileChange(path, prior.before if prior else before, after)

    def changes(self) -> tuple[FileChange, ...]:
        """The writes that change something (a file moved away and back again is left out)."""
        return tuple(w for w in self._by_path.values() if w.before != w.after)


class WriteGate(Progress, Protocol):
    """How a caller running an operation on another thread takes part in it (the UI's operation
    runner): told how far the operation is and asked whether to stop while it only reads (the
    :class:`~rockskills_gui.core.storage.progress.Progress` calls), told just before files are
    written (``begin_write``: from then on it is never cancelled), and handed the in-memory update
    to run where readers are (their thread)."""

    def take_in(self, update: Callable[[], None]) -> None: ...


class Library(UndoRedo, ABC, Generic[E, W]):
    """A skill library's skills (in load order), problems and change history (see module doc)."""

    format: str  # the skill format detection named (core.library.formats)
    layout: Where
    clock: Clock
    history: History
    detection_note: str  # what else format detection saw (set by open_library)
    recovery: RecoveryReport | None  # what opening finished of a change a crash interrupted
    problems: list[Problem]  # files that could not be loaded, with reasons
    _entries: dict[str, E]  # folded name -> entry
    _order: list[str]  # folded names in load order
    write_gate: WriteGate | None = None  # set while an operation runs off the readers' thread
    _conflict_hint = ""  # said after "<file> changed on disk since it was read"
    _read_only_why = "lives in a store this app only reads."

    # ---------------------------------------------------------------- format hooks

    @property
    @abstractmethod
    def profile(self) -> AgentProfile:
        """The agent profile this library is read and written for: what it holds, how its agent
        names, lists, selects, injects and curates skills (core/model/profiles). Ask it; never
        branch on the library's class."""

    def summary_rule(self) -> SummaryRule:
        """What this format asks of a summary / description (the profile's rule)."""
        return self.profile.summary

    def agent_note(self) -> AgentNote | None:
        """What a running agent of this format does with edited skills (None: not known)."""
        return self.profile.injection.note

    @abstractmethod
    def reload(self) -> None:
        """Read everything from disk again (the history is kept; undo re-checks files)."""

    @abstractmethod
    def refresh(self, paths: Iterable[Path]) -> DiskChanges:
        """Re-read what someone else changed on disk and say what changed."""

    @abstractmethod
    def snapshot(self) -> Library[E, W]:
        """The same library read from disk again, for a reader on another thread (a dream run):
        no recovery, no temp-file cleanup, nothing written; its history starts empty."""

    @abstractmethod
    def skill_roots(self) -> list[Path]:
        """The folders whose trees hold the skills (what a watcher follows)."""

    @abstractmethod
    def journal_layout(self, paths: Iterable[Path]) -> Layout:
        """Where a change to ``paths`` is journaled and bounded."""

    @abstractmethod
    def restore(self, skill: Skill) -> ChangeSet:
        """Write ``skill`` as a new file again (a skill deleted on disk while it was being edited)."""

    @abstractmethod
    def _as_editable(self, entry: E) -> W | None:
        """``entry`` as one this app may write, or None for a read-only one."""

    @abstractmethod
    def _new_bytes(self, skill: Skill) -> bytes:
        """The file a new skill is written as."""

    @abstractmethod
    def _saved_bytes(self, entry: W, skill: Skill, touch: bool) -> bytes | None:
        """The file an edited ``skill`` is written as, or None when nothing changed."""

    @abstractmethod
    def _relinked_bytes(self, entry: W, see_also: tuple[str, ...] | None) -> bytes:
        """``entry``'s file with only its see-also list replaced (a rename's rewritten link)."""

    @abstractmethod
    def _delete_files(self, entry: W) -> list[FileChange]:
        """Every file a delete of ``entry`` removes (the skill's file, its resources)."""

    def _vacate(self, entry: W, new: str, writes: FileWrites) -> None:
        """Before a rename's writes in load order: what moving ``entry`` away writes first."""
        del entry, new, writes

    @abstractmethod
    def _put_renamed(self, entry: W, new: str, see_also: tuple[str, ...] | None, now: Timestamp,
                     writes: FileWrites) -> None:
        """Write ``entry`` renamed to ``new`` (with its rewritten see-also) into ``writes``."""

    @abstractmethod
    def _take_in(self, change: ChangeSet) -> None:
        """Update the in-memory skills from a change just written."""

    # ---------------------------------------------------------------- questions a caller asks
    # Neutral answers where the format has nothing to say, so no caller branches on the class
    # (the profile says what a library of it can hold: ``profile.holds``).

    def name_rule_error(self, name: str) -> str | None:
        """Why the agent's own name rule refuses ``name`` for a skill (None: it accepts it),
        in the agent's words; nothing about names already taken (:meth:`name_error` says that)."""
        from rockskills_gui.core.library.names import rule_error

        return rule_error(self.profile.names.kind, name)

    def name_taken(self, existing: str) -> str:
        """What refusing a name ``existing`` already has says."""
        return f"A skill named '{existing}' already exists{self.profile.names.taken_hint}."

    @property
    def warnings(self) -> list[Problem]:
        """Load-time warnings of loaded skills (a SKILL.md's name from its folder, ...)."""
        return []

    def resources(self, name: str) -> list[Resource]:
        """The files that belong to skill ``name`` ([] when the profile holds none, or there is
        no such skill)."""
        del name
        return []

    def resource_dir(self, name: str) -> Path | None:
        """The folder skill ``name``'s resources live in (None: the format has none)."""
        del name
        return None

    def resource_owner(self, path: Path) -> str | None:
        """The skill whose resource folder holds ``path`` (as spelled in the path), or None."""
        del path
        return None

    def health_stats(self, name: str) -> dict[str, Any]:
        """Skill ``name``'s health scores, lifecycle and trust (CortexPrism's memory.db columns),
        {} when it has none."""
        del name
        return {}

    def frontmatter_file(self, name: str) -> FrontmatterFile | None:
        """Skill ``name``'s file when it is a SKILL.md with frontmatter (None otherwise)."""
        del name
        return None

    def timestamps_stored(self, name: str) -> bool:
        """True when skill ``name`` stores its own created / updated / last-used times (not the
        file's modification time)."""
        del name
        return self.profile.holds.timestamps

    def recall_cache(self) -> Path | None:
        """Where the recall index of this library may be kept between opens (None: nowhere)."""
        return None

    @abstractmethod
    def listing_entries(self) -> list[AdEntry]:
        """Every skill as the agents' listings see it, in load order (core/budget)."""

    # ---------------------------------------------------------------- reading

    @property
    def agent_dir(self) -> Path:
        return self.layout.agent_dir

    @property
    def skills_dir(self) -> Path:
        return self.layout.skills_dir

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and fold(name) in self._entries

    def skills(self) -> list[Skill]:
        """Skills in load order (the recall candidate order: see README)."""
        return [self._entries[key].skill for key in self._order]

    def listed(self) -> list[Skill]:
        """Skills in RockBot's List order (ordinal-ignore-case by name)."""
        return sorted(self.skills(), key=lambda s: sort_key(s.name))

    def names(self) -> list[str]:
        return [self._entries[key].skill.name for key in self._order]

    def get(self, name: str) -> Skill | None:
        entry = self._entries.get(fold(name))
        return entry.skill if entry else None

    def entry(self, name: str) -> E:
        entry = self._entries.get(fold(name))
        if entry is None:
            raise UnknownSkillError(f"Skill '{name}' not found.")
        return entry

    def entries(self) -> list[E]:
        """Every loaded entry, in load order."""
        return [self._entries[key] for key in self._order]

    def skill_path(self, name: str) -> Path:
        """The file skill ``name`` lives in: the one it was loaded from (a SKILL.md under whichever
        root and folder it was found, ``memory.db`` for a CortexPrism row); for a name with no
        skill (e.g. deleted on disk), the file creating or restoring it would write."""
        entry = self._entries.get(fold(name))
        return entry.path if entry is not None else self.layout.path_for(name)

    def name_of_file(self, path: Path) -> str | None:
        """The skill loaded from file ``path`` (compared resolved), if one was."""
        try:
            wanted = Path(path).resolve()
        except OSError:
            return None
        for entry in self._entries.values():  # (resolved only where the file name matches)
            if entry.path.name == wanted.name and (entry.path == wanted
                                                   or entry.path.resolve() == wanted):
                return entry.skill.name
        return None

    def is_read_only(self, name: str) -> bool:
        """True for a skill this app only reads (a CortexPrism memory.db row with no SKILL.md)."""
        entry = self._entries.get(fold(name))
        return entry is not None and self._as_editable(entry) is None

    # ---------------------------------------------------------------- symbolic links

    def _link_places(self) -> list[Path]:
        """The folders a symbolic link may lead elsewhere: the skill roots, and (SKILL.md) the
        skill folders that are links."""
        return []

    def link_of(self, name: str) -> tuple[Path, Path] | None:
        """The first symbolic link on the way from the library's folder to skill ``name``'s file
        (``skills/``, its folder or the file itself) and where it leads, or None: what the tree
        shows as "linked to"."""
        path = self.skill_path(name)
        try:
            rel = path.relative_to(self.agent_dir)
        except ValueError:
            return None
        current = self.agent_dir
        for part in rel.parts:
            current = current / part
            if current.is_symlink():
                return current, links.link_target(current)
        return None

    def trusted_links(self) -> tuple[Path, ...]:
        """The folders outside the library that writes may reach through a link (confirmed by
        the user, or the library's other skill roots)."""
        return getattr(self.layout, "trusted", ())

    def unconfirmed_links(self) -> dict[Path, Path]:
        """Links to the library's skills (``skills/``, a root, a skill folder) whose target lies
        outside the library and outside every trusted folder, by link: writes through them are
        refused until the user confirms the target (the window asks once; the CLI takes
        ``--allow-link-target``)."""
        found: dict[Path, Path] = {}
        for place in self._link_places():
            blocked = links.blocking_link(place, self.agent_dir, self.trusted_links(), final=False)
            if blocked is not None:
                found[blocked[0]] = links.link_target(blocked[0])
        return found

    def refresh_skill(self, name: str) -> DiskChanges:
        """:meth:`refresh` one skill's file."""
        return self.refresh([self.entry(name).path])

    def references_to(self, names: Iterable[str]) -> list[Reference]:
        """Every see-also entry (in any skill) naming one of ``names`` (case-insensitive)."""
        targets = {fold(n) for n in names}
        return [Reference(skill.name, index, target) for skill in self.skills()
                for index, target in enumerate(skill.see_also or ()) if fold(target) in targets]

    def _editable(self, name: str) -> W:
        entry = self.entry(name)
        editable = self._as_editable(entry)
        if editable is None:
            raise ReadOnlySkillError(f"'{entry.skill.name}' {self._read_only_why}")
        return editable

    def _taken(self, existing: str) -> NameTakenError:
        return NameTakenError(self.name_taken(existing))

    # ---------------------------------------------------------------- operations

    def create(self, name: str, summary: str = "", content: str = "",
               see_also: Iterable[str] | None = None) -> ChangeSet:
        """Create a new skill (createdAt = updatedAt = now, as RockBot's own first save), written
        the format's way (a SKILL.md folder: ``<root>/<name>/SKILL.md``)."""
        self._check_new_name(name)
        now = self.clock()
        skill = Skill(name=name, summary=summary, content=content, created_at=now,
                      updated_at=now, last_used_at=None,
                      see_also=tuple(see_also) if see_also is not None else None)
        return self._write_new(f"Create '{name}'", skill)

    def _write_new(self, label: str, skill: Skill) -> ChangeSet:
        change = ChangeSet(label=label, files=(FileChange(self.layout.path_for(skill.name), None,
                                                          self._new_bytes(skill)),),
                           created=(skill.name,))
        return self._apply(change, record=True)

    def save(self, skill: Skill, touch: bool = True) -> ChangeSet:
        """Save an edited version of an existing skill (matched by name, case-insensitive).

        An unchanged skill is not written at all; ``touch`` sets updatedAt = now where the format
        stores it.
        """
        entry = self._editable(skill.name)
        if skill.name != entry.skill.name:
            raise LibraryError(f"Use rename to change '{entry.skill.name}' to '{skill.name}'.")
        after = self._saved_bytes(entry, skill, touch)
        if after is None:
            return ChangeSet(label=f"Save '{skill.name}'")
        change = ChangeSet(label=f"Save '{skill.name}'",
                           files=(FileChange(entry.path, entry.raw, after),), updated=(skill.name,))
        return self._apply(change, record=True)

    def update(self, name: str, **fields: object) -> ChangeSet:
        """Save ``name`` with some fields replaced (summary, content, see_also, ...)."""
        current = self._editable(name).skill
        if fields.get("see_also") is not None:
            fields["see_also"] = tuple(fields["see_also"])  # type: ignore[arg-type]
        return self.save(current.model_copy(update=fields))

    def delete(self, name: str) -> ChangeSet:
        """Delete a skill (undoable). References to it are left as they are."""
        return self.delete_many([name])

    def delete_many(self, names: Iterable[str]) -> ChangeSet:
        """Delete skills, each with the files it carries (its resources), as one undoable change."""
        entries: list[W] = []
        for name in names:
            entry = self._editable(name)
            if entry not in entries:
                entries.append(entry)
        files = [fc for entry in entries for fc in self._delete_files(entry)]
        shown = ", ".join(f"'{e.skill.name}'" for e in entries)
        change = ChangeSet(label=f"Delete {shown}", files=tuple(files),
                           deleted=tuple(e.skill.name for e in entries))
        return self._apply(change, record=True)

    def rename(self, old: str, new: str) -> ChangeSet:
        """Rename (or move) a skill and rewrite every see-also reference to it."""
        return self.rename_many({old: new})

    def rename_many(self, mapping: Mapping[str, str]) -> ChangeSet:
        """Rename several skills at once (e.g. a folder move) and rewrite every see-also
        reference to them, as one undoable change."""
        moves = {fold(old): (self._editable(old), new) for old, new in mapping.items()}
        moves = {k: v for k, v in moves.items() if v[0].skill.name != v[1]}
        if not moves:
            return ChangeSet(label="Rename")
        final = {k: self._entries[k].skill.name for k in self._order if k not in moves}
        for _, new in moves.values():
            self._check_new_name(new, existing_ok=True)
            if fold(new) in final:
                raise self._taken(final[fold(new)])
            final[fold(new)] = new
        rename_of = {key: new for key, (_, new) in moves.items()}
        now = self.clock()
        writes = FileWrites()
        for moved, new in moves.values():
            self._vacate(moved, new, writes)
        rewritten: list[str] = []
        for key in self._order:
            entry = self._as_editable(self._entries[key])
            if entry is None:
                continue
            skill = entry.skill
            see_also = skill.see_also
            if see_also is not None and any(fold(t) in rename_of for t in see_also):
                see_also = tuple(rename_of.get(fold(t), t) for t in see_also)
            if key in moves:
                self._put_renamed(entry, moves[key][1], see_also, now, writes)
            elif see_also != skill.see_also:
                writes.put(entry.path, entry.raw, self._relinked_bytes(entry, see_also))
                rewritten.append(skill.name)
        pairs = tuple((e.skill.name, new) for e, new in moves.values())
        change = ChangeSet(label=rename_label(pairs), files=writes.changes(), renamed=pairs,
                           links_rewritten=tuple(rewritten))
        return self._apply(change, record=True)

    # ---------------------------------------------------------------- the one writer

    def apply_change_set(self, change: ChangeSet, writer: Writer | None = None,
                         read_now: bool = False) -> ChangeSet:
        """Apply a change set built elsewhere (e.g. an accepted dream plan) as one undoable step.

        Refused like any operation when a file changed on disk. ``writer`` replaces the plain file
        writer (e.g. a journaled transaction); it must write all or nothing, raising LibraryError.
        ``read_now``: the caller read every ``before`` from disk during this operation, so they are
        not read again (the checked swap of each file still refuses one changed since).
        """
        return self._apply(change, record=True, writer=writer, read_now=read_now)

    @property
    def progress(self) -> Progress:
        """Where a long operation on this library reports how far it is (the write gate while an
        operation runner drives it, else nowhere)."""
        return self.write_gate if self.write_gate is not None else SILENT

    def begin_write(self) -> None:
        """The point of no return of an operation that writes without :meth:`_apply` (e.g. a
        journal marker): raises :class:`~rockskills_gui.core.storage.progress.Cancelled` when
        it was cancelled, and from then on it is not."""
        self.progress.begin_write()

    def check_conflicts(self, change: ChangeSet) -> list[Path]:
        """Files whose disk bytes are not what ``change`` expects to replace."""
        from rockskills_gui.core.storage import change_writer

        return change_writer.check_conflicts(change)

    def _check_replay(self, change: ChangeSet) -> None:
        """An undo/redo that brings a skill back is refused while another file holds its name
        (e.g. the agent wrote a new skill of that name elsewhere): two skills would share it."""
        leaving = {fold(n) for n in change.deleted} | {fold(old) for old, _new in change.renamed}
        paths = {fc.path for fc in change.files}
        for name in (*change.created, *(new for _old, new in change.renamed)):
            entry = self._entries.get(fold(name))
            if entry is not None and fold(name) not in leaving and entry.path not in paths:
                raise NameTakenError(
                    f"Cannot bring '{name}' back: {self.layout.display_path(entry.path)} now holds "
                    f"a skill named '{entry.skill.name}'. Rename or delete it first.")

    def _apply(self, change: ChangeSet, record: bool, writer: Writer | None = None,
               read_now: bool = False) -> ChangeSet:
        """Write ``change``; a ``writer`` may return the change set to record instead (the same
        change, linked to the journal transaction it wrote). A write gate hears how far the
        checks and the write are, may cancel until the write begins, and takes in the update."""
        if change.empty:
            return change
        self._check_sizes(change)
        gate = self.write_gate
        from rockskills_gui.core.storage import change_writer

        layout = self.journal_layout(fc.path for fc in change.files)
        # a read-only folder is said before anything is written (not a PermissionError half-way)
        check_writable(layout, change, writer is not None or change_writer.needs_journal(layout, change))
        written = change_writer.write_change(layout, change, self._conflict, writer,
                                             progress=self.progress, read_now=read_now)
        if gate is None:
            self._take_in(change)
        else:  # readers see the whole state before or after, never a half-updated index
            gate.take_in(lambda: self._take_in(change))
        if isinstance(written, ChangeSet):
            change = written
        if record:
            self.history.push(change)
        return change

    def _check_sizes(self, change: ChangeSet) -> None:
        """Refuse to write a skill file that the next open would not load (over its size limit,
        ``core/model/size_limits``), or a resource over its own limit: nothing is written."""
        for fc in change.files:
            if fc.after is None:
                continue
            skill_file = fc.path.suffix == ".json" or fc.path.name.lower() == "skill.md"
            limit = SKILL_FILE_MAX_BYTES if skill_file else RESOURCE_MAX_BYTES
            if len(fc.after) > limit:
                raise LibraryError(f"{self.layout.display_path(fc.path)} would be "
                                   f"{too_large(len(fc.after), limit, 'not written')}")

    def _journaled(self, change: ChangeSet, kind: str, undoes: str | None) -> str:
        from rockskills_gui.core.storage import journal

        layout = self.journal_layout(fc.path for fc in change.files)
        tx = journal.run(layout, change.files, kind, change.label, undoes=undoes,
                         progress=self.progress)
        return tx.id if undoes is None else undoes

    def _conflict(self, paths: list[Path]) -> ConflictError:
        shown = ", ".join(self.layout.display_path(p) for p in paths)
        return ConflictError(paths, f"{shown} changed on disk since it was read"
                                    f"{self._conflict_hint}; nothing was written. Reload the "
                                    "library to see the new version.")

    def _remove_stale_temps(self, temps: Iterable[Path]) -> None:
        """Remove temp files a crashed writer left (:attr:`recovery` lists them)."""
        removed = fileio.remove_stale_temps(list(temps))
        if removed:
            from rockskills_gui.core.storage.journal import RecoveryReport

            self.recovery = self.recovery or RecoveryReport()
            self.recovery.removed_temps.extend(self.layout.display_path(p) for p in removed)
