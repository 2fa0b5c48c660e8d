"""What a trigger-eval run sends: the agent's skill listing and the tool it offers to activate a
skill, per query ``[system: listing, user: query]`` with that one tool.

The listing is a parameter (:class:`Presentation`): today it is the text ``core.budget`` shows for
the agent profile (RockBot's session index, the Agent Skills ``<available_skills>`` block, …,
with the profile's limits, so a skill a limit hides is not listed and cannot trigger); per-agent
listings (Claude Code, Codex, Gemini CLI) plug in the same way.

Activation tools:

- ``activate_skill`` (Gemini CLI): ``{name: enum[listed names]}``; the description verbatim from
  google-gemini/gemini-cli ``packages/core/src/tools/activate-skill.ts`` (research notes
  skillmd-agents.md §3.4).
- ``Skill`` (Claude Code): ``{skill: string, args?: string}`` (reverse-engineered from the v2.1.32
  tool prompt; the description is assumed).
- ``get_skill`` (RockBot): ``{name: string}``, the description verbatim from MarimerLLC/rockbot
  ``src/RockBot.Skills/SkillTools.cs`` @ 150a84c.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rockskills_gui.core.budget.agents import Lister
from rockskills_gui.core.budget.compute import compute_budget
from rockskills_gui.core.budget.entries import AdEntry, entries_of
from rockskills_gui.core.budget.limits import Limits, LimitsStore
from rockskills_gui.core.budget.report import agents_for, limits_for
from rockskills_gui.core.budget.tokens import Tokenizer, try_tokenizer
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold

Message = dict[str, Any]


@dataclass(frozen=True)
class ActivationTool:
    """A tool the model calls to activate a skill; ``argument`` carries the skill's name."""

    name: str
    agent: str
    argument: str
    describe: Callable[[Sequence[str]], str]
    enum: bool = False  # the argument's schema lists the skill names
    argument_description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # other (optional) parameters
    source: str = ""
    assumed: bool = False

    def schema(self, names: Sequence[str]) -> dict[str, Any]:
        """The chat-completions ``tools`` entry offering this tool for ``names``."""
        argument: dict[str, Any] = {"type": "string"}
        if self.enum:
            argument["enum"] = list(names)
        if self.argument_description:
            argument["description"] = self.argument_description
        return {"type": "function", "function": {
            "name": self.name, "description": self.describe(names),
            "parameters": {"type": "object", "properties": {self.argument: argument, **self.extra},
                           "required": [self.argument]}}}


def _gemini(names: Sequence[str]) -> str:
    quoted = ", ".join("'" + n + "'" for n in names)
    hint = f" (Available: {quoted})" if names else ""
    return (f"Activates a specialized agent skill by name{hint}. Returns the skill's instructions "
            "wrapped in `<activated_skill>` tags. These provide specialized guidance for the current "
            "task. Use this when you identify a task that matches a skill's description. ONLY use "
            "names exactly as they appear in the `<available_skills>` section.")


def _claude(_names: Sequence[str]) -> str:
    return ("Execute a skill within the main conversation. When the user's request matches one of "
            "the available skills, invoke it with this tool, using the skill's name exactly as "
            "listed (a plugin's skill as plugin:skill).")


def _rockbot(_names: Sequence[str]) -> str:
    return ("Load the full instructions for a named skill so you can follow them. Call this when the "
            "skill index shows a skill relevant to the user's request. Returns the skill content and "
            "the list of sub-resources (if any) that can be fetched individually with "
            "get_skill_resource.")


ACTIVATE_SKILL = ActivationTool(
    "activate_skill", "Gemini CLI", "name", _gemini, enum=True,
    argument_description="The name of the skill to activate.",
    source="google-gemini/gemini-cli packages/core/src/tools/activate-skill.ts")
CLAUDE_SKILL = ActivationTool(
    "Skill", "Claude Code", "skill", _claude,
    argument_description='The skill name, e.g. "pdf" or "ms-office-suite:pdf"',
    extra={"args": {"type": "string", "description": "Optional arguments for the skill"}},
    source="Claude Code v2.1.32 tool prompt (reverse-engineered)", assumed=True)
GET_SKILL = ActivationTool(
    "get_skill", "RockBot", "name", _rockbot,
    argument_description="The skill name as shown in the index (e.g. 'plan-meeting')",
    source="MarimerLLC/rockbot src/RockBot.Skills/SkillTools.cs @ 150a84c")
