"""What a library's skill files looked like: a plan is applied only to the library it was made for."""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.rockbot.library import as_rockbot
from rockskills_gui.core.library.rockbot.scan import odd_skill_files
from rockskills_gui.core.library.skillmd.store import TOO_DEEP, walk_skill_folders
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.profile import FileKind
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES, SKILL_FILE_MAX_BYTES
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.checksum import sha256
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.storage.progress import CHECKING, Progress, counted


class Fingerprint(BaseModel):
    """sha256 of every ``*.json`` file under ``skills/`` (problem files too), by path relative to
    the agent directory, and one digest over all of them. A ``*.json`` entry that is not a
    regular file (a FIFO, a dangling link) is recorded by what it is (``not-a-file: ...``): it
    is never opened, and one appearing or vanishing changes the fingerprint."""

    model_config = ConfigDict(frozen=True)

    files: dict[str, str]
    digest: str


NOT_A_FILE = "not-a-file: "
TOO_LARGE = "too-large: "  # a skill file over SKILL_FILE_MAX_BYTES: its size and modification time


def _skill_files(skills_dir: Path) -> tuple[list[Path], list[Path]]:
    """(regular ``*.json`` files, other ``*.json`` entries that are not folders), unsorted."""
    files, odd = odd_skill_files(skills_dir)
    return files, [path for path, problem in odd if problem.kind is not ProblemKind.NOT_A_FILE]


class Reads:
    """The files one operation (a dream apply) read, so that each is read and hashed once.

    :meth:`read` keeps a file's bytes (the files a change set writes: few); :meth:`digest` keeps
    only the sha256 of a file it had to read for it (every skill file: many). A digest is always
    of the very bytes :meth:`read` returns for that path, so a file changed on disk between two
    looks is never half-noticed: the operation goes on with what it read, and the write's checked
    swap refuses the file that changed since."""

    def __init__(self) -> None:
        self._data: dict[Path, bytes | None] = {}
        self._digests: dict[Path, str | None] = {}

    def read(self, path: Path) -> bytes | None:
        """``path``'s bytes (None: absent), read once; OSError (NotRegularFile...) as
        :func:`fileio.read_or_none` raises it."""
        if path not in self._data:
            self._data[path] = fileio.read_or_none(path, RESOURCE_MAX_BYTES)
            self._digests.pop(path, None)  # a digest taken before is of an earlier read
        return self._data[path]

    def digest(self, path: Path) -> str | None:
        """sha256 of ``path``'s bytes (None: absent): of the bytes :meth:`read` kept, else read
        and hashed now without keeping the bytes."""
        if path not in self._digests:
            data = self._data[path] if path in self._data else fileio.read_or_none(path, RESOURCE_MAX_BYTES)
            self._digests[path] = sha256(data)
        return self._digests[path]


def take(layout: Layout, progress: Progress | None = None, reads: Reads | None = None) -> Fingerprint:
    """Fingerprint the skill files on disk now (never blocks on a FIFO). ``progress`` hears each
    file checked and may cancel; ``reads`` shares what this operation read (see :class:`Reads`)."""
    files: dict[str, str] = {}
    regular, odd = _skill_files(layout.skills_dir)
    for path in counted(regular, len(regular), CHECKING, progress):
        try:
            digest = sha256(fileio.read_regular(path, SKILL_FILE_MAX_BYTES)) if reads is None \
                else reads.digest(path)
        except OSError as exc:
            if isinstance(exc, fileio.NotRegularFile):  # swapped for a FIFO meanwhile
                files[layout.display_path(path)] = NOT_A_FILE + exc.kind
            elif isinstance(exc, fileio.TooLarge):  # never loaded: recorded by its size and time
                with contextlib.suppress(OSError):
                    info = path.stat()
                    files[layout.display_path(path)] = f"{TOO_LARGE}{info.st_size} {info.st_mtime_ns}"
            continue
        if digest is None:  # gone since the folder was listed
            continue
        files[layout.display_path(path)] = digest
    for path in odd:
        files[layout.display_path(path)] = NOT_A_FILE + (untrusted.not_regular(path) or "?")
    return _sealed(files)


def of_library(library: Library[Any, Any], progress: Progress | None = None,
               reads: Reads | None = None) -> Fingerprint:
    """:func:`take` for any library: RockBot's ``skills/**/*.json``, or every skill file of a
    SKILL.md library's roots (each skill folder's SKILL.md, as the scan finds them)."""
    if FileKind.SKILL_MD not in library.profile.storage.file_kinds:
        return take(as_rockbot(library).layout, progress, reads)
    found: list[Path] = []
    for root in library.skill_roots():
        for _folder, path, _names in walk_skill_folders(root, (), library.profile):
            if path is not None and path is not TOO_DEEP:
                found.append(path)
    files: dict[str, str] = {}
    for path in counted(found, len(found), CHECKING, progress):
        shown = library.layout.display_path(path)
        try:
            digest = sha256(fileio.read_regular(path, SKILL_FILE_MAX_BYTES)) if reads is None \
                else reads.digest(path)
        except OSError as exc:
            files[shown] = NOT_A_FILE + untrusted.reason(path, exc)
            continue
        if digest is not None:
            files[shown] = digest
    return _sealed(files)


def _sealed(files: dict[str, str]) -> Fingerprint:
    whole = hashlib.sha256()
    for name, digest in sorted(files.items()):
        whole.update(f"{name}\0{digest}\n".encode("utf-8", "surrogatepass"))
    return Fingerprint(files=files, digest=whole.hexdigest())


@dataclass(frozen=True)
class FingerprintDiff:
    """Skill files added, removed or changed since a fingerprint was taken."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def lines(self) -> list[str]:
        """``changed skills/a.json`` ... one line per file."""
        return ([f"added   {p}" for p in self.added] + [f"removed {p}" for p in self.removed]
                + [f"changed {p}" for p in self.changed])


def compare(old: Fingerprint, new: Fingerprint) -> FingerprintDiff:
    if old.digest == new.digest:
        return FingerprintDiff()
    return FingerprintDiff(
        added=tuple(sorted(set(new.files) - set(old.files))),
        removed=tuple(sorted(set(old.files) - set(new.files))),
        changed=tuple(sorted(p for p in set(old.files) & set(new.files) if old.files[p] != new.files[p])),
    )
