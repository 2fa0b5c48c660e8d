"""``os.walk`` without recursion and with a depth limit, for folders that may be hostile.

Python 3.11's ``os.walk`` recurses once per folder level: ~1,000 nested folders under a library's
``skills/`` raised RecursionError and made the whole library unopenable (issue 35). :func:`walk`
keeps its own stack, never follows symbolic links to folders, and does not enter folders deeper
than ``max_depth`` below the top (each one it leaves out is reported to ``too_deep``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from rockskills_gui.core.model.size_limits import FOLDER_MAX_DEPTH


def walk(top: Path | str, max_depth: int = FOLDER_MAX_DEPTH,
         too_deep: Callable[[str], None] | None = None) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` (top-down, the same tuples in the same order; remove names from the
    folder list to prune), iteratively. A folder more than ``max_depth`` levels below ``top`` is
    listed in its parent's folder names but not entered: its path goes to ``too_deep``. Folders
    that cannot be listed are skipped, as ``os.walk`` does."""
    stack: list[tuple[str, int]] = [(os.fspath(top), 0)]
    while stack:
        folder, depth = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
        except OSError:
            continue
        yield folder, dirs, files
        below: list[tuple[str, int]] = []
        for name in dirs:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            if depth + 1 > max_depth:
                if too_deep is not None:
                    too_deep(path)
                continue
            below.append((path, depth + 1))
        stack.extend(reversed(below))


def too_deep_message(max_depth: int = FOLDER_MAX_DEPTH) -> str:
    """The reason given for a folder :func:`walk` did not enter."""
    return f"folders nested more than {max_depth} levels deep are not read"
