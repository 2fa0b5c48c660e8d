"""RockBot's co-occurrence pairs for sessions of any size, held as arrays (:mod:`usage`'s engine).

RockBot counts every unordered pair of distinct skills once per session, under the key
``a|b`` (names sorted ordinal-ignore-case, case-insensitive dictionary, first spelling kept),
and lists them by count descending, ties in first-seen order. A session that used thousands of
skills -- RockBot's Blazor UI sends one constant session id, so one session collects everything
-- has millions of pairs: as Python strings and objects that took minutes and gigabytes
(10,000 skills, 100,000 events, all time: 246 s and 16.8 GB).

Here every distinct folded name gets its rank in RockBot's sort order, so each session's names
in RockBot's order are its ranks sorted, a pair is the integer ``a_rank * n + b_rank``, and the
pairs of each session are generated in RockBot's loop order (i < j, row by row) and counted in
chunks with numpy. First-seen order is the position in that enumeration. The result -- pairs,
counts, order and the key's spelling (the names as the first session that had the pair spelled
them) -- is RockBot's; :class:`~rockskills_gui.core.usage.records.Pair` objects are made only for the
pairs someone looks at. A name holding ``|`` could make two pairs share one key string, so then
the exact string algorithm runs instead (:func:`string_pairs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, overload

import numpy as np

from rockskills_gui.core.model.names import fold, sort_key

if TYPE_CHECKING:
    from rockskills_gui.core.usage.records import Pair, Session

CHUNK = 1_000_000  # pair occurrences counted per numpy pass (8 MB of ids, ~50 MB with its sort)
SLICE = 1_000_000  # pairs put in their final order per pass (bounds the temporaries)
_SMALL = 256  # sessions up to this many skills reuse cached index arrays


@lru_cache(maxsize=_SMALL)
def _triu(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-major ``(i, j)`` with ``i < j < k``: RockBot's nested-loop order."""
    i, j = np.triu_indices(k, 1)
    return i.astype(np.intp), j.astype(np.intp)


