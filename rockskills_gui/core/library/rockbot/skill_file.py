"""Reading one RockBot skill file (spec section 4): its skill, its exact bytes, or the Problem that
keeps it from loading. Shared by the scan and its helper processes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.names import rockbot_name_error
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.size_limits import SKILL_FILE_MAX_BYTES, too_large
from rockskills_gui.core.model.skill import Skill, SkillParseError, decode_file_text, skill_from_text
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.layout import Layout

FOLDER_NAMED_JSON = ("a folder named like a skill file; RockBot skips it (skill files inside it "
                     "load as usual)")


@dataclass(frozen=True)
class LoadedFile:
    """A skill file read from disk: its skill and the exact bytes it had."""

    path: Path
    skill: Skill
    raw: bytes


def _prefix(layout: Layout) -> str:
    shown = layout.display_path(layout.skills_dir)
    return "" if shown in ("", ".") else shown + "/"


def read_skill_file(layout: Layout, path: Path) -> LoadedFile | Problem:
    """Read one skill file; any reason not to load it becomes a :class:`Problem`."""
    try:
        rel = path.relative_to(layout.skills_dir).as_posix()
    except ValueError:
        rel = path.name
    return _read(path, str(path), rel, _prefix(layout))


def outside_link(layout: Layout, path: Path, name: str | None = None) -> Problem | None:
    """A warning when skill file ``path`` is a symbolic link leaving the skills folder (RockBot
    loads it, so it is loaded; nothing is ever written through it), else None."""
    if not untrusted.leaves(path, (layout.skills_dir,)):
        return None
    return Problem(path=layout.display_path(path), kind=ProblemKind.OUTSIDE_LINK, severity="warning",
                   name=name, message=f"a symbolic link leading outside the library (to "
                                      f"{untrusted.link_target(path)}); loaded as RockBot loads it, "
                                      "but never written through")


def _read(path: Path | None, where: str, rel: str, prefix: str,
          paths: PathMaker | None = None) -> LoadedFile | Problem:
    """Read ``where`` (``rel`` below the skills folder; ``prefix`` + ``rel`` is shown); the
    skill's path is ``path``, else made by ``paths`` (a scan's), else parsed from ``where``."""
    shown = prefix + rel
    try:
        raw = fileio.read_regular(where, SKILL_FILE_MAX_BYTES)  # never blocks on a FIFO
    except OSError as exc:
        if isinstance(exc, fileio.TooLarge):
            return Problem(path=shown, kind=ProblemKind.TOO_LARGE,
                           message=too_large(exc.size, exc.limit, "not loaded"))
        if isinstance(exc, fileio.NotRegularFile) and exc.kind == "folder" \
                and not os.path.islink(where):
            return Problem(path=shown, kind=ProblemKind.NOT_A_FILE, severity="warning",
                           message=FOLDER_NAMED_JSON)
        return Problem(path=shown, kind=ProblemKind.UNREADABLE,
                       message=f"cannot read the file: {untrusted.reason(where, exc)}")
    text, had_invalid = decode_file_text(raw)
    try:
        skill = skill_from_text(text)
    except SkillParseError as exc:
        kind = ProblemKind.MISSING_NAME if exc.kind == "missing-name" else ProblemKind.PARSE_ERROR
        return Problem(path=shown, kind=kind, message=str(exc))
    if had_invalid:
        return Problem(path=shown, kind=ProblemKind.INVALID_UTF8, name=skill.name,
                       message="the file is not valid UTF-8; RockBot would read it with "
                               "replacement characters, so it is left alone")
    error = rockbot_name_error(skill.name)
    if error is not None:
        return Problem(path=shown, kind=ProblemKind.INVALID_NAME, name=skill.name,
                       message=f"{error} (RockBot loads it but would refuse to save it)")
    expected = rel[: -len(".json")] if rel.endswith(".json") else rel
    if skill.name != expected:
        return Problem(
            path=shown, kind=ProblemKind.NAME_MISMATCH, name=skill.name,
            message=f"the file's name is '{skill.name}' but its path means '{expected}'; "
                    f"RockBot would load it as '{skill.name}' and a later save or delete "
                    f"would use skills/{skill.name}.json",
        )
    if path is None:
        path = paths(where) if paths is not None else Path(where)
    return LoadedFile(path=path, skill=skill, raw=raw)


class PathMaker:
    """``Path(where)`` for the files of one scan, made from their folder's Path without parsing
    each full path again (that parse was a fifth of a warm 100,000-skill open): the same value,
    text and hash. Where pathlib offers no way to (another Python), it parses."""

    def __init__(self) -> None:
        self._folders: dict[str, Path] = {}
        self._fast = os.sep == "/" and hasattr(Path, "_make_child_relpath")

    def __call__(self, where: str) -> Path:
        if not self._fast:
            return Path(where)
        folder, _, name = where.rpartition("/")
        parent = self._folders.get(folder)
        if parent is None:
            parent = self._folders[folder] = Path(folder)
            child = parent._make_child_relpath(name)  # type: ignore[attr-defined]
            if not isinstance(child, Path) or str(child) != where or child != Path(where):
                self._fast = False  # (checked once per folder) not what it is here: parse
                return Path(where)
            return child
        made: Path = parent._make_child_relpath(name)  # type: ignore[attr-defined]
        return made


def decode(item: tuple[Any, ...], path: Path) -> LoadedFile | Problem:
    """The inverse of ``scan_worker.encode`` (``path``: the file's)."""
    if item[0] == 1:
        return Problem(path=item[1], kind=ProblemKind(item[2]), message=item[3], name=item[4])
    _, raw, name, summary, content, created, updated, last_used, see_also, extra = item
    skill = Skill.model_construct(
        name=name, summary=summary, content=content, created_at=Timestamp(*created),
        updated_at=Timestamp(*updated) if updated is not None else None,
        last_used_at=Timestamp(*last_used) if last_used is not None else None, see_also=see_also,
        extra=extra)
    return LoadedFile(path=path, skill=skill, raw=raw)
