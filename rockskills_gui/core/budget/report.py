"""The budgets of an open library: the limits that apply to it, and a plain-text report."""

from __future__ import annotations

from collections.abc import Iterable

from rockskills_gui.core.budget.agents import AGENTS, Lister, lister_for
from rockskills_gui.core.budget.compute import Budget, compute_budget
from rockskills_gui.core.budget.entries import AdEntry, entries_of
from rockskills_gui.core.budget.limits import Limits, LimitsStore
from rockskills_gui.core.budget.suggest import Suggestion, suggest
from rockskills_gui.core.budget.tokens import Tokenizer
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.profiles import PROFILES


def limits_for(agent_id: str, store: LimitsStore, library: Library | None = None) -> Limits:
    """The user's limits for ``agent_id``; without any, the opened library's own listing limits
    (a SKILL.md profile's ``max_index_chars`` / ``max_listed_skills``, Preferences ▸ Skill
    formats) when it is that agent's and they are set, else the spec's defaults."""
    default = store.limits(agent_id)
    if not store.is_default(agent_id) or library is None or lister_for(library.profile).id != agent_id:
        return default
    listing = library.profile.listing
    return Limits(
        max_chars=listing.max_chars if listing.max_chars is not None else default.max_chars,
        max_skills=listing.max_entries if listing.max_entries is not None else default.max_skills,
        max_tokens=default.max_tokens)


def agents_for(library: Library, wanted: str | None = None) -> list[Lister]:
    """``wanted`` ("all", an agent or profile id, or None: the library's own agent first, then
    the others)."""
    own = lister_for(library.profile)
    if wanted == "all" or wanted is None:
        return [own, *(a for a in AGENTS.values() if a is not own)] if wanted == "all" else [own]
    if wanted in AGENTS:
        return [AGENTS[wanted]]
    if wanted in PROFILES:
        return [lister_for(PROFILES[wanted])]
    known = sorted({*AGENTS, *PROFILES})
    raise ValueError(f"unknown agent profile {wanted!r}: use one of {', '.join(known)} or all")


def budgets(library: Library, agents: Iterable[Lister], store: LimitsStore,
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
             f"{_limit(budget.limits.max_skills, 'skills')}, {_limit(budget.limits.max_tokens, 'tokens')}"
             + (f", context window {budget.limits.context_window:,} tokens"
                if budget.limits.context_window else "")]
    if budget.cap:
        lines.append(f"  {p.label}'s budget: {budget.cap}")
    if budget.warning:
        lines.append(f"  warning: {budget.warning}")
    if budget.shortened:
        lines.append(f"  shortened ({len(budget.shortened)}):")
        lines += [f"    {s.name}: {s.reason}" for s in budget.shortened]
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


def report(library: Library, agents: Iterable[Lister], store: LimitsStore,
           tokenizer: Tokenizer | None, overrides: Limits | None = None
           ) -> list[tuple[Budget, list[Suggestion]]]:
    """Every agent's budget with its suggestions."""
    entries, found = budgets(library, agents, store, tokenizer, overrides)
    return [(b, suggest(entries, b.profile, b.limits, tokenizer, b)) for b in found]