TOOLS: dict[str, ActivationTool] = {t.name: t for t in (ACTIVATE_SKILL, CLAUDE_SKILL, GET_SKILL)}
DEFAULT_TOOL = {"rockbot": GET_SKILL.name}  # any other agent: activate_skill


@dataclass(frozen=True)
class Presentation:
    """What the model sees: ``listing`` (the system message), the skills it names, the tool."""

    agent: str
    label: str
    listing: str
    listed: tuple[str, ...]
    tool: ActivationTool
    hidden: dict[str, str] = field(default_factory=dict)  # skill -> why the listing leaves it out
    shown: dict[str, str] = field(default_factory=dict)  # skill -> the name the listing gives it
    # (a plugin's skill 'discord/access' is 'discord:access' to Claude Code and Codex; issue 31)

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [self.tool.schema([self.shown.get(n, n) for n in self.listed])]

    def skill_called(self, value: str) -> str | None:
        """The listed skill the model named ``value`` (its library or its listed name, any case)."""
        for name in self.listed:
            if value in (name, self.shown.get(name, name)):
                return name
        wanted = fold(value)
        return next((n for n in self.listed if wanted in (fold(n), fold(self.shown.get(n, n)))), None)

    def messages(self, query: str) -> list[Message]:
        """The request's messages for one user ``query``."""
        return [{"role": "system", "content": self.listing}, {"role": "user", "content": query}]

    def fingerprint(self) -> str:
        """sha256 of everything shown besides the query: the listing and the tool as sent."""
        text = json.dumps([self.listing, self.tools], ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tool_for(agent_id: str, tool: str | None = None) -> ActivationTool:
    """``tool`` by name (raises ValueError for an unknown one), else the agent's own."""
    name = tool or DEFAULT_TOOL.get(agent_id, ACTIVATE_SKILL.name)
    if name not in TOOLS:
        raise ValueError(f"unknown activation tool {name!r}: use one of {', '.join(TOOLS)}")
    return TOOLS[name]


def present(entries: Sequence[AdEntry], profile: Lister, limits: Limits,
            tool: ActivationTool, tokenizer: Tokenizer | None = None) -> Presentation:
    """The presentation of ``entries`` by ``profile`` under ``limits`` (``core.budget``'s listing)."""
    budget = compute_budget(entries, profile, limits, tokenizer)
    return Presentation(agent=profile.id, label=profile.label, listing=budget.text or "",
                        listed=budget.listed, tool=tool,
                        hidden={h.name: h.reason for h in budget.hidden},
                        shown={e.name: e.shown for e in entries if e.shown != e.name})


@dataclass(frozen=True)
class Showing:
    """What a presentation is made of, read off the library (cheap, on the caller's thread): the
    skills as the listing sees them, the agent, its limits and the tool. :meth:`present` (which
    may count tokens) can run anywhere, also with unsaved descriptions laid over the skills."""

    entries: tuple[AdEntry, ...]
    lister: Lister  # how the agent lists its skills (core.budget)
    limits: Limits
    tool: ActivationTool

    def present(self, descriptions: Mapping[str, str | None] | None = None) -> Presentation:
        """The presentation, with ``descriptions`` (skill name -> description) in place of the
        saved ones."""
        entries: Sequence[AdEntry] = self.entries
        if descriptions:
            by_name = {fold(k): v for k, v in descriptions.items()}
            entries = [e.with_description(by_name[fold(e.name)]) if fold(e.name) in by_name else e
                       for e in entries]
        tokenizer = try_tokenizer()[0] if self.limits.max_tokens is not None else None
        return present(entries, self.lister, self.limits, self.tool, tokenizer)


def showing_of(library: Library, agent_id: str | None = None, tool: str | None = None,
               store: LimitsStore | None = None) -> Showing:
    """How ``agent_id`` (default: the library's own agent) shows ``library``'s skills: the
    Budget tab's listing for it, under the same limits, and its activation tool (or ``tool``).
    Raises ValueError for an unknown agent or tool."""
    if agent_id == "all":
        raise ValueError("a trigger eval runs as one agent: give its id, not 'all'")
    (profile,) = agents_for(library, agent_id)
    limits = limits_for(profile.id, store if store is not None else LimitsStore(), library)
    return Showing(tuple(entries_of(library)), profile, limits, tool_for(profile.id, tool))


def present_library(library: Library, agent_id: str | None = None,
                    tool: str | None = None, store: LimitsStore | None = None) -> Presentation:
    """How ``agent_id`` (default: the library's own agent) presents ``library`` (:func:`showing_of`)."""
    return showing_of(library, agent_id, tool, store).present()
