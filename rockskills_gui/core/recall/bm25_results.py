"""What a BM25 query gives besides the ranking: each term's and phrase's contribution, the
explanation of a score, a ranked hit, and a query's document frequencies (``bm25_index``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from rockskills_gui.core.recall.bm25 import QueryPlan, idf


class Contribution(NamedTuple):
    """One term's or phrase's share of a document's score (a named tuple: quick to make, and a
    ``recall --json`` run over 300 queries makes 55,000)."""

    df: int
    idf: float
    tf: int
    tfn: float
    contribution: float

    def as_json(self) -> dict[str, float | int]:
        return {"df": self.df, "idf": self.idf, "tf": self.tf, "tfn": self.tfn,
                "contribution": self.contribution}


@dataclass(frozen=True)
class Explanation:
    """Per-term and per-phrase contributions, in scoring order; ``total`` re-adds them in order."""

    terms: dict[str, Contribution] = field(default_factory=dict)
    phrases: dict[str, Contribution] = field(default_factory=dict)

    @property
    def total(self) -> float:
        score = 0.0
        for part in (*self.terms.values(), *self.phrases.values()):
            score += part.contribution
        return score


class Hit(NamedTuple):
    """One ranked document (a named tuple: a top 50 makes 50 of them per query)."""

    rank: int
    key: str
    score: float
    explanation: Explanation | None = None


@dataclass(frozen=True)
class QueryStats:
    """Document frequencies and idf of a query's terms and phrases (df 0 = contributes nothing)."""

    plan: QueryPlan
    n_docs: int
    avgdl: float
    term_df: dict[str, int]
    phrase_df: dict[str, int]

    def term_idf(self, term: str) -> float:
        return idf(self.n_docs, self.term_df[term])

    def phrase_idf(self, phrase: str) -> float:
        return idf(self.n_docs, self.phrase_df[phrase])
