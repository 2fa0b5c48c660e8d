"""An agent's skill roots on a machine, and what the agent makes of one SKILL.md: the part of the
SKILL.md family's discovery and reader that the machine view (core/machine) asks for, so that
nothing outside core/library reaches into the format's package.

The roots come from the profile (``storage.user_roots``, ``storage.extension_roots`` below an
explicit home folder; ``storage.project_roots`` below a project folder); nothing here names an
agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.skillmd.discovery import home_roots
from rockskills_gui.core.library.skillmd.profiles import Root
from rockskills_gui.core.library.skillmd.store import SkillMdEntry, read_skill_md
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.profile import AgentProfile

__all__ = ["FoundRoot", "Verdict", "agent_verdict", "project_roots", "user_roots"]


@dataclass(frozen=True)
class FoundRoot:
    """One folder of skills an agent reads, with its scope (user | extension | project)."""

    path: Path
    scope: str


def user_roots(profile: AgentProfile, home: Path) -> list[FoundRoot]:
    """``profile``'s user-scope roots that exist below ``home`` (never the real home unless given)."""
    return [FoundRoot(r.path, r.scope) for r in home_roots(profile, home)]


def project_roots(project: Path, profile: AgentProfile) -> list[FoundRoot]:
    """``profile``'s project roots that exist below ``project`` (no fallback folder)."""
    return [FoundRoot(project / m, "project") for m in profile.storage.project_roots
            if (project / m).is_dir()]


@dataclass(frozen=True)
class Verdict:
    """What an agent makes of a SKILL.md: ``refused`` its reason not to load it ("" : it loads
    it), its warnings, and the name and description it reads."""

    refused: str
    warnings: tuple[str, ...]
    name: str
    description: str


def agent_verdict(skill_file: Path, root: Path, profile: AgentProfile) -> Verdict:
    """Read ``skill_file`` (below ``root``) as ``profile``'s agent would."""
    read = read_skill_md(Root(root, "project"), skill_file, profile, skill_file.parent.name)
    if isinstance(read, Problem):
        return Verdict(read.message, (), skill_file.parent.name, "")
    assert isinstance(read, SkillMdEntry)
    return Verdict("", tuple(w.message for w in read.warnings if w.severity != "info"),
                   read.agent_name, read.skill.summary or "")
