"""Names format detection looks for before it knows a library's format (it runs at every open;
issue 19): the folders never read, the SKILL.md tool's sidecar file, and where CortexPrism keeps
its skills and its ``memory.db``. No dataclasses, no readers."""

from __future__ import annotations

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
