"""Array helpers of the BM25 self-join (``bm25_join``): running sums in IEEE order, CSR matrices
built from sorted entries, vectorised binary search, k-subsets of sorted rows, and sorting-based
unique values (numpy's hash-based ones are slow on big arrays)."""

from __future__ import annotations

import numpy as np
from scipy import sparse

_I64 = np.int64


def running_sums(indptr: np.ndarray, values: np.ndarray, reverse: bool = False) -> np.ndarray:
    """Per segment ``values[indptr[i]:indptr[i + 1]]``, its running sums, added one IEEE addition
    at a time from the left (from the right with ``reverse``): what a plain loop computes,
    vectorised across segments."""
    out = np.empty(len(values), dtype=np.float64)
    lengths = np.diff(indptr)
    order = np.argsort(-lengths, kind="stable")
    lengths = lengths[order]
    starts = indptr[:-1][order]
    step = 1
    if reverse:
        starts = starts + lengths - 1
        step = -1
    acc = np.zeros(len(order), dtype=np.float64)
    longest = int(lengths[0]) if len(lengths) else 0
    active = np.searchsorted(-lengths, -np.arange(longest), side="left")  # segments longer than k
    for k in range(longest):
        m = int(active[k])
        at = starts[:m] + step * k
        acc[:m] += values[at]
        out[at] = acc[:m]
    return out


def segment_totals(indptr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per segment, the left-to-right sum of its values (0.0 for an empty segment)."""
    totals = np.zeros(len(indptr) - 1, dtype=np.float64)
    if len(values):
        sums = running_sums(indptr, values)
        filled = np.diff(indptr) > 0
        totals[filled] = sums[indptr[1:][filled] - 1]
    return totals


def _csr(rows: np.ndarray, cols: np.ndarray, data: np.ndarray, shape: tuple[int, int]) -> sparse.csr_matrix:
    """A canonical CSR matrix from entries already sorted by (row, column), without duplicates."""
    indptr = np.zeros(shape[0] + 1, dtype=_I64)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=indptr[1:])
    matrix = sparse.csr_matrix((data, cols.astype(_I64), indptr), shape=shape)
    matrix.has_sorted_indices = True
    matrix.has_canonical_format = True
    return matrix


def _sorted_rows(indptr: np.ndarray, cols: np.ndarray, data: np.ndarray, width: int) -> sparse.csr_matrix:
    """A CSR matrix of rows ``indptr`` whose entries (distinct columns per row) are sorted by
    column, ``data`` carried along (scipy sorts each row: much faster than a global sort)."""
    matrix = sparse.csr_matrix((data.copy(), cols.astype(_I64), indptr.astype(_I64)),
                               shape=(len(indptr) - 1, width))
    matrix.has_sorted_indices = False
    matrix.sort_indices()
    return matrix


def _binary_search(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, need: np.ndarray) -> np.ndarray:
    """For each i: how many of ``values[lo[i]:hi[i]]`` (sorted descending) are >= ``need[i]``."""
    start = lo.copy()
    lo = lo.copy()
    hi = hi.copy()
    while True:
        open_ = lo < hi
        if not open_.any():
            break
        mid = (lo + hi) // 2
        ok = np.zeros(len(lo), dtype=bool)
        ok[open_] = values[mid[open_]] >= need[open_]
        lo = np.where(open_ & ok, mid + 1, lo)
        hi = np.where(open_ & ~ok, mid, hi)
    found: np.ndarray = lo - start
    return found


def _shared_keys(columns: list[np.ndarray], owner: np.ndarray, indexed: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) for every key row that x has and y has ``indexed`` (x == y included)."""
    order = np.lexsort((owner, *reversed(columns)))
    columns = [c[order] for c in columns]
    owner, indexed = owner[order], indexed[order]
    changed = np.zeros(len(owner), dtype=bool)
    for column in columns:
        changed[1:] |= column[1:] != column[:-1]
    group = np.cumsum(changed)
    mine = np.flatnonzero(indexed)  # sorted by group
    first = np.searchsorted(group[mine], group, side="left")
    count = np.searchsorted(group[mine], group, side="right") - first
    x = np.repeat(owner, count)
    at = np.repeat(first - (np.cumsum(count) - count), count) + np.arange(int(count.sum()), dtype=_I64)
    return x, owner[mine][at]


def _subsets(doc: np.ndarray, term: np.ndarray, position: np.ndarray, k: int) -> list[np.ndarray]:
    """Every k-subset (in order) of each document's entries (``doc`` sorted): k term columns, the
    document, and the position of the subset's last entry in it."""
    if len(doc) == 0:
        return [np.zeros(0, dtype=_I64)] * (k + 2)
    new = np.r_[True, doc[1:] != doc[:-1]]
    starts = np.flatnonzero(new)
    ends = np.repeat(np.r_[starts[1:], len(doc)], np.diff(np.r_[starts, len(doc)]))
    picked = [np.arange(len(doc), dtype=_I64)]
    for _ in range(k - 1):
        last = picked[-1]
        more = ends[last] - last - 1
        rep = np.repeat(np.arange(len(last), dtype=_I64), more)
        offset = np.arange(len(rep), dtype=_I64) - np.repeat(np.cumsum(more) - more, more)
        picked = [p[rep] for p in picked] + [last[rep] + 1 + offset]
    return [term[p] for p in picked] + [doc[picked[0]], position[picked[-1]]]


def _unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` (flat): for non-negative keys that fit in 63 bits
    with their positions, by sorting them packed together (one plain sort; numpy's argsort is
    half as fast)."""
    n = len(keys)
    shift = max(1, (n - 1).bit_length())
    if n == 0 or int(keys.min()) < 0 or int(keys.max()) >= 1 << (63 - shift):
        unique, inverse = np.unique(keys, return_inverse=True)
        return unique, inverse.reshape(-1)
    packed = keys << shift
    packed |= np.arange(n, dtype=_I64)
    packed.sort()
    order = packed & ((1 << shift) - 1)
    packed >>= shift  # the keys, sorted
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(packed[1:], packed[:-1], out=new[1:])
    inverse = np.empty(n, dtype=_I64)
    inverse[order] = np.cumsum(new) - 1
    return packed[new], inverse


def _unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (by sorting: numpy's hash-based ``unique`` is slow on big arrays)."""
    values = np.sort(values)
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values


def _ones(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """``matrix``'s pattern with every value 1.0."""
    return sparse.csr_matrix((np.ones(len(matrix.data)), matrix.indices, matrix.indptr),
                             shape=matrix.shape)


def _canonical(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """Rows taken from a canonical matrix are canonical: say so (scipy may not know)."""
    matrix.has_sorted_indices = True
    matrix.has_canonical_format = True
    return matrix
