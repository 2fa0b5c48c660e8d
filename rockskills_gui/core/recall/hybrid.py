"""RockBot (current)'s hybrid skill recall (PR #203), explained from what is on disk.

When RockBot has an embedding generator, ``FileSkillStore.SearchAsync`` ranks skills with
``HybridRanker``: BM25 scores (unchanged, :mod:`rockskills_gui.core.recall.bm25_index`) divided by
the top BM25 score, and the cosine similarity of the query's embedding with each skill's stored
embedding (``skills/.embeddings/{name}.bin``: raw float32 values, ``EmbeddingCache``); a vector
hit under ``MinSimilarityThreshold`` (0.5) is dropped; a skill found by both gets the average, by
one the score of that one. Without a query embedding RockBot ranks by BM25 alone.

Offline the query's embedding is unknown (it needs RockBot's embedding endpoint), so
:func:`explain_hybrid` gives the BM25 leg exactly and for the cosine leg what is stored (which
skills have a vector, of how many dimensions) with the query vector marked unavailable; given a
query vector it computes the whole hybrid ranking. Nothing here writes: the cache is RockBot's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.rules import EMBEDDINGS_DIR
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.core.storage import fileio

MIN_SIMILARITY = 0.5  # EmbeddingOptions.MinSimilarityThreshold default (HybridRanker minSimilarity)
QUERY_VECTOR_UNAVAILABLE = "query vector unavailable offline"
MAX_VECTOR_BYTES = 1 << 20  # a .bin larger than this is not read (4096-dim vectors are 16 KiB)


def embeddings_dir(skills_dir: Path) -> Path:
    return skills_dir / EMBEDDINGS_DIR


def vector_path(skills_dir: Path, name: str) -> Path:
    """``EmbeddingCache.GetFilePath``: ``{skills}/.embeddings/{name}.bin`` (a '/' in the name
    makes sub-folders, as Path.Combine does)."""
    return embeddings_dir(skills_dir) / (name + ".bin")


def has_embeddings(skills_dir: Path) -> bool:
    """True when the skills folder holds RockBot's embedding cache (RockBot embeds skills)."""
    return embeddings_dir(skills_dir).is_dir()


def read_vector(path: Path) -> np.ndarray | None:
    """A stored embedding (``EmbeddingCache.TryReadAsync``: the bytes as float32 values, a
    trailing partial value ignored; little-endian assumed, as on x64/ARM64), or None when the
    file is missing, unreadable, not a regular file or too large."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_VECTOR_BYTES:
            return None
        data = fileio.read_regular(path, MAX_VECTOR_BYTES)
    except OSError:
        return None
    usable = len(data) // 4 * 4
    return np.frombuffer(data[:usable], dtype="<f4").astype(np.float64)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """``EmbeddingCache.CosineSimilarity``: 0 for different lengths, empty or zero vectors."""
    if len(a) != len(b) or len(a) == 0:
        return 0.0
    mag_a = math.sqrt(float(np.dot(a, a)))
    mag_b = math.sqrt(float(np.dot(b, b)))
    if mag_a == 0 or mag_b == 0:
        return 0.0
    return float(np.dot(a, b)) / (mag_a * mag_b)


@dataclass(frozen=True)
class HybridRow:
    """One skill's hybrid score, leg by leg (None: that leg does not apply or is unknown)."""

    name: str
    bm25: float  # the raw BM25 score (0: no keyword match)
    bm25_norm: float | None  # bm25 / top BM25 score (None: no BM25 match)
    dims: int | None  # dimensions of its stored vector (None: no stored vector)
    cosine: float | None  # with the query vector (None: unknown offline, or no stored vector)
    vector_kept: bool | None  # cosine >= MIN_SIMILARITY (None: unknown)
    score: float | None  # the hybrid score (None: unknown offline)

    @property
    def score_range(self) -> tuple[float, float] | None:
        """Offline: the scores this skill can get, whatever the query vector ((n, n) when its
        vector cannot count; else from n alone, up to the average with a perfect cosine)."""
        if self.score is not None:
            return (self.score, self.score)
        if self.bm25_norm is None:
            return None
        if self.dims is None:
            return (self.bm25_norm, self.bm25_norm)
        return (self.bm25_norm, max(self.bm25_norm, (self.bm25_norm + 1.0) / 2.0))


