"""The skills × skills co-occurrence matrix and its measures (sessions together, Jaccard, lift).

Counts are RockBot's (a pair counts once per session, sessions grouped case-sensitively, names
case-insensitively: :mod:`rockskills_gui.core.usage.stats`); the measures are ours, on top:

- sessions together ``n(a,b)``; the diagonal holds ``n(a)``, the sessions that used ``a``;
- Jaccard ``n(a,b) / (n(a) + n(b) - n(a,b))``: the share of the sessions using either that used both;
- lift ``n(a,b) · N / (n(a) · n(b))``: observed over the count expected if the two were used
  independently (``N`` sessions in the window), so popular skills do not dominate; 1 = chance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from scipy import sparse

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.usage.stats import UsageStats

MAX_AXIS = 3000  # skills on a matrix axis: 3,000² counts are 36 MB; all of 100,000 would be 40 GB


class Measure(StrEnum):
    SESSIONS = "sessions"
    JACCARD = "jaccard"
    LIFT = "lift"

    @property
    def label(self) -> str:
        return {"sessions": "Sessions together", "jaccard": "Jaccard",
                "lift": "Lift (observed / expected)"}[self.value]


@dataclass(frozen=True, slots=True)
class AxisSkill:
    """A row/column of the matrix: a library skill, or a name only the usage log knows (deleted)."""

    name: str
    exists: bool
    events: int
    sessions: int


class CoMatrix:
    """Sessions-together counts for a list of skills, with per-skill totals.

    ``together[i, j]`` = sessions that used both ``i`` and ``j``; ``together[i, i]`` = sessions
    that used ``i``; ``total_sessions`` = every session in the window (the lift's ``N``).
    """

    def __init__(self, skills: Sequence[AxisSkill], together: np.ndarray | None, total_sessions: int,
                 source: tuple[CoMatrix, np.ndarray] | None = None) -> None:
        self.skills = list(skills)
        self._together = together
        self._source = source  # (matrix, indices): ``together`` is cut from it on first use
        self.total_sessions = total_sessions
        self._index = {fold(s.name): i for i, s in enumerate(self.skills)}
        self.omitted = 0  # skills left off the axis by from_stats (see MAX_AXIS)

    @property
    def together(self) -> np.ndarray:
        if self._together is None:
            assert self._source is not None
            parent, idx = self._source
            self._together = parent.together[np.ix_(idx, idx)]
            self._source = None
        return self._together

    @classmethod
    def from_stats(cls, stats: UsageStats, library_names: Sequence[str] = (),
                   max_axis: int = MAX_AXIS) -> CoMatrix:
        """Rows = ``library_names`` (in the given order), then names only the log knows.

        The counts are a dense n × n matrix: beyond ``max_axis`` skills only the ``max_axis``
        used in the most sessions are kept (in the same order); :attr:`omitted` says how many
        were left out (at 100,000 skills the full matrix would need 40 GB).
        """
        skills: list[AxisSkill] = []
        seen: set[str] = set()
        for name in library_names:
            key = fold(name)
            if key in seen:
                continue
            seen.add(key)
            usage = stats.usage.get(key)
            skills.append(AxisSkill(name, True, usage.events if usage else 0,
                                    usage.sessions if usage else 0))
        for key, usage in stats.usage.items():
            if key not in seen:
                seen.add(key)
                skills.append(AxisSkill(usage.name, False, usage.events, usage.sessions))
        omitted = 0
        if len(skills) > max_axis:
            ranked = sorted(range(len(skills)), key=lambda i: (-skills[i].sessions, -skills[i].events, i))
            keep = sorted(ranked[:max_axis])
            omitted = len(skills) - len(keep)
            skills = [skills[i] for i in keep]
        index = {fold(s.name): i for i, s in enumerate(skills)}
        rows: list[int] = []
        cols: list[int] = []
        for row, session in enumerate(stats.sessions):
            for key in session.keys:
                col = index.get(key)
                if col is not None:
                    rows.append(row)
                    cols.append(col)
        n = len(skills)
        incidence = sparse.csc_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)),
                                      shape=(len(stats.sessions), n))
        together = _gram(incidence)
        matrix = cls(skills, together, len(stats.sessions))
        matrix.omitted = omitted
        return matrix

    # ---------------------------------------------------------------- access

    def __len__(self) -> int:
        return len(self.skills)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.skills]

    def index(self, name: str) -> int | None:
        return self._index.get(fold(name))

    @property
    def own(self) -> np.ndarray:
        """Sessions that used each skill (the diagonal)."""
        return np.diagonal(self.together).astype(np.int64)

    def take(self, indices: Sequence[int]) -> CoMatrix:
        """The sub-matrix of ``indices`` in that order (``total_sessions`` unchanged; the counts
        are copied only when used)."""
        idx = np.asarray(indices, dtype=np.intp)
        if len(idx) == len(self.skills) and np.array_equal(idx, np.arange(len(idx))):
            return self
        return CoMatrix([self.skills[i] for i in idx], None, self.total_sessions, (self, idx))

    # ---------------------------------------------------------------- measures

    def values(self, measure: Measure) -> np.ndarray:
        """The measure for every cell (float64; 0 where the pair never occurred)."""
        return measure_values(self.together, self.total_sessions, measure)

    def value(self, i: int, j: int, measure: Measure) -> float:
        return float(measure_values(self.together[np.ix_([i, j], [i, j])], self.total_sessions,
                                    measure)[0, 1 if i != j else 0])

    def pair_links(self) -> np.ndarray:
        """Boolean mask of off-diagonal cells with at least one session together."""
        mask = self.together > 0
        np.fill_diagonal(mask, False)
        return mask


BLOCK_CELLS = 2_000_000  # sessions × columns of the incidence made dense per pass (8 MB)


def _gram(incidence: sparse.csc_matrix) -> np.ndarray:
    """``incidence.T @ incidence`` as a dense int32 matrix, a block of columns at a time: the
    sparse product of a few sessions of thousands of skills held ~100 MB of indices before its
    dense copy; the integer counts are the same."""
    sessions, n = incidence.shape
    together = np.empty((n, n), dtype=np.int32)
    transposed = incidence.T.tocsr()
    width = max(1, BLOCK_CELLS // max(1, sessions))
    for start in range(0, n, width):
        block = incidence[:, start:start + width].toarray()
        together[:, start:start + width] = transposed @ block
    return together


def measure_values(together: np.ndarray, total_sessions: int, measure: Measure) -> np.ndarray:
    """Sessions together, Jaccard or lift for a square ``together`` matrix (see the module doc)."""
    if measure is Measure.SESSIONS:
        return together.astype(np.float64)
    # Only cells with a session together have a value: compute those (few), leave the rest 0.
    rows, cols = np.nonzero(together)
    n_ab = together[rows, cols].astype(np.float64)
    own = np.diagonal(together).astype(np.float64)
    if measure is Measure.JACCARD:
        value = n_ab / (own[rows] + own[cols] - n_ab)
    else:
        value = n_ab * total_sessions / (own[rows] * own[cols])
    result = np.zeros(together.shape, dtype=np.float64)
    result[rows, cols] = value
    return result
