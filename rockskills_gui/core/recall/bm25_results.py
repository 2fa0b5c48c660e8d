"""What a BM25 query gives besides the ranking: each term's and phrase's contribution, the
explanation of a score, a ranked hit and a ranking (``Hits``), and a query's document
frequencies (``bm25_index``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import repeat
from typing import NamedTuple, overload

import numpy as np

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
    """One ranked document."""

    rank: int
    key: str
    score: float
    explanation: Explanation | None = None


_new_hit = partial(tuple.__new__, Hit)


class Hits(Sequence[Hit]):
    """A ranking, best first: its keys and scores kept as two arrays (as bm25s returns ids and
    scores), each :class:`Hit` made only when an item is read. A search whose hits are counted,
    or read as :meth:`keys` and :meth:`scores`, makes none. Equal to a list of the same hits."""

    __slots__ = ("_explanations", "_keys", "_scores")

    def __init__(self, keys: np.ndarray, scores: np.ndarray,
                 explanations: Sequence[Explanation] | None = None) -> None:
        self._keys = keys  # object array of str (a copy: later edits of the index leave it alone)
        self._scores = scores  # float64
        self._explanations = explanations

    @classmethod
    def empty(cls) -> Hits:
        return cls(_NO_KEYS, _NO_SCORES)

    def __len__(self) -> int:
        return len(self._keys)

    def keys(self) -> list[str]:
        """The hits' keys, best first."""
        keys: list[str] = self._keys.tolist()
        return keys

    def scores(self) -> list[float]:
        """The hits' scores, best first."""
        scores: list[float] = self._scores.tolist()
        return scores

    def __iter__(self) -> Iterator[Hit]:
        explanations = repeat(None) if self._explanations is None else self._explanations
        return map(_new_hit, zip(range(1, len(self._keys) + 1), self._keys.tolist(),
                                 self._scores.tolist(), explanations, strict=False))

    @overload
    def __getitem__(self, at: int) -> Hit: ...

    @overload
    def __getitem__(self, at: slice) -> list[Hit]: ...

    def __getitem__(self, at: int | slice) -> Hit | list[Hit]:
        if isinstance(at, slice):
            return list(self)[at]
        rank = range(1, len(self._keys) + 1)[at]  # IndexError past the end; negatives count back
        explanation = None if self._explanations is None else self._explanations[rank - 1]
        return Hit(rank, str(self._keys[rank - 1]), float(self._scores[rank - 1]), explanation)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Hits | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Hits({list(self)!r})"


_NO_KEYS = np.zeros(0, dtype=object)
_NO_SCORES = np.zeros(0, dtype=np.float64)


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
