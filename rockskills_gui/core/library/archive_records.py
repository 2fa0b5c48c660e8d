"""The skill archive: where a library keeps the skills it archived, and what each one's record says.

An archived skill is a folder of its files, byte for byte, beside a record
``<entry>.archived.json`` (when, which plan or action, what absorbed it, each file's sha256).
Where the folder lives is the agent profile's ``storage.archive_dir``, chosen by what the agent
scans so that it never sees an archived skill:

- RockBot loads every ``*.json`` under ``skills/`` recursively (rockbot-skills.md §4), so its
  archive is ``<agent>/.rockskills/archive/<entry>/`` (outside ``skills/``), the files kept at
  their paths below ``skills/`` (``mcp/email.json``, ``mcp/email.resources/…``);
- SKILL.md agents look for ``<root>/<name>/SKILL.md`` (Claude Code, Gemini CLI, Copilot: one
  level; Codex: any depth but never into a folder whose name starts with '.'; Hermes: any depth
  but never into ``.archive``), so the archive is ``<root>/.archive/<entry>/``, Hermes' own
  convention (NousResearch/hermes-agent ``tools/skill_usage.py`` @ 03139a3, ``archive_skill``):
  the entry folder is the skill's folder as it was. A folder there without a record (archived by
  Hermes or by hand) is listed too.

Everything here reads; :mod:`.archive` writes. Records and folders are untrusted: a record that
cannot be read is reported, paths that leave the entry are refused, and nothing is followed
through a symbolic link.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.size_limits import FOLDER_MAX_DEPTH, RESOURCE_MAX_BYTES
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.storage import fileio, folder_walk, untrusted
from rockskills_gui.core.storage.changes import LibraryError
from rockskills_gui.core.storage.checksum import sha256

RECORD_SUFFIX = ".archived.json"
RECORD_FORMAT: Final = "rockskills-archive"
RECORD_MAX_BYTES = 1_000_000
MAX_ENTRIES = 100_000  # entries listed per archive folder (a hostile folder may hold millions)
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")

AnyLibrary = Library[Any, Any]


class ArchiveError(LibraryError):
    """An archive operation that cannot be done; one readable sentence, nothing written."""


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="ignore")


class ArchivedFile(_Model):
    """One file of an archived skill: its path inside the entry folder, sha256 and size."""

    path: str
    sha256: str
    size: int


class ArchiveRecord(_Model):
    """What the archive knows of one archived skill (``<entry>.archived.json``)."""

    format: Literal["rockskills-archive"] = RECORD_FORMAT
    version: int = 1
    name: str
    entry: str
    archived_at: str = Field(alias="archivedAt")
    action: str  # delete, prune, merge (merged away), archive (by hand)
    reason: str = ""
    plan: str | None = None  # the digest of the plan whose apply archived it
    proposal: str | None = None  # the proposal id in that plan
    absorbed_into: str | None = Field(default=None, alias="absorbedInto")
    origin: str  # where it lived, relative to the library folder ("skills/mcp/email.json", "pdf")
    files: list[ArchivedFile] = Field(default_factory=list)

    def to_bytes(self) -> bytes:
        return (self.model_dump_json(by_alias=True, indent=2) + "\n").encode("utf-8")


@dataclass(frozen=True)
class ArchiveInfo:
    """Why a skill is archived: the action, a sentence, the plan and proposal, what absorbed it."""

    action: str = "archive"
    reason: str = ""
    plan: str | None = None
    proposal: str | None = None
    absorbed_into: str | None = None


@dataclass(frozen=True)
class ArchivedSkill:
    """One archived skill as listed: its name, entry folder, record (None: archived elsewhere)
    and, when it cannot be restored as it was archived, why (``damage``)."""

    name: str
    entry: str
    place: Path  # the archive folder holding it
    record: ArchiveRecord | None
    damage: str | None = None

    @property
    def folder(self) -> Path:
        return self.place / self.entry

    @property
    def record_path(self) -> Path:
        return self.place / (self.entry + RECORD_SUFFIX)

    @property
    def archived_at(self) -> Timestamp | None:
        if self.record is None:
            return None
        try:
            return Timestamp.parse(self.record.archived_at)
        except (TimestampError, ValueError):
            return None

    def why(self) -> str:
        """"merged away by c2 of plan 1a2b…, absorbed into 'writing/proofread'" and the like."""
        record = self.record
        if record is None:
            return "archived outside this app (no record)"
        parts = [{"delete": "deleted", "prune": "pruned", "merge": "merged away",
                  "archive": "archived by hand", "restore": "set aside"}.get(record.action, record.action)]
        if record.proposal:
            made = f" of the dream plan of {record.plan[:16].replace('T', ' ')}" if record.plan else ""
            parts.append(f"by {record.proposal}{made}")
        if record.absorbed_into:
            parts.append(f"absorbed into '{display_name(record.absorbed_into)}'")
        return " ".join(parts)


# ---------------------------------------------------------------- where


def is_skill_md(library: AnyLibrary) -> bool:
    """Whether each skill is a folder of its own (SKILL.md), archived as that folder."""
    return library.layout.skill_folders


def archive_dir(library: AnyLibrary) -> str:
    """Where the library's agent has its archive (the profile's ``storage.archive_dir``), or
    ArchiveError when its profile names none."""
    folder = library.profile.storage.archive_dir
    if not folder:
        raise ArchiveError(f"{library.profile.label} keeps no skill archive")
    return folder


def archive_places(library: AnyLibrary) -> list[Path]:
    """The archive folders of ``library``: the profile's ``storage.archive_dir`` inside each
    skill root where each skill is a folder (SKILL.md), else inside the agent folder (RockBot:
    outside ``skills/``)."""
    folder = library.profile.storage.archive_dir
    if not folder:
        return []
    if is_skill_md(library):
        return list(dict.fromkeys(root / folder for root in library.skill_roots()))
    return [library.agent_dir / folder]


def place_for(library: AnyLibrary, skill_file: Path) -> Path:
    """The archive folder a skill whose file is ``skill_file`` goes to."""
    folder = archive_dir(library)
    if is_skill_md(library):
        roots = library.skill_roots()
        for root in roots:
            if root in skill_file.parents:
                return root / folder
        return roots[0] / folder
    return library.agent_dir / folder


def home_of(library: AnyLibrary, skill_file: Path) -> Path:
    """What an archived skill's files are kept relative to: ``skills/`` (RockBot: the names'
    folders are kept) or the skill's own folder (SKILL.md: the entry is that folder)."""
    return skill_file.parent if is_skill_md(library) else library.skills_dir


