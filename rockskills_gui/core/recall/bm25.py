"""RockBot's BM25 text rules and scalar formulas, exactly as Bm25Ranker (rockbot-skills.md §8/§8.1).

Everything that decides a score lives here once: the document text of a skill, the .NET
``ToLowerInvariant`` tokenizer, query terms and phrases, the ASCII-only fold used for phrase
matching, and the idf / tf formulas in RockBot's evaluation order (so Python doubles are
bit-identical to .NET's). The inverted index (``bm25_index``) and the tests' naive port both
follow these definitions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import pairwise

from rockskills_gui.core.model.names import is_null_or_whitespace

K1 = 1.5
B = 0.75
PHRASE_WEIGHT = 2.0
MIN_TOKEN_LEN = 3

# Tokens are runs of [a-z0-9] after ToLowerInvariant; runs shorter than 3 are dropped. Matching
# `{3,}` directly is equivalent: the greedy match at a run's start always takes the whole run.
_TOKEN_RE = re.compile(r"[a-z0-9]{3,}")

# Only two non-ASCII characters have a simple lower case in [a-z0-9]: U+212A KELVIN SIGN -> 'k'
# and U+0130 (whose Python lower() is two characters, so .NET keeps it: a separator). For token
# extraction it is therefore exact to fold A-Z and U+212A and leave everything else alone.
_TOKEN_FOLD = {**{c: c + 32 for c in range(0x41, 0x5B)}, 0x212A: ord("k")}
# Phrase matching folds ASCII letters only (.NET OrdinalIgnoreCase never maps a non-ASCII
# character onto [a-z0-9 ]; Python's lower() would wrongly turn the Kelvin sign into 'k').
_ASCII_FOLD = {c: c + 32 for c in range(0x41, 0x5B)}

_lower_cache: dict[str, str] = {}


def _lower_char(ch: str) -> str:
    cached = _lower_cache.get(ch)
    if cached is None:
        low = ch.lower()
        cached = low if len(low) == 1 else ch  # U+0130 -> itself, as .NET's invariant culture
        _lower_cache[ch] = cached
    return cached


def to_lower_invariant(text: str) -> str:
    """.NET ``ToLowerInvariant``: a per-character simple lower-case mapping.

    Character by character, so Python's context-dependent final-sigma rule never applies; a
    character whose lower case would be several characters (U+0130) stays unchanged.
    """
    if text.isascii():
        return text.lower()
    return "".join(_lower_char(c) for c in text)


def tokenize(text: str) -> list[str]:
    """Bm25Ranker's tokens: ToLowerInvariant, split on ``[^a-z0-9]+``, keep length >= 3."""
    lowered = text.lower() if text.isascii() else text.translate(_TOKEN_FOLD)
    return _TOKEN_RE.findall(lowered)


def fold_ascii(text: str) -> str:
    """Fold ``A``-``Z`` to ``a``-``z`` and nothing else (the phrase-matching view of a document)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_FOLD)


def count_phrase(document_text: str, phrase: str) -> int:
    """Non-overlapping, left-to-right, ASCII-case-insensitive occurrences of ``phrase``.

    ``phrase`` is already lower case (two query tokens joined by one space).
    """
    return fold_ascii(document_text).count(phrase)


def document_text(name: str, summary: str | None) -> str:
    """A skill's BM25 document: name with ``/`` and ``-`` as spaces, plus space + raw summary.

    The summary is left out when null, empty or whitespace (.NET ``char.IsWhiteSpace``); it is
    never trimmed. Content is not indexed.
    """
    name_part = name.replace("/", " ").replace("-", " ")
    if is_null_or_whitespace(summary):
        return name_part
    return f"{name_part} {summary}"


@dataclass(frozen=True)
class QueryPlan:
    """A parsed query: tokens (with repeats), distinct terms, distinct adjacent-pair phrases."""

    text: str
    tokens: tuple[str, ...]
    terms: tuple[str, ...]
    phrases: tuple[str, ...]

    @property
    def empty(self) -> bool:
        """No term of length >= 3: RockBot returns nothing."""
        return not self.terms


def parse_query(text: str) -> QueryPlan:
    """Terms = tokens de-duplicated (first occurrence); phrases = adjacent token pairs of the
    non-deduplicated list joined by one space, de-duplicated (§8.1 rule 3)."""
    tokens = tokenize(text)
    terms = tuple(dict.fromkeys(tokens))
    phrases = tuple(dict.fromkeys(f"{a} {b}" for a, b in pairwise(tokens)))
    return QueryPlan(text=text, tokens=tuple(tokens), terms=terms, phrases=phrases)


# ---------------------------------------------------------------- scalar formulas (§8.1 rule 4)


def average_length(total_tokens: int, n_docs: int) -> float:
    """avgdl: the integer token total divided by N; 0 (or no documents) becomes 1."""
    avgdl = total_tokens / n_docs if n_docs else 0.0
    return avgdl if avgdl != 0 else 1.0


def idf(n_docs: int, df: int) -> float:
    """``ln((N - n + 0.5) / (n + 0.5) + 1.0)`` (always > 0)."""
    return math.log((n_docs - df + 0.5) / (df + 0.5) + 1.0)


def length_norm(length: int, avgdl: float) -> float:
    """``k1 * (1 - b + b * len / avgdl)``: the per-document part of the tf denominator."""
    return K1 * (1 - B + B * length / avgdl)


def tf_norm(f: int, norm: float) -> float:
    """``f * (k1 + 1) / (f + norm)`` where ``norm`` is :func:`length_norm`."""
    return f * (K1 + 1) / (f + norm)


def term_contribution(idf_value: float, tfn: float) -> float:
    """A term's share of a score: ``idf * tf``."""
    return idf_value * tfn


def phrase_contribution(idf_value: float, tfn: float) -> float:
    """A phrase's share of a score: ``2.0 * idf * tf`` (left to right)."""
    return PHRASE_WEIGHT * idf_value * tfn
