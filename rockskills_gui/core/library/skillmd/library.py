"""SkillMdLibrary: a SKILL.md tree (Agent Skills, PicoBot, carpenter, CortexPrism) with Library's surface.

The operations -- create, save, update, delete, rename, apply a change set, undo/redo -- are the
one library contract (:class:`~rockskills_gui.core.library.library.Library`, shared with
RockBot's :class:`~rockskills_gui.core.library.rockbot.library.RockBotLibrary`); this module is the
SKILL.md store behind it. A save rewrites only what changed
(:func:`~rockskills_gui.core.library.skillmd.store.edited_bytes`), so an unchanged skill is never
written and a skill saved unchanged stays byte-identical. A skill is a folder, so delete and
rename carry the skill's resource files along.

CortexPrism libraries also show the ``procedural_memory`` rows of ``memory.db`` (read-only):
rows matching a SKILL.md by name attach their scores to it, the others are read-only skills.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from rockskills_gui.core.library.library import (
    Clock,
    FileWrites,
    Library,
    NameTakenError,
    ReadOnlySkillError,
    Reference,
    UnknownSkillError,
)
from rockskills_gui.core.library.listing import AdEntry, first_paragraph, from_row, text_value
from rockskills_gui.core.library.skillmd import cortex
from rockskills_gui.core.library.skillmd.incremental import ScanIndex
from rockskills_gui.core.library.skillmd.openai_yaml import allows_implicit_invocation
from rockskills_gui.core.library.skillmd.parse_cache import ParseCache
from rockskills_gui.core.library.skillmd.places import home_root, place_of
from rockskills_gui.core.library.skillmd.scan import scan_items
from rockskills_gui.core.library.skillmd.store import (
    SIDECAR_NAME,
    AgentProfile,
    Root,
    SkillMdEntry,
    display_path,
    edited_bytes,
    new_skill_bytes,
    own_name_of,
    with_new_body,
)
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.summary_rule import SummaryRule
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, links, untrusted
from rockskills_gui.core.storage.changes import (
    ChangeSet,
    DiskChanges,
    FileChange,
    History,
    LibraryError,
)
from rockskills_gui.core.storage.journal import RecoveryReport, journal_problems, recover_if_needed
from rockskills_gui.core.storage.layout import Layout

__all__ = ["Clock", "DbEntry", "NameTakenError", "ReadOnlySkillError", "Reference",
           "SkillMdLayout", "SkillMdLibrary", "UnknownSkillError"]


@dataclass(frozen=True)
class DbEntry:
    """A CortexPrism ``procedural_memory`` row shown as a read-only skill."""

    skill: Skill
    path: Path
    row: cortex.CortexRow
    raw: bytes = b""
    read_only: bool = True
    resources: tuple[str, ...] = ()
    warnings: tuple[Problem, ...] = ()

    @property
    def stats(self) -> dict[str, Any]:
        return self.row.stats()


@dataclass(frozen=True)
class SkillMdLayout:
    """Where things live: the opened folder (``agent_dir``), the primary skills root, and where
    a skill of a name goes (:func:`~.places.place_of`: its plugin, categories and own folder)."""

    agent_dir: Path
    skills_dir: Path
    roots: tuple[Root, ...] = ()
    profile: AgentProfile | None = field(default=None, compare=False)
    skill_folders: ClassVar[bool] = True  # each skill is a folder with its SKILL.md

    def display_path(self, path: Path) -> str:
        return display_path(self.agent_dir, path)

    def path_for(self, name: str) -> Path:
        if self.profile is not None:
            try:
                return place_of(name, self.roots, self.profile).folder() / "SKILL.md"
            except LibraryError:
                pass
        return self.skills_dir / name / "SKILL.md"


class SkillMdLibrary(Library[SkillMdEntry | DbEntry, SkillMdEntry]):
    """A folder of SKILL.md skills under one profile (see module doc)."""

    _read_only_why = "lives in CortexPrism's memory.db, which this app only reads."
    layout: SkillMdLayout

    @property
    def profile(self) -> AgentProfile:
        """The SKILL.md profile this library was opened with (the user's settings applied)."""
        return self._profile

    def summary_rule(self) -> SummaryRule:
        """What this format asks of a description (the profile's limit, e.g. 1024 characters)."""
        return self.profile.summary

    def _as_editable(self, entry: SkillMdEntry | DbEntry) -> SkillMdEntry | None:
        """None for a CortexPrism memory.db row with no SKILL.md (this app only reads the db)."""
        return entry if isinstance(entry, SkillMdEntry) else None

    def __init__(self, base: Path, roots: list[Root], profile: AgentProfile, format_id: str,
                 memory_db: Path | None = None, clock: Clock = Timestamp.now,
                 link_targets: Iterable[Path] = (), notes: Iterable[Problem] = ()) -> None:
        if not roots:
            raise ValueError("at least one skills root is needed")
        self.base = base
        # Where writes may reach through a symbolic link (core.storage.links): the targets the
        # user confirmed, and every root of this library (declared agent roots may link to each
        # other, as installers do).
        self._trusted = tuple(dict.fromkeys([*(links.real(Path(t)) for t in link_targets),
                                             *(links.real(r.path) for r in roots)]))
        self.roots = roots
        self._profile = profile
        self.format = format_id
        self.memory_db = memory_db
        self.clock = clock
        self.history = History()
        self.detection_note = ""  # what else format detection saw (set by open_library)
        self._notes = tuple(notes)  # what discovery could not read (plugin manifests)
        home = home_root(roots)
        self.layout = SkillMdLayout(base, (home or roots[0]).path, tuple(roots), profile)
        self._entries: dict[str, SkillMdEntry | DbEntry] = {}
        self._order: list[str] = []
        # The last version of each skill that left the library (deleted on disk or by an
        # operation): a restore writes the user's edits into it, keeping keys the editor hides.
        self._gone: dict[str, SkillMdEntry] = {}
        self.problems: list[Problem] = []  # files that could not be loaded, with reasons
        self._parsed = ParseCache()
        self._index: ScanIndex | None = None  # what the last scan found where (None: unknown)
        self.recovery: RecoveryReport | None = self._recover()  # what open finished of a crash
        self.reload()
        self._remove_stale_temps(self._stale_temps())

    # ---------------------------------------------------------------- reading

    def snapshot(self) -> SkillMdLibrary:
        """The same library read from disk again, for a reader on another thread (a dream run):
        no recovery, no temp-file cleanup, nothing written; its history starts empty."""
        copy = object.__new__(SkillMdLibrary)
        copy.__dict__.update(self.__dict__)
        copy.history, copy.write_gate, copy._parsed = History(), None, ParseCache()
        copy._entries, copy._order, copy._gone, copy.problems, copy._index = {}, [], {}, [], None
        copy.reload()
        return copy

    def reload(self) -> None:
        """Read every skill again (the history is kept; undo re-checks files)."""
        self._parsed.clear()
        self._rescan()

    def _rescan(self, changed: Iterable[Path] = ()) -> None:
        """Walk the roots again; a SKILL.md is parsed again only when it, its folder, or a path in
        ``changed`` inside (or above) its folder changed since it was last parsed."""
        self._parsed.forget(changed)
        self._index = None
        items = scan_items(self.roots, self.profile, self.base, self._parsed.read)
        entries: dict[str, SkillMdEntry | DbEntry] = {}
        order: list[str] = []
        problems = [*self._notes, *(p for item in items for p in item.problems)]
        problems.extend(journal_problems(self.recovery))
        for item in items:
            if item.entry is not None:
                key = fold(item.entry.skill.name)
                entries[key] = item.entry
                order.append(key)
        if self.memory_db is not None:
            rows, db_problems = cortex.read_memory_db(self.memory_db,
                                                      display_path(self.base, self.memory_db))
            problems.extend(db_problems)
            for row in rows:
                key = fold(row.name)
                existing = entries.get(key)
                if isinstance(existing, SkillMdEntry):
                    stats = row.stats()
                    stats["in_db"] = True
                    entries[key] = replace(existing, stats=stats)
                elif existing is None:
                    entries[key] = DbEntry(row.skill, self.memory_db, row)
                    order.append(key)
        for key, old in self._entries.items():
            if key not in entries and isinstance(old, SkillMdEntry):
                self._gone[key] = old
        for key in entries:
            self._gone.pop(key, None)
        self._entries, self._order, self.problems = entries, order, problems
        if self.memory_db is None:  # memory.db rows join by name: a change is never local
            self._index = ScanIndex.build(self.roots, self.profile, self.base, items)

    def refresh(self, paths: Iterable[Path] = ()) -> DiskChanges:
        """Re-read from disk and report what changed (any path under a root triggers a rescan)."""
        before = {k: e.raw for k, e in self._entries.items()}
        names_before = {k: e.skill.name for k, e in self._entries.items()}
        problems_before = list(self.problems)
        paths = list(paths)
        if paths:
            self._rescan(paths)
        else:
            self.reload()
        after = self._entries
        updated = tuple(after[k].skill.name for k in after if k in before and after[k].raw != before[k])
        created = tuple(after[k].skill.name for k in after if k not in before)
        deleted = tuple(names_before[k] for k in before if k not in after)
        return DiskChanges(updated, created, deleted, self.problems != problems_before)

    @property
    def warnings(self) -> list[Problem]:
        """Load-time warnings of loaded skills (name from folder, repaired YAML, ...)."""
        return [w for entry in self.entries() for w in entry.warnings]

    def health_stats(self, name: str) -> dict[str, Any]:
        """CortexPrism's memory.db columns of skill ``name`` (a row, or a SKILL.md joined to one)."""
        entry = self._entries.get(fold(name))
        return entry.stats if entry is not None else {}

    def frontmatter_file(self, name: str) -> SkillMdEntry | None:
        """Skill ``name``'s SKILL.md (None for a memory.db row or no such skill)."""
        entry = self._entries.get(fold(name))
        return entry if isinstance(entry, SkillMdEntry) else None

    def timestamps_stored(self, name: str) -> bool:
        """A memory.db row stores its times; a SKILL.md has only its file's."""
        return isinstance(self._entries.get(fold(name)), DbEntry)

    def listing_entries(self) -> list[AdEntry]:
        """Each skill at its own file; CortexPrism's columns from memory.db where it has them."""
        found: list[AdEntry] = []
        for entry in self.entries():
            skill = entry.skill
            if isinstance(entry, DbEntry):
                found.append(from_row(skill, str(entry.path), entry.row.values))
                continue
            values = entry.values
            trigger = text_value(values.get("trigger_pattern")) or text_value(values.get("triggerPattern"))
            namespace = entry.root.namespace
            category = entry.prefix.removeprefix(namespace).lstrip("/") if namespace else entry.prefix
            ad = AdEntry(skill.name, skill.summary, str(entry.path), trigger=trigger,
                         listed_name=entry.agent_name, scope=entry.root.scope, root=str(entry.root.path),
                         category=category, paragraph=first_paragraph(skill.content or ""),
                         model_invocable=values.get("disable-model-invocation") not in (True, "true"),
                         implicit=allows_implicit_invocation(entry.folder))
            if entry.stats:  # a CortexPrism SKILL.md with its memory.db row
                row = from_row(skill, ad.location, entry.stats)
                ad = replace(row, trigger=trigger or row.trigger)
            found.append(ad)
        return found

    def skill_roots(self) -> list[Path]:
        """The folders whose trees hold the skills (what a watcher follows): every root."""
        return [root.path for root in self.roots]

    def trusted_links(self) -> tuple[Path, ...]:
        """Confirmed link targets and this library's roots (see :meth:`Library.trusted_links`)."""
        return self._trusted

    def _link_places(self) -> list[Path]:
        """Every root, and every skill folder that is a symbolic link."""
        return [*(r.path for r in self.roots),
                *(e.folder for e in self.entries() if isinstance(e, SkillMdEntry) and e.folder.is_symlink())]

    # ---------------------------------------------------------------- checks

    def name_rule_error(self, name: str) -> str | None:
        """The profile's name rule, then where the name would put the skill: a plugin's folder
        or a category its agent reads (:func:`~.places.place_of`)."""
        error = super().name_rule_error(name)
        if error is not None:
            return error
        try:
            place_of(name, self.roots, self.profile)
        except LibraryError as exc:
            return str(exc)
        return None

    def _check_new_name(self, name: str, existing_ok: bool = False) -> str:
        """A new skill's name: '/'-separated folder names (a plugin's, categories, its own)
        where the profile's agent finds it (:meth:`name_rule_error`)."""
        error = self.name_rule_error(name)
        if error is not None:
            raise LibraryError(error)
        folder = place_of(name, self.roots, self.profile).folder()
        if not existing_ok and fold(name) in self._entries:
            raise self._taken(self._entries[fold(name)].skill.name)
        if not existing_ok and folder.exists():
            raise NameTakenError(f"{self.layout.display_path(folder)} already exists.")
        return name

    # ---------------------------------------------------------------- the store's hooks

    def restore(self, skill: Skill) -> ChangeSet:
        """Write ``skill`` as a new SKILL.md again (a skill deleted while being edited).

        When the library knew the deleted file, the edits go into its last version at its old
        place, so frontmatter keys the editor does not show (license, metadata, ...) come back too.
        """
        gone = self._gone.get(fold(skill.name))
        if gone is None or gone.skill.name != skill.name:
            return self.create(skill.name, skill.summary or "", skill.content or "", skill.see_also)
        self._check_new_name(skill.name, existing_ok=True)  # its folder may still hold resources
        if fold(skill.name) in self._entries:
            raise self._taken(self._entries[fold(skill.name)].skill.name)
        data = edited_bytes(gone, skill, self.profile)
        change = ChangeSet(label=f"Restore '{skill.name}'",
                           files=(FileChange(gone.path, None, data),), created=(skill.name,))
        return self._apply(change, record=True)

    def _new_bytes(self, skill: Skill) -> bytes:
        """``<root>/[<category>/]<name>/SKILL.md`` written the profile's way (its own name)."""
        own = place_of(skill.name, self.roots, self.profile).own
        return new_skill_bytes(skill.model_copy(update={"name": own}), self.profile)

    def _saved_bytes(self, entry: SkillMdEntry, skill: Skill, touch: bool) -> bytes | None:
        """Only what changed in ``skill`` is rewritten; None when that is nothing."""
        del touch  # SKILL.md has no updatedAt; the file's mtime moves by itself
        after = edited_bytes(entry, skill, self.profile)
        return None if after == entry.raw else after

    def _relinked_bytes(self, entry: SkillMdEntry, see_also: tuple[str, ...] | None) -> bytes:
        return edited_bytes(entry, entry.skill.model_copy(update={"see_also": see_also}),
                            self.profile)

    def _delete_files(self, entry: SkillMdEntry) -> list[FileChange]:
        """The skill's whole folder: SKILL.md, resources, sidecar. Never through a folder that is
        a symbolic link: that folder is shared (an installer links one copy into several agents'
        folders), and this app neither removes links nor empties what they point to."""
        if entry.folder.is_symlink():
            raise LibraryError(
                f"Cannot delete '{entry.skill.name}': its folder {self.layout.display_path(entry.folder)} "
                f"is a symbolic link to {links.link_target(entry.folder)}, which other agents may "
                "share. Remove the link by hand if this agent should no longer have the skill. "
                "Nothing was changed.")
        return [FileChange(path, data, None) for path, data in self._folder_data(entry, "delete")]

    def _put_renamed(self, entry: SkillMdEntry, new: str, see_also: tuple[str, ...] | None,
                     now: Timestamp, writes: FileWrites) -> None:
        """The frontmatter name, and the folder: moved to the new name's plugin and categories,
        and renamed when it was named after the skill (every layout; creations before deletions,
        journaled as one change)."""
        del now  # SKILL.md has no updatedAt
        skill = entry.skill
        after = edited_bytes(entry, skill.model_copy(update={"name": new, "see_also": see_also}),
                             self.profile)
        folder = entry.folder
        own = own_name_of(entry, new)
        if "/" in entry.own_name:  # a name this app never splits: its folder stays where it is
            target = folder.parent / own if folder.name == entry.own_name else folder
        else:
            place = place_of(new, self.roots, self.profile, entry.root)
            target = place.folder(own if folder.name == entry.own_name else folder.name)
        # A folder that is a symbolic link (shared) is never moved: the name is changed in its
        # SKILL.md, where it is.
        if target != folder and not folder.is_symlink():
            if (target.exists() or target.is_symlink()) and not fileio.same_file(target, folder):
                raise NameTakenError(f"{self.layout.display_path(target)} already exists.")
            if folder in target.parents:
                raise LibraryError(f"Cannot move '{skill.name}' into its own folder.")
            files = self._folder_data(entry, "rename")
            for path, data in files:  # (the journal writes the new folder before the old one goes)
                writes.put(path, data, None)
            for path, data in sorted(files, key=lambda file: file[0] == entry.path):  # SKILL.md last
                writes.put(target / path.relative_to(folder), None,
                           after if path == entry.path else data)
        else:
            writes.put(entry.path, entry.raw, after)

    def _folder_data(self, entry: SkillMdEntry, verb: str) -> list[tuple[Path, bytes]]:
        """Every file of the skill's folder with its bytes, for a delete or a move; raises
        LibraryError naming the first one that is not a plain regular file (a FIFO, a device, a
        symbolic link, whether it leads inside the library, outside or nowhere): such files are
        never read, followed or recreated as copies."""
        found: list[tuple[Path, bytes]] = []
        for path in _folder_files(entry):
            why = untrusted.not_regular(path)
            if why is None and path.is_symlink():
                why = f"a symbolic link (to {untrusted.link_target(path)})"
            if why is None:
                try:
                    found.append((path, fileio.read_regular(path, RESOURCE_MAX_BYTES)))
                    continue
                except OSError as exc:
                    why = untrusted.reason(path, exc)
            raise LibraryError(f"Cannot {verb} '{entry.skill.name}': {self.layout.display_path(path)} "
                               f"is {why}; this app only moves and deletes regular files, so move "
                               "or remove it by hand first. Nothing was changed.")
        return found

    # ---------------------------------------------------------------- where changes are written

    def _root_of(self, path: Path) -> Path | None:
        return next((r.path for r in self.roots if r.path in path.parents), None)

    def journal_layout(self, paths: Iterable[Path]) -> Layout:
        """Where a change to ``paths`` is journaled and bounded: the skills root holding them all
        (their common folder when they span roots); the journal lives in the opened folder, or
        beside a root outside it (a user-scope root)."""
        roots = []
        for path in paths:
            root = self._root_of(path)
            if root is None:
                raise LibraryError(f"refusing to write outside the skills folders: {path}")
            roots.append(root)
        folder = roots[0] if len(set(roots)) == 1 else Path(os.path.commonpath(roots))
        home = self.base if folder == self.base or self.base in folder.parents else folder.parent
        return Layout(home, folder, self._trusted)

    def _homes(self) -> list[Layout]:
        """One layout per journal folder this library's roots use (for recovery on open)."""
        layouts: dict[Path, Layout] = {}
        for root in self.roots:
            layout = self.journal_layout([root.path / "x"])
            layouts.setdefault(layout.agent_dir, layout)
        return list(layouts.values())

    def _recover(self) -> RecoveryReport | None:
        """Finish changes a crash interrupted, and remove temp files a crashed writer left."""
        report: RecoveryReport | None = None
        for layout in self._homes():
            found = recover_if_needed(layout)
            if found is not None:
                report = report or RecoveryReport()
                report.merge(found)
        return report

    def _stale_temps(self) -> list[Path]:
        """Temp files a crashed writer may have left in the skill folders."""
        return [Path(e.folder) / name for e in self.entries() if isinstance(e, SkillMdEntry)
                for name in _temp_names(e.folder)]

    def _take_in(self, change: ChangeSet) -> None:
        """Take in a change just written: a save in place, else the touched top-level folders
        only (:mod:`~rockskills_gui.core.library.skillmd.incremental`), else a walk of all."""
        paths = [fc.path for fc in change.files]
        if not self._update_in_place(change) and not self._take_in_folders(paths):
            self._rescan(paths)

    def _take_in_folders(self, paths: list[Path]) -> bool:
        """Re-read only the top-level folders ``paths`` lie in; False when that cannot be
        proven to equal a fresh open (then nothing was changed)."""
        index = self._index
        if index is None:
            return False
        self._parsed.discard(paths)
        delta = index.plan(paths, self._fresh_read)
        if delta is None:
            return False
        self._parsed.discard(delta.paths_left())
        left, came = index.commit(delta, self._order)
        gone = {name: self._entries.pop(name) for name in left}
        for entry in came:
            key = fold(entry.skill.name)
            self._entries[key] = entry
            self._gone.pop(key, None)
        for key, old in gone.items():
            if key not in self._entries and isinstance(old, SkillMdEntry):
                self._gone[key] = old
        return True

    def _fresh_read(self, root: Root, path: Path, profile: AgentProfile, display: str,
                    boundary: tuple[Path, ...], base: Path) -> SkillMdEntry | Problem:
        """Parse ``path`` again whatever the parse cache holds (and keep the new parse there)."""
        self._parsed.discard([path])
        return self._parsed.read(root, path, profile, display, boundary, base)

    def _update_in_place(self, change: ChangeSet) -> bool:
        """Take in a change that only rewrote loaded SKILL.md files under the same names (a save,
        its undo) without walking the library; False when anything else changed (then rescan).
        A body-only edit is not parsed again (its frontmatter text is the same)."""
        name_of: Callable[[Path], str | None]
        if self._index is not None:
            name_of = self._index.name_of
        else:
            by_path = {e.path: k for k, e in self._entries.items() if isinstance(e, SkillMdEntry)}
            name_of = by_path.get
        fresh: dict[str, SkillMdEntry] = {}
        for fc in change.files:
            key = name_of(fc.path)
            if key is None or fc.before is None or fc.after is None:
                return False
            old = self._entries[key]
            assert isinstance(old, SkillMdEntry)
            result: SkillMdEntry | Problem | None = with_new_body(old, fc.after)
            if result is None:
                result = self._fresh_read(old.root, fc.path, self.profile,
                                          display_path(self.base, fc.path),
                                          tuple(r.path for r in self.roots), self.base)
            else:
                self._parsed.discard([fc.path])
            if not isinstance(result, SkillMdEntry) or fold(result.skill.name) != key:
                return False
            fresh[key] = replace(result, stats=old.stats) if old.stats else result
        self._entries.update(fresh)
        return True


def _temp_names(folder: Path) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries  # files: a folder of that name is a convert's staging
                    if fileio.is_temp_name(e.name) and not e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _folder_files(entry: SkillMdEntry) -> list[Path]:
    """SKILL.md, its resources and its sidecar: every file the skill's folder holds."""
    files = [entry.path, *(entry.folder / r for r in entry.resources)]
    sidecar = entry.folder / SIDECAR_NAME
    if sidecar.exists() or sidecar.is_symlink():
        files.append(sidecar)
    return files


def as_skill_md(library: Library) -> SkillMdLibrary:
    """``library`` as the SKILL.md library it is, for the dream engine's SKILL.md writer (its
    proposals written as SKILL.md folders: frontmatter kept, resources carried), asked first:
    the profile's ``storage.file_kinds``; raises LibraryError for a library of another format."""
    if not isinstance(library, SkillMdLibrary):
        raise LibraryError(f"{library.agent_dir}: not a SKILL.md library")
    return library
