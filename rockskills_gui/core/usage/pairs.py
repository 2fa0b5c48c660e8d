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

CHUNK = 250_000  # pair occurrences counted per numpy pass (~10 MB with its sort)
SLICE = 262_144  # enumeration positions put in their final order per pass (~10 MB of temporaries)
_SMALL = 256  # sessions up to this many skills reuse cached index arrays
BATCH = 4096  # pairs decoded per pass when walking the table (a walk often stops early)


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


def _count(session_ranks: list[np.ndarray], starts: np.ndarray, n: int, seen: np.ndarray,
           min_count: int = 1) -> None:
    """Count every pair: ``seen[p]`` becomes the session count of the pair whose first occurrence
    is enumeration position ``p`` (left 0 elsewhere and for pairs counted fewer than
    ``min_count`` times). A pair's first position names it (its session and place in RockBot's
    loops), so nothing else per pair needs keeping.

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
    del load
    bounds = [0]
    while bounds[-1] < n:
        done = cumulative[bounds[-1] - 1] if bounds[-1] else 0
        bounds.append(max(bounds[-1] + 1, int(np.searchsorted(cumulative, done + CHUNK, "right"))))
    bounds[-1] = n
    del cumulative
    id_type = np.uint32 if n * n < 2**32 else np.int64
    pos_type = seen_index_type(len(seen))
    # The sessions of few names: every pair at once (in their smallest types), split by bucket.
    parts_ids, parts_pos = [], []
    for index in small:
        ranks = session_ranks[index]
        i, j = _triu(len(ranks))
        parts_ids.append((ranks[i] * n + ranks[j]).astype(id_type))
        parts_pos.append((int(starts[index]) + np.arange(len(i), dtype=np.int64)).astype(pos_type))
    small_ids = _join(parts_ids) if parts_ids else np.zeros(0, dtype=id_type)
    small_pos = _join(parts_pos) if parts_pos else np.zeros(0, dtype=pos_type)
    buckets = np.searchsorted(bounds, small_ids // n, "right") - 1
    by_bucket = np.argsort(buckets, kind="stable")
    small_ids, small_pos = small_ids[by_bucket], small_pos[by_bucket]
    edges = np.searchsorted(buckets[by_bucket], np.arange(len(bounds)))
    del buckets, by_bucket
    big = [index for index, ranks in enumerate(session_ranks) if len(ranks) > _SMALL]
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
            ids.append((ranks[i] * n + ranks[j]).astype(id_type, copy=False))
            pos.append((int(starts[index]) + _offsets(k, i) + (j - i - 1)).astype(pos_type,
                                                                                   copy=False))
        all_ids, all_pos = np.concatenate(ids), np.concatenate(pos)
        del ids, pos  # the parts: freed before the sort's copies are made
        if not len(all_ids):
            continue
        order = np.lexsort((all_pos, all_ids))  # by id, then enumeration position
        all_ids = all_ids[order]
        all_pos = all_pos[order]
        del order
        heads = np.flatnonzero(np.r_[True, all_ids[1:] != all_ids[:-1]])
        counts = np.diff(np.r_[heads, len(all_ids)])
        del all_ids
        if min_count > 1:
            keep = counts >= min_count
            heads, counts = heads[keep], counts[keep]
        seen[all_pos[heads]] = counts


def seen_index_type(total: int) -> type[np.unsignedinteger] | type[np.signedinteger]:
    """The type of an enumeration position among ``total`` pair occurrences."""
    return np.uint32 if total < 2**32 else np.int64


def _join(parts: list[np.ndarray]) -> np.ndarray:
    """``parts`` concatenated, the list emptied meanwhile (one copy at a time, not two lists)."""
    joined = np.concatenate(parts)
    parts.clear()
    return joined


def _in_order(seen: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions of the pairs' first occurrences in RockBot's order (count descending, first
    seen first), the distinct counts (descending) and where each count's run ends in that order.

    A slice of positions at a time: positions come out ascending within a count, so each slice's
    pairs go after the earlier slices' of the same count (no sort over all pairs at once)."""
    top = int(seen.max()) if len(seen) else 0
    tally = np.zeros(top + 1, dtype=np.int64)
    for start in range(0, len(seen), SLICE):
        tally += np.bincount(seen[start:start + SLICE], minlength=top + 1)
    tally[0] = 0  # positions that are no pair's first occurrence
    levels = np.flatnonzero(tally)[::-1]  # the counts that occur, descending
    sizes = tally[levels]
    ends = np.cumsum(sizes)
    fill = np.zeros(top + 1, dtype=np.int64)  # where the next pair of each count goes
    fill[levels] = ends - sizes
    first = np.empty(int(ends[-1]) if len(ends) else 0, dtype=seen_index_type(len(seen)))
    for start in range(0, len(seen), SLICE):
        at = np.flatnonzero(seen[start:start + SLICE])
        if not len(at):
            continue
        counts = seen[start + at].astype(np.int64)
        by_count = np.argsort(-counts, kind="stable")  # ascending positions within a count
        counts, at = counts[by_count], at[by_count]
        del by_count
        first[fill[counts] + (np.arange(len(at)) - _run_starts(counts))] = at + start
        fill += np.bincount(counts, minlength=top + 1)
    return first, levels.astype(np.int64), ends


