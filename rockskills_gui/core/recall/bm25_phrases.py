"""Phrase postings for :class:`~rockskills_gui.core.recall.bm25_join.SelfJoin`: for every document,
how often it matches each phrase a query can ask for, counted on the raw text as
:class:`~rockskills_gui.core.recall.bm25_index.Bm25Index` counts it.

A document's rows are its single-space-separated run pairs. A phrase ``t1 t2`` matches the rows
whose left run ends with ``t1`` and whose right run starts with ``t2``: a row matches its own pair
and, when a suffix of its left run and a prefix of its right run form another phrase of the
universe, that phrase too. A document with two adjacent rows matching one phrase (occurrences
could overlap) is recounted with ``count_phrase``.

The work goes by distinct pair, not by row: the phrases a row read from the tokens matches
depend on its two words alone (at 100,000 near-identical skills: 1.7 million pairs for 7.4
million rows), and the suffix x prefix combinations, almost all of them no phrase at all, are
screened by a hashed bit table before the exact sorted lookup.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain

import numpy as np
from scipy import sparse

from rockskills_gui.core.recall.bm25 import count_phrase

_I64 = np.int64
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of key * this

RunRows = tuple[np.ndarray, np.ndarray, list[str], np.ndarray]


class KeySet:
    """Membership of int64 keys in a sorted array of distinct keys, and their positions: a bit
    table of hashed keys rules out most absent keys before a binary search confirms the rest."""

    def __init__(self, keys: np.ndarray) -> None:
        self.keys = keys
        self._bits = max(16, min(28, len(keys).bit_length() + 4))  # 16 to 32 slots a key
        self._table = np.zeros(1 << self._bits, dtype=bool)
        self._table[self._hash(keys)] = True

    def _hash(self, keys: np.ndarray) -> np.ndarray:
        mixed: np.ndarray = (keys.astype(np.uint64) * _GOLDEN) >> np.uint64(64 - self._bits)
        return mixed

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(indexes into ``keys`` of those present, their positions in the set)."""
        maybe = np.flatnonzero(self._table[self._hash(keys)])
        at = np.searchsorted(self.keys, keys[maybe])
        inside = at < len(self.keys)
        inside[inside] = self.keys[at[inside]] == keys[maybe][inside]
        return maybe[inside], at[inside]


