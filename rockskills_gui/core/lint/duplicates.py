"""Near-duplicate skills: pairs that RockBot's BM25 recall can hardly tell apart."""

from __future__ import annotations

import numpy as np

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import document_text
from rockskills_gui.core.recall.bm25_join import SelfJoin

NEAR_DUPLICATE_RATIO = 0.8  # another skill scoring >= 80% of a skill's own score for its text
NEAR_DUPLICATE_OVERLAP = 0.75  # or sharing >= 75% of their recall tokens (Jaccard)


def near_duplicates(skills: list[Skill], ratio: float = NEAR_DUPLICATE_RATIO,
                    overlap: float = NEAR_DUPLICATE_OVERLAP) -> list[tuple[str, str, float]]:
    """Pairs (a, b, similarity) that recall can hardly tell apart.

    Two measures over what recall indexes (name + summary, RockBot's tokenizer): b is among the
    4 hits of a's own text (RockBot's ``SearchAsync(text, 4)``, a itself among them) and scores
    at least ``ratio`` of a's own score, or their token sets overlap (Jaccard) by at least
    ``overlap`` -- the second also works in libraries too small for BM25's idf. Both are exact
    threshold joins (:class:`~rockskills_gui.core.recall.bm25_join.SelfJoin`), not n searches.
    """
    if len({fold(s.name) for s in skills}) != len(skills):
        raise ValueError("skill names must be unique case-insensitively")
    pairs: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, value: float) -> None:
        key = (a, b) if sort_key(a) <= sort_key(b) else (b, a)
        pairs[key] = max(pairs.get(key, 0.0), min(1.0, value))

    join = SelfJoin([document_text(s.name, s.summary) for s in skills])
    for a, b, score, own in _top_hits(join, ratio):
        add(skills[a].name, skills[b].name, score / own)
    i, j, inter, union = join.overlap_pairs(overlap)
    for a, b, shared, size in zip(i.tolist(), j.tolist(), inter.tolist(), union.tolist(), strict=True):
        if size and shared / size >= overlap:
            add(skills[a].name, skills[b].name, shared / size)
    return [(a, b, v) for (a, b), v in pairs.items()]


def _top_hits(join: SelfJoin, ratio: float) -> list[tuple[int, int, float, float]]:
    """(a, b, score, own) for every b != a among the top 4 hits of a's text, when a is one of
    them and b scores >= ``ratio * own`` -- in a's order, then rank order.

    The hits that can rank above a or pass the bound score >= min(ratio * own, own): they are
    a prefix of the ranking, so ranking them (score descending, candidate order on ties, as the
    index does) gives the top 4 wherever a is among them.
    """
    own = join.self_scores
    bound = ratio * own
    floor = np.where(own > 0, np.minimum(bound, own), np.nan)
    a, b = join.candidates(floor)
    score = join.scores(a, b)
    kept = (score > 0) & (score >= floor[a])
    me = np.flatnonzero(own > 0)
    a = np.concatenate((a[kept], me))
    b = np.concatenate((b[kept], me))
    score = np.concatenate((score[kept], own[me]))
    order = np.lexsort((b, -score, a))
    a, b, score = a[order], b[order], score[order]
    rank = np.arange(len(a)) - np.searchsorted(a, a, side="left")
    top = rank < 4
    self_top = np.zeros(join.n, dtype=bool)
    self_top[a[top & (a == b)]] = True
    hit = top & (a != b) & self_top[a] & (score >= bound[a])
    return list(zip(a[hit].tolist(), b[hit].tolist(), score[hit].tolist(), own[a[hit]].tolist(),
                    strict=True))
