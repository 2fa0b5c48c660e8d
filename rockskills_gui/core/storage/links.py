"""The one rule for symbolic links on a write's way, for writing and recovery alike.

Reads follow links (installers share skills between agents by linking ``skills/`` or a skill's
folder). A write may pass a link -- ``skills/`` itself, a skill's folder, any folder -- when the
folder it leads to is inside the library (its real folder) or inside a *trusted* folder: a link
target the user confirmed for this library (the window's prompt, the CLI's
``--allow-link-target``), or one of the library's own skill roots (the agent roots a SKILL.md
library declares may link to each other). A write never goes *to* a link (it would replace the
link, not what it points to). Recovery finishes a journal entry only under the same rule, so what
was written through a confirmed link is finished through it, and nothing else ever is.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def real(path: Path) -> Path:
    """``path`` with every symbolic link resolved (as far as it exists)."""
    return Path(os.path.realpath(path))


def _within(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def blocking_link(path: Path, home: Path, trusted: Iterable[Path] = (),
                  final: bool = True) -> tuple[Path, str] | None:
    """The first symbolic link on the way from ``home`` (the library's folder) to ``path`` that a
    write may not pass, with where it leads; None when a write may go there.

    ``trusted``: folders (real paths) a link may lead into besides ``home``. ``final``: ``path`` is
    the file written, so a link there is refused whatever it points to; with False it is a folder
    on the way, checked like the others. Paths not below ``home`` are not looked at (the callers
    bound them)."""
    try:
        rel = path.relative_to(home)
    except ValueError:
        return None
    allowed: list[Path] | None = None
    current = home
    parts = rel.parts
    for index, part in enumerate(parts):
        current = current / part
        if not current.is_symlink():
            continue
        try:
            shown = os.readlink(current)
        except OSError:
            shown = "?"
        if final and index == len(parts) - 1:
            return current, shown
        if allowed is None:
            allowed = [real(home), *(real(Path(t)) for t in trusted)]
        if not _within(real(current), allowed):
            return current, shown
    return None


def link_target(link: Path) -> Path:
    """Where ``link`` leads, resolved (what a user confirms)."""
    return real(link)
