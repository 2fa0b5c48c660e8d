"""Merge coverage: which specifics of a merge's (or a rewrite's) sources its new text dropped.

RockBot checks this for memory merges (MarimerLLC/rockbot ``src/RockBot.Host/MergeCoverage.cs``
@ 099de58, PR #506; tuned in #550/#551): names, numbers and dates of a source must appear in the
merged text, compared case-insensitively as substrings (so "2026-09-10" covers "2026"), because a
plausible merge that quietly drops a name reads fine and nothing else flags it. Here the same test
runs on skill merges, with the categories a skill carries: **names** (capitalised words that the
sources and the new text never use in lower case: #550's corpus-evidence rule, so a word that
merely starts a sentence is not one), **acronyms**, **numbers** (two characters or more, as
RockBot: dates, versions, ports), **tools** (code spans, ``snake_case`` and ``camelCase``
identifiers, quoted values: tool and command names) and **URLs** (web addresses and bare
domains). Each value is reported once, under the first of URLs, tools, acronyms, numbers, names
that finds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

CATEGORIES = ("URLs", "tools", "acronyms", "numbers", "names")
MAX_LISTED = 2000  # values a finding names (a hostile merge of huge sources could drop millions)

_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`]+")
_ACRONYM = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*[A-Z](?![A-Za-z0-9_])")
_NUMBER = re.compile(r"\d(?:[.,:/-]?\d)+")
_WORD = re.compile(r"[^\W\d_][^\W\d_'’]{2,}")
_POSSESSIVE = re.compile(r"['’]s?$")
# Words that are capitalised only because they open a sentence, a heading or a list item in a
# skill; everything else capitalised and never written in lower case counts as a name.
COMMON_WORDS = frozenset("""
a about above after again against all also always an and another any are as at be because been
before being below between both but by can could did do does doing done down during each either
else every example examples first for from further get gets go has have having here how however if
in include includes including instead into is it its just keep last later less let like make many
may might more most much must never new next no nor not note notes now of off often on once one only
or other otherwise our out over own per please prefer rather read return returns run same see set
should since so some step steps such than that the their them then there these they this those
through to too two three under until up upon use used uses using very via was we were what when
where whether which while who why will with within without would write yes yet you your
overview usage purpose goal goals input inputs output outputs result results summary description
instructions guidelines rules tips workflow process procedure requirements prerequisites options
important warning caution check create add remove update open close start stop find follow ask
tell give show list choose pick select copy paste save load send call build test try verify
""".split())


_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_SNAKE = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![A-Za-z0-9_])")
_CAMEL = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?:[A-Z][a-z0-9]*)+(?![A-Za-z0-9_])")
_QUOTED = re.compile(r"(?<![A-Za-z0-9])'([^'\s]{1,60})'(?![A-Za-z0-9])")
_DOMAIN = re.compile(r"(?<![A-Za-z0-9.-])(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|app|gov|edu)"
                     r"(?:/[A-Za-z0-9_./-]*[A-Za-z0-9_])?")
_CAMEL_HINT = re.compile(r"[a-z][A-Z]")
_TLDS = tuple(f".{tld}" for tld in ("com", "org", "net", "io", "dev", "ai", "app", "gov", "edu"))
_SPECIFIC_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...] = (
    (_CODE_SPAN, lambda text: "`" in text),
    (_SNAKE, lambda text: "_" in text),
    (_CAMEL, lambda text: _CAMEL_HINT.search(text) is not None),
    (_QUOTED, lambda text: "'" in text),
    (_DOMAIN, lambda text: any(tld in text for tld in _TLDS)),
)


def specifics(text: str) -> list[str]:
    """Tool names and identifiers a merge must keep: code spans, snake_case and camelCase
    identifiers, single-quoted values and web addresses (first-seen order, unique)."""
    found: dict[str, None] = {}
    for pattern, could_match in _SPECIFIC_PATTERNS:
        if not could_match(text):
            continue  # a cheap necessary condition: the lookbehind patterns are slow on long texts
        for match in pattern.finditer(text):
            value = match.group(1) if pattern.groups else match.group(0)
            found.setdefault(value.strip())
    return [v for v in found if v]


@dataclass(frozen=True)
class Coverage:
    """The specifics of the sources missing from the new text, by category (CATEGORIES order)."""

    missing: dict[str, list[str]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.missing.values())

    def values(self) -> list[str]:
        return [v for category in CATEGORIES for v in self.missing.get(category, [])]

    def message(self) -> str:
        """"3 specifics of the sources are missing from the merged text — tools: 'a', 'b'; …"."""
        total = self.total
        parts: list[str] = []
        listed = 0
        for category in CATEGORIES:
            values = self.missing.get(category, [])
            if not values:
                continue
            room = max(0, MAX_LISTED - listed)
            shown = ", ".join(f"'{v}'" for v in values[:room])
            more = len(values) - min(len(values), room)
            listed += min(len(values), room)
            parts.append(f"{category}: {shown}" + (f" … and {more:,} more" if more else ""))
        noun = "specific" if total == 1 else "specifics"
        return f"{total:,} {noun} of the source(s) missing from the new text — " + "; ".join(parts)


def _lower_words(texts: Iterable[str]) -> set[str]:
    return {m.group(0) for text in texts for m in _WORD.finditer(text) if m.group(0).islower()}


def extract(text: str, ordinary: set[str]) -> dict[str, list[str]]:
    """The specifics of ``text`` by category, first-seen order; ``ordinary``: words written in
    lower case somewhere in the texts compared (never names)."""
    found: dict[str, dict[str, None]] = {c: {} for c in CATEGORIES}
    seen: set[str] = set()

    def put(category: str, value: str) -> None:
        value = value.strip().rstrip(".,;:!?")
        key = value.casefold()
        if value and key not in seen:
            seen.add(key)
            found[category][value] = None

    for match in _URL.finditer(text):
        put("URLs", match.group(0))
    for value in specifics(text):
        put("URLs" if "." in value and "/" in value and " " not in value else "tools", value)
    for match in _ACRONYM.finditer(text):
        if match.group(0).casefold() not in COMMON_WORDS:
            put("acronyms", match.group(0))
    for match in _NUMBER.finditer(text):
        put("numbers", match.group(0))
    for match in _WORD.finditer(text):
        word = _POSSESSIVE.sub("", match.group(0))
        lower = word.lower()
        if len(word) > 2 and word[0].isupper() and not word.isupper() and lower not in COMMON_WORDS \
                and lower not in ordinary and lower.removesuffix("s") not in COMMON_WORDS:
            put("names", word)
    return {c: list(v) for c, v in found.items()}


def coverage(sources: Iterable[str], merged: str) -> Coverage:
    """What of ``sources`` (their texts) ``merged`` no longer contains (case-insensitive
    substrings, as RockBot's FindMissingSpecifics)."""
    texts = [t for t in sources if t]
    if not texts:
        return Coverage()
    ordinary = _lower_words([*texts, merged])
    haystack = merged.casefold()
    missing: dict[str, dict[str, None]] = {c: {} for c in CATEGORIES}
    reported: set[str] = set()
    for text in texts:
        for category, values in extract(text, ordinary).items():
            for value in values:
                key = value.casefold()
                if key in reported or key in haystack:
                    continue
                reported.add(key)
                missing[category][value] = None
    return Coverage({c: list(v) for c, v in missing.items() if v})
