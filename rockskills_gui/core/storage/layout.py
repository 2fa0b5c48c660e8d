"""Where things live in a RockBot agent data directory (spec section 1): the agent folder, its
``skills/`` folder, and the file a skill name maps to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

SKILLS_DIR = "skills"
USAGE_DIR = "skill-usage"
FEEDBACK_DIR = "feedback"
CONVERSATION_LOG = "conversation-log/turns.jsonl"
USAGE_ARCHIVE_DIR = ".rockskills/usage-archive"  # the app's own copy of the usage logs (never skills/)
AGENT_MARKERS = (SKILLS_DIR, USAGE_DIR, FEEDBACK_DIR, "conversation-log", "memory", "conversations")


class NotALibraryError(Exception):
    """The path is not a RockBot agent directory or a ``skills/`` folder."""


@dataclass(frozen=True)
class Layout:
    """Paths of one agent data directory. ``trusted``: folders a write may reach through a
    symbolic link besides the library itself (see :mod:`.links`: link targets the user
    confirmed, the library's other skill roots). ``floors``: folders inside ``skills_dir`` that a
    removal never takes away when it empties them (a change bounded by the agent folder that
    writes both ``skills/`` and the skill archive keeps ``skills/`` itself)."""

    agent_dir: Path
    skills_dir: Path
    trusted: tuple[Path, ...] = ()
    floors: tuple[Path, ...] = ()
    # A skill is a file below skills_dir (RockBot), not a folder of its own (a SKILL.md).
    skill_folders: ClassVar[bool] = False

    def stop_for(self, path: Path) -> Path:
        """Where removing the folders a deletion of ``path`` empties stops: the deepest of
        ``floors`` holding ``path``, else ``skills_dir``."""
        found = self.skills_dir
        for floor in self.floors:
            if floor in path.parents and len(floor.parts) > len(found.parts):
                found = floor
        return found

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
        # A path's text is normalized, so a text prefix ending at a '/' is a prefix of its parts:
        # the same answer as relative_to, without pathlib's parsing (a hot path in a dream).
        # Anything else (Windows separators, the directory itself, '/', outside) goes the slow way.
        text, base = str(path), str(self.agent_dir)
        if base not in (".", "") and not base.endswith("/") and text.startswith(base + "/"):
            return text[len(base) + 1:]
        try:
            return path.relative_to(self.agent_dir).as_posix()
        except ValueError:
            return str(path)
