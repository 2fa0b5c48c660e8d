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
        # the axis as columns first (names, whether a library skill, events, sessions): an
        # AxisSkill is made only for those kept (not for every one of 100,000 skills)
        names: list[str] = []
        events: list[int] = []
        sessions: list[int] = []
        seen: set[str] = set()
        for name in library_names:
            key = fold(name)
            if key in seen:
                continue
            seen.add(key)
            usage = stats.usage.get(key)
            names.append(name)
            events.append(usage.events if usage else 0)
            sessions.append(usage.sessions if usage else 0)
        library_count = len(names)
        for key, usage in stats.usage.items():
            if key not in seen:
                seen.add(key)
                names.append(usage.name)
                events.append(usage.events)
                sessions.append(usage.sessions)
        del seen
        keep: Sequence[int] = range(len(names))
        omitted = 0
        if len(names) > max_axis:
            # the max_axis used in the most sessions, then events, then first (a stable sort)
            ranked = np.lexsort((np.arange(len(names)), -np.array(events, dtype=np.int64),
                                 -np.array(sessions, dtype=np.int64)))
            keep = np.sort(ranked[:max_axis]).tolist()
            omitted = len(names) - len(keep)
        skills = [AxisSkill(names[i], i < library_count, events[i], sessions[i]) for i in keep]
        del names, events, sessions
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
        # counts in the smallest type that holds them: a byte a cell up to 255 sessions
        together = _gram(incidence, np.min_scalar_type(len(stats.sessions)))
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


BLOCK_CELLS = 2_000_000  # cells of the dense incidence block and of its product per pass (8 MB)


def _gram(incidence: sparse.csc_matrix, dtype: np.dtype | type = np.int32) -> np.ndarray:
    """``incidence.T @ incidence`` as a dense matrix of ``dtype`` (which must hold the session
    count), a block of columns at a time: the sparse product of a few sessions of thousands of
    skills held ~100 MB of indices before its dense copy; the integer counts are the same."""
    sessions, n = incidence.shape
    together = np.empty((n, n), dtype=dtype)
    transposed = incidence.T.tocsr()
    width = max(1, BLOCK_CELLS // max(1, sessions, n))
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
