"""Where a library's crash journal lives, and whether opening it may have something to recover:
the cheap check every open makes before the journal's code is loaded (issue 19)."""

from __future__ import annotations

import stat
from collections.abc import Iterable
from pathlib import Path

JOURNAL_DIR = Path(".rockskills") / "journal"


def journal_root(agent_dir: Path) -> Path:
    return Path(agent_dir) / JOURNAL_DIR


def odd_part(base: Path, parts: Iterable[str]) -> Path | None:
    """The first of ``base/part…`` (each inside the one before) that is a symbolic link, not a
    folder or cannot be examined: the app's folders in a library are never used through it.
    None when each is a folder or the first missing one is reached."""
    current = Path(base)
    for part in parts:
        current = current / part
        try:
            mode = current.lstat().st_mode
        except FileNotFoundError:
            return None
        except OSError:
            return current
        if not stat.S_ISDIR(mode):
            return current
    return None


def root_link(agent_dir: Path) -> Path | None:
    """``.rockskills`` or ``.rockskills/journal`` when either is a symbolic link or not a folder
    (it could lead anywhere: the journal is never read or written through it)."""
    return odd_part(agent_dir, JOURNAL_DIR.parts)


def journal_found(agent_dir: Path) -> bool:
    """A journal folder (or something odd in its place) is there: recovery must look."""
    return root_link(agent_dir) is not None or journal_root(agent_dir).is_dir()
