"""Suggestions for skills a limit hides, and a what-if that previews any of them in memory.

- Shorten: the longest cap on every description that lets all listable skills fit the character
  and token limits (found by bisection over real sizes); the skills above the cap are named.
- Prefix guide: a name-prefix cluster (``research/…`` or ``pdf-…``) replaced in the list by one
  guide entry (RockBot's ``{prefix}/guide`` convention), the members' texts moving into it; this is
  what frees room when the number of listed skills is the limit.

Nothing here writes: :func:`what_if` computes the budget of a changed copy of the entries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rockskills_gui.core.budget.agents import Lister
from rockskills_gui.core.budget.compute import (
    REASON_CHARS,
    REASON_SKILLS,
    REASON_TOKENS,
    Budget,
    compute_budget,
)
from rockskills_gui.core.budget.entries import AdEntry
from rockskills_gui.core.budget.limits import Limits
from rockskills_gui.core.budget.tokens import Tokenizer
from rockskills_gui.core.model.names import fold

MIN_USEFUL_CAP = 20  # a shorter description no longer says what and when
MAX_GUIDES = 8


@dataclass(frozen=True)
class Shorten:
    """Cut these descriptions to at most ``cap`` characters."""

    names: tuple[str, ...]
    cap: int


@dataclass(frozen=True)
class PrefixGuide:
    """List one guide entry instead of the cluster's members."""

    prefix: str
    members: tuple[str, ...]
    guide: str
    summary: str


Change = Shorten | PrefixGuide


@dataclass(frozen=True)
class Suggestion:
    """One change to consider, in words, with its predicted effect."""

    kind: str  # "shorten" | "guide"
    title: str
    detail: str
    change: Change
    reveals: int  # hidden skills it makes visible on its own


@dataclass(frozen=True)
class WhatIf:
    """The budget before and after some changes (nothing is written)."""

    before: Budget
    after: Budget

    @property
    def revealed(self) -> tuple[str, ...]:
        """Skills hidden before that are listed after."""
        listed = {fold(n) for n in self.after.listed}
        return tuple(h.name for h in self.before.hidden if fold(h.name) in listed)

    @property
    def newly_hidden(self) -> tuple[str, ...]:
        before = {fold(n) for n in self.before.listed}
        return tuple(h.name for h in self.after.hidden if fold(h.name) in before)


def shorten_text(text: str, cap: int) -> str:
    """``text`` cut to at most ``cap`` characters, at a word boundary when one is near."""
    if len(text) <= cap:
        return text
    cut = text[:cap]
    space = cut.rfind(" ")
    if space >= cap * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—")


def apply_changes(entries: Sequence[AdEntry], changes: Sequence[Change]) -> list[AdEntry]:
    """A changed copy of ``entries`` (a guide takes its first member's place in load order)."""
    result = list(entries)
    for change in changes:
        if isinstance(change, Shorten):
            names = {fold(n) for n in change.names}
            result = [e.with_description(shorten_text(e.description or "", change.cap))
                      if fold(e.name) in names and e.description else e for e in result]
            continue
        members = {fold(n) for n in change.members}
        kept: list[AdEntry] = []
        placed = any(fold(e.name) == fold(change.guide) for e in result)
        for entry in result:
            if fold(entry.name) == fold(change.guide):
                kept.append(entry.with_description(change.summary))
            elif fold(entry.name) in members:
                if not placed:
                    kept.append(AdEntry(change.guide, change.summary,
                                        entry.location.replace(entry.name, change.guide)))
                    placed = True
            else:
                kept.append(entry)
        result = kept
    return result


def what_if(entries: Sequence[AdEntry], profile: Lister, limits: Limits,
            changes: Sequence[Change], tokenizer: Tokenizer | None = None) -> WhatIf:
    """The budget now and with ``changes`` applied to a copy."""
    before = compute_budget(entries, profile, limits, tokenizer)
    after = compute_budget(apply_changes(entries, changes), profile, limits, tokenizer)
    return WhatIf(before, after)


# ---------------------------------------------------------------- suggestions


