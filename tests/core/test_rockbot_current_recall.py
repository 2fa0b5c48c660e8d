"""Hybrid recall of RockBot (current) explained (issue 20, PR #203): the BM25 leg exactly, the
cosine leg from the stored vectors (``skills/.embeddings/{name}.bin``, raw float32), the query
vector unavailable offline; with a query vector, HybridRanker's ranking."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.recall.hybrid import (
    QUERY_VECTOR_UNAVAILABLE,
    cosine,
    explain_hybrid,
    read_vector,
    vector_path,
)
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.conftest import AGENT
from tests.rockbot_current import EMBEDDED, make_current_agent, snapshot


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return make_current_agent(tmp_path / "agent")


def recall_of(agent: Path) -> tuple[RockBotLibrary, SkillRecall]:
    lib = open_library(agent)
    assert isinstance(lib, RockBotLibrary)
    return lib, SkillRecall(lib.skills())


def stored(index: int) -> list[float]:
    """The generator's vector for EMBEDDED[index], as float32 round-trips it."""
    return list(struct.unpack("<4f", struct.pack("<4f", 0.1 * index, 0.5, -0.25, 1.0)))


def oracle_cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_vectors_are_raw_float32(agent: Path, tmp_path: Path) -> None:
    lib, _ = recall_of(agent)
    for index, name in enumerate(EMBEDDED):
        vec = read_vector(vector_path(lib.skills_dir, name))
        assert vec is not None and list(vec) == stored(index)
    odd = tmp_path / "odd.bin"
    odd.write_bytes(struct.pack("<2f", 1.0, 2.0) + b"\x01\x02")  # a partial value is ignored
    assert list(read_vector(odd)) == [1.0, 2.0]
    assert read_vector(tmp_path / "none.bin") is None
    assert cosine(read_vector(odd), read_vector(odd)) == pytest.approx(1.0)
    assert cosine(read_vector(odd), read_vector(vector_path(lib.skills_dir, EMBEDDED[0]))) == 0.0


def test_offline_the_bm25_leg_is_exact_and_the_query_vector_is_unavailable(agent: Path) -> None:
    before = snapshot(agent)
    lib, recall = recall_of(agent)
    query = "csv report with python"
    hits = recall.search(query, top=None)
    found = explain_hybrid(recall, lib.skills_dir, query)
    assert found.embeddings and not found.query_vector
    assert found.top_bm25 == hits[0].score
    assert [(r.name, r.bm25, r.bm25_norm) for r in found.rows] == \
        [(h.name, h.score, h.score / hits[0].score) for h in hits]
    report = next(r for r in found.rows if r.name == "scripts/csv-report")
    assert report.dims == 4 and report.cosine is None and report.score is None
    low, high = report.score_range
    assert low == report.bm25_norm and high == pytest.approx((report.bm25_norm + 1) / 2)
    assert any(n.startswith(QUERY_VECTOR_UNAVAILABLE) for n in found.notes)
    assert found.stored == len(EMBEDDED)
    assert found.vector_only == sum(1 for n in EMBEDDED if n not in {h.name for h in hits})
    assert snapshot(agent) == before  # the cache is read, never written


def test_with_a_query_vector_the_ranking_is_hybrid_rankers(agent: Path) -> None:
    lib, recall = recall_of(agent)
    query = "summarize results"
    q = [0.0, 0.5, -0.25, 1.0]  # stored(0) exactly: mcp/github, which no keyword matches
    found = explain_hybrid(recall, lib.skills_dir, query, query_vector=q, top=None)
    hits = {h.name: h.score for h in recall.search(query, top=None)}
    top = max(hits.values())
    expected = {}
    for skill in recall.skills():
        bm = hits[skill.name] / top if skill.name in hits else None
        cos = oracle_cosine(q, stored(EMBEDDED.index(skill.name))) if skill.name in EMBEDDED else None
        keep = cos is not None and cos >= 0.5
        if bm is None and not keep:
            continue
        expected[skill.name] = (bm + cos) / 2 if bm is not None and keep else bm if bm is not None else cos
    assert {r.name: r.score for r in found.rows} == pytest.approx(expected)
    assert [r.name for r in found.rows] == sorted(expected, key=lambda n: -expected[n])
    github = next(r for r in found.rows if r.name == "mcp/github")
    assert github.bm25_norm is None and github.cosine == pytest.approx(1.0)  # a vector-only hit
    assert sorted(found.unscored) == ["mcp/ms365", "patrol/checklist"]  # no stored vector


def test_a_low_similarity_vector_is_dropped(agent: Path) -> None:
    lib, recall = recall_of(agent)
    found = explain_hybrid(recall, lib.skills_dir, "summarize results", query_vector=[1.0, 0, 0, 0],
                           top=None)
    web = next(r for r in found.rows if r.name == "web/search")
    assert web.cosine is not None and web.cosine < 0.5 and web.vector_kept is False
    assert web.score == web.bm25_norm  # BM25 alone for it
    assert "mcp/github" not in [r.name for r in found.rows]


def test_without_embeddings_bm25_alone() -> None:
    lib = open_library(AGENT)
    assert isinstance(lib, RockBotLibrary)
    recall = SkillRecall(lib.skills())
    found = explain_hybrid(recall, lib.skills_dir, "email")
    assert not found.embeddings and found.notes == [
        "no skills/.embeddings/ folder: RockBot ranks by BM25 alone"]
    assert all(r.dims is None for r in found.rows)
