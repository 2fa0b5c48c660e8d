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
    return "\n".join(("<skill>", "<name>", html.escape(entry.name), "</name>", "<description>",
                      html.escape(entry.description or ""), "</description>", "<location>",
                      html.escape(entry.location), "</location>", "</skill>"))


def _picobot(entry: AdEntry) -> str:
    return f"### {entry.name}\n- **Description**: {entry.description or ''}\n- **Path**: `{entry.location}`"


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

AGENTS: dict[str, Lister] = {a.id: a for a in (ROCKBOT, ROCKBOT_CURRENT, AGENT_SKILLS, PICOBOT, CORTEX,
                                                CARPENTER)}
# The renderer of each listing kind (a profile's ``listing.kind``; core/model/profile.py).
LISTERS: dict[ListingKind, Lister] = {
    ListingKind.ROCKBOT_INDEX: ROCKBOT,
    ListingKind.ROCKBOT_INDEX_TAGGED: ROCKBOT_CURRENT,
    ListingKind.AVAILABLE_SKILLS_XML: AGENT_SKILLS,
    ListingKind.PICOBOT_INDEX: PICOBOT,
    ListingKind.CORTEX_MARKDOWN: CORTEX,
    ListingKind.CARPENTER_CATALOGUE: CARPENTER,
}


def lister_for(profile: AgentProfile) -> Lister:
    """How the agent of ``profile`` lists its skills."""
    return LISTERS[profile.listing.kind]
