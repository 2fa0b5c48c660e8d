"""RockBot agent data directory: where things live and how skill files are found and read (§1, §4)."""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core import fileio
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


def _walk(skills_dir: Path, temps: list[Path] | None = None,
          odd: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """``(path, relative path)`` of ``skills/**/*.json`` breadth-first, names sorted by code point
    in each folder. Symlinked folders are not followed. Temp files (ours) go to ``temps``; a
    ``*.json`` entry that is not a readable regular file (a dangling link, a FIFO) goes to ``odd``
    with the reason."""
    found: list[tuple[str, str]] = []
    if not skills_dir.is_dir():
        return found
    queue: deque[tuple[str, str]] = deque([(str(skills_dir), "")])
    while queue:
        folder, rel = queue.popleft()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append((entry.path, f"{rel}{name}/"))
                elif name.endswith(".json"):
                    if entry.is_file():
                        found.append((entry.path, rel + name))
                    elif odd is not None and not entry.is_dir():
                        reason = ("a symbolic link to a missing file" if entry.is_symlink()
                                  else "not a regular file")
                        odd.append((rel + name, reason))
                elif temps is not None and fileio.is_temp_name(name):
                    temps.append(Path(entry.path))
            except OSError:
                continue
        queue.extend(subdirs)
    return found


def iter_skill_files(skills_dir: Path) -> Iterator[Path]:
    """``skills/**/*.json`` breadth-first, names sorted by code point in each folder.

    This is the load (BM25 candidate) order the fixtures use; RockBot's own is the OS order.
    Symlinked folders are not followed.
    """
    for path, _ in _walk(skills_dir):
        yield Path(path)


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


def _read(path: Path | None, where: str, rel: str, prefix: str) -> LoadedFile | Problem:
    """Read ``where`` (``rel`` below the skills folder; ``prefix`` + ``rel`` is shown)."""
    shown = prefix + rel
    try:
        with open(where, "rb") as handle:
            raw = handle.read()
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
    expected = rel[: -len(".json")] if rel.endswith(".json") else rel
    if skill.name != expected:
        return Problem(
            path=shown, kind=ProblemKind.NAME_MISMATCH, name=skill.name,
            message=f"the file's name is '{skill.name}' but its path means '{expected}'; "
                    f"RockBot would load it as '{skill.name}' and a later save or delete "
                    f"would use skills/{skill.name}.json",
        )
    return LoadedFile(path=path if path is not None else Path(where), skill=skill, raw=raw)


class ScanCancelled(Exception):
    """The scan was cancelled before it finished (nothing was loaded)."""


Progress = Callable[[int, int], None]
CHUNK = 500  # files read between two progress reports / cancel checks


def scan(layout: Layout, progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
         temps: list[Path] | None = None) -> tuple[list[LoadedFile], list[Problem]]:
    """Read every skill file in load order; case collisions become problems for every file involved.

    ``progress(done, total)`` is called after the folders were listed (done = 0) and after every
    :data:`CHUNK` files; ``cancel()`` is checked as often and raises :class:`ScanCancelled` when
    true. Temp files seen on the way (``*.rsg-tmp``) are appended to ``temps``.
    """
    odd: list[tuple[str, str]] = []
    files = _walk(layout.skills_dir, temps, odd)
    prefix = _prefix(layout)
    problems: list[Problem] = [Problem(path=prefix + rel, kind=ProblemKind.UNREADABLE,
                                       message=f"cannot read the file: {reason}")
                               for rel, reason in odd]
    loaded: list[LoadedFile] = []
    total = len(files)
    if progress is not None:
        progress(0, total)
    with gc_paused():  # millions of new objects: no point walking them again and again
        for start in range(0, total, CHUNK):
            if cancel is not None and cancel():
                raise ScanCancelled(f"cancelled after {start:,} of {total:,} files")
            for where, rel in files[start:start + CHUNK]:
                result = _read(None, where, rel, prefix)
                if isinstance(result, Problem):
                    problems.append(result)
                else:
                    loaded.append(result)
            if progress is not None:
                progress(min(start + CHUNK, total), total)
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


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector during a burst of allocations (reference counting still
    frees): with a large library each full collection would walk millions of objects again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
