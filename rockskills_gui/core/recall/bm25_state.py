"""A :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index`'s whole state as plain values and
back (the recall index kept between opens, ``index_cache``).

This module is the index's friend: it reads and writes the index's private layout (see the
``bm25_index`` module doc). A state restored is the index that was saved, slot for slot, so every
later edit and every score is the same as on the saved one.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

from rockskills_gui.core.recall.bm25_build import capacity
from rockskills_gui.core.recall.bm25_index import Bm25Index


@dataclass(frozen=True)
class IndexState:
    """Everything an index holds, as plain values (marshal-able): per slot its key and text
    (None: a free slot), the free slots, per slot its token count (float64 bytes) and candidate
    position (int64 bytes), the next position, postings as ``(key, int32 bytes)`` in the index's
    order, and the run strings (a run's id is its place)."""

    keys: list[str | None]
    texts: list[str | None]
    free: list[int]
    length: bytes
    pos: bytes
    next_pos: int
    terms: list[tuple[str, bytes]]
    windows: list[tuple[str, bytes]]
    runs: list[str]


def snapshot(index: Bm25Index) -> IndexState:
    """The whole state of ``index`` (copies: later edits of the index do not change it)."""
    count = len(index._keys)
    return IndexState(
        keys=list(index._keys), texts=list(index._texts), free=list(index._free),
        length=index._length[:count].tobytes(), pos=index._pos[:count].tobytes(),
        next_pos=index._next_pos,
        terms=[(term, posting.tobytes()) for term, posting in index._terms.items()],
        windows=[(key, rows.tobytes()) for key, rows in index._windows.items()],
        runs=list(index._runs))


class BadState(ValueError):
    """A state that no index could have had (a damaged or foreign cache)."""


def restore(state: IndexState) -> Bm25Index:
    """The index :func:`snapshot` saw (BadState when ``state`` is inconsistent)."""
    count = len(state.keys)
    if len(state.texts) != count or len(state.length) != 8 * count or len(state.pos) != 8 * count:
        raise BadState("slot tables of different lengths")
    slot_of = {key: slot for slot, key in enumerate(state.keys) if key is not None}
    free = set(state.free)
    if len(slot_of) + len(state.free) != count or len(free) != len(state.free) \
            or any(state.keys[slot] is not None for slot in free):
        raise BadState("slots neither used once nor free")
    if any((text is None) != (key is None) for key, text in zip(state.keys, state.texts, strict=True)):
        raise BadState("a key without its text")
    index = Bm25Index()
    index._slot_of = slot_of
    index._keys = list(state.keys)
    index._texts = list(state.texts)
    index._free = list(state.free)
    size = capacity(count)
    index._length = np.zeros(size, dtype=np.float64)
    index._length[:count] = np.frombuffer(state.length, dtype=np.float64)
    index._pos = np.zeros(size, dtype=np.int64)
    index._pos[:count] = np.frombuffer(state.pos, dtype=np.int64)
    index._norm = np.zeros(size, dtype=np.float64)
    index._next_pos = state.next_pos
    index._total = int(index._length[:count].sum())
    index._terms = {term: array("i", posting) for term, posting in state.terms}
    index._windows = {key: array("i", rows) for key, rows in state.windows}
    if len(index._terms) != len(state.terms) or len(index._windows) != len(state.windows) \
            or any(len(p) % 2 for p in index._terms.values()) \
            or any(len(r) % 3 for r in index._windows.values()):
        raise BadState("postings of the wrong shape")
    index._runs = list(state.runs)
    index._run_id = {run: number for number, run in enumerate(index._runs)}
    if len(index._run_id) != len(index._runs):
        raise BadState("a run listed twice")
    index._norm_avgdl = None
    return index
