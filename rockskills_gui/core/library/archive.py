"""Archive, restore and purge: the skill archive's operations (places and records:
:mod:`.archive_records`).

Each is one :class:`ChangeSet` applied through the library's one writer
(:meth:`~rockskills_gui.core.library.library.Library.apply_change_set`): conflict-checked,
journaled (a crash leaves the state before or after), one step of the undo history. Archiving a
skill copies every file it has (its skill file, its resources) into a new entry folder, byte for
byte, with a record, and removes the files; restoring puts the very bytes back (under another
name only when asked) and removes the entry. A dream apply adds :func:`archive_writes` to its own
change set, so a deleted, pruned or merged-away skill is archived in the same transaction.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from rockskills_gui.core.library.archive_records import (
    RECORD_SUFFIX,
    AnyLibrary,
    ArchivedFile,
    ArchivedSkill,
    ArchiveError,
    ArchiveInfo,
    ArchiveRecord,
    archived,
    entry_base,
    entry_files,
    find_archived,
    free_entry,
    home_of,
    is_skill_md,
    place_for,
)
from rockskills_gui.core.library.library import Entry
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary, as_skill_md
from rockskills_gui.core.library.skillmd.store import Root, SkillMdEntry, edited_bytes, read_skill_md
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.profile import Delete
from rockskills_gui.core.model.rockbot_files import RESOURCE_SUFFIX
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES
from rockskills_gui.core.model.skill import skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.changes import ChangeSet, FileChange, LibraryError
from rockskills_gui.core.storage.checksum import sha256

__all__ = ["ArchiveError", "ArchiveInfo", "RestoreNameTaken", "archive_skills", "archive_writes",
           "archives_on_delete", "purge_archive", "remove_skills", "restore_change", "restore_refusal",
           "restore_skill"]


class RestoreNameTaken(ArchiveError):
    """The archived skill's name (or the folder or file it would go to) is taken now."""


# ---------------------------------------------------------------- archiving


def archive_writes(library: AnyLibrary, entry: Entry, info: ArchiveInfo, now: Timestamp,
                   taken: set[str]) -> list[FileChange]:
    """The files that put ``entry``'s skill into the archive: each of its files copied into a new
    entry folder, byte for byte, and the record. Nothing is removed here (the caller removes the
    skill's files in the same change). ``taken``: entry names (folded) already used by this
    change, updated."""
    name = entry.skill.name
    files = library._delete_files(library._editable(name))
    place = place_for(library, entry.path)
    home = home_of(library, entry.path)
    entry_id = free_entry(place, entry_base(library, name, entry.path), now, taken)
    taken.add(fold(entry_id))
    writes: list[FileChange] = []
    items: list[ArchivedFile] = []
    for fc in files:
        if fc.before is None:
            continue
        rel = fc.path.relative_to(home).as_posix()
        writes.append(FileChange(place / entry_id / rel, None, fc.before))
        items.append(ArchivedFile(path=rel, sha256=sha256(fc.before) or "", size=len(fc.before)))
    origin = entry.path.parent if is_skill_md(library) else entry.path
    record = ArchiveRecord(name=name, entry=entry_id, archived_at=now.isoformat(), action=info.action,
                           reason=info.reason, plan=info.plan, proposal=info.proposal,
                           absorbed_into=info.absorbed_into,
                           origin=library.layout.display_path(origin), files=items)
    writes.append(FileChange(place / (entry_id + RECORD_SUFFIX), None, record.to_bytes()))
    return writes


def archive_skills(library: AnyLibrary, names: Iterable[str],
                   info: ArchiveInfo | None = None) -> ChangeSet:
    """Move skills into the archive (their files removed from where the agent looks), as one
    undoable, journaled change."""
    info = info or ArchiveInfo()
    now = library.clock()
    entries: list[Entry] = []
    for name in names:
        entry = library._editable(name)
        if entry not in entries:
            entries.append(entry)
    if not entries:
        return ChangeSet(label="Archive")
    taken: set[str] = set()
    writes: list[FileChange] = []
    removals: list[FileChange] = []
    for entry in entries:
        writes += archive_writes(library, entry, info, now, taken)
        removals += library._delete_files(library._editable(entry.skill.name))
    shown = ", ".join(f"'{e.skill.name}'" for e in entries)
    change = ChangeSet(label=f"Archive {shown}", files=(*writes, *removals),
                       deleted=tuple(e.skill.name for e in entries))
    return library.apply_change_set(change)


def archives_on_delete(library: AnyLibrary) -> bool:
    """Whether removing a skill from ``library`` archives it (its profile's ``curation.delete``)."""
    return library.profile.curation.delete is Delete.ARCHIVE


