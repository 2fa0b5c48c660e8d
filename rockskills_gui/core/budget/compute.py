"""The budget of one agent profile: its advertisement, sizes, and the skills a limit leaves out."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from rockskills_gui.core.budget.agents import Lister
from rockskills_gui.core.budget.entries import AdEntry
from rockskills_gui.core.budget.fits import FITS, Fitted, Shortened
from rockskills_gui.core.budget.limits import Limits
from rockskills_gui.core.budget.tokens import Tokenizer

REASON_SKILLS = "max_skills"
REASON_CHARS = "max_chars"
REASON_TOKENS = "max_tokens"
REASON_FILTERED = "filtered"


@dataclass(frozen=True)
class Hidden:
    """A skill the agent never sees, and why (``kind``: a limit or ``filtered``)."""

    name: str
    kind: str
    reason: str


@dataclass(frozen=True)
class Budget:
    """What one agent sees of the library. ``text`` is None when no message is sent."""

    profile: Lister
    limits: Limits
    text: str | None
    chars: int
    tokens: int | None
    listed: tuple[str, ...]
    hidden: tuple[Hidden, ...]
    total: int  # skills in the library
    full_chars: int  # the text's size with every listable skill
    full_tokens: int | None
    entry_chars: dict[str, int] = field(default_factory=dict)  # rendered size of each listable skill
    tokenizer: str = ""
    shortened: tuple[Shortened, ...] = ()  # listed with a shorter description (coding agents)
    warning: str = ""  # what the agent itself says about its cut
    cap: str = ""  # the agent's own budget in words ("" : the limits say it)

    @property
    def invisible(self) -> frozenset[str]:
        return frozenset(h.name for h in self.hidden)

    @property
    def cut(self) -> tuple[Hidden, ...]:
        """Skills left out by a limit (not by the agent's own filter)."""
        return tuple(h for h in self.hidden if h.kind != REASON_FILTERED)

    def as_json(self) -> dict[str, object]:
        return {
            "profile": self.profile.id, "label": self.profile.label, "what": self.profile.what,
            "assumed": self.profile.assumed, "limits": self.limits.as_json(),
            "chars": self.chars, "tokens": self.tokens, "tokenizer": self.tokenizer,
            "skills": self.total, "listed": list(self.listed),
            "invisible": [{"name": h.name, "kind": h.kind, "reason": h.reason} for h in self.hidden],
            "full_chars": self.full_chars, "full_tokens": self.full_tokens, "text": self.text,
            "cap": self.cap or None, "warning": self.warning or None,
            "shortened": [{"name": s.name, "kept": s.kept, "full": s.full, "reason": s.reason}
                          for s in self.shortened],
        }


def _largest_fitting(count: int, fits: Callable[[int], bool]) -> int:
    """The largest k in [0, count] with ``fits(k)`` (``fits`` monotone; 0 when nothing fits)."""
    low, high = 0, count
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _sizes(profile: Lister, rendered: Sequence[str]) -> list[int]:
    """``len(profile.text(rendered[:k]))`` for every k, without building the texts."""
    ends = [p for p in (profile.header, profile.footer) if p]
    fixed = sum(len(p) for p in ends)
    step = len(profile.separator)
    sizes = []
    for k, body in enumerate(accumulate((len(r) for r in rendered), initial=0)):
        parts = len(ends) + k
        sizes.append(fixed + body + step * (parts - 1) if parts else 0)
    return sizes


def compute_budget(entries: Sequence[AdEntry], profile: Lister, limits: Limits,
                   tokenizer: Tokenizer | None = None) -> Budget:
    """The profile's advertisement of ``entries`` under ``limits``.

    The token limit is checked with real counts of the text (a binary search over how many
    entries are kept); without a tokenizer it is ignored and ``tokens`` is None.
    """
    ordered = profile.order(list(entries))
    hidden: list[Hidden] = []
    listable: list[AdEntry] = []
    for entry in ordered:
        off = entry.off_for(profile.id)
        why = f"switched off in {off}" if off else profile.exclude(entry)
        if why is None:
            listable.append(entry)
        else:
            hidden.append(Hidden(entry.name, REASON_FILTERED, why))
    fit = FITS.get(profile.id)
    if fit is not None:
        return _fitted(ordered, listable, hidden, profile, limits, tokenizer, fit)
    rendered = [profile.render(e) for e in listable]
    n = len(rendered)
    k_skills = n if limits.max_skills is None else min(n, limits.max_skills)
    k_chars = n
    if limits.max_chars is not None:
        k_chars = max(0, bisect_right(_sizes(profile, rendered), limits.max_chars) - 1)
    kept = min(k_skills, k_chars)
    if tokenizer is not None and limits.max_tokens is not None:
        most = limits.max_tokens
        kept = _largest_fitting(
            kept, lambda m: tokenizer.count(profile.text(rendered[:m])) <= most)
    for index, entry in enumerate(listable[kept:], start=kept):
        if index >= k_skills:
            kind, why = REASON_SKILLS, f"beyond the first {limits.max_skills} skills listed"
        elif index >= k_chars:
            kind, why = REASON_CHARS, f"past the {limits.max_chars}-character limit"
        else:
            kind, why = REASON_TOKENS, f"past the {limits.max_tokens}-token limit"
        hidden.append(Hidden(entry.name, kind, why))
    silent = not ordered and profile.empty_means_no_message
    text = None if silent else profile.text(rendered[:kept])
    full = None if silent else profile.text(rendered)
    count = tokenizer.count if tokenizer is not None else None
    return Budget(
        profile=profile, limits=limits, text=text, chars=len(text or ""),
        tokens=count(text or "") if count else None,
        listed=tuple(e.name for e in listable[:kept]), hidden=tuple(hidden), total=len(ordered),
        full_chars=len(full or ""), full_tokens=count(full or "") if count else None,
        entry_chars={e.name: len(r) for e, r in zip(listable, rendered, strict=True)},
        tokenizer=tokenizer.name if tokenizer is not None else "")


def _fitted(ordered: list[AdEntry], listable: list[AdEntry], hidden: list[Hidden], profile: Lister,
            limits: Limits, tokenizer: Tokenizer | None,
            fit: Callable[[Sequence[AdEntry], Limits], Fitted]) -> Budget:
    """The budget of an agent that fits its own listing (core/budget/fits.py); ``max_skills``,
    the user's what-if, keeps the first skills before the agent's fit."""
    kept = listable if limits.max_skills is None else listable[:limits.max_skills]
    hidden += [Hidden(e.name, REASON_SKILLS, f"beyond the first {limits.max_skills} skills listed")
               for e in listable[len(kept):]]
    fitted = fit(kept, limits)
    hidden += [Hidden(c.name, c.kind, c.reason) for c in fitted.cut]
    count = tokenizer.count if tokenizer is not None else None
    return Budget(
        profile=profile, limits=limits, text=fitted.text, chars=len(fitted.text),
        tokens=count(fitted.text) if count else None, listed=fitted.listed, hidden=tuple(hidden),
        total=len(ordered), full_chars=len(fitted.full_text),
        full_tokens=count(fitted.full_text) if count else None, entry_chars=fitted.entry_chars,
        tokenizer=tokenizer.name if tokenizer is not None else "", shortened=fitted.shortened,
        warning=fitted.warning, cap=fitted.cap)
