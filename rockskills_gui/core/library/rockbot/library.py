"""RockBotLibrary: a RockBot skill store opened leniently, changed only through undoable operations.

The operations (create, save, delete, rename, apply a change set, undo/redo) are the one library
contract, :class:`~rockskills_gui.core.library.library.Library`; this module is RockBot's
store behind it: one JSON file per skill, read by the scan of ``skills/``, a resource folder
carried along by delete and rename (RockBot (current)), and an index kept in RockBot's load order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rockskills_gui.core.library.library import (
    Clock,
    FileWrites,
    Library,
    NameTakenError,
    Reference,
    Resource,
    UnknownSkillError,
)
from rockskills_gui.core.library.listing import SKILL_FILE, AdEntry
from rockskills_gui.core.library.rockbot.scan import (
    Progress,
    ScanCancelled,
    SkillsRead,
    scan,
)
from rockskills_gui.core.library.rockbot.skill_file import (
    LoadedFile,
    _prefix,
    outside_link,
    read_skill_file,
)
from rockskills_gui.core.library.stores.scan_cache import ScanCache
from rockskills_gui.core.model.manifest import skill_resource_tag
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.rules import RESOURCE_SUFFIX, ROCKBOT_64E82CC, RockBotRules
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES, SKILL_FILE_MAX_BYTES
from rockskills_gui.core.model.skill import (
    Skill,
    skill_from_bytes,
    skill_to_bytes,
    with_null_properties,
    with_property,
)
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, folder_walk, links, untrusted
from rockskills_gui.core.storage.changes import (
    ChangeSet,
    DiskChanges,
    FileChange,
    History,
    LibraryError,
)
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.journal_paths import journal_found
from rockskills_gui.core.storage.layout import Layout

if TYPE_CHECKING:  # (the journal's code loads when a journal is found or written)
    from rockskills_gui.core.storage.journal import RecoveryReport

PATH_MAX = 4096  # bytes in a whole path (Linux); Windows is stricter unless long paths are on
__all__ = [
    "Clock",
    "DiskChanges",
    "NameTakenError",
    "Reference",
    "Resource",
    "RockBotLibrary",
    "ScanCancelled",
    "SkillEntry",
    "UnknownSkillError",
    "manifest_of",
]


@dataclass(frozen=True)
class SkillEntry:
    """A loaded skill with its file and the exact bytes last read or written there."""

    skill: Skill
    path: Path
    raw: bytes


def manifest_of(skill: Skill) -> list[dict[str, Any]] | None:
    """The skill's ``manifest`` entries (objects only), or None when it has none."""
    value = skill.extra_value("manifest")
    if not isinstance(value, list):
        return None
    return [item for item in value if isinstance(item, dict)]


def with_manifest(skill: Skill, manifest: list[Any]) -> Skill:
    """``skill`` with its ``manifest`` property set (in place, else added after the others)."""
    return with_property(skill, "manifest", manifest)