def remove_skills(library: AnyLibrary, names: Iterable[str], reason: str = "") -> ChangeSet:
    """Remove skills as the user asked (the Library tree's Delete): into the archive where the
    profile archives (every profile does: issue 32), else their files removed; one undoable step."""
    names = list(names)
    if not archives_on_delete(library):
        return library.delete_many(names)
    return archive_skills(library, names, ArchiveInfo("delete", reason or "deleted by the user"))


# ---------------------------------------------------------------- restoring


Wanted = str | ArchivedSkill  # an archived skill, or its entry or name


def restore_skill(library: AnyLibrary, wanted: Wanted, as_name: str | None = None) -> ChangeSet:
    """Put an archived skill back, byte for byte (under ``as_name`` when given: then only its
    name changes), and remove it from the archive, as one undoable, journaled change.

    Refused (:class:`RestoreNameTaken`, nothing written) while a skill of that name exists, or
    its folder or file is taken on disk; :class:`ArchiveError` for an entry that holds anything
    but regular files."""
    return library.apply_change_set(restore_change(library, wanted, as_name))


def restore_refusal(library: AnyLibrary, wanted: Wanted, as_name: str | None = None) -> str | None:
    """Why :func:`restore_skill` would refuse (one sentence), or None; nothing is written."""
    try:
        restore_change(library, wanted, as_name)
    except LibraryError as exc:
        return str(exc)
    return None


def restore_change(library: AnyLibrary, wanted: Wanted, as_name: str | None = None) -> ChangeSet:
    """The change :func:`restore_skill` writes (checked, not written)."""
    skill = wanted if isinstance(wanted, ArchivedSkill) else find_archived(library, wanted)
    if is_skill_md(library):
        name, creations = _skill_md_targets(as_skill_md(library), skill, as_name)
    else:
        name, creations = _rockbot_targets(library, skill, as_name)
    _check_free(library, skill, name, as_name, creations)
    removals = [FileChange(path, fc_data, None) for path, fc_data in _entry_data(skill)]
    record = skill.record_path
    if os.path.lexists(record):
        removals.append(FileChange(record, _read(record), None))
    label = (f"Restore '{skill.name}' as '{name}'" if fold(name) != fold(skill.name) or name != skill.name
             else f"Restore '{skill.name}'")
    return ChangeSet(label=label, files=(*creations, *removals), created=(name,))


def _read(path: Path) -> bytes:
    try:
        return fileio.read_regular(path, RESOURCE_MAX_BYTES)
    except OSError as exc:
        raise ArchiveError(f"{path} cannot be read ({untrusted.reason(path, exc)}); nothing was "
                           "changed") from None


def _entry_data(skill: ArchivedSkill) -> list[tuple[Path, bytes]]:
    return [(path, _read(path)) for _rel, path in entry_files(skill.folder)]


def _rockbot_targets(library: AnyLibrary, skill: ArchivedSkill,
                     as_name: str | None) -> tuple[str, list[FileChange]]:
    """Where a RockBot entry's files go: the skill file to ``path_for(name)``, its resource
    folder beside it; anything else in the entry refuses the restore."""
    old = skill.record.name if skill.record is not None else skill.name
    name = as_name or old
    layout = library.layout
    old_file = layout.path_for(old).relative_to(layout.skills_dir).as_posix()
    old_res = old_file[: -len(".json")] + RESOURCE_SUFFIX + "/"
    target = layout.path_for(name)
    target_res = target.with_name(target.name[: -len(".json")] + RESOURCE_SUFFIX)
    creations: list[FileChange] = []
    found_file = False
    for rel, path in entry_files(skill.folder):
        data = _read(path)
        if rel == old_file:
            found_file = True
            if name != old:
                try:
                    data = skill_to_bytes(skill_from_bytes(data).model_copy(update={"name": name}))
                except ValueError as exc:
                    raise ArchiveError(f"the archived {rel} is not a skill file RockBot can load "
                                       f"({display_name(str(exc), 200)}); nothing was changed") from None
            creations.append(FileChange(target, None, data))
        elif rel.startswith(old_res):
            creations.append(FileChange(target_res / rel[len(old_res):], None, data))
        else:
            raise ArchiveError(f"the archive entry '{skill.entry}' holds {display_name(rel)}, which is "
                               f"not the file or a resource of '{old}'; nothing was changed")
    if not found_file:
        raise ArchiveError(f"the archive entry '{skill.entry}' has no skill file {old_file}; "
                           "nothing was changed")
    return name, creations


