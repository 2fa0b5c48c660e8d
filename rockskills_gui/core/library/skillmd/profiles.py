"""The SKILL.md profiles (:mod:`rockskills_gui.core.model.profiles`), by the key of their settings,
and a :class:`Root` of skill folders: what opening a SKILL.md library starts from, without its
readers (:mod:`.store` exports these names too). A RockBot library's open does not load this
module (issue 19)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.stores.skill_dirs import SEE_ALSO_KEY, SIDECAR_NAME, SKIP_DIRS
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.profiles import AGENT_SKILLS, CARPENTER, PICOBOT
from rockskills_gui.core.model.profiles import CORTEX as CORTEX_FS
from rockskills_gui.core.model.profiles import SKILL_MD_PROFILES as PROFILES

__all__ = ["AGENT_SKILLS", "CARPENTER", "CORTEX_FS", "PICOBOT", "PROFILES", "SEE_ALSO_KEY",
           "SIDECAR_NAME", "SKIP_DIRS", "AgentProfile", "Root"]


@dataclass(frozen=True)
class Root:
    """One folder of skill folders, with its scope (which copy of a name wins is the profile's
    ``storage.precedence``) and, for a plugin's skills, the plugin's name: the agent calls its
    skill ``<namespace>:<name>`` and the library ``<namespace>/<name>`` (a folder in the tree)."""

    path: Path
    scope: str = "project"  # "project" | "user" | "extension" | "plugin"
    namespace: str = ""  # a plugin's name ("": not a plugin's root)
