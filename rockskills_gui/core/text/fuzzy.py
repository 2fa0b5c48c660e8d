"""Fuzzy matching of skill names for "go to skill": subsequence matches, best first."""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass

_BOUNDARY = "/-_ ."


@dataclass(frozen=True, order=True)
class FuzzyMatch:
    """``name`` matched with ``score`` (higher is better); ``positions`` of the matched characters."""

    score: int
    name: str
    positions: tuple[int, ...] = ()


def fuzzy_score(query: str, name: str) -> FuzzyMatch | None:
    """Score ``name`` for ``query`` (case-insensitive subsequence; a space in the query matches
    any gap, so its words may stand for parts of the name), or None when it does not match.

    Exact and prefix matches rank first, then substrings (best at a segment start, and in the
    last ``/`` segment), then scattered subsequences, which earn points for characters at
    segment starts and in runs and lose some for gaps. Shorter names win ties.
    """
    q = query.strip().casefold()
    n = name.casefold()
    if not q:
        return FuzzyMatch(0, name)
    last_segment = n.rfind("/") + 1
    if n == q:
        return FuzzyMatch(10_000 - len(n), name, tuple(range(len(n))))
    index = n.find(q)
    if index >= 0:
        score = 5_000 - len(n)
        if index == 0 or n[index - 1] in _BOUNDARY:
            score += 1_000
        if index >= last_segment:
            score += 500
        if n.startswith(q):
            score += 500
        return FuzzyMatch(score, name, tuple(range(index, index + len(q))))
    positions: list[int] = []
    start = 0
    for char in q:
        if char.isspace():  # a space stands for any gap ("lit srch": literature-search)
            continue
        # prefer this character at a segment start if there is one before the next plain hit
        found = n.find(char, start)
        if found < 0:
            return None
        boundary = _next_boundary_hit(n, char, start)
        if boundary is not None and boundary - found < 8:
            found = boundary
        positions.append(found)
        start = found + 1
    score = 1_000 - len(n)
    previous = -2
    for pos in positions:
        if pos == 0 or n[pos - 1] in _BOUNDARY:
            score += 40
        if pos == previous + 1:
            score += 25
        else:
            score -= min(pos - previous - 1, 10) if previous >= 0 else 0
        if pos >= last_segment:
            score += 5
        previous = pos
    return FuzzyMatch(score, name, tuple(positions))


def _next_boundary_hit(text: str, char: str, start: int) -> int | None:
    for pos in range(start, len(text)):
        if text[pos] == char and (pos == 0 or text[pos - 1] in _BOUNDARY):
            return pos
    return None


def fuzzy_filter(query: str, names: Iterable[str], limit: int = 100) -> list[FuzzyMatch]:
    """The ``limit`` best matches of ``query`` among ``names``, best first.

    A regular expression pre-filter keeps this fast on large libraries (100,000 names).
    """
    q = query.strip()
    if not q:
        return [FuzzyMatch(0, name) for name in list(names)[:limit]]
    pattern = re.compile(".*?".join(re.escape(c) for c in q if not c.isspace()), re.IGNORECASE)
    scored = (fuzzy_score(q, name) for name in names if pattern.search(name))
    best = heapq.nlargest(limit, (m for m in scored if m is not None),
                          key=lambda m: (m.score, _reverse(m.name)))
    return best


def _reverse(name: str) -> tuple[int, ...]:
    """A key that sorts names alphabetically when used with ``nlargest``."""
    return tuple(-ord(c) for c in name.casefold())
