"""How much of a file the app reads, and how deep it goes: one place for every per-file limit.

Anything in a library or a home folder may be hostile (issue 35): a 4 GB sparse skill file, a
20 MB frontmatter value, JSON nested 100,000 deep, a number of 5,000 digits, 1,000 nested
folders. Each limit below turns such a file into a problem for that file ("larger than 16 MB:
not loaded") while the rest of the library opens, so every command stays within seconds. Real
skills are a few kilobytes; each limit is far above what an agent could use.
"""

from __future__ import annotations

KB = 1024
MB = 1024 * KB

# ---------------------------------------------------------------- skill files
SKILL_FILE_MAX_BYTES = 16 * MB  # a RockBot skill ``.json`` or a ``SKILL.md``: larger is not loaded
FRONTMATTER_MAX_BYTES = 64 * KB  # the YAML block at the top of a SKILL.md (PyYAML: ~1 s per 64 KB)
LINT_TEXT_MAX_BYTES = 1 * MB  # a skill's text or a resource that lint reads: larger is not linted
RESOURCE_MAX_BYTES = 64 * MB  # a resource a rename, move or convert carries as bytes

# ---------------------------------------------------------------- logs (one JSON value per line)
LOG_LINE_MAX_BYTES = 1 * MB  # a usage, feedback or conversation log line: longer is skipped
LOG_FILE_MAX_BYTES = 256 * MB  # a log file (1,000,000 usage events are ~130 MB): larger is not read

# ---------------------------------------------------------------- other files we read
DOCUMENT_MAX_BYTES = 64 * MB  # a plan, query set, snapshot, manifest, settings file, directive or
#                               queries file (anything else read whole)
CACHE_FILE_MAX_BYTES = 2048 * MB  # the app's own caches (scan, recall index, start-up code)

# ---------------------------------------------------------------- nesting
JSON_MAX_DEPTH = 64  # arrays and objects inside each other (System.Text.Json's default MaxDepth)
FOLDER_MAX_DEPTH = 64  # folders inside each other below a library root: deeper ones are not read


def shown_size(size: int) -> str:
    """``size`` bytes as the messages say it: "16 MB", "64 KB", "4.0 GB" (binary units)."""
    for unit, scale in (("GB", 1024 * MB), ("MB", MB), ("KB", KB)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) or value >= 100 else f"{value:.1f} {unit}"
    return f"{size} bytes"


def too_large(size: int, limit: int, what: str = "not loaded") -> str:
    """The reason a file is skipped: "larger than 16 MB (4.0 GB): not loaded"."""
    return f"larger than {shown_size(limit)} ({shown_size(size)}): {what}"
