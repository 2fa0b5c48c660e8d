"""Where a library's crash journal lives, and whether opening it may have something to recover:
the cheap check every open makes before the journal's code is loaded (issue 19)."""

from __future__ import annotations

import stat
from pathlib import Path

JOURNAL_DIR = Path(".rockskills") / "journal"


def journal_root(agent_dir: Path) -> Path:
    return Path(agent_dir) / JOURNAL_DIR


def root_link(agent_dir: Path) -> Path | None:
    """``.rockskills`` or ``.rockskills/journal`` when either is a symbolic link or not a folder
    (it could lead anywhere: the journal is never read or written through it)."""
    current = Path(agent_dir)
    for part in JOURNAL_DIR.parts:
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


def journal_found(agent_dir: Path) -> bool:
    """A journal folder (or something odd in its place) is there: recovery must look."""
    return root_link(agent_dir) is not None or journal_root(agent_dir).is_dir()
