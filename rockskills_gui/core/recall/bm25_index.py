"""An exact, incrementally updatable inverted index for RockBot's BM25 (rockbot-skills.md §8.1).

Layout (per document *slot*; slots of removed documents are reused):

- **Term postings**: ``term -> array('i')`` of ``[slot, tf, slot, tf, ...]``. ``df`` is the
  posting length. Scoring a term is one vectorised pass over its posting.
- **Phrase postings**: a phrase is two query tokens ``t1 t2`` (each ``[a-z0-9]{3,}``) and matches
  the *raw* document text, folded A-Z only, as a substring (§8.1 rules 6-7). Every occurrence
  lies across one single space between two maximal ``[a-z0-9]`` runs ``A B`` of the folded text
  with ``A.endswith(t1)`` and ``B.startswith(t2)`` -- and every such run pair is an occurrence.
  So each document contributes one row ``[slot, run A, run B]`` per single-space-separated run
  pair (both runs >= 3 characters), filed under the *window* ``A[-3:] + " " + B[:3]``, which
  every matching pair shares with the phrase (``t1[-3:] + " " + t2[:3]``). A phrase query reads
  one window, keeps the rows whose runs really end/start with ``t1``/``t2``, and gets exact
  document frequencies. Occurrence positions and matching rows correspond one to one, so a
  document with one matching row has ``f = 1``; a document with several (rare) is recounted with
  the definition itself, ``str.count`` (non-overlapping, left to right). No approximation.
- **Length normalisation**: ``norm[slot] = k1 * (1 - b + b * len / avgdl)``, recomputed for all
  slots lazily, only when avgdl changed since the last query (an edit that keeps avgdl updates
  its own slot only).

Rows of one document are appended together, so they are contiguous in every posting; removal
deletes that block (postings are ``array('i')``: compact, appendable, viewed by numpy without a
copy). Run strings are interned as ids and never forgotten (a few bytes per distinct word).
Not thread-safe: use one index from one thread at a time.

Scores accumulate in RockBot's order (terms, then phrases, each in query order) and every
operation is an IEEE double operation on the same operands as the scalar formulas in ``bm25``,
so scores are bit-identical to a naive evaluation and to a full rebuild. Ties are broken by
candidate order (``pos``), never by slot. Top-k uses linear-time partitioning (the vectorised
counterpart of a heap), then sorts only the k winners.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from rockskills_gui.core.recall.bm25 import (
    K1,
    PHRASE_WEIGHT,
    B,
    QueryPlan,
    average_length,
    count_phrase,
    idf,
    length_norm,
    parse_query,
    tokenize,
)
from rockskills_gui.core.recall.bm25_build import WINDOW as _WINDOW
from rockskills_gui.core.recall.bm25_build import block as _block
from rockskills_gui.core.recall.bm25_build import build, capacity, run_pairs
from rockskills_gui.core.recall.bm25_build import window as _window
from rockskills_gui.core.recall.bm25_results import Contribution, Explanation, Hit, QueryStats
from rockskills_gui.core.storage.gcpause import gc_paused

__all__ = ["Bm25Index", "Contribution", "Explanation", "Hit", "QueryStats", "run_pairs"]
_EMPTY_SLOTS = np.zeros(0, dtype=np.intp)
_EMPTY_F = np.zeros(0, dtype=np.float64)

if array("i").itemsize != 4:  # pragma: no cover - every supported platform has 32-bit C int
    raise ImportError("bm25_index needs a 32-bit array('i')")


class Bm25Index:
    """Exact BM25 over keyed documents with add / remove / replace and stable candidate order.

    Candidate order (the tie-break): documents added later come later; ``replace`` keeps a
    document's place (also when it is re-keyed, as a rename); :meth:`set_order` imposes an order.
    """

    def __init__(self, documents: Iterable[tuple[str, str]] = ()) -> None:
        self._slot_of: dict[str, int] = {}
        self._keys: list[str | None] = []
        self._texts: list[str | None] = []
        self._free: list[int] = []
        self._length = np.zeros(0, dtype=np.float64)
        self._pos = np.zeros(0, dtype=np.int64)
        self._norm = np.zeros(0, dtype=np.float64)
        self._next_pos = 0
        self._total = 0
        self._terms: dict[str, array[int]] = {}
        self._windows: dict[str, array[int]] = {}
        self._run_id: dict[str, int] = {}
        self._runs: list[str] = []
        self._norm_avgdl: float | None = None  # avgdl that _norm was computed with
        self._term_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._add_all(documents)

    # ---------------------------------------------------------------- reading

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, key: object) -> bool:
        return key in self._slot_of

    def keys(self) -> list[str]:
        """Keys in candidate order."""
        slots = np.fromiter(self._slot_of.values(), dtype=np.intp, count=len(self._slot_of))
        ordered = slots[np.argsort(self._pos[slots], kind="stable")]
        return [self._keys[s] for s in ordered.tolist()]

    def documents(self) -> Iterator[tuple[str, str]]:
        """``(key, text)`` in candidate order (what a full rebuild would be given)."""
        for key in self.keys():
            yield key, self.text(key)

    def text(self, key: str) -> str:
        text = self._texts[self._slot_of[key]]
        assert text is not None
        return text

    @property
    def total_tokens(self) -> int:
        return self._total

    @property
    def avgdl(self) -> float:
        return average_length(self._total, len(self._slot_of))

    def vocabulary_size(self) -> int:
        return len(self._terms)

    # ---------------------------------------------------------------- updates

    def add(self, key: str, text: str) -> None:
        """Add a document at the end of the candidate order."""
        if key in self._slot_of:
            raise KeyError(f"{key!r} is already indexed")
        slot = self._take_slot()
        self._pos[slot] = self._next_pos
        self._next_pos += 1
        self._slot_of[key] = slot
        self._keys[slot] = key
        self._insert(slot, text)
        self._renorm(slot)

    def _add_all(self, documents: Iterable[tuple[str, str]]) -> None:
        """:meth:`add` each document in turn, into an empty index, in one pass: the same slots,
        postings (rows in slot order, windows and run ids in first-seen order), lengths and
        candidate order as adding them one by one, about twice as fast (a library of 100,000
        skills is indexed as it opens)."""
        if self._slot_of:  # pragma: no cover - only the constructor calls this
            raise ValueError("_add_all needs an empty index")
        with gc_paused():  # ~10 small lists per document: the collector's passes cost more
            built = build(documents, self._run_id, self._runs)
        self._slot_of, self._keys, self._texts = built.slot_of, built.keys, built.texts
        self._terms, self._windows = built.terms, built.windows
        count, size = len(built.keys), capacity(len(built.keys))
        self._length = np.zeros(size, dtype=np.float64)
        self._length[:count] = built.lengths
        self._pos = np.zeros(size, dtype=np.int64)
        self._pos[:count] = np.arange(count, dtype=np.int64)
        self._norm = np.zeros(size, dtype=np.float64)
        self._next_pos = count
        self._total = sum(built.lengths)
        self._norm_avgdl = None

    def remove(self, key: str) -> None:
        """Remove a document (KeyError if absent)."""
        slot = self._slot_of.pop(key)
        self._delete(slot)
        self._renorm(slot)
        self._keys[slot] = None
        self._free.append(slot)

    def discard(self, key: str) -> None:
        """Remove a document if present."""
        if key in self._slot_of:
            self.remove(key)

    def replace(self, key: str, text: str, new_key: str | None = None) -> None:
        """Change a document's text (and optionally its key) keeping its candidate position."""
        slot = self._slot_of[key]
        if new_key is not None and new_key != key:
            if new_key in self._slot_of:
                raise KeyError(f"{new_key!r} is already indexed")
            del self._slot_of[key]
            self._slot_of[new_key] = slot
            self._keys[slot] = new_key
        if self._texts[slot] != text:
            self._delete(slot)
            self._insert(slot, text)
            self._renorm(slot)

    def set_order(self, keys: Sequence[str]) -> None:
        """Impose a candidate order; ``keys`` must be exactly the indexed keys."""
        if len(keys) != len(self._slot_of) or set(keys) != self._slot_of.keys():
            raise ValueError("set_order needs every indexed key exactly once")
        slots = np.fromiter((self._slot_of[k] for k in keys), dtype=np.intp, count=len(keys))
        self._pos[slots] = np.arange(len(keys), dtype=np.int64)
        self._next_pos = len(keys)

    def _take_slot(self) -> int:
        if self._free:
            return self._free.pop()
        slot = len(self._keys)
        self._keys.append(None)
        self._texts.append(None)
        if slot >= len(self._length):
            capacity = max(16, 2 * len(self._length))
            for name in ("_length", "_pos", "_norm"):
                old = getattr(self, name)
                grown = np.zeros(capacity, dtype=old.dtype)
                grown[: len(old)] = old
                setattr(self, name, grown)
        return slot

    def _insert(self, slot: int, text: str) -> None:
        tokens = tokenize(text)
        self._texts[slot] = text
        for term, tf in Counter(tokens).items():
            postings = self._terms.get(term)
            if postings is None:
                postings = self._terms[term] = array("i")
            postings.append(slot)
            postings.append(tf)
            self._term_cache.pop(term, None)
        grouped: dict[str, list[int]] = {}
        for left, right in run_pairs(text):
            grouped.setdefault(_window(left, right), []).extend(
                (slot, self._run(left), self._run(right)))
        for window, rows in grouped.items():
            postings = self._windows.get(window)
            if postings is None:
                postings = self._windows[window] = array("i")
            postings.extend(rows)
        self._set_length(slot, len(tokens))

    def _delete(self, slot: int) -> None:
        text = self._texts[slot]
        assert text is not None
        for term in set(tokenize(text)):
            postings = self._terms[term]
            start, count = _block(postings, 2, slot)
            del postings[2 * start: 2 * (start + count)]
            if not postings:
                del self._terms[term]
            self._term_cache.pop(term, None)
        for window in {_window(a, b) for a, b in run_pairs(text)}:
            postings = self._windows[window]
            start, count = _block(postings, 3, slot)
            del postings[3 * start: 3 * (start + count)]
            if not postings:
                del self._windows[window]
        self._texts[slot] = None
        self._set_length(slot, 0)

    def _run(self, run: str) -> int:
        run_id = self._run_id.get(run)
        if run_id is None:
            run_id = self._run_id[run] = len(self._runs)
            self._runs.append(run)
        return run_id

    def _set_length(self, slot: int, length: int) -> None:
        self._total += length - int(self._length[slot])
        self._length[slot] = length

    def _renorm(self, slot: int) -> None:
        """After an edit of ``slot``: fix its norm if avgdl is unchanged, else mark all stale."""
        if self._norm_avgdl is not None and self._norm_avgdl == self.avgdl:
            self._norm[slot] = length_norm(int(self._length[slot]), self._norm_avgdl)
        else:
            self._norm_avgdl = None  # every slot is recomputed at the next query

    def _ensure_norm(self) -> None:
        avgdl = self.avgdl
        if self._norm_avgdl != avgdl:
            # Same operations, same order as bm25.length_norm, element by element.
            np.multiply(B, self._length, out=self._norm)
            np.divide(self._norm, avgdl, out=self._norm)
            np.add(1 - B, self._norm, out=self._norm)
            np.multiply(K1, self._norm, out=self._norm)
            self._norm_avgdl = avgdl
            self._term_cache.clear()

    # ---------------------------------------------------------------- postings for a query

    def _term_postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Slots containing ``term`` and their normalised tf (cached until the term or avgdl
        changes)."""
        cached = self._term_cache.get(term)
        if cached is not None:
            return cached
        postings = self._terms.get(term)
        if postings is None:
            return _EMPTY_SLOTS, _EMPTY_F
        pairs = np.frombuffer(postings, dtype=np.int32).reshape(-1, 2)
        slots = pairs[:, 0].astype(np.intp)
        f = pairs[:, 1].astype(np.float64)
        del pairs
        tfn = f * (K1 + 1) / (f + self._norm[slots])
        self._term_cache[term] = (slots, tfn)
        return slots, tfn

    def _phrase_postings(self, phrase: str) -> tuple[np.ndarray, np.ndarray]:
        """Slots whose text contains ``phrase`` and the occurrence count in each (exact)."""
        first, second = phrase.split(" ")
        postings = self._windows.get(_window(first, second))
        if postings is None:
            return _EMPTY_SLOTS, _EMPTY_F
        rows = np.frombuffer(postings, dtype=np.int32).reshape(-1, 3)
        keep: np.ndarray | None = None
        for column, token, test in ((1, first, str.endswith), (2, second, str.startswith)):
            if len(token) == _WINDOW:
                continue  # the window already pins the whole token
            runs = rows[:, column]
            distinct = np.unique(runs)
            good = [r for r in distinct.tolist() if test(self._runs[r], token)]
            if not good:
                return _EMPTY_SLOTS, _EMPTY_F
            if len(good) < len(distinct):
                mask = np.isin(runs, good)
                keep = mask if keep is None else keep & mask
        slots = (rows[:, 0] if keep is None else rows[keep, 0]).astype(np.intp)
        del rows
        if len(slots) == 0:
            return _EMPTY_SLOTS, _EMPTY_F
        # Rows of one document are contiguous: collapse runs of equal slots.
        starts = np.flatnonzero(np.concatenate(([True], slots[1:] != slots[:-1])))
        f = np.ones(len(starts), dtype=np.float64)
        if len(starts) != len(slots):
            counts = np.diff(np.append(starts, len(slots)))
            slots = slots[starts]
            for i in np.flatnonzero(counts > 1).tolist():
                text = self._texts[int(slots[i])]
                assert text is not None
                f[i] = count_phrase(text, phrase)  # greedy non-overlapping count
        return slots, f

    # ---------------------------------------------------------------- scoring

    def stats(self, query: str | QueryPlan) -> QueryStats:
        """df of every term and phrase of ``query`` (no scoring)."""
        plan = query if isinstance(query, QueryPlan) else parse_query(query)
        self._ensure_norm()
        return QueryStats(
            plan=plan, n_docs=len(self), avgdl=self.avgdl,
            term_df={t: len(self._terms.get(t, ())) // 2 for t in plan.terms},
            phrase_df={p: len(self._phrase_postings(p)[0]) for p in plan.phrases},
        )

    def scores(self, query: str | QueryPlan,
               phrase_rows: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
               ) -> tuple[np.ndarray, QueryStats]:
        """Dense score per slot (0 = not matched) and the query's statistics; ``phrase_rows``,
        when given, receives each matched phrase's documents and occurrence counts."""
        plan = query if isinstance(query, QueryPlan) else parse_query(query)
        self._ensure_norm()
        n_docs = len(self)
        scores = np.zeros(len(self._keys), dtype=np.float64)
        term_df: dict[str, int] = {}
        phrase_df: dict[str, int] = {}
        if plan.empty or n_docs == 0:
            return scores, QueryStats(plan, n_docs, self.avgdl, term_df, phrase_df)
        for term in plan.terms:
            slots, tfn = self._term_postings(term)
            term_df[term] = len(slots)
            if len(slots):
                scores[slots] += idf(n_docs, len(slots)) * tfn
        for phrase in plan.phrases:
            slots, f = self._phrase_postings(phrase)
            phrase_df[phrase] = len(slots)
            if len(slots):
                if phrase_rows is not None:
                    phrase_rows[phrase] = (slots, f)
                weight = PHRASE_WEIGHT * idf(n_docs, len(slots))
                scores[slots] += weight * (f * (K1 + 1) / (f + self._norm[slots]))
        return scores, QueryStats(plan, n_docs, self.avgdl, term_df, phrase_df)

    def search(self, query: str | QueryPlan, top: int | None = 5,
               explain: bool = False) -> list[Hit]:
        """Documents with score > 0, best first, ties in candidate order; ``top=None``: all."""
        phrase_rows: dict[str, tuple[np.ndarray, np.ndarray]] | None = {} if explain else None
        scores, stats = self.scores(query, phrase_rows)
        matched = np.flatnonzero(scores > 0.0)  # contributions are > 0; a bool mask is faster
        if top is not None:
            if top <= 0:
                return []
            if len(matched) > top:
                matched = self._top_candidates(scores, matched, top)
        order = np.lexsort((self._pos[matched], -scores[matched]))
        chosen = matched[order[:top] if top is not None else order].tolist()
        explanations = self._explain_slots(chosen, stats, phrase_rows) if explain else None
        return [
            Hit(rank=i + 1, key=self._keys[slot], score=float(scores[slot]),
                explanation=explanations[i] if explanations is not None else None)
            for i, slot in enumerate(chosen)
        ]

    def _top_candidates(self, scores: np.ndarray, matched: np.ndarray, top: int) -> np.ndarray:
        """The ``top`` best of ``matched`` (unordered), ties at the cut won by candidate order.

        Linear time: one partition for the score threshold, one for the tied positions (large
        tie groups are common: every document matching only "the" with the same length).
        """
        values = scores[matched]
        cut = len(values) - top
        threshold = np.partition(values, cut)[cut]
        above = matched[values > threshold]
        tied = matched[values == threshold]
        need = top - len(above)  # >= 1: the threshold itself is among the best ``top``
        if len(tied) > need:
            tied = tied[np.argpartition(self._pos[tied], need - 1)[:need]]
        return np.concatenate((above, tied))

    def ranks(self, query: str | QueryPlan, keys: Iterable[str]) -> dict[str, int | None]:
        """Each key's 1-based rank in :meth:`search`'s full order (None: score 0 or not indexed),
        without ranking everything: O(N) vector work per key."""
        return self.top_and_ranks(query, 0, keys)[1]

    def top_and_ranks(self, query: str | QueryPlan, top: int, keys: Iterable[str]
                      ) -> tuple[list[Hit], dict[str, int | None]]:
        """:meth:`search` ``(query, top)`` and :meth:`ranks` ``(query, keys)`` from one scoring."""
        scores, _stats = self.scores(query)
        hits: list[Hit] = []
        if top > 0:
            matched = np.flatnonzero(scores > 0.0)
            if len(matched) > top:
                matched = self._top_candidates(scores, matched, top)
            order = np.lexsort((self._pos[matched], -scores[matched]))
            hits = [Hit(rank=i + 1, key=self._keys[slot], score=float(scores[slot]))
                    for i, slot in enumerate(matched[order[:top]].tolist())]
        ranks: dict[str, int | None] = {}
        for key in keys:
            slot = self._slot_of.get(key)
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
        return self._explain_slots([self._slot_of[key]], self.stats(query))[0]

    def _explain_slots(self, slots: list[int], stats: QueryStats,
                       phrase_rows: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
                       ) -> list[Explanation]:
        """The explanation of each of ``slots``. The frequencies are the ones scoring used --
        a term's from its posting (the document's token counts), a phrase's from its rows (exact
        counts, see the module doc) -- looked up for all the documents at once instead of
        tokenising each text again; idf, tfn and contributions are the scalar formulas."""
        wanted = np.asarray(slots, dtype=np.intp)
        row_of = np.full(len(self._keys), -1, dtype=np.intp)  # a posting's row of each slot
        parts: list[tuple[str, int, float, list[int], bool]] = []

        def frequencies(posting_slots: np.ndarray, counts: np.ndarray) -> list[int]:
            row_of[posting_slots] = np.arange(len(posting_slots), dtype=np.intp)
            rows = row_of[wanted]
            row_of[posting_slots] = -1
            found: list[int] = np.where(rows >= 0, counts[rows], 0).astype(np.int64).tolist()
            return found

        for term in stats.plan.terms:
            df = stats.term_df.get(term, 0)
            if df:
                pairs = np.frombuffer(self._terms[term], dtype=np.int32).reshape(-1, 2)
                found = frequencies(pairs[:, 0].astype(np.intp), pairs[:, 1].copy())
                del pairs  # (a view of the posting, which must stay resizable)
                parts.append((term, df, stats.term_idf(term), found, False))
        for phrase in stats.plan.phrases:
            df = stats.phrase_df.get(phrase, 0)
            if df:
                rows_of_phrase = (phrase_rows or {}).get(phrase) or self._phrase_postings(phrase)
                parts.append((phrase, df, stats.phrase_idf(phrase), frequencies(*rows_of_phrase),
                              True))
        norms = self._norm[wanted].tolist()
        explanations: list[Explanation] = []
        k1_plus_1 = K1 + 1
        for i, norm in enumerate(norms):
            terms: dict[str, Contribution] = {}
            phrases: dict[str, Contribution] = {}
            for text, df, value, found, is_phrase in parts:
                f = found[i]
                if f:
                    # tf_norm, term_contribution and phrase_contribution written out (the same
                    # operations in the same order: the same floats; 55,000 calls less per
                    # 300 explained queries; tests/core/test_recall_index.py adds them up to the
                    # scores)
                    tfn = f * k1_plus_1 / (f + norm)
                    if is_phrase:
                        phrases[text] = Contribution(df, value, f, tfn, PHRASE_WEIGHT * value * tfn)
                    else:
                        terms[text] = Contribution(df, value, f, tfn, value * tfn)
            explanations.append(Explanation(terms, phrases))
        return explanations
