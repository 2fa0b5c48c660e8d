"""RockBot agent data directory: where things live and how skill files are found and read (§1, §4)."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.names import fold, rockbot_name_error
from rockskills_gui.core.problems import Problem, ProblemKind
from rockskills_gui.core.skill import Skill, SkillParseError, decode_file_text, skill_from_text

SKILLS_DIR = "skills"
USAGE_DIR = "skill-usage"
FEEDBACK_DIR = "feedback"
CONVERSATION_LOG = "conversation-log/turns.jsonl"
AGENT_MARKERS = (SKILLS_DIR, USAGE_DIR, FEEDBACK_DIR, "conversation-log", "memory", "conversations")


class NotALibraryError(Exception):
    """The path is not a RockBot agent directory or a ``skills/`` folder."""


@dataclass(frozen=True)
class Layout:
    """Paths of one agent data directory."""

    agent_dir: Path
    skills_dir: Path

    @classmethod
    def locate(cls, path: Path) -> Layout:
        """Resolve an agent directory, or its ``skills/`` folder, to a layout.

        Raises :class:`NotALibraryError` with a one-line reason otherwise.
        """
        path = Path(path).expanduser()
        if not path.exists():
            raise NotALibraryError(f"{path}: no such file or directory")
        if not path.is_dir():
            raise NotALibraryError(f"{path}: not a directory (expected a RockBot agent directory)")
        path = path.resolve()
        if (path / SKILLS_DIR).is_dir():
            return cls(path, path / SKILLS_DIR)
        if path.name == SKILLS_DIR:
            return cls(path.parent, path)
        if any((path / marker).exists() for marker in AGENT_MARKERS):
            return cls(path, path / SKILLS_DIR)  # an agent directory with no skills yet
        raise NotALibraryError(
            f"{path}: not a RockBot library (no skills/ folder and no agent data in it)"
        )

    def path_for(self, name: str) -> Path:
        """The file RockBot writes for ``name`` (``/`` makes sub-folders)."""
        parts = name.split("/")
        return self.skills_dir.joinpath(*parts[:-1], parts[-1] + ".json")

    def name_for(self, path: Path) -> str:
        """The name a file's path implies (``skills/mcp/email.json`` -> ``mcp/email``)."""
        rel = path.relative_to(self.skills_dir).as_posix()
        return rel[: -len(".json")] if rel.endswith(".json") else rel

    def display_path(self, path: Path) -> str:
        """Path relative to the agent directory, '/'-separated."""
        try:
            return path.relative_to(self.agent_dir).as_posix()
        except ValueError:
            return str(path)


def iter_skill_files(skills_dir: Path) -> Iterator[Path]:
    """``skills/**/*.json`` breadth-first, names sorted by code point in each folder.

    This is the load (BM25 candidate) order the fixtures use; RockBot's own is the OS order.
    Symlinked folders are not followed.
    """
    if not skills_dir.is_dir():
        return
    queue: deque[Path] = deque([skills_dir])
    while queue:
        folder = queue.popleft()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[Path] = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(Path(entry.path))
                elif entry.name.endswith(".json") and entry.is_file():
                    yield Path(entry.path)
            except OSError:
                continue
        queue.extend(subdirs)


@dataclass(frozen=True)
class LoadedFile:
    """A skill file read from disk: its skill and the exact bytes it had."""

    path: Path
    skill: Skill
    raw: bytes


def read_skill_file(layout: Layout, path: Path) -> LoadedFile | Problem:
    """Read one skill file; any reason not to load it becomes a :class:`Problem`."""
    shown = layout.display_path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Problem(path=shown, kind=ProblemKind.UNREADABLE,
                       message=f"cannot read the file: {exc.strerror or exc}")
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
    expected = layout.name_for(path)
    if skill.name != expected:
        return Problem(
            path=shown, kind=ProblemKind.NAME_MISMATCH, name=skill.name,
            message=f"the file's name is '{skill.name}' but its path means '{expected}'; "
                    f"RockBot would load it as '{skill.name}' and a later save or delete "
                    f"would use skills/{skill.name}.json",
        )
    return LoadedFile(path=path, skill=skill, raw=raw)


def scan(layout: Layout) -> tuple[list[LoadedFile], list[Problem]]:
    """Read every skill file in load order; case collisions become problems for every file involved."""
    loaded: list[LoadedFile] = []
    problems: list[Problem] = []
    for path in iter_skill_files(layout.skills_dir):
        result = read_skill_file(layout, path)
        if isinstance(result, Problem):
            problems.append(result)
        else:
            loaded.append(result)
    groups: dict[str, list[LoadedFile]] = {}
    for item in loaded:
        groups.setdefault(fold(item.skill.name), []).append(item)
    colliding = {id(item) for group in groups.values() if len(group) > 1 for item in group}
    if colliding:
        for group in groups.values():
            if len(group) < 2:
                continue
            names = ", ".join(f"'{g.skill.name}'" for g in group)
            for item in group:
                problems.append(Problem(
                    path=layout.display_path(item.path), kind=ProblemKind.CASE_COLLISION,
                    name=item.skill.name,
                    message=f"names differ only by case ({names}); RockBot keeps one of them "
                            "at random (the last file it enumerates)",
                ))
        loaded = [item for item in loaded if id(item) not in colliding]
    return loaded, problems
