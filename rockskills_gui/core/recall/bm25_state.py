"""A :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index`'s whole state as plain values and
back (the recall index kept between opens, ``index_cache``).

This module is the index's friend: it reads and writes the index's private layout (see the
``bm25_index`` module doc). A state restored is the index that was saved, slot for slot, so every
later edit and every score is the same as on the saved one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rockskills_gui.core.recall.bm25_build import capacity
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.bm25_postings import Pairs, Terms
from rockskills_gui.core.recall.bm25_texts import TextStore
from rockskills_gui.core.recall.bm25_words import Words


@dataclass(frozen=True)
class IndexState:
    """Everything an index holds, as plain values (marshal-able): per slot its key (None: a free
    slot), the free slots, per slot its token count (float64 bytes) and candidate position (int64
    bytes), the next position, the words (a word's id is its place) and which of them stand left
    in run pairs (bool bytes), the term postings (ptr int64, slot int32, tf bytes and its
    dtype), the pair postings (key int64, ptr int64, slot int32 bytes), the recounted documents'
    texts, and every text (a compressed block, its sizes, None for free slots)."""

    keys: list[str | None]
    free: list[int]
    length: bytes
    pos: bytes
    next_pos: int
    words: list[str]
    left_words: bytes
    terms: tuple[bytes, bytes, bytes, str]
    pairs: tuple[bytes, bytes, bytes]
    risky: list[tuple[int, str]]
    texts: tuple[bytes, bytes, list[tuple[int, str | None]]]


def snapshot(index: Bm25Index) -> IndexState:
    """The whole state of ``index`` (copies: later edits of the index do not change it)."""
    index._apply(merge=True)
    count = index._n
    store = TextStore()
    texts = index._texts.all(count)
    store.set_block([text or "" for text in texts])
    for slot, text in enumerate(texts):
        if text is None:
            store.set(slot, None)
    terms, pairs = index._terms, index._pairs
    return IndexState(
        keys=index._keys[:count].tolist(), free=list(index._free),
        length=index._length[:count].tobytes(), pos=index._pos[:count].tobytes(),
        next_pos=index._next_pos, words=index._words.words(),
        left_words=index._words.left_flags().tobytes(),
        terms=(terms.ptr.tobytes(), terms.slot.tobytes(), terms.tf.tobytes(), terms.tf.dtype.str),
        pairs=(pairs.key.tobytes(), pairs.ptr.tobytes(), pairs.slot.tobytes()),
        risky=sorted(index._risky.items()), texts=store.state())


class BadState(ValueError):
    """A state that no index could have had (a damaged or foreign cache)."""


def restore(state: IndexState) -> Bm25Index:
    """The index :func:`snapshot` saw (BadState when ``state`` is inconsistent)."""
    count = len(state.keys)
    if len(state.length) != 8 * count or len(state.pos) != 8 * count:
        raise BadState("slot tables of different lengths")
    live = sum(key is not None for key in state.keys)
    free = set(state.free)
    if live + len(state.free) != count or len(free) != len(state.free) \
            or any(not 0 <= slot < count or state.keys[slot] is not None for slot in free):
        raise BadState("slots neither used once nor free")
    index = Bm25Index()
    index._slot_map = None
    index._free = list(state.free)
    index._grow(count)
    index._keys[:count] = state.keys
    index._n = count
    index._length[:count] = np.frombuffer(state.length, dtype=np.float64)
    index._pos[:count] = np.frombuffer(state.pos, dtype=np.int64)
    index._alive[:count] = [key is not None for key in state.keys]
    index._in_order = bool(np.all(np.diff(index._pos[np.flatnonzero(index._alive[:count])]) > 0))
    index._count = live
    index._next_pos = state.next_pos
    index._total = int(index._length[:count].sum())
    words = Words()
    words.map(list(state.words))
    if len(words) != len(state.words) or len(set(state.words)) != len(state.words):
        raise BadState("a word listed twice")
    ptr, slot, tf, kind = state.terms
    terms = Terms(np.frombuffer(ptr, dtype=np.int64).copy(), np.frombuffer(slot, dtype=np.int32).copy(),
                  np.frombuffer(tf, dtype=np.dtype(kind)).copy())
    key, pair_ptr, pair_slot = state.pairs
    pair_keys = np.frombuffer(key, dtype=np.int64).copy()
    pair_counts = np.diff(np.frombuffer(pair_ptr, dtype=np.int64))
    slots = np.frombuffer(pair_slot, dtype=np.int32).copy()
    if len(terms.ptr) != len(words) + 1 or len(terms.slot) != len(terms.tf) \
            or int(terms.ptr[-1]) != len(terms.slot) or np.any(np.diff(terms.ptr) < 0) \
            or len(pair_counts) != len(pair_keys) or int(pair_counts.sum()) != len(slots) \
            or np.any(pair_counts < 0) or np.any(terms.slot >= max(count, 1)) \
            or np.any(slots >= max(count, 1)):
        raise BadState("postings of the wrong shape")
    index._terms = terms
    index._pairs = Pairs.from_counts(pair_keys, pair_counts, slots)
    left = np.frombuffer(state.left_words, dtype=bool)
    if len(left) != len(words):
        raise BadState("word flags of the wrong length")
    ids = np.flatnonzero(left)
    words.mark_left(ids, [state.words[i] for i in ids.tolist()])
    index._words = words
    index._risky = dict(state.risky)
    index._texts = TextStore.from_state(*state.texts)
    index._norm_avgdl = None
    if capacity(count) != len(index._alive):  # pragma: no cover - _grow's own rule
        raise BadState("slot capacity")
    return index
