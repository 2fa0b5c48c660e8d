"""Each listing kind's renderer (a :class:`Lister`): the skill advertisement an agent profile's
``listing.kind`` names, with its header, one entry per skill, order and filter.

- RockBot: the session index (rockbot-skills.md §7.1), exactly ``session_index_text``; RockBot
  (current) with its resource tags and the header that explains them (AgentContextBuilder.cs
  @ a1d3999).
- Agent Skills clients: ``skills-ref``'s ``to_prompt`` ``<available_skills>`` block (formats.md
  §D.2), one element per line, HTML-escaped; skills without a description are skipped.
- PicoBot (assumed, formats.md §C): brumaombra/picobot's per-skill block, by name; the brief's
  profile needs a description and cuts the index to ``max_index_chars`` / ``max_listed_skills``.
- CortexPrism: the Markdown renderer (formats.md §B.4) after the reliability filter, ordered as
  its lexical match orders (utility, success, invocations): the list as if every skill matched.
- carpenter: the ``kb/skills/_index.md`` catalogue agents read through ``kb_describe``.

A limit keeps whole entries: the first entry that would cross one is left out, with every later
one (the way a list is cut while it is built).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from rockskills_gui.core.budget.entries import AdEntry
from rockskills_gui.core.model.names import is_null_or_whitespace, sort_key
from rockskills_gui.core.model.profile import AgentProfile, ListingKind
from rockskills_gui.core.recall.index_text import PENDING, SESSION_INDEX_HEADER, TAGGED_INDEX_HEADER

Render = Callable[[AdEntry], str]
Exclude = Callable[[AdEntry], str | None]  # why a skill is never listed, or None


@dataclass(frozen=True)
class Lister:
    """How one agent lists skills in its prompt (the renderer of a :class:`ListingKind`)."""

    id: str
    label: str
    what: str  # what the text is, for the UI
    source: str  # where the format comes from
    render: Render
    order: Callable[[list[AdEntry]], list[AdEntry]]
    exclude: Exclude
    header: str = ""
    footer: str = ""
    separator: str = "\n"
    assumed: bool = False
    empty_means_no_message: bool = False  # RockBot sends nothing for an empty library

    def text(self, rendered: list[str]) -> str:
        """The advertisement for these rendered entries (header and footer included)."""
        parts = [p for p in (self.header,) if p] + rendered + [p for p in (self.footer,) if p]
        return self.separator.join(parts)


def _by_name(entries: list[AdEntry]) -> list[AdEntry]:
    return sorted(entries, key=lambda e: sort_key(e.name))


def _load_order(entries: list[AdEntry]) -> list[AdEntry]:
    return list(entries)


def _never(_entry: AdEntry) -> str | None:
    return None


def _needs_description(entry: AdEntry) -> str | None:
    return "no description: the client skips it" if is_null_or_whitespace(entry.description) else None


def _rockbot(entry: AdEntry) -> str:
    summary = PENDING if is_null_or_whitespace(entry.description) else (entry.description or "")
    return f"- {entry.name}: {summary}"


def _rockbot_tagged(entry: AdEntry) -> str:
    summary = PENDING if is_null_or_whitespace(entry.description) else (entry.description or "")
    return f"- {entry.name}{entry.resource_tag}: {summary}"


def _agent_skills(entry: AdEntry) -> str:
    return "\n".join(("<skill>", "<name>", html.escape(entry.shown), "</name>", "<description>",
                      html.escape(entry.description or ""), "</description>", "<location>",
                      html.escape(entry.location), "</location>", "</skill>"))


def _picobot(entry: AdEntry) -> str:
    return f"### {entry.shown}\n- **Description**: {entry.description or ''}\n- **Path**: `{entry.location}`"


def _cortex(entry: AdEntry) -> str:
    star = "★" if entry.trust_tier >= 4 else "☆"
    origin = "human-authored" if entry.origin == "human" else "learned"
    success = round(entry.success_rate * 100)
    trigger = f" — Trigger: {entry.trigger}" if entry.trigger else ""
    return (f"- **{entry.name}** {star} [{origin}] [{entry.lifecycle}] ({success}% success): "
            f"{entry.description or ''}{trigger}")


def _cortex_reliable(entry: AdEntry) -> str | None:
    """CortexPrism's reliability filter for prompts (formats.md §B.2)."""
    if entry.lifecycle in ("deprecated", "archived"):
        return f"{entry.lifecycle}: CortexPrism drops it from prompts"
    if entry.origin == "human" or entry.lifecycle in ("released", "verified"):
        return None
    if entry.trust_tier >= 2 and entry.success_rate >= 0.3:
        return None
    if entry.success_rate >= 0.5:
        return None
    return "unreliable: CortexPrism needs a success rate of 50% for this trust and lifecycle"


def _cortex_order(entries: list[AdEntry]) -> list[AdEntry]:
    return sorted(entries, key=lambda e: (-e.utility, -e.success_rate, -e.invocations))


def _carpenter(entry: AdEntry) -> str:
    return f"- [[skills/{entry.name}]] — {entry.description or ''}"


def _gemini(entry: AdEntry) -> str:
    return (f"  <skill>\n    <name>{entry.shown}</name>\n    <description>{entry.description or ''}"
            f"</description>\n    <location>{entry.location}</location>\n  </skill>")


def _name_line(entry: AdEntry) -> str:
    """One line of a list the agent's own fit renders (core/budget/fits.py)."""
    return f"- {entry.shown}: {entry.description or ''}"