class RockBotLibrary(Library[SkillEntry, SkillEntry]):
    """A RockBot agent directory's skills, problems and change history."""

    format = "rockbot"  # the skill format (core.formats; SkillMdLibrary holds the others)
    _conflict_hint = " (a running agent may have written it)"
    layout: Layout

    @property
    def profile(self) -> AgentProfile:
        """RockBot 64e82cc or RockBot (current), as :attr:`rules` says."""
        return self.rules.profile

    def _as_editable(self, entry: SkillEntry) -> SkillEntry:
        """Every RockBot skill can be edited (problem files are not skills)."""
        return entry

    def __init__(self, layout: Layout, clock: Clock = Timestamp.now, progress: Progress | None = None,
                 cancel: Callable[[], bool] | None = None, on_skills: SkillsRead | None = None,
                 rules: RockBotRules = ROCKBOT_64E82CC, cache_dir: Path | None = None) -> None:
        self.layout = layout
        self.clock = clock
        self.rules = rules  # which RockBot the directory is for (core.model.rules)
        self.history = History()
        self.detection_note = ""  # what else format detection saw (set by open_library)
        self._entries: dict[str, SkillEntry] = {}
        self._by_path: dict[Path, str] = {}
        self._order: list[str] = []
        self.problems: list[Problem] = []
        self.recovery: RecoveryReport | None = None  # what open() finished of an interrupted change
        self.journal_problems: list[Problem] = []  # journal entries recovery refused to act on
        self._temps: list[Path] = []  # temp files the last scan saw
        # Parsed skill files kept between opens (core.library.stores.scan_cache), when asked for.
        self.scan_cache = (ScanCache(cache_dir, layout.skills_dir, _prefix(layout), rules)
                           if cache_dir is not None and ScanCache.enabled() else None)
        self.reload(progress, cancel, on_skills)

    # ---------------------------------------------------------------- opening and reading

    @classmethod
    def open(cls, path: Path | str, clock: Clock = Timestamp.now, progress: Progress | None = None,
             cancel: Callable[[], bool] | None = None, on_skills: SkillsRead | None = None,
             rules: RockBotRules = ROCKBOT_64E82CC, cache_dir: Path | None = None,
             link_targets: Iterable[Path] = ()) -> RockBotLibrary:
        """Open an agent directory or its ``skills/`` folder (raises NotALibraryError).

        A change interrupted by a crash (its journal is in ``.rockskills/journal/``) is completed
        first, and temp files a crashed writer left in ``skills/`` are removed; :attr:`recovery`
        says what was done. ``progress(done, total)``, ``cancel()`` and ``on_skills(skills)`` are
        passed to the scan (:class:`ScanCancelled` when cancelled). With ``cache_dir``, the
        results of reading the skill files are kept there and used again for files that provably
        did not change (:mod:`~rockskills_gui.core.library.stores.scan_cache`): the same skills and
        problems, without reading every file. ``link_targets``: folders outside the library that
        writes (and recovery) may reach through a symbolic link, e.g. ``skills/`` linked
        elsewhere, confirmed by the user (:mod:`~rockskills_gui.core.storage.links`).
        """
        layout = Layout.locate(Path(path))
        if link_targets:
            layout = replace(layout, trusted=tuple(links.real(Path(t)) for t in link_targets))
        recovery = None
        if journal_found(layout.agent_dir):  # (else the journal's code is not even loaded)
            from rockskills_gui.core.storage.journal import recover_if_needed

            recovery = recover_if_needed(layout)
        library = cls(layout, clock, progress, cancel, on_skills, rules, cache_dir)
        library.recovery = recovery
        library._remove_stale_temps(library._temps)
        if library.recovery is not None:
            from rockskills_gui.core.storage.journal import journal_problems

            library.journal_problems = journal_problems(library.recovery)
            library.problems.extend(library.journal_problems)
        return library

    def reload(self, progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
               on_skills: SkillsRead | None = None) -> None:
        """Read everything from disk again (the history is kept; it re-checks files on undo)."""
        temps: list[Path] = []
        with gc_paused():  # a full collection would walk every skill read so far, again and again
            loaded, problems = scan(self.layout, progress, cancel, temps, on_skills=on_skills,
                                    rules=self.rules, cache=self.scan_cache)
            self._temps = temps
            self._entries = {}
            self._by_path = {}
            self._order = [self._store(item) for item in loaded]
            self.problems = problems + self.journal_problems

    def refresh(self, paths: Iterable[Path]) -> DiskChanges:
        """Re-read skill files, or folders, that someone else (a running agent, an editor) changed.

        A file is compared byte for byte with what the library last read or wrote: changed
        bytes load again in the same load-order slot, a vanished file drops its skill, a new
        file is added at the end, and a file that no longer parses becomes a problem. A folder
        stands for the ``.json`` files that appeared in it or vanished from it (not sub-folders,
        and not files changed in place: name those), plus its problem files. Paths outside the
        skills folder are ignored. Nothing is written.
        """
        files: set[Path] = set()
        for raw_path in paths:
            path = Path(raw_path)
            if path != self.skills_dir and self.skills_dir not in path.parents:
                continue
            if path.is_dir():
                files.update(self._appeared_or_vanished(path))
                files.update(p for p in self._problem_paths() if p.parent == path)
            elif path.suffix == ".json" and self._may_hold_skill(path):
                files.add(path)
        updated: list[str] = []
        created: list[str] = []
        deleted: list[str] = []
        problems_before = list(self.problems)
        for path in sorted(files):
            key = self._by_path.get(path)
            try:
                raw = fileio.read_or_none(path, SKILL_FILE_MAX_BYTES)
            except OSError:  # a FIFO, a folder, too large, no permission: read_skill_file says why
                raw = b""
            if key is not None and raw == self._entries[key].raw:
                continue
            self.problems = [p for p in self.problems if self.agent_dir / p.path != path]
            if raw is None:
                if key is not None:
                    deleted.append(self._drop(key))
                continue
            result = read_skill_file(self.layout, path)
            if isinstance(result, LoadedFile) and key is not None \
                    and fold(result.skill.name) == key:
                self._store(result)  # same slot in the load order
                self._warn_if_linked_out(result)
                updated.append(result.skill.name)
                continue
            if key is not None:
                deleted.append(self._drop(key))
            if isinstance(result, Problem):
                self.problems.append(result)
            elif fold(result.skill.name) in self._entries:
                existing = self._entries[fold(result.skill.name)].skill.name
                self.problems.append(Problem(
                    path=self.layout.display_path(path), kind=ProblemKind.CASE_COLLISION,
                    name=result.skill.name,
                    message=f"names differ only by case ('{existing}', '{result.skill.name}'); "
                            "RockBot keeps one of them at random (the last file it enumerates)"))
            else:
                self._order.append(self._store(result))
                self._warn_if_linked_out(result)
                created.append(result.skill.name)
        return DiskChanges(tuple(updated), tuple(created), tuple(deleted),
                           problems_changed=self.problems != problems_before)

    def _warn_if_linked_out(self, loaded: LoadedFile) -> None:
        warning = outside_link(self.layout, loaded.path, loaded.skill.name)
        if warning is not None:
            self.problems.append(warning)

    def _may_hold_skill(self, path: Path) -> bool:
        """False for a file the profile's loader never reads as a skill (in a resource folder,
        or in the agent's own ``.embeddings/`` cache)."""
        try:
            parts = path.relative_to(self.skills_dir).parts
        except ValueError:
            return False
        return not (self.rules.in_ignored_dir(parts) or self.rules.in_resource_dir(parts))

    def _appeared_or_vanished(self, folder: Path) -> set[Path]:
        if not self._may_hold_skill(folder / "x.json"):
            return set()
        try:
            with os.scandir(folder) as entries:
                on_disk = {Path(e.path) for e in entries  # FIFOs too: they become problems
                           if e.name.endswith(".json") and not e.is_dir(follow_symlinks=False)}
        except OSError:
            on_disk = set()
        known = {p for p in self._by_path if p.parent == folder}
        return on_disk ^ known

    def _problem_paths(self) -> list[Path]:
        return [self.agent_dir / p.path for p in self.problems]

    def _drop(self, key: str) -> str:
        entry = self._entries.pop(key)
        del self._by_path[entry.path]
        self._order.remove(key)
        return entry.skill.name

    def skill_roots(self) -> list[Path]:
        """The folders whose trees hold the skills (what a watcher follows): ``skills/``."""
        return [self.skills_dir]

    def _link_places(self) -> list[Path]:
        """``skills/``: the folder a link may lead elsewhere (the skills in it go with it)."""
        return [self.skills_dir]

    # ---------------------------------------------------------------- resources (RockBot current)

    def resource_dir(self, name: str) -> Path:
        """The sibling resource folder of skill ``name``: ``skills/{name}.resources/``."""
        path = self.skill_path(name)
        return path.with_name(path.name[: -len(".json")] + RESOURCE_SUFFIX)

    def resource_files(self, name: str) -> list[Path]:
        """The regular files in skill ``name``'s resource folder (any depth, sorted; symbolic
        links are not followed); none under the 64e82cc profile, which has no resources."""
        if not self.rules.resources:
            return []
        folder = self.resource_dir(name)
        if folder.is_symlink() or not folder.is_dir():
            return []
        found: list[Path] = []
        for dirpath, dirnames, filenames in folder_walk.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
            for file in sorted(filenames):
                path = Path(dirpath) / file
                if not path.is_symlink() and path.is_file() and not fileio.is_temp_name(file):
                    found.append(path)
        return found

    def resources(self, name: str) -> list[Resource]:
        """Skill ``name``'s resources: the manifest's entries in order (``path`` None when the
        file is missing), then files in the folder the manifest does not name; [] under the
        64e82cc profile (no resources) or for no such skill. Costs one ``stat`` for a skill
        without a manifest and without a resource folder."""
        skill = self.get(name) if self.rules.resources else None
        if skill is None or (not manifest_of(skill) and not self.resource_dir(name).is_dir()):
            return []
        files = {p.relative_to(self.resource_dir(name)).as_posix(): p for p in self.resource_files(name)}
        out: list[Resource] = []
        for item in manifest_of(skill) or []:
            filename = item.get("filename")
            if isinstance(filename, str):
                out.append(Resource(filename, files.pop(filename, None), item))
        out.extend(Resource(rel, path) for rel, path in files.items())
        return out

    def resource_owner(self, path: Path) -> str | None:
        """The skill name whose resource folder holds ``path`` (as spelled in the path), or None."""
        try:
            parts = path.relative_to(self.skills_dir).parts
        except ValueError:
            return None
        for depth, part in enumerate(parts[:-1]):
            if part.endswith(RESOURCE_SUFFIX):
                return "/".join([*parts[:depth], part[: -len(RESOURCE_SUFFIX)]])
        return None

    def recall_cache(self) -> Path | None:
        """Beside the scan cache, when the library keeps one (core.recall.index_cache)."""
        return self.scan_cache.recall_path if self.scan_cache is not None else None

    def listing_entries(self) -> list[AdEntry]:
        """Each skill with its summary, at the place a SKILL.md export would put it
        (``skills/<name>/SKILL.md``: where an Agent Skills client would point)."""
        base = self.skills_dir
        return [AdEntry(s.name, s.summary, str(base.joinpath(*s.name.split("/"), SKILL_FILE)),
                        resource_tag=skill_resource_tag(s))
                for s in self.skills()]

    def resource_moves(self, entry: SkillEntry, new_name: str | None) -> list[FileChange]:
        """Whole-file changes carrying ``entry``'s resource folder to ``new_name``'s (None: delete)."""
        old_dir = entry.path.with_name(entry.path.name[: -len(".json")] + RESOURCE_SUFFIX)
        changes: list[FileChange] = []
        if not self.rules.resources or not old_dir.is_dir() or old_dir.is_symlink():
            return changes
        new_dir = None
        if new_name is not None:
            target = self.layout.path_for(new_name)
            new_dir = target.with_name(target.name[: -len(".json")] + RESOURCE_SUFFIX)
            if new_dir == old_dir:
                return changes
        for path in self.resource_files(entry.skill.name):
            try:
                data = fileio.read_regular(path, RESOURCE_MAX_BYTES)
            except OSError as exc:
                raise LibraryError(f"Cannot move the resources of '{entry.skill.name}': "
                                   f"{self.layout.display_path(path)} is "
                                   f"{untrusted.reason(path, exc)}. Nothing was changed.") from None
            changes.append(FileChange(path, data, None))
            if new_dir is not None:
                changes.append(FileChange(new_dir / path.relative_to(old_dir), None, data))
        return changes

    def _is_skill_change(self, fc: FileChange) -> bool:
        return fc.path.suffix == ".json" and self._may_hold_skill(fc.path)

    # ---------------------------------------------------------------- checks

    def _check_new_name(self, name: str, existing_ok: bool = False) -> str:
        """Validate with RockBot's rules and refuse names already taken by a skill or problem file."""
        error = self.name_rule_error(name)
        if error is not None:
            raise LibraryError(error)
        self._check_length(name)
        key = fold(name)
        if not existing_ok and key in self._entries:
            raise self._taken(self._entries[key].skill.name)
        path = self.layout.path_for(name)
        # (os.path's tests: a folder that cannot be listed says False, the write then says why)
        if key not in self._entries and (os.path.isdir(path) or os.path.islink(path)):
            what = "symbolic link" if os.path.islink(path) else "folder"
            raise NameTakenError(f"{self.layout.display_path(path)} is a {what} on disk, not a skill "
                                 "file; rename or remove it first.")
        shown = fold(self.layout.display_path(path))
        for problem in self.problems:
            if (problem.name is not None and fold(problem.name) == key) or fold(problem.path) == shown:
                raise NameTakenError(
                    f"'{name}' is also claimed by {problem.path}, which could not be loaded "
                    f"({problem.kind.value}); resolve that file first."
                )
        return name

    def _check_length(self, name: str) -> None:
        """Refuse names the file system cannot store (one segment + ``.json``, or the whole path)."""
        for segment in name.split("/"):
            size = len(segment.encode()) + len(".json")
            if size > fileio.NAME_MAX:
                raise LibraryError(
                    f"Skill name part '{segment[:40]}…' is too long: file names are limited to "
                    f"{fileio.NAME_MAX} bytes, and '{segment[:20]}….json' has {size}. "
                    "Use a shorter name or more '/' folders.")
        size = len(str(self.layout.path_for(name)).encode())
        if size >= PATH_MAX:
            raise LibraryError(f"Skill name is too long: its file path would have {size:,} bytes "
                               f"(the limit is {PATH_MAX - 1:,}). Use a shorter name.")

    # ---------------------------------------------------------------- the store's hooks

    def snapshot(self) -> RockBotLibrary:
        """The same agent folder read again for the same RockBot (no recovery, no writes)."""
        return RockBotLibrary(self.layout, rules=self.rules)

    def restore(self, skill: Skill) -> ChangeSet:
        """Write ``skill`` as a new file again, keeping createdAt, lastUsedAt and seeAlso.

        For a skill deleted on disk while it was being edited; updatedAt = now.
        """
        self._check_new_name(skill.name)
        skill = skill.model_copy(update={"updated_at": self.clock()})
        return self._write_new(f"Restore '{skill.name}'", skill)

    def written(self, skill: Skill) -> bytes:
        """The bytes the profile's agent writes for ``skill``: RockBot (current) writes
        ``"manifest": null`` and ``"surfaceBaseline": null`` on a skill without them
        (``storage.null_properties``); 64e82cc writes only what the record has."""
        return skill_to_bytes(with_null_properties(skill, self.profile.storage.null_properties))

    def _new_bytes(self, skill: Skill) -> bytes:
        return self.written(skill)

    def _saved_bytes(self, entry: SkillEntry, skill: Skill, touch: bool) -> bytes | None:
        """Unlike the agent's ``save_skill`` this keeps createdAt, lastUsedAt and seeAlso as given
        and sets updatedAt = now when ``touch``; None for an unchanged skill."""
        if skill == entry.skill:
            return None
        if touch:
            skill = skill.model_copy(update={"updated_at": self.clock()})
        return self.written(skill)

    def _relinked_bytes(self, entry: SkillEntry, see_also: tuple[str, ...] | None) -> bytes:
        return self.written(entry.skill.model_copy(update={"see_also": see_also}))

    def _delete_files(self, entry: SkillEntry) -> list[FileChange]:
        return self.delete_changes(entry)

    def delete_changes(self, entry: SkillEntry) -> list[FileChange]:
        """The skill's file and its resource folder's files (as FileSkillStore.DeleteAsync)."""
        return [FileChange(entry.path, entry.raw, None), *self.resource_moves(entry, None)]

    def _vacate(self, entry: SkillEntry, new: str, writes: FileWrites) -> None:
        """The old file goes; the resource folder moves to the new name's, never onto files."""
        writes.put(entry.path, entry.raw, None)
        for fc in self.resource_moves(entry, new):
            if fc.after is not None and fc.path not in writes and fc.path.exists():
                raise NameTakenError(f"{self.layout.display_path(fc.path)} already exists; "
                                     f"'{new}' cannot take over the resources of "
                                     f"'{entry.skill.name}'.")
            writes.put(fc.path, fc.before, fc.after)

    def _put_renamed(self, entry: SkillEntry, new: str, see_also: tuple[str, ...] | None,
                     now: Timestamp, writes: FileWrites) -> None:
        updated = entry.skill.model_copy(update={"name": new, "see_also": see_also,
                                                 "updated_at": now})
        writes.put(self.layout.path_for(new), None, self.written(updated))

    def journal_layout(self, paths: Iterable[Path]) -> Layout:
        """Every change is journaled in the agent folder and bounded by ``skills/``; one that
        also writes the skill archive (``.rockskills/archive/``, outside ``skills/``) is bounded
        by the agent folder, keeping ``skills/`` and the archive folder when it empties them."""
        folder = self.profile.storage.archive_dir
        archive = self.agent_dir / folder if folder else None
        if archive is not None and any(archive in Path(p).parents for p in paths):
            return replace(self.layout, skills_dir=self.agent_dir, floors=(self.skills_dir, archive))
        return self.layout

    def _take_in(self, change: ChangeSet) -> None:
        self._absorb(change)
        self._remove_emptied_resource_dirs(change)

    def _remove_emptied_resource_dirs(self, change: ChangeSet) -> None:
        """A resource folder a change emptied is removed (as FileSkillStore.DeleteAsync does);
        the folder comes back with its files on undo (the journal creates missing folders)."""
        if not self.rules.resources:
            return
        for fc in change.files:
            if fc.after is not None:
                continue
            folder = fc.path.parent
            while folder != self.skills_dir and self.skills_dir in folder.parents:
                if not any(part.endswith(RESOURCE_SUFFIX) for part in
                           folder.relative_to(self.skills_dir).parts):
                    break
                try:
                    folder.rmdir()  # only when empty
                except OSError:
                    break
                folder = folder.parent

    def _absorb(self, change: ChangeSet) -> None:
        """Update the in-memory index from the bytes just written.

        A skill rewritten in place keeps its load-order slot; a new name takes a slot freed in
        the same change (as RockBot's dictionary reuses a freed slot), else goes to the end.
        """
        freed: dict[str, str] = {}  # removed key -> path it lived at (as str)
        # resource files and the archive's copies are not skills
        change = ChangeSet(label=change.label,
                           files=tuple(fc for fc in change.files if self._is_skill_change(fc)))
        for fc in change.files:
            key = self._by_path.get(fc.path)
            if fc.before is not None and key is not None:
                freed[key] = str(fc.path)
                del self._entries[key]
                del self._by_path[fc.path]
        new_items = [LoadedFile(fc.path, skill_from_bytes(fc.after), fc.after)
                     for fc in change.files if fc.after is not None]
        by_old_path = {str(item.path): item for item in new_items}
        unplaced = [item for item in new_items if str(item.path) not in freed.values()]
        order: list[str] = []
        for key in self._order:
            if key not in freed:
                order.append(key)
                continue
            item = by_old_path.get(freed[key])
            if item is None and unplaced:
                item = unplaced.pop(0)
            if item is not None:
                order.append(self._store(item))
        for item in unplaced:
            order.append(self._store(item))
        self._order = order

    def _store(self, item: LoadedFile) -> str:
        key = fold(item.skill.name)
        self._entries[key] = SkillEntry(item.skill, item.path, item.raw)
        self._by_path[item.path] = key
        return key


def as_rockbot(library: Library) -> RockBotLibrary:
    """``library`` as the RockBot library it is, for the one engine that works on RockBot's store
    itself (the dream passes: RockBot's JSON files, resources, journal and ledger); raises
    LibraryError for a library of another format."""
    if not isinstance(library, RockBotLibrary):
        raise LibraryError(f"{library.agent_dir}: the dream passes work on RockBot libraries only")
    return library
