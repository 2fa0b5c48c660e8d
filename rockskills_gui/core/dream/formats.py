"""The dream over each library format: what a RockBot and a SKILL.md library give the passes,
and the SKILL.md rules a proposal's name and description are checked with.

RockBot's passes read RockBot-only data: skill gap the conversation log, the 18-month prune each
skill's ``lastUsedAt``/``updatedAt``, optimization the usage and feedback logs. A SKILL.md library
has none of them, so those passes say so instead of failing; consolidation works on any library,
and optimization runs there over the thin skills (under 200 characters of content), since there
is no at-risk session to find. A proposal for a SKILL.md library names a skill folder: the names
and descriptions are checked with that format's rules (the profile's: Agent Skills' spec names of
at most 64 lowercase letters, digits and hyphens, a description of at most 1,024 characters that
the loader requires), and written as SKILL.md (:mod:`.apply_skillmd`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import display_name
from rockskills_gui.core.model.profile import AgentProfile, FileKind
from rockskills_gui.core.model.rules import RockBotRules
from rockskills_gui.core.storage import fileio

DreamLibrary = Library[Any, Any]
SPEC_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SPEC_NAME_MAX = 64

NO_CONVERSATIONS = ("skill gap needs the agent's conversation log (RockBot's conversation-log/"
                    "turns.jsonl); a SKILL.md library keeps none")
NO_DATES = ("the 18-month prune needs RockBot's lastUsedAt/updatedAt dates; SKILL.md files keep no "
            "usage dates (a file's modification time is not use), so nothing is pruned")
NO_USAGE = ("RockBot's optimization needs its usage and feedback logs (at-risk sessions); a SKILL.md "
            "library keeps none, so it runs over the thin skills (under 200 characters of content)")


def is_skill_md(library: DreamLibrary) -> bool:
    """Whether the library's agent keeps SKILL.md folders (its profile's storage says so)."""
    return FileKind.SKILL_MD in library.profile.storage.file_kinds


def runs_gap(library: DreamLibrary) -> bool:
    """Whether the skill gap pass runs for the library's agent (its profile's curation passes:
    the gap pass reads RockBot's conversation log, which a SKILL.md agent does not keep)."""
    return DreamPass.GAP.value in library.profile.curation.passes


def rules_of(library: DreamLibrary) -> RockBotRules:
    """RockBot's rules as the library's profile gives them (a SKILL.md profile's: no RockBot
    extras, no resources, no protected or singleton prefixes beyond its curation's)."""
    return RockBotRules.of(library.profile)


def format_label(library: DreamLibrary) -> str:
    return f"{library.profile.label} (SKILL.md)" if is_skill_md(library) else library.profile.label


@dataclass(frozen=True)
class SkillMdRules:
    """A SKILL.md profile's rules for a name and a description a proposal writes."""

    profile: AgentProfile

    def name_problem(self, name: str) -> str | None:
        """Why no skill folder can be named ``name`` (a block), or None."""
        if not name or name != name.strip() or "/" in name or "\\" in name or name.startswith(".") \
                or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
            return (f"'{display_name(name)}' cannot be a skill folder name (no '/', no leading '.', "
                    "no surrounding spaces or control characters)")
        size = len(name.encode("utf-8", "surrogatepass"))
        if size > fileio.NAME_MAX:
            return (f"the folder name '{display_name(name, 40)}' has {size:,} bytes "
                    f"(at most {fileio.NAME_MAX})")
        return None

    def name_warnings(self, name: str) -> list[str]:
        """What the profile's spec says about ``name`` (warnings: agents may still load it)."""
        if not self.profile.names.spec:
            return []
        shown = unicodedata.normalize("NFKC", name)
        found: list[str] = []
        if len(shown) > SPEC_NAME_MAX:
            found.append(f"the name has {len(shown)} characters; {self.profile.label} allows "
                         f"{SPEC_NAME_MAX} (Codex does not load a longer one)")
        if not SPEC_NAME.match(shown):
            found.append(f"'{display_name(name)}' is not a {self.profile.label} name: lowercase "
                         "letters, digits and single hyphens, not at either end")
        return found

    def description_problem(self, description: str) -> str | None:
        """Why the loader would not load a skill with ``description`` (a block), or None."""
        if self.profile.summary.required and not description.strip():
            return (f"{self.profile.label} requires a description: a SKILL.md without one is not "
                    "loaded")
        return None

    def description_warnings(self, description: str) -> list[str]:
        limit = self.profile.summary.limit
        if limit and len(description) > limit:
            return [f"the description has {len(description):,} characters; {self.profile.label} "
                    f"allows {limit:,} (Codex does not load a longer one)"]
        return []


def no_dream_text(profile: AgentProfile) -> str:
    """Why a library of ``profile`` (no dream passes) cannot be dreamed over, and what works."""
    text = (f"Dream runs are not available for {profile.title} libraries (this agent's profile has "
            "no dream passes")
    if FileKind.SKILL_MD in profile.storage.file_kinds:
        return (text + ": its proposals cannot yet place a skill by plugin or category). Open one "
                "folder of skill folders (a plugin's skills/, say) as Agent Skills to dream over it.")
    return text + ")."


def skill_md_rules(library: DreamLibrary) -> SkillMdRules | None:
    return SkillMdRules(library.profile) if is_skill_md(library) else None


def format_note(library: DreamLibrary) -> str | None:
    """What the user message adds for a SKILL.md library (None for RockBot: RockBot's prompt is
    kept byte for byte)."""
    rules = skill_md_rules(library)
    if rules is None:
        return None
    profile = rules.profile
    name_rule = ("lowercase letters, digits and single hyphens, at most 64 characters"
                 if profile.names.spec else "a folder name")
    limit = f" (at most {profile.summary.limit:,} characters)" if profile.summary.limit else ""
    return (f"\nFormat: these skills are {profile.label} SKILL.md folders. Each name is the skill's "
            f"folder name: {name_rule}, no '/'. The summary becomes the SKILL.md description{limit}; "
            "keep every tool name, command, URL, number and proper name of the skills you merge.\n")
