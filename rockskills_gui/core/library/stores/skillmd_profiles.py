"""Each SKILL.md system's rules as a :class:`Profile`, and a :class:`Root` of skill folders:
what opening a SKILL.md library starts from, without its readers (:mod:`.skillmd` exports these
names too). A RockBot library's open does not load this module (issue 19)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.agent_note import AGENT_SKILLS_NOTE, AgentNote
from rockskills_gui.core.library.stores.skill_dirs import SEE_ALSO_KEY, SIDECAR_NAME, SKIP_DIRS

__all__ = ["AGENT_SKILLS", "CARPENTER", "CORTEX_FS", "PICOBOT", "PROFILES", "SEE_ALSO_KEY",
           "SIDECAR_NAME", "SKIP_DIRS", "Profile", "Root"]


@dataclass(frozen=True)
class Profile:
    """One SKILL.md system's rules, as settings (formats.md §A.3, §B.4, §C.3, §D)."""

    id: str
    label: str
    file_names: tuple[str, ...] = ("SKILL.md", "skill.md")
    require_description: bool = True
    require_name: bool = False  # else a missing name falls back to the folder name
    recursive: bool = True  # look for skill folders below the root, not only one level down
    resource_dirs: tuple[str, ...] = ("scripts", "references", "assets")
    export_keys: tuple[str, ...] | None = None  # keys a fresh export writes (None: all it has)
    plain: str = "yaml"  # "line": line-based readers keep quotes literally, so avoid them
    description_limit: int | None = 1024
    compatibility_limit: int | None = 500
    spec_names: bool = True  # lowercase a-z0-9 and single hyphens, <= 64, equal to the folder
    allowed_keys: tuple[str, ...] | None = (
        "name", "description", "license", "compatibility", "metadata", "allowed-tools")
    project_roots: tuple[str, ...] = (".agents/skills", ".claude/skills")
    user_roots: tuple[str, ...] = ("~/.agents/skills", "~/.claude/skills")
    max_index_chars: int | None = None
    max_listed_skills: int | None = None
    unverified: tuple[str, ...] = ()  # settings that come from a brief, not from public code
    agent_note: AgentNote | None = None  # what its running agents do with edits (None: unknown)

    def with_settings(self, **settings: Any) -> Profile:
        """A copy with some settings changed (raises TypeError for an unknown setting)."""
        return dataclasses.replace(self, **settings)


AGENT_SKILLS = Profile(id="agentskills", label="Agent Skills", agent_note=AGENT_SKILLS_NOTE)
PICOBOT = Profile(
    id="picobot", label="PicoBot (assumed)", resource_dirs=(), export_keys=("name", "description"),
    plain="line", description_limit=None, compatibility_limit=None, spec_names=False,
    allowed_keys=None, project_roots=(".picobot/skills",), user_roots=("~/.picobot/skills",),
    unverified=("require_description", "require_name", "max_index_chars", "max_listed_skills",
                "project_roots", "user_roots"),
)
CARPENTER = Profile(
    id="carpenter", label="carpenter legacy SKILL.md (assumed)", resource_dirs=("resources",),
    spec_names=False, allowed_keys=None, project_roots=("skills",), user_roots=(),
    unverified=("file_names", "require_description", "require_name", "resource_dirs",
                "description_limit", "project_roots"),
)
CORTEX_FS = Profile(
    id="cortex-fs", label="CortexPrism", file_names=("SKILL.md",), require_description=False,
    require_name=True, recursive=False, resource_dirs=(),
    export_keys=("name", "description", "trigger_pattern"), plain="line", description_limit=None,
    compatibility_limit=None, spec_names=False, allowed_keys=None,
    project_roots=(".cortex/skills",), user_roots=(),
)
PROFILES: dict[str, Profile] = {p.id: p for p in (AGENT_SKILLS, PICOBOT, CARPENTER, CORTEX_FS)}


@dataclass(frozen=True)
class Root:
    """One folder of skill folders, with its scope (project skills win name collisions)."""

    path: Path
    scope: str = "project"  # "project" | "user"

