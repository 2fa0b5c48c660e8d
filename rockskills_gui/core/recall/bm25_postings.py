"""The postings of a :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index` as flat arrays
(compressed sparse rows), and their exact edits: entries of removed documents purged, a batch of
new documents merged in, all vectorised (see the ``bm25_index`` module doc for the layout)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rockskills_gui.core.recall.bm25_build import Segment

_I64 = np.int64
_SHIFT = 32  # (row, slot) packed into one int64 to sort and search entries


def narrow(values: np.ndarray) -> np.ndarray:
    """``values`` (non-negative integers) in the smallest unsigned type that holds them."""
    top = int(values.max()) if len(values) else 0
    for kind in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(kind).max:
            return values.astype(kind)
    return values.astype(np.uint64)  # pragma: no cover - 4 billion tokens in one document


def _ptr(counts: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(counts) + 1, dtype=_I64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


class Terms(NamedTuple):
    """Word id -> its documents (slots, ascending) and token counts: ``slot[ptr[w]:ptr[w+1]]``."""

    ptr: np.ndarray  # int64, words + 1
    slot: np.ndarray  # int32
    tf: np.ndarray  # narrowest unsigned type

    @classmethod
    def empty(cls) -> Terms:
        return cls(np.zeros(1, dtype=_I64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint8))

    def rows(self) -> np.ndarray:
        """The word id of every entry."""
        return np.repeat(np.arange(len(self.ptr) - 1, dtype=_I64), np.diff(self.ptr))

    def purge(self, dead: np.ndarray) -> Terms:
        """Without the entries of the slots marked in ``dead``."""
        gone = dead[self.slot]
        if not gone.any():
            return self
        counts = np.diff(self.ptr) - np.bincount(self.rows()[gone], minlength=len(self.ptr) - 1)
        keep = ~gone
        return Terms(_ptr(counts), self.slot[keep], self.tf[keep])

    def merge(self, n_words: int, word: np.ndarray, slot: np.ndarray, tf: np.ndarray) -> Terms:
        """With the entries ``(word, slot, tf)`` (sorted by word, then slot) added."""
        counts = np.zeros(n_words, dtype=_I64)
        counts[: len(self.ptr) - 1] = np.diff(self.ptr)
        counts += np.bincount(word, minlength=n_words)
        new_slot = slot.astype(np.int32)
        if len(self.slot) == 0:
            return Terms(_ptr(counts), new_slot, narrow(tf))
        at = np.searchsorted((self.rows() << _SHIFT) | self.slot, (word << _SHIFT) | slot)
        kind = np.promote_types(self.tf.dtype, narrow(tf).dtype)
        return Terms(_ptr(counts), np.insert(self.slot, at, new_slot),
                     np.insert(self.tf.astype(kind), at, tf.astype(kind)))


class Pairs(NamedTuple):
    """Run-pair key (sorted) -> the slots of its occurrences (ascending, one per occurrence):
    ``slot[ptr[i]:ptr[i+1]]`` for ``key[i]``; ``multi[i]``: some slot occurs twice."""

    key: np.ndarray  # int64
    ptr: np.ndarray  # int64, keys + 1
    slot: np.ndarray  # int32
    multi: np.ndarray  # bool

    @classmethod
    def empty(cls) -> Pairs:
        return cls(np.zeros(0, dtype=_I64), np.zeros(1, dtype=_I64), np.zeros(0, dtype=np.int32),
                   np.zeros(0, dtype=bool))

    @classmethod
    def from_counts(cls, key: np.ndarray, counts: np.ndarray, slot: np.ndarray) -> Pairs:
        """Keys, their entry counts and the entries' slots (sorted by key, then slot)."""
        rows = np.repeat(np.arange(len(key), dtype=_I64), counts)
        return _with_multi(key, counts, slot.astype(np.int32), rows)

    def rows(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.key), dtype=_I64), np.diff(self.ptr))

    def purge(self, dead: np.ndarray) -> Pairs:
        gone = dead[self.slot]
        if not gone.any():
            return self
        rows = self.rows()
        counts = np.diff(self.ptr) - np.bincount(rows[gone], minlength=len(self.key))
        keep = ~gone
        return _with_multi(self.key, counts, self.slot[keep], rows[keep])

    def merge(self, key: np.ndarray, slot: np.ndarray) -> Pairs:
        """With the occurrences ``(key, slot)`` (sorted by key, then slot) added."""
        keys = np.union1d(self.key, key) if len(self.key) else np.unique(key)
        new_rows = np.searchsorted(keys, key)
        counts = np.bincount(new_rows, minlength=len(keys)).astype(_I64)
        if len(self.slot) == 0:
            return _with_multi(keys, counts, slot.astype(np.int32), new_rows)
        old_rows = np.searchsorted(keys, self.key)[self.rows()]
        counts[np.searchsorted(keys, self.key)] += np.diff(self.ptr)
        at = np.searchsorted((old_rows << _SHIFT) | self.slot, (new_rows << _SHIFT) | slot,
                             side="right")
        return _with_multi(keys, counts, np.insert(self.slot, at, slot.astype(np.int32)),
                           np.insert(old_rows, at, new_rows))


def _with_multi(key: np.ndarray, counts: np.ndarray, slot: np.ndarray, rows: np.ndarray) -> Pairs:
    multi = np.zeros(len(key), dtype=bool)
    twice = (slot[1:] == slot[:-1]) & (rows[1:] == rows[:-1])
    multi[rows[1:][twice]] = True
    return Pairs(key, _ptr(counts), slot, multi)


def segment_entries(seg: Segment, slots: np.ndarray) -> tuple[np.ndarray, ...]:
    """A segment's entries with its documents numbered as ``slots`` (ascending): term word, slot,
    tf; pair key, slot."""
    return (seg.term_word, slots[seg.term_doc], seg.term_tf, seg.pair_key, slots[seg.pair_doc])