def _model_invocable(entry: AdEntry) -> str | None:
    return None if entry.model_invocable else "disable-model-invocation: true: only the user can invoke it"


def _implicit(entry: AdEntry) -> str | None:
    return None if entry.implicit else ("agents/openai.yaml: policy.allow_implicit_invocation is false: "
                                        "Codex lists it not, $name still invokes it")


def _listed_by_copilot(entry: AdEntry) -> str | None:
    return _model_invocable(entry) or _needs_description(entry)


GEMINI_HEADER = ("# Available Agent Skills\n\nYou have access to the following specialized skills. To "
                 "activate a skill and receive its detailed instructions, call the `activate_skill` tool "
                 "with the skill's name.\n\n<available_skills>")


ROCKBOT = Lister(
    id="rockbot", label="RockBot", what="session index (first turn of every session)",
    source="rockbot-skills.md §7.1", render=_rockbot, order=_by_name, exclude=_never,
    header=SESSION_INDEX_HEADER, empty_means_no_message=True)
ROCKBOT_CURRENT = Lister(
    id="rockbot-current", label="RockBot (current)",
    what="session index with resource tags (first turn of every session)",
    source="MarimerLLC/rockbot AgentContextBuilder.cs @ a1d3999, SkillTools.FormatResourceTag @ 150a84c",
    render=_rockbot_tagged, order=_by_name, exclude=_never, header=TAGGED_INDEX_HEADER,
    empty_means_no_message=True)
AGENT_SKILLS = Lister(
    id="agentskills", label="Agent Skills clients", what="<available_skills> block (skills-ref to_prompt)",
    source="formats.md §D.2", render=_agent_skills, order=_load_order, exclude=_needs_description,
    header="<available_skills>", footer="</available_skills>")
PICOBOT = Lister(
    id="picobot", label="PicoBot (assumed)", what="skills index in prompts/SKILLS.md",
    source="formats.md §C (assumed profile)", render=_picobot, order=_by_name,
    exclude=_needs_description, separator="\n\n", assumed=True)
CORTEX = Lister(
    id="cortex", label="CortexPrism", what="Markdown skill list (every reliable skill matched)",
    source="formats.md §B.2–B.4", render=_cortex, order=_cortex_order, exclude=_cortex_reliable)
CARPENTER = Lister(
    id="carpenter", label="carpenter (catalogue)", what="kb/skills/_index.md catalogue (kb_describe)",
    source="formats.md §A (assumed profile)", render=_carpenter, order=_by_name, exclude=_never,
    assumed=True)

# The coding agents (issue 31): the text and the fit of each are core/budget/fits.py's.
CODEX = Lister(
    id="codex", label="Codex",
    what="## Skills list (descriptions shortened to the budget, then skills omitted)",
    source="openai/codex codex-rs/core-skills/src/render.rs @ 0899b7c", render=_name_line,
    order=_load_order, exclude=_implicit)
CLAUDE_CODE = Lister(
    id="claude-code", label="Claude Code",
    what="skill listing for the Skill tool (least-used skills lose their descriptions first)",
    source="code.claude.com/docs/en/skills; the text reverse-engineered (assumed)", render=_name_line,
    order=_load_order, exclude=_model_invocable)
GEMINI = Lister(
    id="gemini-cli", label="Gemini CLI", what="# Available Agent Skills (<available_skills>, no limit)",
    source="google-gemini/gemini-cli packages/core/src/prompts/snippets.ts @ 00408ae", render=_gemini,
    order=_load_order, exclude=_never, header=GEMINI_HEADER, footer="</available_skills>")
COPILOT = Lister(
    id="copilot", label="GitHub Copilot (VS Code)", what="<skills> block (15,000 characters of entries)",
    source="microsoft/vscode computeAutomaticInstructions.ts @ 0155379; the budget from newer code",
    render=_name_line, order=_load_order, exclude=_listed_by_copilot)
HERMES = Lister(
    id="hermes", label="Hermes Agent", what="## Skills (mandatory), by category (descriptions cut at 60)",
    source="NousResearch/hermes-agent agent/prompt_builder.py build_skills_system_prompt",
    render=_name_line, order=_load_order, exclude=_never)

AGENTS: dict[str, Lister] = {a.id: a for a in (ROCKBOT, ROCKBOT_CURRENT, AGENT_SKILLS, PICOBOT, CORTEX,
                                               CARPENTER, CODEX, CLAUDE_CODE, GEMINI, COPILOT, HERMES)}
# The renderer of each listing kind (a profile's ``listing.kind``; core/model/profile.py).
LISTERS: dict[ListingKind, Lister] = {
    ListingKind.ROCKBOT_INDEX: ROCKBOT,
    ListingKind.ROCKBOT_INDEX_TAGGED: ROCKBOT_CURRENT,
    ListingKind.AVAILABLE_SKILLS_XML: AGENT_SKILLS,
    ListingKind.PICOBOT_INDEX: PICOBOT,
    ListingKind.CORTEX_MARKDOWN: CORTEX,
    ListingKind.CARPENTER_CATALOGUE: CARPENTER,
    ListingKind.CODEX: CODEX,
    ListingKind.CLAUDE_CODE: CLAUDE_CODE,
    ListingKind.GEMINI: GEMINI,
    ListingKind.COPILOT: COPILOT,
    ListingKind.HERMES: HERMES,
}


def lister_for(profile: AgentProfile) -> Lister:
    """How the agent of ``profile`` lists its skills."""
    return LISTERS[profile.listing.kind]
