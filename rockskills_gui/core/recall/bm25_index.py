"""An exact, incrementally updatable inverted index for RockBot's BM25 (rockbot-skills.md §8.1).

Layout (per document *slot*; slots of removed documents are reused), all flat arrays
(``bm25_postings``), so that a query is a few vectorised operations and 100,000 skills take about
what bm25s's sparse matrix takes:

- **Words** (``bm25_words``): one id per distinct token or run.
- **Term postings**: per word, its documents (slots, ascending) and token counts; ``df`` is the
  posting length.
- **Pair postings**: a phrase is two query tokens ``t1 t2`` (each ``[a-z0-9]{3,}``) and matches
  the *raw* document text, folded A-Z only, as a substring (§8.1 rules 6-7). Every occurrence
  lies across one single space between two maximal ``[a-z0-9]`` runs ``A B`` of the folded text
  with ``A.endswith(t1)`` and ``B.startswith(t2)`` -- and every such run pair is an occurrence.
  So each document files one entry per single-space-separated run pair (both runs >= 3
  characters) under the pair's key (``A``'s id, ``B``'s id). A phrase reads the keys of the left
  words ending with ``t1`` times the right words starting with ``t2`` (usually one key: ``t1 t2``
  itself) and gets exact documents and counts. Two occurrences of one phrase can only overlap
  across adjacent pairs ``A B``, ``B C`` of a document where ``B`` ends like ``A`` and starts like
  ``C``; such (rare) documents keep their text and a count above one is recounted with the
  definition itself, ``str.count`` (non-overlapping, left to right). No approximation.
- **Length normalisation**: ``norm[slot] = k1 * (1 - b + b * len / avgdl)``, recomputed after
  edits.

Edits are kept pending and applied together before the next read. A few edited documents go
into small *recent* postings of the same layout, and the removed (and replaced) documents' slots
are *shadowed*: their entries in the main postings no longer count (a term or phrase leaves them
out, found by a search per shadowed slot, and adds the recent entries in slot order). So an edit
costs what its own document costs, not a copy of every posting (at 100,000 skills: ~0.7 ms
instead of ~9 ms). Once the recent documents exceed ``max(RECENT_MIN, documents /
RECENT_SHARE)``, or many edits come at once, everything is merged into the main postings
(vectorised, exact: the postings are what a fresh build of the same documents in the same slots
holds). Either way a term's or phrase's documents and counts are exactly the same. Document
texts are kept compressed (``bm25_texts``): scoring never reads them. Not thread-safe: use one
index from one thread at a time.

A query's terms and phrases are resolved once to their documents and contributions and kept in a
bounded cache (cleared by edits); a term or phrase in a quarter of the documents or more is kept
as a dense vector. Scores accumulate in RockBot's order (terms, then phrases, each in query order;
``np.add.at`` adds in array order, a dense vector adds 0.0 elsewhere) and every operation is an
IEEE double operation on the same operands as the scalar formulas in ``bm25``, so scores are
bit-identical to a naive evaluation and to a full rebuild. Ties are broken by candidate order
(``pos``), never by slot. Top-k keeps only the documents above a threshold guessed from a sample
of the scores, when at least k pass it (then the k best all do), partitions those, and sorts only
the k winners.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from rockskills_gui.core.recall.bm25 import (
    K1,
    PHRASE_WEIGHT,
    B,
    QueryPlan,
    average_length,
    count_phrase,
    idf,
    parse_query,
    tokenize,
)
from rockskills_gui.core.recall.bm25_build import KEY_SHIFT, capacity, run_pairs, segment
from rockskills_gui.core.recall.bm25_postings import Pairs, Terms, segment_entries
from rockskills_gui.core.recall.bm25_results import Contribution, Explanation, Hit, Hits, QueryStats
from rockskills_gui.core.recall.bm25_texts import TextStore
from rockskills_gui.core.recall.bm25_words import Words
from rockskills_gui.core.storage.gcpause import gc_paused

__all__ = ["Bm25Index", "Contribution", "Explanation", "Hit", "Hits", "QueryStats", "run_pairs"]

CACHE_BYTES = 12 << 20  # resolved terms and phrases kept (their contributions; dense vectors)
DENSE_SHARE = 4  # a term or phrase in >= 1/DENSE_SHARE of the documents is kept as a vector
SAMPLE = 256  # top-k guesses a threshold from about this many scores ...
WANTED = 64  # ... that about this many documents (and at least 2 x top) pass
RECENT_MIN, RECENT_SHARE = 256, 64  # edits kept apart up to max(MIN, documents / SHARE) documents
_MISSING = object()
_K1_PLUS_1 = K1 + 1


def _ranked(slots: np.ndarray, values: np.ndarray, position: np.ndarray | None,
            ascending: bool = False) -> np.ndarray:
    """``slots`` by ``values`` descending, equal values by ``position`` (None: by slot; then
    ``ascending`` slots need only a stable sort by value)."""
    if position is None and ascending:
        return slots[np.argsort(-values, kind="stable")]
    return slots[np.lexsort((slots if position is None else position[slots], -values))]


class _Feature(NamedTuple):
    """A term or phrase resolved against the index: its documents and what each gets."""

    text: str
    phrase: bool
    df: int
    idf: float
    slots: np.ndarray  # ascending
    contribution: np.ndarray | None  # per slot (None when kept dense)
    dense: np.ndarray | None  # per slot of the index (0.0 where absent)
    f: np.ndarray | None  # occurrences per slot (None: one each)


class Bm25Index:
    """Exact BM25 over keyed documents with add / remove / replace and stable candidate order.

    Candidate order (the tie-break): documents added later come later; ``replace`` keeps a
    document's place (also when it is re-keyed, as a rename); :meth:`set_order` imposes an order.
    """

    def __init__(self, documents: Iterable[tuple[str, str]] = ()) -> None:
        self._keys = np.full(0, None, dtype=object)  # per slot its key (None: free)
        self._n = 0  # slots in use or free
        self._slot_map: dict[str, int] | None = {}
        self._free: list[int] = []
        self._dying: set[int] = set()  # slots whose indexed entries must go
        self._pending: dict[int, str] = {}  # slot -> text to index
        self._alive = np.zeros(0, dtype=bool)
        self._length = np.zeros(0, dtype=np.float64)
        self._pos = np.zeros(0, dtype=np.int64)
        self._norm = np.zeros(0, dtype=np.float64)
        self._norm_avgdl: float | None = None  # avgdl that _norm was computed with
        self._in_order = True  # positions increase with slots (then ties go by slot)
        self._count = 0
        self._next_pos = 0
        self._total = 0
        self._words = Words()
        self._terms = Terms.empty()
        self._pairs = Pairs.empty()
        # Edits since the last merge (module doc): the postings of the documents indexed since,
        # and the slots whose entries in the main postings no longer count.
        self._recent_terms = Terms.empty()
        self._recent_pairs = Pairs.empty()
        self._recent: set[int] = set()  # slots the recent postings hold
        self._shadowed = np.zeros(0, dtype=bool)
        self._shadow_slots = np.zeros(0, dtype=np.int64)  # the shadowed slots, ascending
        self._shadowing = False  # some slot is shadowed
        self._risky: dict[int, str] = {}  # slot -> text, for documents recounted (module doc)
        self._texts = TextStore()
        self._cache: dict[str, _Feature | None] = {}
        self._cache_bytes = 0
        self._bulk(documents)

    # ---------------------------------------------------------------- reading

    def __len__(self) -> int:
        return self._count

    def __contains__(self, key: object) -> bool:
        return key in self._slot_of

    def keys(self) -> list[str]:
        """Keys in candidate order."""
        keys: list[str] = self._keys[self._ordered()].tolist()
        return keys

    def _ordered(self) -> np.ndarray:
        slots = np.flatnonzero(self._alive[: self._n])
        return slots[np.argsort(self._pos[slots], kind="stable")]

    def documents(self) -> Iterator[tuple[str, str]]:
        """``(key, text)`` in candidate order (what a full rebuild would be given)."""
        texts = self._texts.all(self._n)
        ordered = self._ordered()
        for key, slot in zip(self._keys[ordered].tolist(), ordered.tolist(), strict=True):
            text = texts[slot]
            assert text is not None
            yield key, text

    def text(self, key: str) -> str:
        text = self._texts.get(self._slot_of[key])
        assert text is not None
        return text

    @property
    def total_tokens(self) -> int:
        self._apply()
        return self._total

    @property
    def avgdl(self) -> float:
        self._apply()
        return average_length(self._total, self._count)

    def vocabulary_size(self) -> int:
        """Distinct terms of the indexed documents."""
        self._apply(merge=True)
        return int(np.count_nonzero(np.diff(self._terms.ptr)))

    @property
    def _slot_of(self) -> dict[str, int]:
        """Key -> slot (made when first needed: searching never needs it)."""
        if self._slot_map is None:
            self._slot_map = {k: s for s, k in enumerate(self._keys[: self._n].tolist())
                              if k is not None}
        return self._slot_map

    # ---------------------------------------------------------------- updates

    def _bulk(self, documents: Iterable[tuple[str, str]]) -> None:
        """Index ``documents`` into the empty index, in one pass: the index that adding them one
        by one gives (a library of 100,000 skills is indexed as it opens)."""
        docs = documents if isinstance(documents, list) else list(documents)
        if not docs:
            return
        keys = [key for key, _ in docs]
        texts = [text for _, text in docs]
        if len(set(keys)) != len(keys):
            seen: set[str] = set()
            twice = next(k for k in keys if k in seen or seen.add(k))  # type: ignore[func-returns-value]
            raise KeyError(f"{twice!r} is already indexed")
        count = len(keys)
        self._grow(count)
        self._keys[:count] = keys
        self._n = count
        self._slot_map = None
        self._alive[:count] = True
        self._pos[:count] = np.arange(count, dtype=np.int64)
        self._next_pos = self._count = count
        with gc_paused():  # many small objects: the collector's passes cost more than the work
            self._index(np.arange(count, dtype=np.int64), texts)
        self._texts.set_block(texts)
        self._norm_avgdl = None

    def add(self, key: str, text: str) -> None:
        """Add a document at the end of the candidate order."""
        slot_of = self._slot_of
        if key in slot_of:
            raise KeyError(f"{key!r} is already indexed")
        if self._free:
            slot = self._free.pop()
            self._in_order = False  # (until the next set_order finds otherwise)
        else:
            slot = self._n
            self._n += 1
            self._grow(self._n)
        self._pos[slot] = self._next_pos
        self._next_pos += 1
        slot_of[key] = slot
        self._keys[slot] = key
        self._alive[slot] = True
        self._count += 1
        self._pending[slot] = text
        self._texts.set(slot, text)

    def remove(self, key: str) -> None:
        """Remove a document (KeyError if absent)."""
        slot = self._slot_of.pop(key)
        self._keys[slot] = None
        self._alive[slot] = False
        self._count -= 1
        self._pending.pop(slot, None)
        self._dying.add(slot)  # its entries go before anything is indexed for it again
        self._free.append(slot)
        self._texts.set(slot, None)

    def discard(self, key: str) -> None:
        """Remove a document if present."""
        if key in self._slot_of:
            self.remove(key)

    def replace(self, key: str, text: str, new_key: str | None = None) -> None:
        """Change a document's text (and optionally its key) keeping its candidate position."""
        slot_of = self._slot_of
        slot = slot_of[key]
        if new_key is not None and new_key != key:
            if new_key in slot_of:
                raise KeyError(f"{new_key!r} is already indexed")
            del slot_of[key]
            slot_of[new_key] = slot
            self._keys[slot] = new_key
        self._dying.add(slot)
        self._pending[slot] = text
        self._texts.set(slot, text)

    def set_order(self, keys: Sequence[str]) -> None:
        """Impose a candidate order; ``keys`` must be exactly the indexed keys."""
        slot_of = self._slot_of
        if len(keys) != len(slot_of) or set(keys) != slot_of.keys():
            raise ValueError("set_order needs every indexed key exactly once")
        slots = np.fromiter((slot_of[k] for k in keys), dtype=np.intp, count=len(keys))
        self._pos[slots] = np.arange(len(keys), dtype=np.int64)
        self._next_pos = len(keys)
        self._in_order = bool(np.all(np.diff(slots) > 0))

    def _grow(self, count: int) -> None:
        if count <= len(self._alive):
            return
        size = capacity(count)
        for name in ("_keys", "_alive", "_length", "_pos", "_norm", "_shadowed"):
            old = getattr(self, name)
            grown = np.full(size, None, dtype=object) if name == "_keys" else np.zeros(size, old.dtype)
            grown[: len(old)] = old
            setattr(self, name, grown)

    def _apply(self, merge: bool = False) -> None:
        """Apply the pending edits (see the module doc): a few go into the recent postings; many,
        or ``merge``, into the main postings, with everything recent."""
        if self._dying or self._pending:
            recent = len(self._recent) + len(self._pending)
            if merge or recent > max(RECENT_MIN, self._count // RECENT_SHARE):
                self._merge(dict(self._pending))  # (the pending ones straight into the main ones)
            else:
                self._edit_recent()
            self._texts.compact(self._n)
            self._cache.clear()
            self._cache_bytes = 0
            self._norm_avgdl = None
        elif merge and (self._recent or self._shadowing):
            self._merge({})

    def _forget(self) -> np.ndarray | None:
        """Take the dying slots' tokens off the totals; a mask of them (None: none)."""
        if not self._dying:
            return None
        dead = np.zeros(self._n, dtype=bool)
        dying = np.fromiter(self._dying, dtype=np.int64, count=len(self._dying))
        dead[dying] = True
        self._total -= int(self._length[dying].sum())
        self._length[dying] = 0.0
        for slot in self._dying:
            self._risky.pop(slot, None)
        self._dying.clear()
        return dead

    def _edit_recent(self) -> None:
        """The pending edits into the recent postings: the main postings stay as they are, the
        dying slots' entries there shadowed."""
        dead = self._forget()
        if dead is not None:
            self._shadowed[: self._n] |= dead
            self._shadow_slots = np.flatnonzero(self._shadowed[: self._n])
            self._shadowing = True
            if self._recent:
                self._recent_terms = self._recent_terms.purge(dead)
                self._recent_pairs = self._recent_pairs.purge(dead)
                self._recent.difference_update(np.flatnonzero(dead).tolist())
        if self._pending:
            items = sorted(self._pending.items())
            self._pending.clear()
            slots = np.array([s for s, _ in items], dtype=np.int64)
            word, slot, tf, key, pair_slot = self._segment(slots, [t for _, t in items])
            self._recent_terms = self._recent_terms.merge(len(self._words), word, slot, tf)
            self._recent_pairs = self._recent_pairs.merge(key, pair_slot)
            self._recent.update(slots.tolist())

    def _merge(self, pending: dict[int, str]) -> None:
        """Everything into the main postings: shadowed and dying entries purged, the recent
        postings and the ``pending`` texts merged in."""
        dying = self._forget()
        if dying is not None and self._recent:
            self._recent_terms = self._recent_terms.purge(dying)
            self._recent_pairs = self._recent_pairs.purge(dying)
        dead = dying
        if self._shadowing:
            dead = self._shadowed[: self._n] if dead is None else dead | self._shadowed[: self._n]
        terms, pairs = self._terms, self._pairs
        if dead is not None:
            terms, pairs = terms.purge(dead), pairs.purge(dead)
        if len(self._recent_terms.slot):
            terms = terms.merge(len(self._words), *self._recent_terms.entries())
        if len(self._recent_pairs.slot):
            pairs = pairs.merge(*self._recent_pairs.entries())
        self._terms, self._pairs = terms, pairs
        self._recent_terms, self._recent_pairs = Terms.empty(), Pairs.empty()
        self._recent.clear()
        self._shadowed[:] = False
        self._shadow_slots = self._shadow_slots[:0]
        self._shadowing = False
        if pending:
            self._pending.clear()
            items = sorted(pending.items())
            self._index(np.array([s for s, _ in items], dtype=np.int64), [t for _, t in items])

    def _segment(self, slots: np.ndarray, texts: list[str]) -> tuple[np.ndarray, ...]:
        """The entries of ``texts`` (for ``slots``, ascending); their lengths and risk noted."""
        seg = segment(texts, self._words)
        self._length[slots] = seg.lengths
        self._total += int(seg.lengths.sum())
        for i in np.flatnonzero(seg.risky).tolist():
            self._risky[int(slots[i])] = texts[i]
        return segment_entries(seg, slots)

    def _index(self, slots: np.ndarray, texts: list[str]) -> None:
        """Merge the postings of ``texts`` (for ``slots``, ascending; their entries are gone)
        into the main postings."""
        word, slot, tf, key, pair_slot = self._segment(slots, texts)
        self._terms = self._terms.merge(len(self._words), word, slot, tf)
        self._pairs = self._pairs.merge(key, pair_slot)

    def _ready(self) -> None:
        """Edits applied and the length normalisation up to date."""
        if self._dying or self._pending:
            self._apply()
        avgdl = average_length(self._total, self._count)
        if self._norm_avgdl != avgdl:
            # Same operations, same order as bm25.length_norm, element by element.
            np.multiply(B, self._length, out=self._norm)
            np.divide(self._norm, avgdl, out=self._norm)
            np.add(1 - B, self._norm, out=self._norm)
            np.multiply(K1, self._norm, out=self._norm)
            self._norm_avgdl = avgdl
            self._cache.clear()
            self._cache_bytes = 0

    # ---------------------------------------------------------------- terms and phrases

    def _features(self, tokens: Sequence[str]) -> list[_Feature]:
        """The query's terms, then its phrases, that match something (RockBot's order)."""
        cache = self._cache
        out: list[_Feature] = []
        for term in dict.fromkeys(tokens):
            found = cache.get(term, _MISSING)
            if found is _MISSING:
                found = self._keep(term, self._term(term))
            if found is not None:
                out.append(found)  # type: ignore[arg-type]
        if len(tokens) > 1:
            for phrase in dict.fromkeys(map(" ".join, pairwise(tokens))):
                found = cache.get(phrase, _MISSING)
                if found is _MISSING:
                    found = self._keep(phrase, self._phrase(phrase))
                if found is not None:
                    out.append(found)  # type: ignore[arg-type]
        return out

    def _keep(self, text: str, feature: _Feature | None) -> _Feature | None:
        """Cache ``feature`` (oldest entries go first when the cache is full)."""
        size = 0
        if feature is not None:
            size = feature.slots.nbytes if feature.phrase or feature.dense is not None else 0
            for part in (feature.contribution, feature.dense, feature.f):
                size += part.nbytes if part is not None else 0
        cache = self._cache
        while self._cache_bytes + size > CACHE_BYTES and cache:
            old = cache.pop(next(iter(cache)))
            if old is not None:
                self._cache_bytes -= self._feature_bytes(old)
        cache[text] = feature
        self._cache_bytes += size
        return feature

    @staticmethod
    def _feature_bytes(feature: _Feature) -> int:
        size = feature.slots.nbytes if feature.phrase or feature.dense is not None else 0
        for part in (feature.contribution, feature.dense, feature.f):
            size += part.nbytes if part is not None else 0
        return size

    def _term(self, term: str) -> _Feature | None:
        wid = self._words.get(term)
        if wid is None:
            return None
        slots, f = self._terms.row(wid)
        if self._shadowing:
            gone = self._shadowed_in(slots)
            if gone is not None:
                slots, f = np.delete(slots, gone), np.delete(f, gone)
        if self._recent:
            more_slots, more_f = self._recent_terms.row(wid)
            if len(more_slots):  # (slots apart from the main ones': insert them in order)
                at = np.searchsorted(slots, more_slots)
                kind = np.promote_types(f.dtype, more_f.dtype)
                slots = np.insert(slots, at, more_slots)
                f = np.insert(f.astype(kind), at, more_f.astype(kind))
        if not len(slots):
            return None
        value = idf(self._count, len(slots))
        contribution = value * (f * _K1_PLUS_1 / (f + self._norm[slots]))
        return self._feature(term, False, value, slots, contribution, f)

    def _feature(self, text: str, phrase: bool, value: float, slots: np.ndarray,
                 contribution: np.ndarray, f: np.ndarray | None) -> _Feature:
        if len(slots) * DENSE_SHARE >= self._count:
            dense = np.zeros(self._n, dtype=np.float64)
            dense[slots] = contribution
            return _Feature(text, phrase, len(slots), value, slots, None, dense, f)
        return _Feature(text, phrase, len(slots), value, slots, contribution, None, f)

    def _phrase(self, phrase: str) -> _Feature | None:
        found = self._phrase_rows(phrase)
        if found is None:
            return None
        slots, f = found
        value = idf(self._count, len(slots))
        norm = self._norm[slots]
        tfn = _K1_PLUS_1 / (1.0 + norm) if f is None else f * _K1_PLUS_1 / (f + norm)
        return self._feature(phrase, True, value, slots, (PHRASE_WEIGHT * value) * tfn, f)

    def _phrase_rows(self, phrase: str) -> tuple[np.ndarray, np.ndarray | None] | None:
        """Slots whose text contains ``phrase`` (ascending) and the occurrences in each (None:
        one each), exactly (see the module doc)."""
        first, second = phrase.split(" ")
        left = self._words.ending_with(first)
        right = self._words.starting_with(second)
        if not len(left) or not len(right):
            return None
        pairs = self._pairs
        if len(left) == 1 and len(right) == 1:
            key = (int(left[0]) << KEY_SHIFT) | int(right[0])
            if not self._edited():  # (the usual case, in a few scalar steps)
                at = int(np.searchsorted(pairs.key, key))
                if at == len(pairs.key) or int(pairs.key[at]) != key:
                    return None
                lo, hi = int(pairs.ptr[at]), int(pairs.ptr[at + 1])
                if hi == lo:
                    return None
                if not pairs.multi[at]:
                    return pairs.slot[lo:hi], None
                return self._counted(pairs.slot[lo:hi], phrase)
            keys = np.array([key], dtype=np.int64)
        else:
            keys = ((left.astype(np.int64) << KEY_SHIFT)[:, None] | right[None, :]).ravel()
        parts = [pairs.slot[pairs.ptr[i]:pairs.ptr[i + 1]] for i in pairs.find(keys).tolist()]
        if self._shadowing:
            parts = [part if (gone := self._shadowed_in(part)) is None else np.delete(part, gone)
                     for part in parts]
        if self._recent:
            recent = self._recent_pairs
            parts += [recent.slot[recent.ptr[i]:recent.ptr[i + 1]] for i in recent.find(keys).tolist()]
        parts = [part for part in parts if len(part)]
        if not parts:
            return None
        return self._counted(np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0], phrase)

    def _shadowed_in(self, slots: np.ndarray) -> np.ndarray | None:
        """Where ``slots`` (ascending, repeats allowed) holds shadowed slots (None: nowhere). By
        a search for each shadowed slot (a few) rather than a look at every entry (thousands)."""
        shadow = self._shadow_slots
        if len(shadow) * 8 > len(slots):
            found = np.flatnonzero(self._shadowed[slots])
        else:
            lo = np.searchsorted(slots, shadow)
            hi = np.searchsorted(slots, shadow, side="right")
            count = hi - lo
            if not count.any():
                return None
            found = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
        return found if len(found) else None

    def _edited(self) -> bool:
        """Edits since the last merge (the main postings are not the whole story)."""
        return self._shadowing or bool(self._recent)

    def _counted(self, slots: np.ndarray, phrase: str) -> tuple[np.ndarray, np.ndarray | None]:
        """Distinct ``slots`` (sorted, one per occurrence) and the occurrences in each."""
        starts = np.flatnonzero(np.concatenate(([True], slots[1:] != slots[:-1])))
        if len(starts) == len(slots):
            return slots, None
        f = np.diff(np.append(starts, len(slots))).astype(np.float64)
        slots = slots[starts]
        if self._risky:
            risky = self._risky
            for i in np.flatnonzero(f > 1).tolist():
                text = risky.get(int(slots[i]))
                if text is not None:
                    f[i] = count_phrase(text, phrase)  # greedy non-overlapping count
        return slots, f

    # ---------------------------------------------------------------- scoring

    def _accumulate(self, features: list[_Feature]) -> np.ndarray:
        """Dense score per slot: the features' contributions added in order."""
        scores: np.ndarray | None = None
        run_slots: list[np.ndarray] = []
        run_values: list[np.ndarray] = []
        for feature in features:
            if feature.dense is None:
                run_slots.append(feature.slots)
                run_values.append(feature.contribution)  # type: ignore[arg-type]
                continue
            if run_slots:
                scores = self._add(scores, run_slots, run_values)
                run_slots, run_values = [], []
            if scores is None:
                scores = feature.dense.copy()
            else:
                np.add(scores, feature.dense, out=scores)
        if run_slots or scores is None:
            scores = self._add(scores, run_slots, run_values)
        return scores

    def _add(self, scores: np.ndarray | None, slots: list[np.ndarray],
             values: list[np.ndarray]) -> np.ndarray:
        if scores is None:
            scores = np.zeros(self._n, dtype=np.float64)
        if len(slots) == 1:
            np.add.at(scores, slots[0], values[0])
        elif slots:
            np.add.at(scores, np.concatenate(slots), np.concatenate(values))
        return scores

    def _plan_tokens(self, query: str | QueryPlan) -> tuple[str, ...] | list[str]:
        return query.tokens if isinstance(query, QueryPlan) else tokenize(query)

    def stats(self, query: str | QueryPlan) -> QueryStats:
        """df of every term and phrase of ``query`` (no scoring)."""
        plan = query if isinstance(query, QueryPlan) else parse_query(query)
        self._ready()
        return self._stats(plan, self._features(plan.tokens))

    def _stats(self, plan: QueryPlan, features: list[_Feature]) -> QueryStats:
        found = {feature.text: feature.df for feature in features}
        return QueryStats(plan=plan, n_docs=self._count, avgdl=average_length(self._total, self._count),
                          term_df={t: found.get(t, 0) for t in plan.terms},
                          phrase_df={p: found.get(p, 0) for p in plan.phrases})

    def scores(self, query: str | QueryPlan) -> tuple[np.ndarray, QueryStats]:
        """Dense score per slot (0 = not matched) and the query's statistics."""
        plan = query if isinstance(query, QueryPlan) else parse_query(query)
        self._ready()
        features = self._features(plan.tokens) if self._count else []
        return self._accumulate(features), self._stats(plan, features)

    def search(self, query: str | QueryPlan, top: int | None = 5,
               explain: bool = False) -> Hits:
        """Documents with score > 0, best first, ties in candidate order; ``top=None``: all."""
        if top is not None and top <= 0:
            return Hits.empty()
        tokens = query.tokens if isinstance(query, QueryPlan) else tokenize(query)
        if not tokens:
            return Hits.empty()
        if self._norm_avgdl is None or self._pending or self._dying:
            self._ready()
        features = self._features(tokens)
        if not features:
            return Hits.empty()
        scores = self._accumulate(features)
        chosen = self._top(scores, top)
        if explain:
            return Hits(self._keys[chosen], scores[chosen], self._explain_slots(chosen, features))
        return Hits(self._keys[chosen], scores[chosen])

    def _top(self, scores: np.ndarray, top: int | None) -> np.ndarray:
        """The slots of the ``top`` best scores (all > 0), in rank order, ties by position.

        A threshold that about ``max(WANTED, 2 * top)`` documents pass is guessed from a strided
        sample of the scores; when at least ``top`` pass it, the best ``top`` are all among them
        (ties at the cut too), and one sort of those few by score and position gives the
        answer. Otherwise one partition of all the scores finds the best ``top``."""
        tie_key = None if self._in_order else self._pos
        if top is not None:
            count = len(scores)
            sample = scores[:: count // SAMPLE] if count >= 2 * SAMPLE else scores
            rank = max(1, len(sample) * max(WANTED, 2 * top) // count)
            if rank < len(sample):
                guess = sample[np.argpartition(sample, len(sample) - rank)[len(sample) - rank]]
                if guess > 0.0:
                    above = np.flatnonzero(scores > guess)
                    if len(above) >= top:
                        return _ranked(above, scores[above], tie_key, ascending=True)[:top]
        matched = np.flatnonzero(scores > 0.0)  # (scores are never negative; a float nonzero is slower)
        if top is None or len(matched) <= top:
            return _ranked(matched, scores[matched], tie_key, ascending=True)
        values = scores[matched]
        cut = len(values) - top
        threshold = np.partition(values, cut)[cut]
        above = matched[values > threshold]
        tied = matched[values == threshold]  # ascending slots
        need = top - len(above)  # >= 1: the threshold itself is among the best ``top``
        if tie_key is None:
            tied = tied[:need]
        elif len(tied) > need:
            tied = tied[np.argpartition(tie_key[tied], need - 1)[:need]]
        chosen = np.concatenate((above, tied))
        return _ranked(chosen, scores[chosen], tie_key)

    def ranks(self, query: str | QueryPlan, keys: Iterable[str]) -> dict[str, int | None]:
        """Each key's 1-based rank in :meth:`search`'s full order (None: score 0 or not indexed),
        without ranking everything: O(N) vector work per key."""
        return self.top_and_ranks(query, 0, keys)[1]

    def top_and_ranks(self, query: str | QueryPlan, top: int, keys: Iterable[str]
                      ) -> tuple[Hits, dict[str, int | None]]:
        """:meth:`search` ``(query, top)`` and :meth:`ranks` ``(query, keys)`` from one scoring."""
        scores, _stats = self.scores(query)
        hits = Hits.empty()
        if top > 0:
            chosen = self._top(scores, top)
            hits = Hits(self._keys[chosen], scores[chosen])
        ranks: dict[str, int | None] = {}
        slot_of = self._slot_of
        for key in keys:
            slot = slot_of.get(key)
            score = scores[slot] if slot is not None else 0.0
            if slot is None or not score > 0.0:
                ranks[key] = None
                continue
            tied = np.flatnonzero(scores == score)
            before = int(np.count_nonzero(self._pos[tied] < self._pos[slot]))
            ranks[key] = int(np.count_nonzero(scores > score)) + before + 1
        return hits, ranks

    def explain(self, query: str | QueryPlan, key: str) -> Explanation:
        """The contributions behind ``key``'s score for ``query`` (empty when it does not match)."""
        slot = self._slot_of[key]
        self._ready()
        features = self._features(self._plan_tokens(query)) if self._count else []
        return self._explain_slots(np.array([slot], dtype=np.intp), features)[0]

    def _explain_slots(self, slots: np.ndarray, features: list[_Feature]) -> list[Explanation]:
        """The explanation of each of ``slots``. The frequencies are the ones scoring used -- a
        term's from its posting, a phrase's from its resolved rows -- looked up for all the
        documents at once; idf, tfn and contributions are the scalar formulas."""
        parts: list[tuple[str, int, float, list[int], bool]] = []
        for feature in features:
            at = np.searchsorted(feature.slots, slots)
            at = np.minimum(at, len(feature.slots) - 1)
            hit = feature.slots[at] == slots
            counts = np.ones(len(slots)) if feature.f is None else feature.f[at]
            found = np.where(hit, counts, 0).astype(np.int64).tolist()
            parts.append((feature.text, feature.df, feature.idf, found, feature.phrase))
        norms = self._norm[slots].tolist()
        explanations: list[Explanation] = []
        for i, norm in enumerate(norms):
            terms: dict[str, Contribution] = {}
            phrases: dict[str, Contribution] = {}
            for text, df, value, found, is_phrase in parts:
                f = found[i]
                if f:
                    # tf_norm, term_contribution and phrase_contribution written out (the same
                    # operations in the same order: the same floats; tests/core/
                    # test_recall_index.py adds them up to the scores)
                    tfn = f * _K1_PLUS_1 / (f + norm)
                    if is_phrase:
                        phrases[text] = Contribution(df, value, f, tfn, PHRASE_WEIGHT * value * tfn)
                    else:
                        terms[text] = Contribution(df, value, f, tfn, value * tfn)
            explanations.append(Explanation(terms, phrases))
        return explanations
