"""Parsed SKILL.md files kept between scans, so a save re-parses one skill instead of all of them.

A YAML frontmatter parse costs about a millisecond: re-parsing 5,000 skills after every save took
seconds. An entry is reused only while the SKILL.md and its folder have the same identity, size,
modification and change times (nanoseconds; ``st_ctime`` cannot be set back by anyone), and is
dropped when a path inside or above its folder is reported changed (our own writes, the watcher).
A resource added deep inside a skill folder changes neither, so such paths must be reported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from rockskills_gui.core.library.skillmd.store import AgentProfile, Root, SkillMdEntry, read_skill_md
from rockskills_gui.core.model.problems import Problem

Signature = tuple[int, ...]


def _signature(path: Path) -> Signature | None:
    """What must be unchanged for a parse of ``path`` to stand (None: do not cache)."""
    try:
        own = os.lstat(path)
        target = os.stat(path) if path.is_symlink() else own
        folder = os.stat(path.parent)
    except (OSError, ValueError):
        return None
    return (own.st_ino, own.st_mode, target.st_ino, target.st_size, target.st_mtime_ns,
            target.st_ctime_ns, folder.st_ino, folder.st_mtime_ns, folder.st_ctime_ns)


def _below_any(folder: str, changed: set[str]) -> bool:
    """Whether one of ``changed`` is a folder above ``folder`` (it was moved or removed)."""
    parent = os.path.dirname(folder)
    while parent != folder:
        if parent in changed:
            return True
        folder, parent = parent, os.path.dirname(parent)
    return False


class ParseCache:
    """SKILL.md path -> (signature, what :func:`read_skill_md` made of it)."""

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[Signature, SkillMdEntry | Problem]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def forget(self, changed: Iterable[Path]) -> None:
        """Drop every entry whose skill folder holds, or lies below, one of ``changed``."""
        if not self._entries:
            return
        changed_set = {os.fspath(p) for p in changed}
        if not changed_set:
            return
        holders = set()  # every changed path and its folders up to the root
        for text in changed_set:
            while text not in holders:
                holders.add(text)
                parent = os.path.dirname(text)
                if parent == text:
                    break
                text = parent
        for path in list(self._entries):
            folder = os.fspath(path.parent)
            if folder in holders or _below_any(folder, changed_set):
                del self._entries[path]

    def discard(self, paths: Iterable[Path]) -> None:
        """Drop the entries of exactly these skill files (a change known to touch only them)."""
        for path in paths:
            self._entries.pop(path, None)

    def read(self, root: Root, path: Path, profile: AgentProfile, display: str,
             boundary: tuple[Path, ...], base: Path) -> SkillMdEntry | Problem:
        """:func:`read_skill_md`, or its earlier result while the file is unchanged."""
        signature = _signature(path)
        hit = self._entries.get(path)
        if hit is not None and signature is not None and hit[0] == signature:
            return hit[1]
        result = read_skill_md(root, path, profile, display, boundary, base)
        if signature is not None and signature == _signature(path):  # not changed while parsing
            self._entries[path] = (signature, result)
        else:
            self._entries.pop(path, None)
        return result
