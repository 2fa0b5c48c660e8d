"""The postings of a :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index` as flat arrays
(compressed sparse rows), and their exact edits: entries of removed documents purged, a batch of
new documents merged in, all vectorised (see the ``bm25_index`` module doc for the layout)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rockskills_gui.core.recall.bm25_build import Segment

_I64 = np.int64
_SHIFT = 32  # (row, slot) packed into one int64 to sort and search entries
FEW = 256  # entries merged one by one (into their rows' ranges) rather than by sorting


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

    def row(self, word: int) -> tuple[np.ndarray, np.ndarray]:
        """Word ``word``'s slots and token counts (views; empty for a word it does not know)."""
        if word + 1 >= len(self.ptr):
            return self.slot[:0], self.tf[:0]
        lo, hi = int(self.ptr[word]), int(self.ptr[word + 1])
        return self.slot[lo:hi], self.tf[lo:hi]

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every entry as (word, slot, tf), sorted by word then slot (what :meth:`merge` takes)."""
        return self.rows(), self.slot.astype(_I64), self.tf

    def purge(self, dead: np.ndarray) -> Terms:
        """Without the entries of the slots marked in ``dead``."""
        gone = np.flatnonzero(dead[self.slot])
        if not len(gone):
            return self
        rows = np.searchsorted(self.ptr, gone, side="right") - 1
        counts = np.diff(self.ptr) - np.bincount(rows, minlength=len(self.ptr) - 1)
        return Terms(_ptr(counts), np.delete(self.slot, gone), np.delete(self.tf, gone))

    def merge(self, n_words: int, word: np.ndarray, slot: np.ndarray, tf: np.ndarray) -> Terms:
        """With the entries ``(word, slot, tf)`` (sorted by word, then slot) added."""
        counts = np.zeros(n_words, dtype=_I64)
        counts[: len(self.ptr) - 1] = np.diff(self.ptr)
        counts += np.bincount(word, minlength=n_words)
        new_slot = slot.astype(np.int32)
        if len(self.slot) == 0:
            return Terms(_ptr(counts), new_slot, narrow(tf))
        if len(word) <= FEW:  # a few documents edited: each entry's place in its word's range
            known = len(self.ptr) - 1
            at = np.array([_place(self.slot, self.ptr, w, s, known)
                           for w, s in zip(word.tolist(), slot.tolist(), strict=True)], dtype=_I64)
        else:
            at = np.searchsorted((self.rows() << _SHIFT) | self.slot, (word << _SHIFT) | slot)
        kind = np.promote_types(self.tf.dtype, narrow(tf).dtype)
        return Terms(_ptr(counts), np.insert(self.slot, at, new_slot),
                     np.insert(self.tf.astype(kind), at, tf.astype(kind)))


def _place(slots: np.ndarray, ptr: np.ndarray, row: int, slot: int, rows: int,
           side: str = "left") -> int:
    """Where ``slot`` goes in row ``row``'s (sorted) range; a row past the ``rows`` known ends
    after all of them."""
    if row >= rows:
        return int(ptr[-1])
    lo, hi = int(ptr[row]), int(ptr[row + 1])
    return lo + int(np.searchsorted(slots[lo:hi], slot, side=side))  # type: ignore[call-overload]


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

    def find(self, keys: np.ndarray) -> np.ndarray:
        """The rows of those of ``keys`` it holds with at least one entry (in ``keys``' order)."""
        at = np.searchsorted(self.key, keys)
        inside = at < len(self.key)
        at = at[inside][self.key[at[inside]] == keys[inside]]
        found: np.ndarray = at[self.ptr[at + 1] > self.ptr[at]]
        return found

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """Every entry as (key, slot), sorted by key then slot (what :meth:`merge` takes)."""
        return self.key[self.rows()], self.slot.astype(_I64)

    def purge(self, dead: np.ndarray) -> Pairs:
        gone = np.flatnonzero(dead[self.slot])
        if not len(gone):
            return self
        rows = np.searchsorted(self.ptr, gone, side="right") - 1
        counts = np.diff(self.ptr) - np.bincount(rows, minlength=len(self.key))
        multi = self.multi.copy()
        slots = np.delete(self.slot, gone)
        ptr = _ptr(counts)
        for row in np.unique(rows[multi[rows]]).tolist():  # ranges that had a slot twice
            part = slots[ptr[row]:ptr[row + 1]]
            multi[row] = bool(np.any(part[1:] == part[:-1]))
        return Pairs(self.key, ptr, slots, multi)

    def merge(self, key: np.ndarray, slot: np.ndarray) -> Pairs:
        """With the occurrences ``(key, slot)`` (sorted by key, then slot) added."""
        new_keys = _distinct(key)
        if len(self.slot) == 0:
            rows = np.searchsorted(new_keys, key)
            counts = np.bincount(rows, minlength=len(new_keys)).astype(_I64)
            return _with_multi(new_keys, counts, slot.astype(np.int32), rows)
        at = np.searchsorted(self.key, new_keys)
        inside = at < len(self.key)
        known = np.zeros(len(new_keys), dtype=bool)
        known[inside] = self.key[at[inside]] == new_keys[inside]
        missing = new_keys[~known]
        keys = np.insert(self.key, at[~known], missing)
        counts = np.insert(np.diff(self.ptr), at[~known], 0)
        new_rows = np.searchsorted(keys, key)
        counts += np.bincount(new_rows, minlength=len(keys))
        if len(key) <= FEW:
            ptr = _ptr(counts - np.bincount(new_rows, minlength=len(keys)))  # the old entries
            places = [_place(self.slot, ptr, r, s, len(keys), "right")
                      for r, s in zip(new_rows.tolist(), slot.tolist(), strict=True)]
            slots = np.insert(self.slot, places, slot.astype(np.int32))
            multi = np.insert(self.multi, at[~known], False)
            new_ptr = _ptr(counts)
            for row in np.unique(new_rows).tolist():
                part = slots[new_ptr[row]:new_ptr[row + 1]]
                multi[row] = bool(np.any(part[1:] == part[:-1]))
            return Pairs(keys, new_ptr, slots, multi)
        old_rows = np.searchsorted(keys, self.key)[self.rows()]
        place = np.searchsorted((old_rows << _SHIFT) | self.slot, (new_rows << _SHIFT) | slot,
                                side="right")
        return _with_multi(keys, counts, np.insert(self.slot, place, slot.astype(np.int32)),
                           np.insert(old_rows, place, new_rows))


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array."""
    if not len(values):
        return values
    return values[np.concatenate(([True], values[1:] != values[:-1]))]


def _with_multi(key: np.ndarray, counts: np.ndarray, slot: np.ndarray, rows: np.ndarray) -> Pairs:
    multi = np.zeros(len(key), dtype=bool)
    twice = (slot[1:] == slot[:-1]) & (rows[1:] == rows[:-1])
    multi[rows[1:][twice]] = True
    return Pairs(key, _ptr(counts), slot, multi)


def segment_entries(seg: Segment, slots: np.ndarray) -> tuple[np.ndarray, ...]:
    """A segment's entries with its documents numbered as ``slots`` (ascending): term word, slot,
    tf; pair key, slot."""
    return (seg.term_word, slots[seg.term_doc], seg.term_tf, seg.pair_key, slots[seg.pair_doc])