@dataclass
class HybridExplanation:
    """The hybrid recall of one query."""

    query: str
    embeddings: bool  # skills/.embeddings/ exists: RockBot ranks hybrid when it can embed the query
    query_vector: bool  # a query vector was given: scores are computed, not bounded
    top_bm25: float  # the BM25 score every BM25 score is divided by (0: no match)
    rows: list[HybridRow] = field(default_factory=list)  # best first
    stored: int = 0  # skills with a stored vector
    unscored: list[str] = field(default_factory=list)  # with a query vector: skills without one
    vector_only: int = 0  # offline: skills with a vector but no BM25 match (may still be recalled)
    notes: list[str] = field(default_factory=list)

    @property
    def applies(self) -> bool:
        return self.embeddings


def explain_hybrid(recall: SkillRecall, skills_dir: Path, query: str, top: int | None = 10,
                   query_vector: Sequence[float] | np.ndarray | None = None,
                   min_similarity: float = MIN_SIMILARITY) -> HybridExplanation:
    """The hybrid ranking of ``query`` over ``recall``'s skills, as far as it can be known.

    Without ``query_vector``: BM25 hits (best first, up to ``top``) with their normalised
    scores and what is stored for them; with it: RockBot's ranking (BM25-or-vector hits,
    combined as HybridRanker does, best first; ties in candidate order, where RockBot's own
    order of equal scores is a hash set's and cannot be known)."""
    hits = recall.search(query, top=None)
    top_bm25 = hits[0].score if hits else 0.0
    norm = {fold(h.name): h.score / top_bm25 for h in hits} if top_bm25 > 0 else {}
    raw = {fold(h.name): h.score for h in hits}
    result = HybridExplanation(query, has_embeddings(skills_dir), query_vector is not None, top_bm25)
    if not result.embeddings:
        result.notes.append("no skills/.embeddings/ folder: RockBot ranks by BM25 alone")
    vectors: dict[str, np.ndarray | None] = {}

    def vector(name: str) -> np.ndarray | None:
        key = fold(name)
        if key not in vectors:
            vectors[key] = read_vector(vector_path(skills_dir, name)) if result.embeddings else None
        return vectors[key]

    if query_vector is None:
        for hit in hits[:top] if top is not None else hits:
            stored = vector(hit.name)
            result.rows.append(HybridRow(hit.name, hit.score, norm[fold(hit.name)],
                                         len(stored) if stored is not None else None,
                                         None, None, None))
        if result.embeddings:
            matched = set(norm)
            for skill in recall.skills():
                if vector(skill.name) is not None:
                    result.stored += 1
                    result.vector_only += fold(skill.name) not in matched
            result.notes.append(
                f"{QUERY_VECTOR_UNAVAILABLE}: the cosine leg needs the query's embedding from "
                "RockBot's embedding endpoint; each score lies between its BM25 share (its "
                f"vector under {min_similarity}) and the average with a perfect match")
            if result.vector_only:
                result.notes.append(f"{result.vector_only} skill(s) with a stored vector but no "
                                    "keyword match may also be recalled by the vector leg alone")
        return result

    q = np.asarray(list(query_vector), dtype=np.float64)
    rows: list[tuple[float, int, HybridRow]] = []
    for position, skill in enumerate(recall.skills()):
        key = fold(skill.name)
        stored = vector(skill.name)
        if stored is None:
            if result.embeddings:
                result.unscored.append(skill.name)
            similarity = None
        else:
            result.stored += 1
            similarity = cosine(q, stored)
        kept = similarity is not None and similarity >= min_similarity
        bm = norm.get(key)
        if bm is None and not kept:
            continue
        if bm is not None and kept:
            assert similarity is not None
            score = (bm + similarity) / 2.0
        elif bm is not None:
            score = bm
        else:
            assert similarity is not None
            score = similarity
        row = HybridRow(skill.name, raw.get(key, 0.0), bm,
                        len(stored) if stored is not None else None, similarity,
                        None if similarity is None else kept, score)
        rows.append((score, position, row))
    rows.sort(key=lambda item: (-item[0], item[1]))
    result.rows = [row for _score, _pos, row in (rows[:top] if top is not None else rows)]
    if result.unscored:
        result.notes.append(f"{len(result.unscored)} skill(s) have no stored vector: RockBot "
                            "would embed them during the search; ranked here by BM25 alone")
    return result
