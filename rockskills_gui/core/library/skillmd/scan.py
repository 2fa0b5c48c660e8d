"""Scanning a SKILL.md library: every skill folder under its roots in load order, each read (or
reused from the parse cache), with the problems a fresh open reports: disabled skills, files that
cannot be loaded, duplicate names (the first in load order wins), skill files nested in another
skill's folder.

The load order is breadth-first with names sorted per folder, roots in order: the order of the
:data:`Key` ``(root index, depth, folder names below the root)``. That is what lets a change to
one top-level folder of a root be taken in without walking the others
(:mod:`rockskills_gui.core.library.skillmd.incremental`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.skillmd.store import (
    SKIP_DIRS,
    TOO_DEEP,
    AgentProfile,
    Root,
    SkillMdEntry,
    display_path,
    linked_skill_folder,
    read_skill_md,
    walk_skill_folders,
)
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.profile import Precedence
from rockskills_gui.core.storage.folder_walk import too_deep_message, walk

Key = tuple[int, int, tuple[str, ...]]  # (root index, depth, folder names below the root)
QUALIFIED, AGENT = "q:", "a:"  # the two names a skill is known by in settle's ``seen``
Reader = Callable[[Root, Path, AgentProfile, str, tuple[Path, ...], Path], "SkillMdEntry | Problem"]
Found = tuple[Key, Path, "Path | None", "SkillMdEntry | Problem"]


@dataclass(frozen=True, slots=True)
class Scanned:
    """One skill folder as a scan took it."""

    key: Key  # its place in load order
    path: Path | None  # its skill file (None: only a disabled one)
    name: str | None  # the folded skill name when it was read as a skill (loaded or a duplicate)
    entry: SkillMdEntry | None  # the loaded skill (None: disabled, not loadable, a duplicate)
    problems: tuple[Problem, ...]  # what it adds to the library's problems, in order
    agent: str | None = None  # the folded name its agent calls it (who wins a name is decided on it)


def read_folders(index: int, root: Root, profile: AgentProfile, base: Path,
                 boundary: tuple[Path, ...], read: Reader, top: str | None = None) -> Iterator[Found]:
    """Every skill folder of ``root`` (the ``index``-th root), or only those in its folder
    ``top``, in load order and read; a disabled one comes as its problem.

    ``top`` is walked only where a walk from the root would enter it: a real folder (not a
    symbolic link), not ``.git``-like.
    """
    parts: tuple[str, ...] = ()
    start = root.path
    if top is not None:
        start, parts = root.path / top, (top,)
        if top in SKIP_DIRS or not (_real_folder(start) or linked_skill_folder(start, profile)):
            return
    for folder, path, names in walk_skill_folders(start, parts, profile):
        key = (index, len(names), names)
        if path is TOO_DEEP:
            yield key, folder, None, Problem(
                path=display_path(base, folder), kind=ProblemKind.TOO_DEEP, severity="warning",
                message=f"{too_deep_message()}: the skills below it are not loaded")
        elif path is None:
            yield key, folder, None, Problem(
                path=display_path(base, folder / (profile.storage.file_names[0] + ".disabled")),
                kind=ProblemKind.DISABLED, severity="info", name=folder.name,
                message="disabled skill (SKILL.md renamed to SKILL.md.disabled); not loaded")
        else:
            unseen = unseen_by_agent(names, profile)
            if unseen:
                yield key, folder, path, Problem(
                    path=display_path(base, path), kind=ProblemKind.NOT_DISCOVERED, severity="warning",
                    name=folder.name, message=f"{profile.label} does not load it: {unseen}")
                continue
            yield key, folder, path, read(root, path, profile, display_path(base, path), boundary, base)


def unseen_by_agent(names: tuple[str, ...], profile: AgentProfile) -> str:
    """Why the profile's agent never finds a skill folder at ``names`` below a root ("": it does):
    it lies in a folder the agent skips, or deeper than the agent looks."""
    storage = profile.storage
    for part in names:
        if part in storage.skipped_dirs or (storage.skip_dot_dirs and part.startswith(".")):
            return f"it is inside {part}/, which {profile.label} never scans"
    depth = storage.scan_depth
    if depth is not None and len(names) > depth:
        where = "directly in a skills folder" if depth == 1 else \
            f"at most {depth} folders below a skills folder"
        return (f"it is {len(names)} folders below its skills folder, and {profile.label} looks for "
                f"skill folders only {where}")
    return ""


def _real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def settle(found: Found, seen: dict[str, SkillMdEntry], profile: AgentProfile, base: Path) -> Scanned:
    """What a scan makes of one folder's read: loaded (with its nested skill files as problems)
    unless it failed, or its name was loaded before (``seen``, updated with what loads)."""
    key, _folder, path, result = found
    if isinstance(result, Problem):
        return Scanned(key, path, None, None, (result,))
    name = fold(result.skill.name)
    agent = fold(result.agent_name or result.skill.name)
    shadows = profile.storage.precedence is not Precedence.NO_SHADOWING
    first = seen.get(QUALIFIED + name) or (seen.get(AGENT + agent) if shadows else None)
    if first is not None and os.path.realpath(first.folder) == os.path.realpath(result.folder):
        return Scanned(key, path, name, None, (), agent)  # one folder seen again through a link
    if first is not None:
        said = result.agent_name or result.skill.name
        outcome = "which wins; this one is not loaded" if shadows else (
            f"{profile.label} loads and lists both, and a mention of the name is ambiguous; this app "
            "shows the first")
        return Scanned(key, path, name, None, (Problem(
            path=display_path(base, result.path), kind=ProblemKind.DUPLICATE_NAME,
            name=result.skill.name, severity="warning", line=result.file_line("name") or 1,
            message=f"the name '{said}' is already used by "
                    f"{display_path(base, first.path)} ({first.root.scope} scope), {outcome}"),), agent)
    seen[QUALIFIED + name] = seen[AGENT + agent] = result
    nested = tuple(Problem(
        path=display_path(base, inner), kind=ProblemKind.NESTED_SKILL, severity="info",
        name=result.skill.name,
        message=f"inside the folder of the skill '{result.skill.name}': "
                + (f"{profile.label} loads it as a skill of its own too; this app keeps it as one of "
                   "that skill's files" if profile.storage.nested_skills_load else
                   "agents read it as one of that skill's files, not as a skill of its own"))
        for inner in nested_skill_files(result.folder, profile))
    return Scanned(key, path, name, result, nested, agent)


def scan_items(roots: list[Root], profile: AgentProfile, base: Path,
               read: Reader | None = None) -> list[Scanned]:
    """Every skill folder under ``roots`` (project roots first) as :func:`settle` takes it."""
    read = read or read_skill_md
    seen: dict[str, SkillMdEntry] = {}
    boundary = tuple(r.path for r in roots)
    return [settle(found, seen, profile, base) for index, root in enumerate(roots)
            for found in read_folders(index, root, profile, base, boundary, read)]


def scan(roots: list[Root], profile: AgentProfile, base: Path,
         read: Reader | None = None) -> tuple[list[SkillMdEntry], list[Problem]]:
    """Every skill under ``roots`` (project roots first) and the problems, in load order;
    duplicates by name become problems.

    ``read`` replaces :func:`read_skill_md` (e.g. one that reuses what it parsed before)."""
    items = scan_items(roots, profile, base, read)
    return ([i.entry for i in items if i.entry is not None],
            [p for i in items for p in i.problems])


def nested_skill_files(folder: Path, profile: AgentProfile) -> list[Path]:
    """Skill files below a skill's own folder (its resources), sorted; symlinked folders and
    ``.git``-like folders are not entered."""
    found: list[Path] = []
    for here, dirs, files in walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        if here != os.fspath(folder):
            found += [Path(here) / n for n in profile.storage.file_names if n in files]
    return sorted(found)