def entry_base(library: AnyLibrary, name: str, skill_file: Path) -> str:
    """The entry folder's name before any suffix: the skill folder's name (SKILL.md, as Hermes
    names it) or the name with '/' as '.' (RockBot: '.' is in no RockBot name)."""
    raw = skill_file.parent.name if is_skill_md(library) else name.replace("/", ".")
    safe = _SAFE.sub("-", raw).strip(".-") or "skill"
    return safe[:120]


def free_entry(place: Path, base: str, now: Timestamp, taken: set[str]) -> str:
    """A free entry name in ``place``: ``base``, else ``base-YYYYmmddHHMMSS`` (Hermes' suffix
    for a second archive of one name), else that with ``-2``, ``-3``, …"""
    stamp = now.to_datetime().strftime("%Y%m%d%H%M%S")
    candidates = [base, f"{base}-{stamp}"]
    number = 2
    while True:
        for candidate in candidates:
            if fold(candidate) in taken:
                continue
            if os.path.lexists(place / candidate) or os.path.lexists(place / (candidate + RECORD_SUFFIX)):
                continue
            return candidate
        candidates = [f"{base}-{stamp}-{number}"]
        number += 1


# ---------------------------------------------------------------- reading


def read_record(path: Path) -> ArchiveRecord:
    """The record at ``path`` (OSError when it cannot be read, ValueError when it is not one)."""
    data = fileio.read_regular(path, RECORD_MAX_BYTES)
    try:
        return ArchiveRecord.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the record"
        raise ValueError(f"{where}: {display_name(str(first['msg']), 200)}") from None


