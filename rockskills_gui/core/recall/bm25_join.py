"""Every document's own text as a BM25 query against every document: exact, and not quadratic.

The near-duplicate lint and the offline dream's merge candidates ask, for each document ``a`` of a
corpus, which documents ``b`` score at least some bound for the query ``a``'s own text, with
RockBot's score exactly as :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index` computes it.
Running the n searches one by one reads every posting of every query term n times: quadratic
as soon as documents share words, which near-identical skills do. :class:`SelfJoin` answers the
n queries together:

- **Features.** A query's terms and phrases are its own tokens and adjacent token pairs, so every
  query is known in advance. Each term and each phrase some document can ask for is a
  *feature*, with its exact posting: terms by token counts, phrases matched on the raw text the
  way the index does (a row per single-space-separated run pair; a phrase ``t1 t2`` matches the
  rows whose left run ends with ``t1`` and right run starts with ``t2``; a document with two
  adjacent matching rows, where occurrences could overlap, is recounted with ``count_phrase``;
  :mod:`~rockskills_gui.core.recall.bm25_phrases` counts them). A document's score is the
  sum, in the query's order (terms, then phrases), of its *contributions* ``c_f(b)`` --
  ``idf * tfn`` (``2 * idf * tfn`` for phrases) -- for the features it contains: the same IEEE
  operations on the same operands as ``Bm25Index.scores``, so every score is bit-identical.
- **Prefix filtering (exact pruning).** Features are ranked rarest first. Say ``b`` reaches the
  bound for query ``a`` and ``o`` is the rarest feature of ``a``'s query that ``b`` contains. Then
  the upper bounds (largest contribution in any document) of ``a``'s features from ``o`` on add
  up to at least the bound, and so do ``b``'s own contributions from ``o`` on. Candidates are
  therefore read only from the postings of each query's *prefix* features, and only the posting
  entries with enough contribution left: rare features, short lists. Bounds are lowered by a
  relative :data:`MARGIN` (far above the rounding of any of these sums): pruning never drops a
  pair, it only keeps a few more candidates.
- **Exact verification.** Candidates are scored with :meth:`SelfJoin.scores` (the query's features
  in order, a sparse intersection per pair; :meth:`SelfJoin.upper_scores` is a cheaper bound to
  filter with first); callers apply their own comparison to those scores.

The token-set overlap (Jaccard) join of :meth:`SelfJoin.overlap_pairs` uses the prefix filter of
AllPairs/PPJoin over k-token subsets of the prefixes (see there).

The cost follows the postings of the prefix features. Near-identical skills keep those short
(their prefixes are what only their family shares); text in which words of middling frequency
carry a large share of every score (the dream's low 20 % bound over whole contents) keeps the
prefix filter's candidates at a fixed fraction of all pairs. :meth:`SelfJoin.bounded_candidates`
adds AllPairs' score accumulation for those: a somewhat longer prefix, each pair's exact
contributions over it summed by a sparse product, and the rest bounded -- most candidates share
one rare word and fall far below (at 100,000 generated skills: 625,000 pairs to verify instead of
159 million).

Building the join reads every text once (``bm25_build.scan``: tokens and run pairs in one regular
expression pass), sorts within rows (scipy) rather than globally where it can, and lets go of each
large intermediate array as soon as it is used (at 100,000 skills the build's peak was the
dream's: 3.9 GB, now 1.9 GB).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse

from rockskills_gui.core.recall.bm25 import (
    K1,
    PHRASE_WEIGHT,
    B,
    average_length,
    idf,
)
from rockskills_gui.core.recall.bm25_arrays import (
    _binary_search,
    _canonical,
    _csr,
    _ones,
    _shared_keys,
    _sorted_rows,
    _subsets,
    _unique,
    _unique_inverse,
    running_sums,
    segment_totals,
)
from rockskills_gui.core.recall.bm25_build import scan as _scan
from rockskills_gui.core.recall.bm25_phrases import phrase_postings

MARGIN = 1e-9  # relative slack on every pruning bound (sums of <= 1e6 terms round by < 1e-10)
CHUNK = 2_000_000  # candidate pairs, or gathered matrix entries, handled at once
# bounded_candidates: postings read per block. Small enough that a block's arrays (tens of MB)
# reuse the memory the previous block freed: fresh pages from the system cost more than the work.
BLOCK = 1_000_000
EXTEND = 0.8  # bounded_candidates: a prefix goes on until the rest bounds <= this x the bound
SUBSET_SIZE_CAP = 40  # token sets up to this size are indexed by 3-token subsets
WORKERS = max(1, min(4, os.cpu_count() or 1))  # threads for bounded_candidates' blocks

_I64 = np.int64


class SelfJoin:
    """The documents ``texts`` (in candidate order), each usable as a query against all of them."""

    def __init__(self, texts: Sequence[str]) -> None:
        n = self.n = len(texts)
        tokens, lengths, words, rows = _scan(texts)
        n_words = max(len(words), 1)
        doc_of = np.repeat(np.arange(n, dtype=_I64), lengths)
        # Bm25Index._ensure_norm, operation for operation.
        avgdl = average_length(int(lengths.sum()), n)
        norm = K1 * ((1 - B) + (B * lengths.astype(np.float64)) / avgdl)

        # Terms: (doc, term, tf); a query's terms in first-occurrence order.
        keys, first, tf = np.unique(doc_of * n_words + tokens, return_index=True, return_counts=True)
        term_doc, term_id = np.divmod(keys, n_words)
        by_first = np.argsort(first, kind="stable")
        q_term_doc, q_term_id = term_doc[by_first], term_id[by_first]

        # Phrases a query can ask for: adjacent token pairs (the universe); each query's own, in
        # first-occurrence order.
        same = doc_of[1:] == doc_of[:-1]
        pair_doc = doc_of[:-1][same]
        phrase_keys, pair_phrase = _unique_inverse(tokens[:-1][same] * n_words + tokens[1:][same])
        n_phrases = max(len(phrase_keys), 1)
        keys, first = np.unique(pair_doc * n_phrases + pair_phrase, return_index=True)
        q_phrase_doc, q_phrase_id = np.divmod(keys[np.argsort(first, kind="stable")], n_phrases)
        del keys, first, by_first, pair_doc, doc_of, tokens  # what is no longer needed goes early:
        # at 100,000 skills these arrays are hundreds of MB, and the build's peak is the process's

        # Phrase postings over the raw texts (rows = run pairs, as Bm25Index files them).
        row_pos = rows[3]
        pair_at = np.cumsum(np.r_[same, False]) - 1  # token position -> its adjacent pair
        row_phrase = np.full(len(row_pos), -1, dtype=_I64)
        row_phrase[row_pos >= 0] = pair_phrase[pair_at[row_pos[row_pos >= 0]]]
        rows = (*rows[:3], row_phrase)
        del row_pos, pair_at, pair_phrase, same
        p_doc, p_id, p_f = phrase_postings(texts, words, n_words, phrase_keys, rows)
        del rows, row_phrase, phrase_keys

        # Features: terms 0..n_words-1, then phrases. Doc side sorted by (doc, feature).
        self.n_features = nf = n_words + n_phrases
        doc = np.concatenate((term_doc, p_doc))
        feat = np.concatenate((term_id, n_words + p_id))
        freq = np.concatenate((tf.astype(np.float64), p_f))
        del p_doc, p_id, p_f
        order = np.argsort(doc, kind="stable")  # terms precede phrases: (doc, feature) order
        doc, feat, freq = doc[order], feat[order], freq[order]
        del order
        self.df = df = np.bincount(feat, minlength=nf)
        table = np.zeros(n + 1, dtype=np.float64)
        for value in np.flatnonzero(np.bincount(df[df > 0])).tolist():
            table[value] = idf(n, value)
        weight = table[df]
        weight[n_words:] = PHRASE_WEIGHT * weight[n_words:]
        tfn = freq * (K1 + 1) / (freq + norm[doc])
        contribution = weight[feat] * tfn
        del tfn, freq, weight
        self._doc, self._feat, self._contribution = doc, feat, contribution
        self._dmat = _csr(doc, feat, contribution, (n, nf))
        self.term_sets = _csr(term_doc, term_id, np.ones(len(term_id)), (n, n_words))
        del term_doc, term_id, tf

        # Query side: terms then phrases (those some document contains), in query order.
        keep = df[n_words + q_phrase_id] > 0
        q_doc = np.concatenate((q_term_doc, q_phrase_doc[keep]))
        q_feat = np.concatenate((q_term_id, n_words + q_phrase_id[keep]))
        del q_term_doc, q_term_id, q_phrase_doc, q_phrase_id, keep
        order = np.argsort(q_doc, kind="stable")
        q_doc, q_feat = q_doc[order], q_feat[order]
        q_ptr = np.zeros(n + 1, dtype=_I64)
        np.cumsum(np.bincount(q_doc, minlength=n), out=q_ptr[1:])
        position = np.arange(len(q_doc), dtype=_I64) - q_ptr[q_doc] + 1
        self._q_doc, self._q_feat = q_doc, q_feat
        self._qmat = _sorted_rows(q_ptr, q_feat, position.astype(np.float64), nf)
        self._max_position = int(position.max()) if len(position) else 0
        everyone = np.arange(n, dtype=_I64)
        self.self_scores = self.scores(everyone, everyone)
        self._filter: tuple[np.ndarray, ...] | None = None
        self._queries: tuple[np.ndarray, ...] | None = None
        self._by_feature: sparse.csr_matrix | None = None

    # ---------------------------------------------------------------- building

    def _query_tables(self) -> tuple[np.ndarray, ...]:
        """Ranks (rarest first), upper bounds (largest contribution of each feature) and each
        query's features in rank order with their suffix bounds (built once, on first use)."""
        if self._queries is not None:
            return self._queries
        nf = self.n_features
        rank = np.empty(nf, dtype=_I64)
        rank[np.lexsort((np.arange(nf), self.df))] = np.arange(nf)
        upper = np.zeros(nf, dtype=np.float64)
        np.maximum.at(upper, self._feat, self._contribution)
        q_ptr = self._qmat.indptr.astype(_I64)
        by_rank = _sorted_rows(q_ptr, rank[self._q_feat], self._q_feat, nf)  # _q_doc is sorted
        q_doc, q_feat = self._q_doc, by_rank.data
        q_bound = running_sums(q_ptr, upper[q_feat], reverse=True)
        self._queries = (rank, upper, q_doc, q_feat, q_bound)
        return self._queries

    def _filter_tables(self) -> tuple[np.ndarray, ...]:
        """The query tables and the postings sorted by each document's remaining contribution
        (built once, on first use)."""
        if self._filter is not None:
            return self._filter
        rank, _upper, q_doc, q_feat, q_bound = self._query_tables()
        nf, n = self.n_features, self.n
        # each document's contribution from a feature on (rarest first): its remaining mass
        order = np.lexsort((rank[self._feat], self._doc))
        d_ptr = np.zeros(n + 1, dtype=_I64)
        np.cumsum(np.bincount(self._doc, minlength=n), out=d_ptr[1:])
        remaining = np.empty(len(order), dtype=np.float64)
        remaining[order] = running_sums(d_ptr, self._contribution[order], reverse=True)
        by_feature = np.lexsort((-remaining, self._feat))
        p_ptr = np.zeros(nf + 1, dtype=_I64)
        np.cumsum(np.bincount(self._feat, minlength=nf), out=p_ptr[1:])
        p_doc, p_remaining = self._doc[by_feature], remaining[by_feature]
        self._filter = (q_doc, q_feat, q_bound, p_ptr, p_doc, p_remaining)
        return self._filter

    # ---------------------------------------------------------------- queries

    def scores(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Exact scores of document ``b[i]`` for the query ``a[i]``'s text (0.0: no match)."""
        out = np.zeros(len(a), dtype=np.float64)
        sizes = np.diff(self._qmat.indptr)[a] + np.diff(self._dmat.indptr)[b]
        bounds = np.searchsorted(np.cumsum(sizes), np.arange(CHUNK, int(sizes.sum()), CHUNK))
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(a)], strict=True):
            if hi > lo:
                out[lo:hi] = self._score_chunk(a[lo:hi], b[lo:hi])
        return out

    def upper_scores(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Scores of ``b[i]`` for the query ``a[i]``, summed in any order, raised by :data:`MARGIN`:
        never below the exact score, and much cheaper -- a filter before :meth:`scores`."""
        out = np.zeros(len(a), dtype=np.float64)
        sizes = np.diff(self._qmat.indptr)[a] + np.diff(self._dmat.indptr)[b]
        bounds = np.searchsorted(np.cumsum(sizes), np.arange(CHUNK, int(sizes.sum()), CHUNK))
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(a)], strict=True):
            if hi > lo:
                queries = _canonical(self._qmat[a[lo:hi]])
                documents = _canonical(self._dmat[b[lo:hi]])
                shared = documents.multiply(_ones(queries)).tocsr()
                out[lo:hi] = np.add.reduceat(np.r_[shared.data, 0.0], shared.indptr[:-1]) * np.diff(
                    shared.indptr).astype(bool)
        return out * (1 + MARGIN)

    def _score_chunk(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        queries = _canonical(self._qmat[a])
        documents = _canonical(self._dmat[b])
        hits = documents.multiply(_ones(queries)).tocsr()  # contributions of shared features
        where = queries.multiply(_ones(documents)).tocsr()  # their positions in the query
        if not (np.array_equal(hits.indptr, where.indptr) and np.array_equal(hits.indices, where.indices)):
            raise AssertionError("sparse intersections disagree")  # pragma: no cover
        rows = np.repeat(np.arange(len(a), dtype=_I64), np.diff(hits.indptr))
        order = np.argsort(rows * (self._max_position + 1) + where.data.astype(_I64), kind="stable")
        return segment_totals(hits.indptr, hits.data[order])

    def candidates(self, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (a, b), a != b, sorted, that include every pair with ``score(a -> b) >= bounds[a]``
        (and usually few others). A bound <= 0 keeps every document sharing a feature."""
        q_doc, q_feat, q_bound, p_ptr, p_doc, p_remaining = self._filter_tables()
        need = np.where(bounds > 0, bounds * (1 - MARGIN), bounds)
        prefix = q_bound >= need[q_doc]  # NaN: nothing
        a, f = q_doc[prefix], q_feat[prefix]
        take = _binary_search(p_remaining, p_ptr[f], p_ptr[f + 1], need[a])
        out_a: list[np.ndarray] = []
        out_b: list[np.ndarray] = []
        total = np.cumsum(take)
        cuts = np.searchsorted(total, np.arange(CHUNK, int(total[-1]) if len(total) else 0, CHUNK))
        # cut at query boundaries so that no pair appears in two chunks
        cuts = np.unique(np.searchsorted(a, a[np.minimum(cuts, len(a) - 1)], side="left"))
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(a)], strict=True):
            if hi <= lo:
                continue
            counts = take[lo:hi]
            left = np.repeat(a[lo:hi], counts)
            start = np.repeat(p_ptr[f[lo:hi]] - (np.cumsum(counts) - counts), counts)
            right = p_doc[start + np.arange(len(left), dtype=_I64)]
            pair = _unique(left[left != right] * self.n + right[left != right])
            out_a.append(pair // self.n)
            out_b.append(pair % self.n)
        if not out_a:
            return np.zeros(0, dtype=_I64), np.zeros(0, dtype=_I64)
        return np.concatenate(out_a), np.concatenate(out_b)

    def bounded_candidates(self, bounds: np.ndarray, extend: float = EXTEND) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (a, b), a != b, sorted, that include every pair with ``score(a -> b) >= bounds[a]``
        (and few others): AllPairs' score accumulation, for bounds where the prefix filter alone
        keeps a fixed fraction of all pairs (a bound <= 0 keeps every document sharing a feature;
        NaN: none).

        Each query's prefix is extended until the upper bounds of the rest add up to at most
        ``extend`` times its bound: every pair over the bound still shares a prefix feature
        (the prefix filter's argument), and ``b``'s exact contributions over the prefix, summed
        by a sparse product (prefix indicator x contributions, block by block), plus that rest
        bound, bound its score -- most pairs sharing one rare word fall far below.
        """
        _rank, _upper, q_doc, q_feat, q_bound = self._query_tables()
        n = self.n
        need = np.where(bounds > 0, bounds * (1 - MARGIN), bounds)
        prefix = q_bound >= np.minimum(extend * need, need)[q_doc]  # NaN: nothing
        rest = np.zeros(n, dtype=np.float64)  # the bound of each query's features after its prefix
        after = np.flatnonzero(~prefix)
        if len(after):
            first = np.r_[True, q_doc[after][1:] != q_doc[after][:-1]]
            rest[q_doc[after][first]] = q_bound[after][first]
        q_doc, q_feat = q_doc[prefix], q_feat[prefix]
        q_ptr = np.zeros(n + 1, dtype=_I64)
        np.cumsum(np.bincount(q_doc, minlength=n), out=q_ptr[1:])
        queries = sparse.csr_matrix((np.ones(len(q_doc)), q_feat, q_ptr), shape=(n, self.n_features))
        postings = self._postings()
        work = np.cumsum(np.add.reduceat(np.r_[self.df[q_feat], 0], q_ptr[:-1]) * (np.diff(q_ptr) > 0))
        cuts = np.unique(np.r_[0, np.searchsorted(work, np.arange(BLOCK, int(work[-1]) if n else 0,
                                                                    BLOCK)), n])

        def block(lo: int, hi: int) -> np.ndarray:
            product = queries[lo:hi] @ postings  # acc[a, b]: b's contributions over a's prefix
            a = np.repeat(np.arange(lo, hi, dtype=_I64), np.diff(product.indptr))
            b = product.indices.astype(_I64)
            keep = ((product.data + rest[a]) * (1 + MARGIN) >= need[a]) & (a != b)
            found: np.ndarray = a[keep] * n + b[keep]
            return found

        spans = [(lo, hi) for lo, hi in itertools.pairwise(cuts.tolist()) if hi > lo]
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:  # scipy and numpy release the GIL
            out = list(pool.map(lambda span: block(*span), spans))
        pair = np.sort(np.concatenate(out)) if out else np.zeros(0, dtype=_I64)
        return pair // n, pair % n

    def _postings(self) -> sparse.csr_matrix:
        """Feature x document contributions (built once, on first use)."""
        if self._by_feature is None:
            self._by_feature = sparse.csr_matrix(self._dmat.T)  # sorted rows
        return self._by_feature

    def overlap_pairs(self, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Pairs (i, j), i < j, with their token-set intersection and union sizes, including every
        pair whose Jaccard ``inter / union`` is >= ``threshold`` (and usually few others).

        Jaccard >= t for sets x and y, ``|y| <= |x|``, needs ``alpha >= t (|x| + |y|) / (1 + t)``
        shared tokens: at least ``ceil(t |x|)`` and at least ``ceil(2t / (1 + t) |y|)``. The
        first k <= alpha shared tokens (rarest first) then lie among the first
        ``|x| - ceil(t |x|) + k`` tokens of x (its probe prefix) and the first
        ``|y| - ceil(2t / (1 + t) |y|) + k`` of y (its shorter index prefix) -- the prefix filter
        of AllPairs and PPJoin. Pairs are read from the k-token subsets both prefixes share, k as
        large as the pair's alpha allows (up to 3; 2 for sets over :data:`SUBSET_SIZE_CAP`
        tokens): a few common tokens are in many prefixes, three of them together rarely are.
        """
        sets = self.term_sets
        size = np.diff(sets.indptr)
        low = threshold * (1 - MARGIN) - MARGIN if threshold > 0 else 0.0
        if not low <= 1.0:  # above 1 (or NaN): no pair can qualify
            return (np.zeros(0, dtype=_I64),) * 4
        probe_need = np.maximum(1, np.ceil(low * size - MARGIN)).astype(_I64)
        index_need = np.maximum(1, np.ceil(2 * low / (1 + low) * size - MARGIN)).astype(_I64)
        doc = np.repeat(np.arange(self.n, dtype=_I64), size)
        term = sets.indices.astype(_I64)
        order = np.lexsort((term, self.df[term], doc))  # rarest first within each document
        doc, term = doc[order], term[order]
        position = np.arange(len(doc), dtype=_I64) - sets.indptr[doc]
        # (k, sets indexed): a pair's alpha and its larger set's size decide the route it takes
        if low <= 0:
            routes = [(1, size > 0)]
        else:
            cap = SUBSET_SIZE_CAP
            routes = [(1, low * size <= 1 + MARGIN), (2, (low * size <= 2 + MARGIN) & (size >= 2)),
                      (3, (size >= 3) & (size <= cap)), (2, (size >= 3) & (size >= low * cap - MARGIN))]
        found: list[np.ndarray] = []
        for k, member in routes:
            ends = np.minimum(size, size - probe_need + k)
            probe = member[doc] & (position < ends[doc])
            keys = _subsets(doc[probe], term[probe], position[probe], k)
            last, owner = keys.pop(), keys.pop()
            indexed = last < np.minimum(size, size - index_need + k)[owner]
            x, y = _shared_keys(keys, owner, indexed)
            keep = (x != y) & (size[y] <= size[x])
            found.append(np.minimum(x[keep], y[keep]) * self.n + np.maximum(x[keep], y[keep]))
        pair = _unique(np.concatenate(found))
        i, j = pair // self.n, pair % self.n
        small, large = np.minimum(size[i], size[j]), np.maximum(size[i], size[j])
        fits = small >= low * large - MARGIN
        i, j = i[fits], j[fits]
        inter = np.zeros(len(i), dtype=_I64)
        step = max(1, CHUNK // 16)
        for lo in range(0, len(i), step):
            hi = lo + step
            inter[lo:hi] = np.asarray(sets[i[lo:hi]].multiply(sets[j[lo:hi]]).sum(axis=1)).ravel()
        return i, j, inter, size[i] + size[j] - inter
