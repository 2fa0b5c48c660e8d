"""Row/column orders for the co-occurrence matrix: by name (prefix tree), by usage, by clustering.

All three are deterministic: equal inputs give equal orders whatever order the skills came in.

- **name**: the prefix tree, depth first: names compared segment by segment (``/``-separated),
  each segment ordinal-ignore-case, so ``mcp``, ``mcp/calendar``, ``mcp/email`` stay together
  (plain List order would put ``mcp-notes`` between them). Consecutive skills of one top-level
  family form a :class:`Band` (``mcp`` and ``mcp/*`` are one family).
- **usage**: events descending, then sessions descending, then name order.
- **cluster**: average-linkage hierarchical clustering on the Jaccard distance ``1 - J`` with
  scipy's optimal leaf ordering (adjacent rows as similar as possible), oriented so the first row
  comes before the last in name order; skills without any pair follow in name order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.usage.matrix import CoMatrix, Measure

# scipy's optimal leaf ordering is O(n³): ~0.2 s at 500 clustered skills, ~2 s at 1000, ~16 s at
# 2000. Above this many, the dendrogram's own (deterministic) leaf order is used instead.
OPTIMAL_LEAF_ORDER_MAX = 1000
TOP_LEVEL = "(top level)"


class Ordering(StrEnum):
    NAME = "name"
    USAGE = "usage"
    CLUSTER = "cluster"

    @property
    def label(self) -> str:
        return {"name": "Name (prefix tree)", "usage": "Usage",
                "cluster": "Clusters (optimal leaf order)"}[self.value]


@dataclass(frozen=True, slots=True)
class Band:
    """Rows ``start`` to ``stop - 1`` belong to one name family (``label`` e.g. ``mcp/``)."""

    label: str
    start: int
    stop: int


@dataclass(frozen=True, slots=True)
class MatrixOrder:
    """Indices into the matrix in display order, the name bands (name order only) and a note."""

    indices: list[int]
    bands: list[Band]
    note: str = ""


def tree_key(name: str) -> tuple[bytes, ...]:
    """Prefix-tree sort key: each ``/`` segment compared ordinal-ignore-case."""
    return tuple(sort_key(segment) for segment in name.split("/"))


def order_by_name(names: Sequence[str]) -> list[int]:
    return sorted(range(len(names)), key=lambda i: (tree_key(names[i]), names[i]))


def family(name: str, prefixes: set[str]) -> str:
    """The family a name belongs to: its first segment when it has one or is a prefix, else ""."""
    head, slash, _ = name.partition("/")
    if slash or fold(name) in prefixes:
        return head
    return ""


def bands(names: Sequence[str]) -> list[Band]:
    """Runs of consecutive names of one family; loose top-level names form ``(top level)`` runs."""
    prefixes = {fold(n.partition("/")[0]) for n in names if "/" in n}
    result: list[Band] = []
    start = 0
    for i in range(1, len(names) + 1):
        if i == len(names) or fold(family(names[i], prefixes)) != fold(family(names[start], prefixes)):
            group = family(names[start], prefixes)
            result.append(Band(f"{group}/" if group else TOP_LEVEL, start, i))
            start = i
    return result


def order_by_usage(matrix: CoMatrix) -> list[int]:
    skills = matrix.skills
    return sorted(range(len(skills)), key=lambda i: (-skills[i].events, -skills[i].sessions,
                                                     tree_key(skills[i].name), skills[i].name))


def order_by_cluster(matrix: CoMatrix, olo_max: int = OPTIMAL_LEAF_ORDER_MAX) -> tuple[list[int], str]:
    """Clustered order and a note ("" when the optimal leaf order was applied)."""
    base = order_by_name(matrix.names)
    sub = matrix.take(base)
    linked = sub.pair_links().any(axis=1)
    clustered = np.flatnonzero(linked)
    rest = [base[i] for i in np.flatnonzero(~linked)]
    note = ""
    if len(clustered) <= 2:
        leaves = list(range(len(clustered)))
    else:
        # (scipy's clustering, ~0.1 s to import, loads here, on the worker that orders the
        # matrix, not with the Usage tab on the UI thread)
        from scipy.cluster.hierarchy import leaves_list, linkage, optimal_leaf_ordering
        from scipy.spatial.distance import squareform

        jaccard = sub.take(clustered.tolist()).values(Measure.JACCARD)
        distance = 1.0 - jaccard
        np.fill_diagonal(distance, 0.0)
        condensed = squareform(distance, checks=False)
        tree = linkage(condensed, method="average")
        if len(clustered) <= olo_max:
            tree = optimal_leaf_ordering(tree, condensed)
        else:
            note = (f"{len(clustered)} skills to cluster: optimal leaf ordering skipped above "
                    f"{olo_max} (too slow); dendrogram order shown")
        leaves = [int(x) for x in leaves_list(tree)]
        if leaves[0] > leaves[-1]:
            leaves.reverse()
    return [base[int(clustered[leaf])] for leaf in leaves] + rest, note


def order(matrix: CoMatrix, ordering: Ordering) -> MatrixOrder:
    """Display order for ``matrix`` (bands only for the name order)."""
    if ordering is Ordering.NAME:
        names = matrix.names
        indices = order_by_name(names)
        return MatrixOrder(indices, bands([names[i] for i in indices]))
    if ordering is Ordering.USAGE:
        return MatrixOrder(order_by_usage(matrix), [])
    indices, note = order_by_cluster(matrix)
    return MatrixOrder(indices, [], note)