def _run_starts(values: np.ndarray) -> np.ndarray:
    """For each element of ``values`` (equal values adjacent), the index where its run starts."""
    heads = np.r_[True, values[1:] != values[:-1]]
    return np.maximum.accumulate(np.where(heads, np.arange(len(values)), 0))


class PairTable(Sequence["Pair"]):
    """RockBot's ordered pairs of ``sessions`` (count descending, first-seen order on ties).

    With ``min_count`` above 1, only the pairs used together in at least that many sessions:
    exactly the top of RockBot's list down to that count (only names used in that many sessions
    can form them, and leaving the others out keeps the order of the rest).

    Kept per pair: only the position of its first occurrence in RockBot's enumeration (4 bytes
    below 4 billion occurrences), in order; its session, names and spelling follow from it, its
    count from the run of counts it is in."""

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
        ranks = [np.sort(np.fromiter((rank[key] for key in session.keys if key in rank),
                                     dtype=np.int64)) for session in sessions]
        del rank, ordered
        sizes = self._sizes = np.array([len(r) for r in ranks], dtype=np.int64)
        pairs_of = sizes * (sizes - 1) // 2
        self._starts = np.r_[0, np.cumsum(pairs_of)[:-1]] if len(sizes) else sizes
        total = int(pairs_of.sum())
        # the count of the pair first seen at each position: a byte each up to 255 sessions
        seen = np.zeros(total, dtype=np.min_scalar_type(len(sessions)))
        _count(ranks, self._starts, n, seen, min_count)
        self._first, self._levels, self._ends = _in_order(seen)
        del seen
        # every session's ranks end to end, and where each session's begin
        self._flat = np.concatenate(ranks) if ranks else np.zeros(0, dtype=np.int64)
        self._rank_starts = np.r_[0, np.cumsum(sizes)[:-1]] if len(sizes) else sizes
        self._spellings: dict[int, dict[str, str]] = {}

    # ---------------------------------------------------------------- sequence

    def __len__(self) -> int:
        return len(self._first)

    @overload
    def __getitem__(self, index: int) -> Pair: ...

    @overload
    def __getitem__(self, index: slice) -> list[Pair]: ...

    def __getitem__(self, index: int | slice) -> Pair | list[Pair]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return self._pairs(start, max(start, stop))
            return [self[i] for i in range(start, stop, step)]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._pairs(index, index + 1)[0]

    def __iter__(self) -> Iterator[Pair]:
        for start in range(0, len(self), BATCH):
            yield from self._pairs(start, min(len(self), start + BATCH))

    def count(self, value: object) -> int:  # Sequence.count would walk every pair
        return sum(1 for pair in self if pair == value)

    # ---------------------------------------------------------------- lookups

    def sessions(self, index: int) -> int:
        """The count of the pair at ``index`` (without making the Pair)."""
        return int(self._levels[int(np.searchsorted(self._ends, index, "right"))])

    # ---------------------------------------------------------------- making pairs

    def _pairs(self, start: int, stop: int) -> list[Pair]:
        """The pairs at ``start`` to ``stop - 1``, decoded from their positions as arrays: the
        session (the last one starting at or before the position), the row and column in its
        loops, the two names' ranks and the count."""
        positions = self._first[start:stop].astype(np.int64)
        session = np.searchsorted(self._starts, positions, "right") - 1
        i, j = _rows_cols(self._sizes[session], positions - self._starts[session])
        base = self._rank_starts[session]
        first, second = self._flat[base + i], self._flat[base + j]
        counts = self._levels[np.searchsorted(self._ends, np.arange(start, stop), "right")]
        out = []
        keys = self._keys
        for s, a, b, n in zip(session.tolist(), first.tolist(), second.tolist(), counts.tolist(),
                              strict=True):
            spelled = self._spellings.get(s)
            if spelled is None:
                spelled = self._spellings[s] = {fold(name): name for name in
                                                self._sessions[s].skills}
            out.append(self._make(f"{spelled[keys[a]]}|{spelled[keys[b]]}", n))
        return out


def _rows_cols(k: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``(i, j)`` of enumeration ``offset`` in sessions of ``k`` names (RockBot's loops:
    ``i < j``, row by row): the inverse of :func:`_offsets`, element by element."""
    # row i starts at i * (2k - i - 1) / 2: the largest such start not above offset (the square
    # root in floating point is exact to well below one row; one step each way corrects it)
    b = 2 * k - 1
    i = ((b - np.sqrt((b * b - 8 * offset).astype(np.float64))) // 2).astype(np.int64)
    i -= (i > 0) & (i * (b - i) // 2 > offset)
    i += (i + 1) * (b - i - 1) // 2 <= offset
    return i, offset - i * (b - i) // 2 + i + 1


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
