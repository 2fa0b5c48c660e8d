"""A skill folder's files and digests: the Agent Skills ``.well-known`` skill digest (what the
machine view compares copies by), and the two hashes vercel-labs/skills' lock files record.

- :func:`folder_digest`: cloudflare/agent-skills-discovery-rfc ``README.md`` @ 366ad37 (index
  v0.2.0): each file's digest is ``sha256:`` + the hex SHA-256 of its raw bytes; the skill's is
  SHA-256 over the lines ``{path}\\0{hex}\\n`` of its files sorted by path (byte order), as
  ``sha256:{hex}``.
- :func:`vercel_hash`: vercel-labs/skills ``src/local-lock.ts`` @ 0363f53
  ``computeSkillFolderHash`` (``skills-lock.json``'s ``computedHash``): SHA-256 over each regular
  file's relative path then its bytes, no separators, files sorted with JavaScript's
  ``localeCompare`` (ICU root collation; here the Unicode Collation Algorithm's default table,
  pyuca, which orders ASCII paths the same way), ``.git`` and ``node_modules`` skipped.
- :func:`git_tree_sha`: git's tree object id of the folder (``~/.agents/.skill-lock.json``
  v3's ``skillFolderHash`` is the GitHub tree SHA of the source folder, src/skill-lock.ts @
  01f972c).

Folders are untrusted: the walk never follows a symbolic link, stops at
:data:`FOLDER_MAX_DEPTH`, and reads only regular files up to :data:`RESOURCE_MAX_BYTES`; what it
left out is named in :attr:`FolderFiles.skipped` (a digest over an incomplete folder is None).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rockskills_gui.core.model.size_limits import FOLDER_MAX_DEPTH, RESOURCE_MAX_BYTES, too_large
from rockskills_gui.core.storage import fileio, folder_walk, untrusted

__all__ = ["NOT_HASHED", "FolderFiles", "digest_lines", "file_digest", "folder_digest", "folder_files",
           "git_tree_sha", "vercel_hash"]

NOT_HASHED = frozenset({".git", "node_modules"})  # folders no digest here includes (nor vercel's)


@dataclass
class FolderFiles:
    """A skill folder's regular files (relative '/'-paths with their bytes) and what was left out."""

    folder: Path
    files: dict[str, bytes] = field(default_factory=dict)
    executable: set[str] = field(default_factory=set)
    skipped: list[str] = field(default_factory=list)  # "path: why"

    @property
    def complete(self) -> bool:
        return not self.skipped


def folder_files(folder: Path, max_bytes: int = RESOURCE_MAX_BYTES) -> FolderFiles:
    """Every regular file below ``folder`` (itself followed when it is a link: a linked skill
    is digested as what it leads to); links, FIFOs and oversized files are skipped and named."""
    found = FolderFiles(folder)
    top = Path(os.path.realpath(folder))
    if not top.is_dir():
        found.skipped.append(f".: not a folder ({untrusted.not_regular(folder) or 'missing'})")
        return found

    def deep(path: str) -> None:
        found.skipped.append(f"{Path(path).relative_to(top).as_posix()}: "
                             f"{folder_walk.too_deep_message(FOLDER_MAX_DEPTH)}")

    for here, dirs, names in folder_walk.walk(top, FOLDER_MAX_DEPTH, deep):
        dirs[:] = sorted(d for d in dirs if d not in NOT_HASHED)
        base = Path(here)
        for d in list(dirs):
            if (base / d).is_symlink():
                found.skipped.append(f"{(base / d).relative_to(top).as_posix()}: a symbolic link "
                                     f"(to {untrusted.link_target(base / d)}), not followed")
                dirs.remove(d)
        for name in sorted(names):
            path = base / name
            rel = path.relative_to(top).as_posix()
            why = untrusted.not_regular(path)
            if why is None and path.is_symlink():
                why = f"a symbolic link (to {untrusted.link_target(path)}), not followed"
            if why is not None:
                found.skipped.append(f"{rel}: {why}")
                continue
            try:
                found.files[rel] = fileio.read_regular(path, max_bytes)
                if os.stat(path).st_mode & stat.S_IXUSR:
                    found.executable.add(rel)
            except fileio.TooLarge as exc:
                found.skipped.append(f"{rel}: {too_large(exc.size, exc.limit, 'not read')}")
            except OSError as exc:
                found.skipped.append(f"{rel}: {untrusted.reason(path, exc)}")
    return found


def file_digest(data: bytes) -> str:
    """``sha256:`` + the hex SHA-256 of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_lines(files: Iterable[tuple[str, str]]) -> str:
    """The skill digest of (path, file digest) pairs (the RFC's manifest, byte-order sorted)."""
    manifest = b"".join(f"{path}\0{digest.removeprefix('sha256:')}\n".encode()
                        for path, digest in sorted(files, key=lambda f: f[0].encode("utf-8",
                                                                                 "surrogateescape")))
    return "sha256:" + hashlib.sha256(manifest).hexdigest()


def folder_digest(files: FolderFiles | dict[str, bytes]) -> str | None:
    """The ``.well-known`` skill digest of a folder's files (None: some file could not be read)."""
    if isinstance(files, FolderFiles):
        if not files.complete:
            return None
        files = files.files
    return digest_lines((path, file_digest(data)) for path, data in files.items())


def _locale_key() -> Callable[[str], tuple[int, ...]]:
    import pyuca

    key: Callable[[str], tuple[int, ...]] = pyuca.Collator().sort_key
    return key


def vercel_hash(files: FolderFiles) -> str | None:
    """vercel-labs/skills' ``computedHash`` of the folder (hex, no prefix; None: incomplete).

    Their walk keeps regular files only (a symbolic link is neither a file nor a folder to
    ``Dirent``), so the links this walk skipped do not make it incomplete."""
    if any(not why.split(": ", 1)[1].startswith("a symbolic link") for why in files.skipped):
        return None
    key = _locale_key()
    digest = hashlib.sha256()
    for path in sorted(files.files, key=key):
        digest.update(path.encode("utf-8"))
        digest.update(files.files[path])
    return digest.hexdigest()


def git_tree_sha(files: FolderFiles) -> str | None:
    """git's tree object id (SHA-1 hex) of the folder's files (None: incomplete)."""
    if not files.complete:
        return None
    tree: dict[str, object] = {}
    for path, data in files.files.items():
        node = tree
        *parents, name = path.split("/")
        for part in parents:
            child = node.setdefault(part, {})
            assert isinstance(child, dict)
            node = child
        node[name] = (data, path in files.executable)
    return _tree_id(tree)


def _object_id(kind: bytes, body: bytes) -> str:
    return hashlib.sha1(kind + b" " + str(len(body)).encode() + b"\0" + body,  # git's object id
                        usedforsecurity=False).hexdigest()


def _tree_id(tree: dict[str, object]) -> str:
    entries: list[tuple[bytes, bytes]] = []
    for name, value in tree.items():
        raw = name.encode("utf-8", "surrogateescape")
        if isinstance(value, dict):
            entries.append((raw + b"/", b"40000 " + raw + b"\0" + bytes.fromhex(_tree_id(value))))
        else:
            assert isinstance(value, tuple)
            data, executable = value
            mode = b"100755" if executable else b"100644"
            entries.append((raw, mode + b" " + raw + b"\0" + bytes.fromhex(_object_id(b"blob", data))))
    body = b"".join(entry for _key, entry in sorted(entries))
    return _object_id(b"tree", body)