def phrase_postings(texts: Sequence[str], words: list[str], n_words: int, phrase_keys: np.ndarray,
                    run_rows: RunRows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(doc, phrase, f) for every phrase of the universe (``phrase_keys``: sorted ``t1 * n_words +
    t2``) a document contains, sorted by document then phrase. ``run_rows``: each row's document
    (sorted), its two run ids (into ``words``, then runs that are no word), the runs' text, and
    its adjacent-pair phrase when it was read from the tokens (-1: not)."""
    empty = (np.zeros(0, dtype=_I64), np.zeros(0, dtype=_I64), np.zeros(0, dtype=np.float64))
    row_doc, ab, run_text, row_phrase = run_rows
    n_phrases = len(phrase_keys)
    if n_phrases == 0 or len(ab) == 0:
        return empty
    lefts = {words[i]: i for i in np.flatnonzero(np.bincount(phrase_keys // n_words)).tolist()}
    rights = {words[i]: i for i in np.flatnonzero(np.bincount(phrase_keys % n_words)).tolist()}

    def table(used: np.ndarray, parts: Iterator[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lists = list(parts)  # in ``used`` order (increasing): flat is in ptr order
        size = np.zeros(len(run_text), dtype=_I64)
        size[used] = np.fromiter(map(len, lists), dtype=_I64, count=len(lists))
        ptr = np.zeros(len(run_text) + 1, dtype=_I64)
        np.cumsum(size, out=ptr[1:])
        flat = np.fromiter(chain.from_iterable(lists), dtype=_I64, count=int(ptr[-1]))
        return size, ptr, flat

    # A phrase's first token is a suffix of the left run, its second a prefix of the right.
    used_a = np.flatnonzero(np.bincount(ab[:, 0], minlength=len(run_text)))
    suf_len, suf_ptr, suf_ids = table(used_a, (
        [w for i in range(len(s) - 2) if (w := lefts.get(s[i:])) is not None]
        for s in (run_text[r] for r in used_a.tolist())))
    used_b = np.flatnonzero(np.bincount(ab[:, 1], minlength=len(run_text)))
    pre_len, pre_ptr, pre_ids = table(used_b, (
        [w for i in range(3, len(s) + 1) if (w := rights.get(s[:i])) is not None]
        for s in (run_text[r] for r in used_b.tolist())))
    universe = KeySet(phrase_keys)

    def lookup(a: np.ndarray, b: np.ndarray, own: bool) -> tuple[np.ndarray, np.ndarray]:
        """(i, phrase) for every suffix x prefix combination of the runs ``(a[i], b[i])`` that is
        a phrase; ``own``: leave out the runs' own pair (the first suffix is the whole left run,
        the last prefix the whole right run)."""
        na, nb = suf_len[a], pre_len[b]
        combos = na * nb
        items = np.flatnonzero(combos)
        combos = combos[items]
        rep = np.repeat(items, combos)
        offset = np.arange(len(rep), dtype=_I64) - np.repeat(np.cumsum(combos) - combos, combos)
        width = nb[rep]
        if own:
            other = offset != width - 1
            rep, offset, width = rep[other], offset[other], width[other]
        key = (suf_ids[suf_ptr[a[rep]] + offset // width] * n_words
               + pre_ids[pre_ptr[b[rep]] + offset % width])
        hit, phrase = universe.find(key)
        return rep[hit], phrase

    # Rows read from the tokens: the own pair, and the other phrases of that pair (looked up once
    # per distinct pair). Other rows (-1) are looked up one by one.
    token = row_phrase >= 0
    t_rows = np.flatnonzero(token)
    t_phrase = row_phrase[t_rows]
    used = np.flatnonzero(np.bincount(t_phrase, minlength=n_phrases))
    item, extra = lookup(*np.divmod(phrase_keys[used], n_words), own=True)
    extra_count = np.zeros(n_phrases, dtype=_I64)
    extra_count[used] = np.bincount(item, minlength=len(used))
    extra_ptr = np.zeros(n_phrases + 1, dtype=_I64)
    np.cumsum(extra_count, out=extra_ptr[1:])
    per_row = extra_count[t_phrase]
    x_rows = np.repeat(t_rows, per_row)
    x_phrase = extra[np.repeat(extra_ptr[t_phrase] - (np.cumsum(per_row) - per_row), per_row)
                     + np.arange(len(x_rows), dtype=_I64)]
    o_rows = np.flatnonzero(~token)
    o_item, o_phrase = lookup(ab[o_rows, 0], ab[o_rows, 1], own=False)
    o_rows = o_rows[o_item]
    row = np.concatenate((t_rows, x_rows, o_rows))
    phrase = np.concatenate((t_phrase, x_phrase, o_phrase))
    if len(row) == 0:
        return empty
    n_docs = int(row_doc[-1]) + 1
    counts = sparse.coo_matrix((np.ones(len(row)), (row_doc[row], phrase)),
                               shape=(n_docs, n_phrases)).tocsr()  # duplicates summed
    counts.sum_duplicates()
    p_doc = np.repeat(np.arange(n_docs, dtype=_I64), np.diff(counts.indptr))
    p_id, f = counts.indices.astype(_I64), counts.data.astype(np.float64)
    for doc, pid in _adjacent_matches(row_doc, row, phrase, row_phrase, n_phrases):
        left, right = divmod(int(phrase_keys[pid]), n_words)
        at = int(counts.indptr[doc]) + int(np.searchsorted(p_id[counts.indptr[doc]:counts.indptr[doc + 1]],
                                                             pid))
        f[at] = count_phrase(texts[doc], f"{words[left]} {words[right]}")
    return p_doc, p_id, f


def _adjacent_matches(row_doc: np.ndarray, row: np.ndarray, phrase: np.ndarray,
                      row_phrase: np.ndarray, n_phrases: int) -> list[tuple[int, int]]:
    """Sorted distinct (doc, phrase) matched by two adjacent rows ``r`` and ``r + 1`` of a document
    (``(row, phrase)``: every match; ``row_phrase``: each row's own pair, -1 when not read from
    the tokens)."""
    rows = len(row_doc)
    same_doc = row_doc[1:] == row_doc[:-1]  # r and r + 1 in one document
    # rows read from the tokens with the same own pair
    equal = np.flatnonzero(same_doc & (row_phrase[:-1] >= 0) & (row_phrase[:-1] == row_phrase[1:]))
    found = [row_doc[equal] * n_phrases + row_phrase[equal]]
    # rows with any other match: every match of r against those of r + 1
    special = (np.bincount(row, minlength=rows) > 1) | (row_phrase < 0)
    pairs = np.flatnonzero((special[:-1] | special[1:]) & same_doc)
    if len(pairs):
        inside = np.zeros(rows, dtype=bool)
        inside[pairs] = True
        inside[pairs + 1] = True
        mine = inside[row]
        keys = np.sort(row[mine] * n_phrases + phrase[mine])
        start = np.zeros(rows, dtype=bool)
        start[pairs] = True
        probe = start[row]
        wanted = (row[probe] + 1) * n_phrases + phrase[probe]
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        both = keys[at] == wanted
        found.append(row_doc[row[probe][both]] * n_phrases + phrase[probe][both])
    return [divmod(g, n_phrases) for g in np.unique(np.concatenate(found)).tolist()]