def _prefix(name: str) -> tuple[str, str] | None:
    """(prefix, separator) of a clustered name: ``a/b`` -> ``a``, ``pdf-forms`` -> ``pdf``."""
    for sep in ("/", "-"):
        head, found, rest = name.partition(sep)
        if found and head and rest:
            return head, sep
    return None


def _shorten(entries: Sequence[AdEntry], profile: Lister, limits: Limits,
             budget: Budget, tokenizer: Tokenizer | None) -> Suggestion | None:
    size_cut = [h for h in budget.cut if h.kind in (REASON_CHARS, REASON_TOKENS)]
    if not size_cut or any(h.kind == REASON_SKILLS for h in budget.cut):
        return None
    longest = max((len(e.description or "") for e in entries), default=0)
    wanted = len(budget.listed) + len(budget.cut)

    def fits(cap: int) -> bool:
        names = tuple(e.name for e in entries)
        after = compute_budget(apply_changes(entries, [Shorten(names, cap)]), profile, limits, tokenizer)
        return len(after.listed) >= wanted

    if not fits(0):
        return None
    low, high = 0, longest
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fits(mid) else (low, mid - 1)
    if low < MIN_USEFUL_CAP:
        return None
    names = tuple(e.name for e in entries if len(e.description or "") > low)
    change = Shorten(names, low)
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return Suggestion(
        "shorten", f"Shorten {len(names)} description(s) to {low} characters",
        f"Every skill fits when no description is longer than {low} characters: {shown}.",
        change, len(size_cut))


def _entries(count: int) -> str:
    return f"{count} list {'entry' if count == 1 else 'entries'}"


def _guides(entries: Sequence[AdEntry], budget: Budget) -> list[Suggestion]:
    clusters: dict[tuple[str, str], list[str]] = defaultdict(list)
    for entry in entries:
        found = _prefix(entry.name)
        if found is not None:
            clusters[(found[0].casefold(), found[1])].append(entry.name)
    hidden = {fold(h.name) for h in budget.cut}
    sizes = budget.entry_chars
    found_suggestions: list[tuple[int, Suggestion]] = []
    for (prefix, sep), names in clusters.items():
        guide = f"{names[0].split(sep, 1)[0]}{sep}guide"
        members = tuple(n for n in names if fold(n) != fold(guide))
        if len(members) < 2:
            continue
        summary = f"Which {prefix}{sep} skill fits a request ({len(members)} skills)"
        change = PrefixGuide(prefix, members, guide, summary)
        saved = sum(sizes.get(n, 0) for n in members) - len(summary) - len(guide)
        shown = ", ".join(members[:6]) + (f" and {len(members) - 6} more" if len(members) > 6 else "")
        hides = sum(1 for n in members if fold(n) in hidden)
        detail = (f"List '{guide}' instead of {len(members)} skills ({shown}); their descriptions "
                  f"move into the guide. Saves {_entries(len(members) - 1)} and about "
                  f"{max(saved, 0)} characters.")
        if hides:
            detail += f" {hides} of them are hidden now."
        found_suggestions.append((len(members) * 10_000 + saved, Suggestion(
            "guide", f"Move {len(members)} '{prefix}{sep}' skills into a prefix guide", detail,
            change, 0)))
    found_suggestions.sort(key=lambda pair: -pair[0])
    return [s for _, s in found_suggestions[:MAX_GUIDES]]


def suggest(entries: Sequence[AdEntry], profile: Lister, limits: Limits,
            tokenizer: Tokenizer | None = None, budget: Budget | None = None) -> list[Suggestion]:
    """What to change so that the skills a limit hides become visible (empty when none is)."""
    budget = budget or compute_budget(entries, profile, limits, tokenizer)
    if not budget.cut:
        return []
    found: list[Suggestion] = []
    shorten = _shorten(entries, profile, limits, budget, tokenizer)
    if shorten is not None:
        found.append(shorten)
    for guide in _guides(entries, budget):
        effect = what_if(entries, profile, limits, [guide.change], tokenizer)
        if not effect.revealed:
            continue
        found.append(Suggestion(guide.kind, guide.title, guide.detail, guide.change,
                                len(effect.revealed)))
    return found
