"""Names format detection looks for before it knows a library's format (it runs at every open;
issue 19): the folders never read, the SKILL.md tool's sidecar file, and where CortexPrism keeps
its skills and its ``memory.db``. No dataclasses, no readers."""

from __future__ import annotations

import os
from pathlib import Path

SIDECAR_NAME = ".skillgui.json"
# Where a SKILL.md root keeps its archived skills: Hermes' own convention (NousResearch/hermes-agent
# tools/skill_usage.py @ 03139a3, archive_skill: ``skills/.archive/<skill>/``); no agent scans it.
ARCHIVE_DIR = ".archive"
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".skillgui", ".hg", ".svn", ".rockskills",
                       ARCHIVE_DIR})
SEE_ALSO_KEY = "see-also"  # under ``metadata`` (the spec's extension point)


CORTEX_SKILLS_SUBDIR = ".cortex/skills"
CORTEX_DB_NAME = "memory.db"
# Where memory.db is looked for, relative to the project folder (assumed: the DB's location is
# configuration-dependent upstream; formats.md names only the file).
CORTEX_DB_CANDIDATES = (CORTEX_DB_NAME, f".cortex/{CORTEX_DB_NAME}", f".cortex/data/{CORTEX_DB_NAME}")


def find_memory_db(project: Path) -> Path | None:
    """The project's ``memory.db`` (see ``CORTEX_DB_CANDIDATES``), if any."""
    for candidate in CORTEX_DB_CANDIDATES:
        path = project / candidate
        if path.is_file():
            return path
    return None


SKILL_FILE_NAMES = ("SKILL.md", "skill.md")
SEARCH_DEPTH = 4  # how deep detection looks for SKILL.md files


def find_skill_md(folder: Path, depth: int = SEARCH_DEPTH) -> bool:
    """Whether a SKILL.md lies below ``folder`` (not in it), at most ``depth`` folders down."""
    if depth < 0:
        return False
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    if depth < SEARCH_DEPTH and any(e.name in SKILL_FILE_NAMES and e.is_file() for e in entries):
        return True
    return any(find_skill_md(Path(e.path), depth - 1) for e in entries
               if e.name not in SKIP_DIRS and e.is_dir(follow_symlinks=False))


def generic_root(path: Path) -> Path:
    """Where a folder of SKILL.md files keeps them: the one subfolder holding them all (``skills/``,
    ``scientific-skills/``) when there is one and it is not a skill itself, else the folder."""
    try:
        with os.scandir(path) as entries:
            children = [Path(e.path) for e in entries
                        if e.name not in SKIP_DIRS and e.is_dir(follow_symlinks=False)]
    except OSError:
        return path
    holding = [c for c in children if find_skill_md(c, SEARCH_DEPTH - 1)]
    if len(holding) == 1 and not any((holding[0] / n).is_file() for n in SKILL_FILE_NAMES):
        return holding[0]
    return path