def entry_files(folder: Path) -> list[tuple[str, Path]]:
    """Every file of an entry folder as ``(path inside it, '/'-separated; its path)``, sorted.

    Raises :class:`ArchiveError` for anything that is not a plain regular file or folder (a
    symbolic link, a FIFO, a device), or a folder nested too deep: such an entry is never copied.
    """
    if folder.is_symlink() or not folder.is_dir():
        raise ArchiveError(f"{folder} is not a folder")
    found: list[tuple[str, Path]] = []
    deep: list[str] = []
    for here, dirs, files in folder_walk.walk(folder, FOLDER_MAX_DEPTH, deep.append):
        for name in [*dirs, *files]:
            path = Path(here) / name
            if path.is_symlink():
                raise ArchiveError(f"{path} is a symbolic link (to {untrusted.link_target(path)}); "
                                   "the archive only restores regular files")
        for name in sorted(files):
            path = Path(here) / name
            why = untrusted.not_regular(path)
            if why is not None:
                raise ArchiveError(f"{path} is {why}; the archive only restores regular files")
            found.append((path.relative_to(folder).as_posix(), path))
    if deep:
        raise ArchiveError(f"{deep[0]}: folders nested more than {FOLDER_MAX_DEPTH} levels deep")
    return sorted(found)


def damage_of(skill: ArchivedSkill) -> str | None:
    """Why ``skill``'s folder no longer holds what its record says (None: intact, or no record)."""
    try:
        files = dict(entry_files(skill.folder))
    except ArchiveError as exc:
        return str(exc)
    record = skill.record
    if record is None:
        return None
    wanted = {f.path: f for f in record.files}
    missing = sorted(set(wanted) - set(files))
    if missing:
        return f"missing since it was archived: {', '.join(display_name(m) for m in missing[:5])}"
    for rel, item in wanted.items():
        try:
            data = fileio.read_regular(files[rel], RESOURCE_MAX_BYTES)
        except OSError as exc:
            return f"{rel} cannot be read ({untrusted.reason(files[rel], exc)})"
        if sha256(data) != item.sha256:
            return f"{display_name(rel)} changed since it was archived"
    extra = sorted(set(files) - set(wanted))
    if extra:
        return f"files added since it was archived: {', '.join(display_name(e) for e in extra[:5])}"
    return None


def archived(library: AnyLibrary, check: bool = False) -> tuple[list[ArchivedSkill], list[str]]:
    """Every archived skill of ``library`` (newest first, then by name) and a line per record or
    folder that could not be read. ``check``: also compare each entry's files with its record
    (``damage``), which reads them all."""
    found: list[ArchivedSkill] = []
    problems: list[str] = []
    for place in archive_places(library):
        if place.is_symlink() or not place.is_dir():
            if place.is_symlink():
                problems.append(f"{place}: a symbolic link; the archive is not read through it")
            continue
        try:
            with os.scandir(place) as scan:
                names = sorted(e.name for _, e in zip(range(MAX_ENTRIES * 2), scan, strict=False))
        except OSError as exc:
            problems.append(f"{place}: cannot be listed ({exc.strerror or exc})")
            continue
        seen: set[str] = set()
        for name in names:
            if not name.endswith(RECORD_SUFFIX):
                continue
            entry = name[: -len(RECORD_SUFFIX)]
            try:
                record = read_record(place / name)
            except (OSError, ValueError) as exc:
                problems.append(f"{place / name}: not a readable archive record ({exc})")
                continue
            if record.entry != entry or not (place / entry).is_dir():
                problems.append(f"{place / name}: its entry folder {entry!r} is missing")
                continue
            seen.add(entry)
            found.append(ArchivedSkill(record.name, entry, place, record))
        if is_skill_md(library):
            for name in names:  # folders archived without a record (Hermes, by hand)
                if name in seen or name.endswith(RECORD_SUFFIX) or name.startswith("."):
                    continue
                folder = place / name
                if folder.is_symlink() or not (folder / "SKILL.md").is_file():
                    continue
                found.append(ArchivedSkill(name, name, place, None))
    if check:
        found = [ArchivedSkill(s.name, s.entry, s.place, s.record, damage_of(s)) for s in found]
    found.sort(key=lambda s: (-(s.archived_at.utc_ticks if s.archived_at else 0), fold(s.name)))
    return found, problems


def find_archived(library: AnyLibrary, wanted: str) -> ArchivedSkill:
    """The archived skill whose entry is ``wanted``, else the newest one named ``wanted``
    (case-insensitive); ArchiveError naming what there is when none matches."""
    skills, _problems = archived(library)
    for skill in skills:
        if skill.entry == wanted:
            return skill
    named = [s for s in skills if fold(s.name) == fold(wanted)]
    if named:
        return named[0]
    known = ", ".join(sorted({s.name for s in skills})[:10]) or "nothing"
    raise ArchiveError(f"'{display_name(wanted)}' is not in the archive (it holds: {known})")