def _skill_md_targets(library: SkillMdLibrary, skill: ArchivedSkill,
                      as_name: str | None) -> tuple[str, list[FileChange]]:
    """Where a SKILL.md entry goes: its folder as it was (or ``<root>/<as_name>/``), every file
    at its place in it; only the SKILL.md's name changes when renamed."""
    root_path = skill.place.parent
    root = next((r for r in library.roots if r.path == root_path), Root(root_path))
    skill_file = skill.folder / "SKILL.md"
    if not skill_file.is_file():
        names = [n for n in library.profile.storage.file_names if (skill.folder / n).is_file()]
        if not names:
            raise ArchiveError(f"the archive entry '{skill.entry}' has no SKILL.md; nothing was changed")
        skill_file = skill.folder / names[0]
    # (read as a skill at the top of its root: the archive folder is no category of its name)
    parsed = read_skill_md(Root(skill.place, root.scope, root.namespace), skill_file, library.profile,
                           library.layout.display_path(skill_file))
    current = parsed.skill.name if isinstance(parsed, SkillMdEntry) else skill.name
    old = skill.record.name if skill.record is not None else current
    name = as_name or old
    if as_name:
        folder = root_path / as_name
    else:
        folder = _origin_folder(library, skill) or root_path / skill.entry
    creations: list[FileChange] = []
    for rel, path in entry_files(skill.folder):
        data = _read(path)
        if path == skill_file and name != current:
            if not isinstance(parsed, SkillMdEntry):
                raise ArchiveError(f"the archived {skill_file.name} of '{skill.entry}' cannot be read "
                                   "as a skill, so it cannot be renamed; restore it under its own name")
            data = edited_bytes(parsed, parsed.skill.model_copy(update={"name": name}), library.profile)
        creations.append(FileChange(folder / rel, None, data))
    return name, creations


def _origin_folder(library: SkillMdLibrary, skill: ArchivedSkill) -> Path | None:
    """The folder the skill was archived from, when it lies in one of the library's roots."""
    if skill.record is None:
        return None
    origin = skill.record.origin
    if not origin or "\0" in origin or "\\" in origin or origin.startswith("/"):
        return None
    folder = Path(os.path.normpath(library.agent_dir / origin))
    for root in library.roots:
        if root.path in folder.parents and ".." not in Path(origin).parts:
            return folder
    return None


def _check_free(library: AnyLibrary, skill: ArchivedSkill, name: str, as_name: str | None,
                creations: list[FileChange]) -> None:
    """Refuse a restore onto a name or path that is taken now, saying how to restore anyway."""
    how = (f"Restore it under another name: rockskills restore LIB {skill.entry} --as NEW-NAME "
           "(in the window: Restore As…)")
    if fold(name) in {fold(n) for n in library.names()}:
        existing = next(n for n in library.names() if fold(n) == fold(name))
        raise RestoreNameTaken(f"Cannot restore '{skill.name}'" + (f" as '{name}'" if as_name else "")
                               + f": the library has a skill named '{existing}' now. {how}.")
    try:
        library._check_new_name(name)
    except LibraryError as exc:
        raise RestoreNameTaken(f"Cannot restore '{skill.name}' as '{name}': {exc} {how}.") from None
    for fc in creations:
        if os.path.lexists(fc.path):
            raise RestoreNameTaken(f"Cannot restore '{skill.name}': {library.layout.display_path(fc.path)} "
                                   f"already exists. {how}.")


# ---------------------------------------------------------------- purging


def purge_archive(library: AnyLibrary, older_than_days: int, now: Timestamp | None = None) -> ChangeSet:
    """Remove from the archive every skill archived more than ``older_than_days`` days ago (by
    its record; entries without one are kept), as one undoable, journaled change."""
    now = now or library.clock()
    limit = now.add_days(-older_than_days).utc_ticks
    skills, _problems = archived(library)
    removals: list[FileChange] = []
    gone: list[str] = []
    for skill in skills:
        when = skill.archived_at
        if skill.record is None or when is None or when.utc_ticks >= limit:
            continue
        try:
            data = _entry_data(skill)
        except ArchiveError:
            continue  # a link or FIFO in it: left for the user to look at
        removals += [FileChange(path, raw, None) for path, raw in data]
        removals.append(FileChange(skill.record_path, _read(skill.record_path), None))
        gone.append(skill.name)
    if not removals:
        return ChangeSet(label="Purge the archive")
    count = len(gone)
    change = ChangeSet(label=f"Purge {count} archived skill{'s' if count != 1 else ''} older than "
                             f"{older_than_days} days", files=tuple(removals))
    return library.apply_change_set(change)
