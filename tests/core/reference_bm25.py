"""A direct, naive port of RockBot's Bm25Ranker + FileSkillStore.SearchAsync (spec §8/§8.1).

Deliberately independent of ``rockskills_gui.core``: its own lower-casing, tokenizer, document
text and phrase counting, and it re-tokenises every document for every query, exactly like the
C# code does. Used to cross-check the inverted index and as the benchmark's slow baseline.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import pairwise

K1 = 1.5
B = 0.75
PHRASE_WEIGHT = 2.0

_SPLIT = re.compile(r"[^a-z0-9]+")
# .NET char.IsWhiteSpace
_WS = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
          "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def lower_invariant(text: str) -> str:
    out = []
    for ch in text:
        low = ch.lower()
        out.append(low if len(low) == 1 else ch)
    return "".join(out)


def tokenize(text: str) -> list[str]:
    return [t for t in _SPLIT.split(lower_invariant(text)) if len(t) >= 3]


def document_text(name: str, summary: str | None) -> str:
    part = name.replace("/", " ").replace("-", " ")
    if summary is None or all(c in _WS for c in summary):
        return part
    return part + " " + summary


def upper_ordinal(text: str) -> str:
    """What .NET OrdinalIgnoreCase compares: simple upper case per UTF-16 unit; U+0131 and
    U+017F keep themselves."""
    if text.isascii():
        return text.upper()
    out = []
    for ch in text:
        up = ch.upper()
        out.append(ch if ch in "\u0131\u017f" or len(up) != 1 else up)
    return "".join(out)


def count_occurrences(text: str, phrase: str) -> int:
    """``IndexOf(phrase, i, OrdinalIgnoreCase)`` loop, advancing past each match."""
    return _count_upper(upper_ordinal(text), upper_ordinal(phrase))


def _count_upper(hay: str, needle: str) -> int:
    count, i = 0, hay.find(needle)
    while i >= 0:
        count += 1
        i = hay.find(needle, i + len(needle))
    return count


def search(documents: Sequence[tuple[str, str]], query: str,
           top: int | None = None) -> list[tuple[str, float]]:
    """``documents`` = (key, document text) in candidate order; returns (key, score)."""
    tokens = tokenize(query)
    terms = list(dict.fromkeys(tokens))
    phrases = list(dict.fromkeys(f"{a} {b}" for a, b in pairwise(tokens)))
    if not terms or not documents:
        return []
    doc_tokens = [tokenize(text) for _, text in documents]
    n = len(documents)
    avgdl = sum(len(t) for t in doc_tokens) / n
    if avgdl == 0:
        avgdl = 1.0
    hays = [upper_ordinal(text) for _, text in documents]
    needles = {p: upper_ordinal(p) for p in phrases}
    term_df = {t: sum(1 for toks in doc_tokens if t in toks) for t in terms}
    phrase_df = {p: sum(1 for hay in hays if _count_upper(hay, needles[p]) > 0) for p in phrases}
    scored: list[tuple[str, float]] = []
    for (key, _), toks, hay in zip(documents, doc_tokens, hays, strict=True):
        length = len(toks)
        score = 0.0
        for t in terms:
            df = term_df[t]
            f = toks.count(t)
            if df > 0 and f > 0:
                idf = math.log((n - df + 0.5) / (df + 0.5) + 1.0)
                tf = f * (K1 + 1) / (f + K1 * (1 - B + B * length / avgdl))
                score += idf * tf
        for p in phrases:
            df = phrase_df[p]
            if df == 0:
                continue
            f = _count_upper(hay, needles[p])
            if f > 0:
                idf = math.log((n - df + 0.5) / (df + 0.5) + 1.0)
                tf = f * (K1 + 1) / (f + K1 * (1 - B + B * length / avgdl))
                score += PHRASE_WEIGHT * idf * tf
        if score != 0:
            scored.append((key, score))
    scored.sort(key=lambda item: -item[1])  # stable: ties keep candidate order
    return scored if top is None else scored[:top]
