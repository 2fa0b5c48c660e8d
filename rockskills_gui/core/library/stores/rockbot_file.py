"""Reading one RockBot skill file (spec section 4): its skill, its exact bytes, or the Problem that
keeps it from loading. Shared by the scan and its helper processes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.model.names import rockbot_name_error
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.skill import Skill, SkillParseError, decode_file_text, skill_from_text
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


def _read(path: Path | None, where: str, rel: str, prefix: str) -> LoadedFile | Problem:
    """Read ``where`` (``rel`` below the skills folder; ``prefix`` + ``rel`` is shown)."""
    shown = prefix + rel
    try:
        raw = fileio.read_regular(Path(where))  # never blocks on a FIFO swapped in meanwhile
    except OSError as exc:
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
    return LoadedFile(path=path if path is not None else Path(where), skill=skill, raw=raw)