def _rows(k: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(i, j)`` of rows ``start``..``stop - 1`` of a session of ``k`` names, in loop order."""
    rows = np.arange(start, stop, dtype=np.intp)
    counts = k - 1 - rows
    total = int(counts.sum())
    i = np.repeat(rows, counts)
    offsets = np.cumsum(counts) - counts
    j = np.arange(total, dtype=np.intp) - np.repeat(offsets, counts) + i + 1
    return i, j


def _offsets(k: int, i: np.ndarray) -> np.ndarray:
    """Enumeration position of pair ``(i, i + 1)`` within a session of ``k`` names."""
    # numpy types arithmetic on an ndarray of unknown dtype as Any; the result is an array
    offsets: np.ndarray = i * (k - 1) - i * (i - 1) // 2
    return offsets


def _count(session_ranks: list[np.ndarray], starts: np.ndarray, n: int,
           min_count: int = 1) -> tuple[np.ndarray, ...]:
    """Distinct pair ids (sorted), their session counts and first enumeration positions, for the
    pairs counted at least ``min_count`` times.

    Pairs are split into buckets of first-name ranks holding about CHUNK occurrences each (a
    session's rows are contiguous in rank order), so every bucket is counted on its own and
    nothing is merged: a bucket's ids all lie below the next bucket's.
    """
    load = np.zeros(n, dtype=np.int64)  # occurrences with each rank as the first name
    small: list[int] = []
    for index, ranks in enumerate(session_ranks):
        k = len(ranks)
        load[ranks] += k - 1 - np.arange(k, dtype=np.int64)
        if 2 <= k <= _SMALL:
            small.append(index)
    cumulative = np.cumsum(load)
    bounds = [0]
    while bounds[-1] < n:
        done = cumulative[bounds[-1] - 1] if bounds[-1] else 0
        bounds.append(max(bounds[-1] + 1, int(np.searchsorted(cumulative, done + CHUNK, "right"))))
    bounds[-1] = n
    # The sessions of few names: every pair at once, then split by bucket.
    parts_ids, parts_pos = [], []
    for index in small:
        ranks = session_ranks[index]
        i, j = _triu(len(ranks))
        parts_ids.append(ranks[i] * n + ranks[j])
        parts_pos.append(int(starts[index]) + np.arange(len(i), dtype=np.int64))
    small_ids = np.concatenate(parts_ids) if parts_ids else np.zeros(0, dtype=np.int64)
    small_pos = np.concatenate(parts_pos) if parts_pos else np.zeros(0, dtype=np.int64)
    buckets = np.searchsorted(bounds, small_ids // n, "right") - 1
    by_bucket = np.argsort(buckets, kind="stable")
    small_ids, small_pos = small_ids[by_bucket], small_pos[by_bucket]
    edges = np.searchsorted(buckets[by_bucket], np.arange(len(bounds)))
    big = [index for index, ranks in enumerate(session_ranks) if len(ranks) > _SMALL]
    out_ids, out_counts, out_first = [], [], []
    for bucket in range(len(bounds) - 1):
        low, high = bounds[bucket], bounds[bucket + 1]
        ids = [small_ids[edges[bucket]:edges[bucket + 1]]]
        pos = [small_pos[edges[bucket]:edges[bucket + 1]]]
        for index in big:
            ranks = session_ranks[index]
            k = len(ranks)
            row0, row1 = (int(x) for x in np.searchsorted(ranks, [low, high]))
            row1 = min(row1, k - 1)
            if row0 >= row1:
                continue
            i, j = _rows(k, row0, row1)
            ids.append(ranks[i] * n + ranks[j])
            pos.append(int(starts[index]) + _offsets(k, i) + (j - i - 1))
        all_ids, all_pos = np.concatenate(ids), np.concatenate(pos)
        del ids, pos  # the parts: freed before the sort's copies are made
        if not len(all_ids):
            continue
        order = np.lexsort((all_pos, all_ids))  # by id, then enumeration position
        all_ids = all_ids[order]
        all_pos = all_pos[order]
        del order
        heads = np.flatnonzero(np.r_[True, all_ids[1:] != all_ids[:-1]])
        counts = np.diff(np.r_[heads, len(all_ids)]).astype(np.int32)
        if min_count > 1:
            keep = counts >= min_count
            heads, counts = heads[keep], counts[keep]
        out_ids.append(all_ids[heads])
        out_first.append(all_pos[heads])
        out_counts.append(counts)
    if not out_ids:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.astype(np.int32), empty
    return _join(out_ids), _join(out_counts), _join(out_first)


def _join(parts: list[np.ndarray]) -> np.ndarray:
    """``parts`` concatenated, the list emptied meanwhile (one copy at a time, not two lists)."""
    joined = np.concatenate(parts)
    parts.clear()
    return joined


class PairTable(Sequence["Pair"]):
    """RockBot's ordered pairs of ``sessions`` (count descending, first-seen order on ties).

    With ``min_count`` above 1, only the pairs used together in at least that many sessions:
    exactly the top of RockBot's list down to that count (only names used in that many sessions
    can form them, and leaving the others out keeps the order of the rest)."""

    def __init__(self, sessions: Sequence[Session], make_pair: Callable[[str, int], Pair],
                 min_count: int = 1) -> None:
        self._sessions = sessions
        self._make = make_pair
        self.min_count = min_count
        used = session_counts(sessions)
        ordered = sorted((_order(key), key) for key, count in used.items() if count >= min_count)
        keys = self._keys = [key for _, key in ordered]
        n = self._n = max(1, len(keys))
        rank = {key: i for i, key in enumerate(keys)}
        session_ranks = [np.sort(np.fromiter((rank[key] for key in session.keys if key in rank),
                                             dtype=np.int64)) for session in sessions]
        sizes = np.array([len(r) for r in session_ranks], dtype=np.int64)
        self._starts = np.r_[0, np.cumsum(sizes * (sizes - 1) // 2)[:-1]] if len(sizes) else sizes
        ids, counts, first = _count(session_ranks, self._starts, n, min_count)
        del session_ranks
        order = np.lexsort((first, -counts))  # count descending, first seen first
        # Kept in that order, 16 bytes a pair: the id, the count and the session whose spelling
        # the key takes (the first-seen position is only needed for the order).
        self._ids = ids[order]
        del ids
        # counts and sessions in the smallest type that holds them (a byte each up to 255 sessions)
        self._counts = counts[order].astype(np.min_scalar_type(len(sessions)), copy=False)
        del counts
        self._session = np.empty(len(order), dtype=np.min_scalar_type(max(0, len(sessions) - 1)))
        for start in range(0, len(order), SLICE):
            part = first[order[start:start + SLICE]]
            self._session[start:start + SLICE] = np.searchsorted(self._starts, part, "right") - 1
        del order, first
        self._spellings: dict[int, dict[str, str]] = {}

    # ---------------------------------------------------------------- sequence

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, index: int) -> Pair: ...

    @overload
    def __getitem__(self, index: slice) -> list[Pair]: ...

    def __getitem__(self, index: int | slice) -> Pair | list[Pair]:
        if isinstance(index, slice):
            return [self._pair(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._pair(index)

    def __iter__(self) -> Iterator[Pair]:
        for index in range(len(self)):
            yield self._pair(index)

    def count(self, value: object) -> int:  # Sequence.count would walk every pair
        return sum(1 for pair in self if pair == value)

    # ---------------------------------------------------------------- lookups

    def sessions(self, index: int) -> int:
        """The count of the pair at ``index`` (without making the Pair)."""
        return int(self._counts[index])

    # ---------------------------------------------------------------- making pairs

    def _pair(self, index: int) -> Pair:
        a, b = divmod(int(self._ids[index]), self._n)
        session = int(self._session[index])
        spelled = self._spellings.get(session)
        if spelled is None:
            spelled = self._spellings[session] = {fold(name): name for name in
                                                  self._sessions[session].skills}
        return self._make(f"{spelled[self._keys[a]]}|{spelled[self._keys[b]]}",
                          int(self._counts[index]))


def session_counts(sessions: Sequence[Session]) -> dict[str, int]:
    """Folded name -> sessions that used it."""
    counts: dict[str, int] = {}
    for session in sessions:
        for key in session.keys:
            counts[key] = counts.get(key, 0) + 1
    return counts


def occurrences(sessions: Sequence[Session], min_count: int = 1) -> int:
    """Pair occurrences a :class:`PairTable` with ``min_count`` enumerates (its work and memory)."""
    used = session_counts(sessions) if min_count > 1 else {}
    total = 0
    for session in sessions:
        k = len(session.keys) if min_count <= 1 else sum(1 for key in session.keys
                                                          if used[key] >= min_count)
        total += k * (k - 1) // 2
    return total


def fitting_min_count(sessions: Sequence[Session], budget: int) -> int | None:
    """The smallest ``min_count`` whose table enumerates at most ``budget`` pair occurrences
    (1: every pair; None: not even the pairs used in every session fit)."""
    if occurrences(sessions) <= budget:
        return 1
    low, high = 2, max(2, len(sessions))
    if occurrences(sessions, high) > budget:
        return None
    while low < high:  # occurrences fall as min_count grows
        middle = (low + high) // 2
        if occurrences(sessions, middle) <= budget:
            high = middle
        else:
            low = middle + 1
    return low


def _order(key: str) -> bytes:
    """RockBot's sort key of an already folded name."""
    return key.encode("utf-16-be", "surrogatepass")


def string_pairs(sessions: Sequence[Session], key_of: Callable[[str], str],
                 make_pair: Callable[[str, int], Pair]) -> list[Pair]:
    """RockBot's algorithm as written: string keys ``a|b`` in a case-insensitive dictionary.

    Used when a name holds ``|`` (two pairs may then share a key, as they do in RockBot)."""
    spelling: dict[str, str] = {}  # fold(key) -> first key (RockBot's OrdinalIgnoreCase dictionary)
    counts: dict[str, int] = {}
    for session in sessions:
        names = sorted(session.skills, key=sort_key)
        keys = [key_of(n) for n in names]
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                folded = f"{keys[i]}|{keys[j]}"  # fold works per character
                if folded in counts:
                    counts[folded] += 1
                else:
                    spelling[folded] = f"{names[i]}|{names[j]}"
                    counts[folded] = 1
    return sorted((make_pair(spelling[k], n) for k, n in counts.items()), key=lambda p: -p.sessions)
