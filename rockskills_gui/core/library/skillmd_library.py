"""SkillMdLibrary: a SKILL.md tree (Agent Skills, PicoBot, carpenter, CortexPrism) with Library's surface.

The same operations as :class:`~rockskills_gui.core.library.rockbot_library.Library` -- create, save, update,
delete, rename, undo/redo -- build whole-file :class:`ChangeSet` s, check that no touched file
changed on disk since it was read, and write atomically. A save rewrites only what changed
(:func:`~rockskills_gui.core.library.stores.skillmd.edited_bytes`), so an unchanged skill is never
written and a skill saved unchanged stays byte-identical. A skill is a folder, so delete and
rename carry the skill's resource files along.

CortexPrism libraries also show the ``procedural_memory`` rows of ``memory.db`` (read-only):
rows matching a SKILL.md by name attach their scores to it, the others are read-only skills.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.stores import cortex
from rockskills_gui.core.library.stores.parse_cache import ParseCache
from rockskills_gui.core.library.stores.skillmd import (
    SIDECAR_NAME,
    Profile,
    Root,
    SkillMdEntry,
    display_path,
    edited_bytes,
    new_skill_bytes,
    scan,
)
from rockskills_gui.core.library.summary_rule import SummaryRule, skill_md_rule
from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import change_writer, fileio, journal, untrusted
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
from rockskills_gui.core.storage.journal import RecoveryReport, journal_problems, recover_if_needed
from rockskills_gui.core.storage.layout import Layout

Clock = Callable[[], Timestamp]


class NameTakenError(LibraryError):
    """The name (case-insensitively) already belongs to a skill or to a problem file."""


class UnknownSkillError(LibraryError):
    """No skill of that name (case-insensitive)."""


class ReadOnlySkillError(LibraryError):
    """The skill lives in a store this app only reads (CortexPrism's memory.db)."""


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
class Reference:
    """``referrer``'s see-also names ``target`` at position ``index``."""

    referrer: str
    index: int
    target: str


@dataclass(frozen=True)
class SkillMdLayout:
    """Where things live: the opened folder (``agent_dir``) and the primary skills root."""

    agent_dir: Path
    skills_dir: Path

    def display_path(self, path: Path) -> str:
        return display_path(self.agent_dir, path)

    def path_for(self, name: str) -> Path:
        return self.skills_dir / name / "SKILL.md"


@dataclass
class _State:
    entries: dict[str, SkillMdEntry | DbEntry] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class SkillMdLibrary(UndoRedo):
    """A folder of SKILL.md skills under one profile (see module doc)."""

    has_usage_log = False  # no RockBot usage events: usage views explain instead of showing zeros
    has_timestamps = False  # created/updated are the file's modification time

    def summary_rule(self) -> SummaryRule:
        """What this format asks of a description (the profile's limit, e.g. 1024 characters)."""
        return skill_md_rule(self.profile.label, self.profile.description_limit)

    def is_read_only(self, name: str) -> bool:
        """True for a CortexPrism memory.db row with no SKILL.md (this app only reads the db)."""
        entry = self._state.entries.get(fold(name))
        return isinstance(entry, DbEntry)

    def __init__(self, base: Path, roots: list[Root], profile: Profile, format_id: str,
                 memory_db: Path | None = None, clock: Clock = Timestamp.now) -> None:
        if not roots:
            raise ValueError("at least one skills root is needed")
        self.base = base
        self.roots = roots
        self.profile = profile
        self.format = format_id
        self.memory_db = memory_db
        self.clock = clock
        self.history = History()
        self.detection_note = ""  # what else format detection saw (set by open_library)
        self.layout = SkillMdLayout(base, roots[0].path)
        self._state = _State()
        self._parsed = ParseCache()
        self.recovery: RecoveryReport | None = self._recover()  # what open finished of a crash
        self.reload()
        self._remove_stale_temps()

    # ---------------------------------------------------------------- reading

    def reload(self) -> None:
        """Read every skill again (the history is kept; undo re-checks files)."""
        self._parsed.clear()
        self._rescan()

    def _rescan(self, changed: Iterable[Path] = ()) -> None:
        """Walk the roots again; a SKILL.md is parsed again only when it, its folder, or a path in
        ``changed`` inside (or above) its folder changed since it was last parsed."""
        self._parsed.forget(changed)
        loaded, problems = scan(self.roots, self.profile, self.base, self._parsed.read)
        state = _State(problems=[*problems, *journal_problems(self.recovery)])
        for entry in loaded:
            key = fold(entry.skill.name)
            state.entries[key] = entry
            state.order.append(key)
        if self.memory_db is not None:
            rows, db_problems = cortex.read_memory_db(self.memory_db,
                                                      display_path(self.base, self.memory_db))
            state.problems.extend(db_problems)
            for row in rows:
                key = fold(row.name)
                existing = state.entries.get(key)
                if isinstance(existing, SkillMdEntry):
                    stats = row.stats()
                    stats["in_db"] = True
                    state.entries[key] = _with_stats(existing, stats)
                elif existing is None:
                    state.entries[key] = DbEntry(row.skill, self.memory_db, row)
                    state.order.append(key)
        self._state = state

    def refresh(self, paths: Iterable[Path] = ()) -> DiskChanges:
        """Re-read from disk and report what changed (any path under a root triggers a rescan)."""
        before = {k: e.raw for k, e in self._state.entries.items()}
        names_before = {k: e.skill.name for k, e in self._state.entries.items()}
        problems_before = list(self._state.problems)
        paths = list(paths)
        if paths:
            self._rescan(paths)
        else:
            self.reload()
        after = self._state.entries
        updated = tuple(after[k].skill.name for k in after if k in before and after[k].raw != before[k])
        created = tuple(after[k].skill.name for k in after if k not in before)
        deleted = tuple(names_before[k] for k in before if k not in after)
        return DiskChanges(updated, created, deleted, self._state.problems != problems_before)

    def refresh_skill(self, name: str) -> DiskChanges:
        return self.refresh([self.entry(name).path])

    @property
    def problems(self) -> list[Problem]:
        """Files that could not be loaded, with reasons."""
        return self._state.problems

    @property
    def warnings(self) -> list[Problem]:
        """Load-time warnings of loaded skills (name from folder, repaired YAML, ...)."""
        return [w for key in self._state.order for w in self._state.entries[key].warnings]

    @property
    def agent_dir(self) -> Path:
        return self.base

    @property
    def skills_dir(self) -> Path:
        return self.roots[0].path

    def __len__(self) -> int:
        return len(self._state.entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and fold(name) in self._state.entries

    def skills(self) -> list[Skill]:
        """Skills in load order (breadth-first, sorted folders: the recall candidate order)."""
        return [self._state.entries[k].skill for k in self._state.order]

    def listed(self) -> list[Skill]:
        return sorted(self.skills(), key=lambda s: sort_key(s.name))

    def names(self) -> list[str]:
        return [s.name for s in self.skills()]

    def get(self, name: str) -> Skill | None:
        entry = self._state.entries.get(fold(name))
        return entry.skill if entry else None

    def entry(self, name: str) -> SkillMdEntry | DbEntry:
        entry = self._state.entries.get(fold(name))
        if entry is None:
            raise UnknownSkillError(f"Skill '{name}' not found.")
        return entry

    def skill_path(self, name: str) -> Path:
        """The file skill ``name`` lives in: its own SKILL.md (under whichever root and folder it
        was found), or ``memory.db`` for a CortexPrism row; for a name with no skill (e.g.
        deleted on disk), the file creating or restoring it would write."""
        entry = self._state.entries.get(fold(name))
        return entry.path if entry is not None else self.layout.path_for(name)

    def skill_roots(self) -> list[Path]:
        """The folders whose trees hold the skills (what a watcher follows): every root."""
        return [root.path for root in self.roots]

    def entries(self) -> list[SkillMdEntry | DbEntry]:
        return [self._state.entries[k] for k in self._state.order]

    def references_to(self, names: Iterable[str]) -> list[Reference]:
        targets = {fold(n) for n in names}
        return [Reference(s.name, i, t) for s in self.skills()
                for i, t in enumerate(s.see_also or ()) if fold(t) in targets]

    # ---------------------------------------------------------------- checks

    def _check_new_name(self, name: str, existing_ok: bool = False) -> str:
        if not name or name != name.strip() or "/" in name or "\\" in name or name.startswith(".") \
                or any(ord(c) < 0x20 for c in name):
            raise LibraryError(f"'{name}' cannot be a skill folder name (no '/', no leading '.', "
                               "no surrounding spaces).")
        if not existing_ok and fold(name) in self._state.entries:
            raise NameTakenError(f"A skill named '{self.get(name).name}' already exists.")  # type: ignore[union-attr]
        folder = self.skills_dir / name
        if not existing_ok and folder.exists():
            raise NameTakenError(f"{self.layout.display_path(folder)} already exists.")
        return name

    def _editable(self, name: str) -> SkillMdEntry:
        entry = self.entry(name)
        if isinstance(entry, DbEntry):
            raise ReadOnlySkillError(f"'{entry.skill.name}' lives in CortexPrism's memory.db, "
                                     "which this app only reads.")
        return entry

    # ---------------------------------------------------------------- operations

    def create(self, name: str, summary: str = "", content: str = "",
               see_also: Iterable[str] | None = None) -> ChangeSet:
        """Create ``<root>/<name>/SKILL.md`` written the profile's way."""
        self._check_new_name(name)
        now = self.clock()
        skill = Skill(name=name, summary=summary, content=content, created_at=now, updated_at=now,
                      see_also=tuple(see_also) if see_also is not None else None)
        path = self.layout.path_for(name)
        change = ChangeSet(label=f"Create '{name}'",
                           files=(FileChange(path, None, new_skill_bytes(skill, self.profile)),),
                           created=(name,))
        return self._apply(change, record=True)

    def restore(self, skill: Skill) -> ChangeSet:
        return self.create(skill.name, skill.summary or "", skill.content or "", skill.see_also)

    def save(self, skill: Skill, touch: bool = True) -> ChangeSet:
        """Write only what changed in name-matched ``skill`` (timestamps are not stored in SKILL.md)."""
        del touch  # SKILL.md has no updatedAt; the file's mtime moves by itself
        entry = self._editable(skill.name)
        if skill.name != entry.skill.name:
            raise LibraryError(f"Use rename to change '{entry.skill.name}' to '{skill.name}'.")
        after = edited_bytes(entry, skill, self.profile)
        if after == entry.raw:
            return ChangeSet(label=f"Save '{skill.name}'")
        change = ChangeSet(label=f"Save '{skill.name}'",
                           files=(FileChange(entry.path, entry.raw, after),), updated=(skill.name,))
        return self._apply(change, record=True)

    def update(self, name: str, **fields: object) -> ChangeSet:
        current = self._editable(name).skill
        if fields.get("see_also") is not None:
            fields["see_also"] = tuple(fields["see_also"])  # type: ignore[arg-type]
        return self.save(current.model_copy(update=fields))

    def delete(self, name: str) -> ChangeSet:
        return self.delete_many([name])

    def delete_many(self, names: Iterable[str]) -> ChangeSet:
        """Delete skills: each skill's whole folder (SKILL.md, resources, sidecar), undoable."""
        entries: list[SkillMdEntry] = []
        for name in names:
            entry = self._editable(name)
            if entry not in entries:
                entries.append(entry)
        files: list[FileChange] = []
        for entry in entries:
            for path, data in self._folder_data(entry, "delete"):
                files.append(FileChange(path, data, None))
        shown = ", ".join(f"'{e.skill.name}'" for e in entries)
        change = ChangeSet(label=f"Delete {shown}", files=tuple(files),
                           deleted=tuple(e.skill.name for e in entries))
        return self._apply(change, record=True)

    def rename(self, old: str, new: str) -> ChangeSet:
        return self.rename_many({old: new})

    def rename_many(self, mapping: Mapping[str, str]) -> ChangeSet:
        """Rename skills: the frontmatter name, the folder when it was named after the skill,
        and every see-also reference to them."""
        moves = {fold(o): (self._editable(o), n) for o, n in mapping.items()}
        moves = {k: v for k, v in moves.items() if v[0].skill.name != v[1]}
        if not moves:
            return ChangeSet(label="Rename")
        final = {k: self._state.entries[k].skill.name for k in self._state.order if k not in moves}
        for _entry, new in moves.values():
            self._check_new_name(new, existing_ok=True)
            if fold(new) in final:
                raise NameTakenError(f"A skill named '{final[fold(new)]}' already exists.")
            final[fold(new)] = new
        rename_of = {k: new for k, (_, new) in moves.items()}
        writes: dict[Path, FileChange] = {}

        def put(path: Path, before: bytes | None, after: bytes | None) -> None:
            prior = writes.get(path)
            writes[path] = FileChange(path, prior.before if prior else before, after)

        rewritten: list[str] = []
        for key in self._state.order:
            entry = self._state.entries[key]
            if not isinstance(entry, SkillMdEntry):
                continue
            skill = entry.skill
            see_also = skill.see_also
            if see_also is not None and any(fold(t) in rename_of for t in see_also):
                see_also = tuple(rename_of.get(fold(t), t) for t in see_also)
            if key in moves:
                new = moves[key][1]
                after = edited_bytes(entry, skill.model_copy(update={"name": new, "see_also": see_also}),
                                     self.profile)
                folder = entry.folder
                if folder.name == skill.name and entry.root.path == folder.parent:
                    target = folder.parent / new
                    if target.exists() and fold(target.name) != fold(folder.name):
                        raise NameTakenError(f"{self.layout.display_path(target)} already exists.")
                    for path, data in self._folder_data(entry, "rename"):
                        put(path, data, None)
                        moved = target / path.relative_to(folder)
                        existing = writes.get(moved)
                        put(moved, existing.before if existing else None,
                            after if path == entry.path else data)
                else:
                    put(entry.path, entry.raw, after)
            elif see_also != skill.see_also:
                put(entry.path, entry.raw,
                    edited_bytes(entry, skill.model_copy(update={"see_also": see_also}), self.profile))
                rewritten.append(skill.name)
        for path, write in list(writes.items()):
            if write.before == write.after:
                del writes[path]
        pairs = tuple((e.skill.name, n) for e, n in moves.values())
        label = rename_label(pairs)
        change = ChangeSet(label=label, files=tuple(writes.values()), renamed=pairs,
                           links_rewritten=tuple(rewritten))
        return self._apply(change, record=True)

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
                    found.append((path, fileio.read_regular(path)))
                    continue
                except OSError as exc:
                    why = untrusted.reason(path, exc)
            raise LibraryError(f"Cannot {verb} '{entry.skill.name}': {self.layout.display_path(path)} "
                               f"is {why}; this app only moves and deletes regular files, so move "
                               "or remove it by hand first. Nothing was changed.")
        return found

    # ---------------------------------------------------------------- the one writer

    def check_conflicts(self, change: ChangeSet) -> list[Path]:
        return change_writer.check_conflicts(change)

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
        return Layout(home, folder)

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

    def _remove_stale_temps(self) -> None:
        temps = [Path(e.folder) / name for e in self.entries() if isinstance(e, SkillMdEntry)
                 for name in _temp_names(e.folder)]
        removed = fileio.remove_stale_temps(temps)
        if removed:
            self.recovery = self.recovery or RecoveryReport()
            self.recovery.removed_temps.extend(self.layout.display_path(p) for p in removed)

    def _apply(self, change: ChangeSet, record: bool,
               writer: Callable[[ChangeSet], object] | None = None) -> ChangeSet:
        if change.empty:
            return change
        layout = self.journal_layout(fc.path for fc in change.files)
        written = change_writer.write_change(layout, change, self._conflict, writer)
        if not self._update_in_place(change):
            self._rescan(fc.path for fc in change.files)
        if isinstance(written, ChangeSet):
            change = written
        if record:
            self.history.push(change)
        return change

    def _update_in_place(self, change: ChangeSet) -> bool:
        """Take in a change that only rewrote loaded SKILL.md files under the same names (a save,
        its undo) without walking the library; False when anything else changed (then rescan)."""
        by_path = {e.path: k for k, e in self._state.entries.items() if isinstance(e, SkillMdEntry)}
        fresh: dict[str, SkillMdEntry] = {}
        for fc in change.files:
            key = by_path.get(fc.path)
            if key is None or fc.before is None or fc.after is None:
                return False
            old = self._state.entries[key]
            assert isinstance(old, SkillMdEntry)
            result = self._parsed.read(old.root, fc.path, self.profile, display_path(self.base, fc.path),
                                       tuple(r.path for r in self.roots), self.base)
            if not isinstance(result, SkillMdEntry) or fold(result.skill.name) != key:
                return False
            fresh[key] = _with_stats(result, old.stats) if old.stats else result
        self._state.entries.update(fresh)
        return True

    def _journaled(self, change: ChangeSet, kind: str, undoes: str | None) -> str:
        layout = self.journal_layout(fc.path for fc in change.files)
        tx = journal.run(layout, change.files, kind, change.label, undoes=undoes)
        return tx.id if undoes is None else undoes

    def _conflict(self, paths: list[Path]) -> ConflictError:
        shown = ", ".join(self.layout.display_path(p) for p in paths)
        return ConflictError(paths, f"{shown} changed on disk since it was read; nothing was "
                                    "written. Reload the library to see the new version.")


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


def _with_stats(entry: SkillMdEntry, stats: dict[str, Any]) -> SkillMdEntry:
    from dataclasses import replace

    return replace(entry, stats=stats)
