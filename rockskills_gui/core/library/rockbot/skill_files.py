"""Listing a RockBot skills folder: its skill files in load order, and on the way the temp files,
the entries named like skill files that are not readable files, and the symbolic links (§4).
Used by the scan (``rockbot``) and by its listing helper process (``scan_walk``)."""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

from rockskills_gui.core.library.rockbot.skill_file import FOLDER_NAMED_JSON
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.rules import RESOURCE_SUFFIX, ROCKBOT_64E82CC, RockBotRules
from rockskills_gui.core.model.size_limits import FOLDER_MAX_DEPTH
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.folder_walk import too_deep_message

TOO_DEEP_MESSAGE = f"{too_deep_message()}: skill files below it are not loaded"


def _walk(skills_dir: Path, temps: list[Path] | None = None,
          odd: list[Problem] | None = None,
          links: list[tuple[str, str]] | None = None,
          rules: RockBotRules = ROCKBOT_64E82CC) -> list[tuple[str, str]]:
    """``(path, relative path)`` of ``skills/**/*.json`` breadth-first, names sorted by code point
    in each folder. Symlinked folders are not followed. Temp files (ours) go to ``temps``; a
    ``*.json`` entry that is not a readable regular file (a dangling link, a FIFO, a folder) goes
    to ``odd`` as a problem (path relative to the skills folder), as does a folder more than
    ``FOLDER_MAX_DEPTH`` levels deep (not entered); skill files that are symbolic links go to
    ``links`` as well, ``(path, relative path)``. ``rules`` (the RockBot profile):
    folders the agent owns (``.embeddings/``) are not entered, and below a resource folder
    (``{name}.resources/``) no file is a skill file (only temp files are collected there)."""
    found: list[tuple[str, str]] = []
    if not skills_dir.is_dir():
        return found
    queue: deque[tuple[str, str, bool]] = deque([(str(skills_dir), "", False)])
    while queue:
        folder, rel, in_resources = queue.popleft()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:  # reported, and the rest is read (issue 35, item 16)
            if odd is not None and not in_resources:
                odd.append(Problem(path=rel.rstrip("/"), kind=ProblemKind.UNREADABLE,
                                   message=f"cannot read this folder ({untrusted.reason(folder, exc)}): "
                                           "the skills in it are not loaded"))
            continue
        subdirs: list[tuple[str, str, bool]] = []
        for entry in entries:
            name = entry.name
            try:
                if in_resources:
                    if entry.is_dir(follow_symlinks=False):
                        subdirs.append((entry.path, f"{rel}{name}/", True))
                    elif temps is not None and fileio.is_temp_name(name):
                        temps.append(Path(entry.path))
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if not rel and name in rules.ignored_dirs:
                        continue  # the agent's own cache: never entered, never reported
                    resources = rules.resources and name.endswith(RESOURCE_SUFFIX)
                    if rel.count("/") >= FOLDER_MAX_DEPTH:
                        if odd is not None:
                            odd.append(Problem(path=rel + name, kind=ProblemKind.TOO_DEEP,
                                               severity="warning", message=TOO_DEEP_MESSAGE))
                        continue
                    subdirs.append((entry.path, f"{rel}{name}/", resources))
                    if odd is not None and name.endswith(".json") and not resources:
                        odd.append(Problem(path=rel + name, kind=ProblemKind.NOT_A_FILE,
                                           severity="warning", message=FOLDER_NAMED_JSON))
                elif name.endswith(".json"):
                    if entry.is_file():
                        found.append((entry.path, rel + name))
                        if links is not None and entry.is_symlink():
                            links.append((entry.path, rel + name))
                    elif odd is not None:
                        why = untrusted.not_regular(entry.path) or "not a regular file"
                        odd.append(Problem(path=rel + name, kind=ProblemKind.UNREADABLE,
                                           message=f"cannot read the file: {why}"))
                elif temps is not None and fileio.is_temp_name(name):
                    temps.append(Path(entry.path))
            except OSError:
                continue
        queue.extend(subdirs)
    return found
