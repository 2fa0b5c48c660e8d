"""Comparison rankers from rank-bm25 over exactly RockBot's tokens (not RockBot's ranking).

Documents are tokenised with ``bm25.tokenize`` and queries reduced to their distinct terms, so
the only differences from RockBot are the scoring formulas: no phrase boost, and each variant's
own idf. rank-bm25 traps avoided here: the corpus is pre-tokenised (passing ``tokenizer=`` starts
a multiprocessing pool that is never closed), and the empty corpus / empty vocabulary cases
(ZeroDivisionError inside rank-bm25) give empty rankings. Stock ``BM25Okapi`` idf is
``ln((N-n+0.5)/(n+0.5))``, <= 0 for terms in half the documents or more, floored at
``epsilon * mean idf``; ``okapi-lucene`` uses RockBot's / Lucene's ``ln(1 + (N-n+0.5)/(n+0.5))``,
which makes it RockBot's formula without phrases.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol

import numpy as np

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import K1, B, document_text, parse_query, tokenize


# rank-bm25 ships no type information (no py.typed, no stubs), so its classes are Any to mypy.
# It is imported when a comparison is first built (not by the Recall pane's start).
@cache
def lucene_idf_okapi() -> Any:
    """``BM25OkapiLuceneIdf``: BM25Okapi with the always-positive idf
    ``ln(1 + (N - n + 0.5) / (n + 0.5))``."""
    from rank_bm25 import BM25Okapi

    class BM25OkapiLuceneIdf(BM25Okapi):  # type: ignore[misc]  # subclassing an untyped class
        def _calc_idf(self, nd: dict[str, int]) -> None:
            for word, freq in nd.items():
                self.idf[word] = math.log(1.0 + (self.corpus_size - freq + 0.5) / (freq + 0.5))
            self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0

    return BM25OkapiLuceneIdf


class Scorer(Protocol):
    """What a rank-bm25 model offers here: a score per document for a tokenised query."""

    def get_scores(self, query: list[str]) -> np.ndarray: ...


def _rank_bm25(name: str) -> Any:
    import rank_bm25

    return getattr(rank_bm25, name)


RANKERS: dict[str, Callable[[list[list[str]]], Scorer]] = {
    "okapi": lambda corpus: _rank_bm25("BM25Okapi")(corpus, k1=K1, b=B),
    "okapi-lucene": lambda corpus: lucene_idf_okapi()(corpus, k1=K1, b=B),
    "bm25l": lambda corpus: _rank_bm25("BM25L")(corpus, k1=K1, b=B),
    "bm25plus": lambda corpus: _rank_bm25("BM25Plus")(corpus, k1=K1, b=B),
}


class ComparisonRanker:
    """One rank-bm25 variant over named documents (candidate order = the given order)."""

    def __init__(self, kind: str, names: Sequence[str], corpus: Sequence[Sequence[str]]) -> None:
        if kind not in RANKERS:
            raise ValueError(f"unknown ranker {kind!r}; choose from {', '.join(RANKERS)}")
        self.kind = kind
        self.names = list(names)
        usable = len(corpus) > 0 and any(len(doc) for doc in corpus)
        self._model = RANKERS[kind]([list(doc) for doc in corpus]) if usable else None

    @classmethod
    def for_skills(cls, kind: str, skills: Sequence[Skill]) -> ComparisonRanker:
        corpus = [tokenize(document_text(s.name, s.summary)) for s in skills]
        return cls(kind, [s.name for s in skills], corpus)

    def scores(self, query: str) -> np.ndarray:
        """rank-bm25 ``get_scores`` for the query's distinct terms (zeros if nothing to rank)."""
        terms = list(parse_query(query).terms)
        if self._model is None or not terms:
            return np.zeros(len(self.names))
        return np.asarray(self._model.get_scores(terms), dtype=np.float64)

    def search(self, query: str, top: int | None = 5) -> list[tuple[str, float]]:
        """``(name, score)`` best first, ties in candidate order.

        Documents with a score of exactly 0 are dropped as RockBot does; stock Okapi can give
        negative scores, which are kept (they are ranked last)."""
        scores = self.scores(query)
        matched = np.flatnonzero(scores)
        order = matched[np.lexsort((matched, -scores[matched]))]
        if top is not None:
            order = order[:top]
        return [(self.names[i], float(scores[i])) for i in order.tolist()]
