"""vercel-labs/skills' lock files: what ``npx skills`` installed, from where, and whether the
installed folder changed since.

- Project ``skills-lock.json`` (src/local-lock.ts @ 0363f53, ``CURRENT_VERSION = 1``):
  ``{version, skills: {name: {source, ref?, sourceType, computedHash}}}``; ``computedHash`` is
  :func:`~.digest.vercel_hash` of the skill folder, so "changed since install" is recomputed here.
- Global ``~/.agents/.skill-lock.json`` (or ``$XDG_STATE_HOME/skills/.skill-lock.json``;
  src/skill-lock.ts @ 01f972c, ``CURRENT_VERSION = 3``): ``{version, skills: {name: {source,
  sourceType, sourceUrl, skillPath?, skillFolderHash, installedAt, updatedAt, pluginName?,
  ref?}}}``; ``skillFolderHash`` is the GitHub tree SHA of the *source* folder. The installer
  leaves README.md, metadata.json and ``_``-files out of what it copies, so the installed folder
  can only be compared when its own git tree id happens to equal it: then "unchanged";
  otherwise this cannot be checked offline, and the view says so.

A version this app does not know, or a file that is not valid JSON, is reported and read as empty
(as the installer itself does); nothing here writes a lock file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rockskills_gui.core.machine.digest import folder_files, git_tree_sha, vercel_hash
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio, untrusted

__all__ = ["GLOBAL_LOCKS", "PROJECT_LOCK", "LockEntry", "LockFile", "check_entry", "read_lock"]

PROJECT_LOCK = "skills-lock.json"
GLOBAL_LOCKS = (".agents/.skill-lock.json", ".local/state/skills/.skill-lock.json")  # below the home
VERSIONS = {PROJECT_LOCK: 1, ".skill-lock.json": 3}

UNCHANGED = "unchanged since install"
CHANGED = "changed since install"
MISSING = "not installed (no folder)"
OFFLINE = ("cannot be checked offline: the lock records the GitHub tree SHA of the source folder, "
           "not a hash of the installed files")


@dataclass(frozen=True)
class LockEntry:
    """One installed skill as a lock file records it."""

    name: str
    source: str
    source_type: str
    source_url: str = ""
    ref: str = ""
    skill_path: str = ""
    computed_hash: str = ""  # v1: vercel_hash of the folder at install
    folder_hash: str = ""  # v3: the GitHub tree SHA of the source folder
    installed_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True)
class LockFile:
    """A lock file's entries (empty when it could not be read: ``problem`` says why)."""

    path: Path
    version: int | None
    entries: tuple[LockEntry, ...]
    problem: str = ""

    @property
    def is_global(self) -> bool:
        return self.path.name != PROJECT_LOCK


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def read_lock(path: Path) -> LockFile | None:
    """The lock file at ``path`` (None when there is none)."""
    if not (path.exists() or path.is_symlink()):
        return None
    expected = VERSIONS.get(path.name, 1)
    try:
        data = json.loads(fileio.read_regular(path, DOCUMENT_MAX_BYTES).decode("utf-8-sig"))
    except OSError as exc:
        return LockFile(path, None, (), f"cannot be read ({untrusted.reason(path, exc)})")
    except (ValueError, RecursionError) as exc:
        return LockFile(path, None, (), f"not valid JSON ({str(exc).splitlines()[0]}); read as empty")
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        return LockFile(path, None, (), "no 'skills' object; read as empty")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < expected:
        return LockFile(path, version if isinstance(version, int) else None, (),
                        f"version {version!r} is older than {expected}: the installer reads it as empty")
    entries: list[LockEntry] = []
    for name, raw in sorted(data["skills"].items()):
        if not isinstance(raw, dict):
            continue
        entries.append(LockEntry(
            name=str(name), source=_text(raw.get("source")), source_type=_text(raw.get("sourceType")),
            source_url=_text(raw.get("sourceUrl")), ref=_text(raw.get("ref")),
            skill_path=_text(raw.get("skillPath")), computed_hash=_text(raw.get("computedHash")),
            folder_hash=_text(raw.get("skillFolderHash")), installed_at=_text(raw.get("installedAt")),
            updated_at=_text(raw.get("updatedAt"))))
    note = f"version {version} is newer than {expected}; read as {expected}" if version > expected else ""
    return LockFile(path, version, tuple(entries), note)


def check_entry(entry: LockEntry, folder: Path | None) -> str:
    """Whether the installed ``folder`` changed since the install ``entry`` records."""
    if folder is None or not folder.is_dir():
        return MISSING
    files = folder_files(folder)
    if entry.computed_hash:
        now = vercel_hash(files)
        if now is None:
            return f"cannot be checked: {files.skipped[0]}"
        return UNCHANGED if now == entry.computed_hash.lower() else CHANGED
    if entry.folder_hash and git_tree_sha(files) == entry.folder_hash.lower():
        return UNCHANGED + " (its git tree id equals the lock's)"
    return OFFLINE
