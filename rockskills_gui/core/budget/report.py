"""The budgets of an open library: the limits that apply to it, and a plain-text report."""

from __future__ import annotations

from collections.abc import Iterable

from rockskills_gui.core.budget.agents import AGENTS, AgentProfile, native_agent
from rockskills_gui.core.budget.compute import Budget, compute_budget
from rockskills_gui.core.budget.entries import AdEntry, entries_of
from rockskills_gui.core.budget.limits import Limits, LimitsStore
from rockskills_gui.core.budget.suggest import Suggestion, suggest
from rockskills_gui.core.budget.tokens import Tokenizer
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary

AGENT_OF_PROFILE = {"cortex-fs": "cortex"}  # a SKILL.md profile id -> its agent id


def limits_for(agent_id: str, store: LimitsStore,
               library: RockBotLibrary | SkillMdLibrary | None = None) -> Limits:
    """The user's limits for ``agent_id``; without any, the opened SKILL.md profile's own
    ``max_index_chars`` / ``max_listed_skills`` (Preferences ▸ Skill formats) when set, else the
    spec's defaults."""
    if not store.is_default(agent_id) or not isinstance(library, SkillMdLibrary):
        return store.limits(agent_id)
    profile = library.profile
    default = store.limits(agent_id)
    if AGENT_OF_PROFILE.get(profile.id, profile.id) != agent_id:
        return default
    return Limits(
        max_chars=profile.max_index_chars if profile.max_index_chars is not None else default.max_chars,
        max_skills=(profile.max_listed_skills if profile.max_listed_skills is not None
                    else default.max_skills),
        max_tokens=default.max_tokens)


def agents_for(library: RockBotLibrary | SkillMdLibrary, wanted: str | None = None) -> list[AgentProfile]:
    """``wanted`` ("all", an agent id, or None: the library's own agent first, then the others)."""
    own = native_agent(library.format if isinstance(library, SkillMdLibrary) else "rockbot")
    if wanted == "all" or wanted is None:
        return [own, *(a for a in AGENTS.values() if a is not own)] if wanted == "all" else [own]
    if wanted not in AGENTS:
        raise ValueError(f"unknown agent profile {wanted!r}: use one of {', '.join(AGENTS)} or all")
    return [AGENTS[wanted]]


def budgets(library: RockBotLibrary | SkillMdLibrary, agents: Iterable[AgentProfile], store: LimitsStore,
            tokenizer: Tokenizer | None,
            overrides: Limits | None = None) -> tuple[list[AdEntry], list[Budget]]:
    """The entries of ``library`` and each agent's budget (``overrides`` replace the limits)."""
    entries = entries_of(library)
    found = [compute_budget(entries, agent, overrides or limits_for(agent.id, store, library), tokenizer)
             for agent in agents]
    return entries, found


def _limit(value: int | None, unit: str) -> str:
    return "no limit" if value is None else f"{value:,} {unit}"


def text_report(budget: Budget, suggestions: list[Suggestion], show_text: bool = False) -> str:
    """A few readable lines: sizes, limits, invisible skills, suggestions."""
    p = budget.profile
    tokens = "?" if budget.tokens is None else f"{budget.tokens:,}"
    lines = [f"{p.label}: {p.what}{' (assumed profile)' if p.assumed else ''}",
             f"  {len(budget.listed)} of {budget.total} skills listed, {budget.chars:,} characters, "
             f"{tokens} tokens ({budget.tokenizer or 'no tokenizer'})",
             f"  limits: {_limit(budget.limits.max_chars, 'characters')}, "
             f"{_limit(budget.limits.max_skills, 'skills')}, {_limit(budget.limits.max_tokens, 'tokens')}"]
    if budget.hidden:
        lines.append(f"  invisible to this agent ({len(budget.hidden)}):")
        lines += [f"    {h.name}: {h.reason}" for h in budget.hidden]
    else:
        lines.append("  every skill is visible")
    if suggestions:
        lines.append("  suggestions:")
        for s in suggestions:
            lines.append(f"    - {s.title} (makes {s.reveals} visible): {s.detail}")
    if show_text:
        lines += ["", budget.text if budget.text is not None else "(no message: an empty library)", ""]
    return "\n".join(lines)


def report(library: RockBotLibrary | SkillMdLibrary, agents: Iterable[AgentProfile], store: LimitsStore,
           tokenizer: Tokenizer | None, overrides: Limits | None = None
           ) -> list[tuple[Budget, list[Suggestion]]]:
    """Every agent's budget with its suggestions."""
    entries, found = budgets(library, agents, store, tokenizer, overrides)
    return [(b, suggest(entries, b.profile, b.limits, tokenizer, b)) for b in found]
