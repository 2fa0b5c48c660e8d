"""rank-bm25 comparison rankers run over RockBot's own tokens."""

from __future__ import annotations

import json
import math
import multiprocessing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import document_text, parse_query, tokenize
from rockskills_gui.core.recall.compare import RANKERS, ComparisonRanker
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.conftest import FIXTURES
from tests.property_budget import budgeted

VECTORS = json.loads((FIXTURES / "bm25-vectors.json").read_text("utf-8"))


def corpus_skills(corpus_id: str) -> list[Skill]:
    corpus = next(c for c in VECTORS["corpora"] if c["id"] == corpus_id)
    return [Skill(name=s["name"], summary=s["summary"]) for s in corpus["skills"]]


@pytest.mark.parametrize("kind", list(RANKERS))
def test_every_ranker_runs_on_every_corpus(kind: str) -> None:
    children_before = len(multiprocessing.active_children())
    for corpus in VECTORS["corpora"]:
        skills = corpus_skills(corpus["id"])
        ranker = ComparisonRanker.for_skills(kind, skills)
        for vector in corpus["queries"]:
            scores = ranker.scores(vector["query"])
            assert scores.shape == (len(skills),)
            assert all(math.isfinite(s) for s in scores)
            ranked = ranker.search(vector["query"], top=None)
            assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
            if not vector["terms"]:
                assert ranked == []
    assert len(multiprocessing.active_children()) == children_before  # no pool left behind


def test_rankers_see_exactly_our_tokens() -> None:
    skills = corpus_skills("tricky")
    ranker = ComparisonRanker.for_skills("okapi-lucene", skills)
    model = ranker._model
    assert model is not None
    assert model.doc_len == [len(tokenize(document_text(s.name, s.summary))) for s in skills]
    assert "kelvin" in model.idf and "stanbul" in model.idf and "caf" in model.idf


def test_stock_okapi_idf_is_floored_for_common_terms() -> None:
    skills = [Skill(name=f"s{i}", summary="common word" + (" rare" if i == 0 else ""))
              for i in range(4)]
    okapi = ComparisonRanker.for_skills("okapi", skills)._model
    lucene = ComparisonRanker.for_skills("okapi-lucene", skills)._model
    assert okapi is not None and lucene is not None
    assert okapi.idf["common"] == okapi.epsilon * okapi.average_idf  # ln(0.5/4.5) < 0, floored
    assert lucene.idf["common"] == math.log(1 + 0.5 / 4.5) > 0


def test_lucene_idf_variant_equals_rockbot_without_phrases() -> None:
    """Same idf, same tf grouping: single-term queries score bit-identically."""
    for corpus in VECTORS["corpora"]:
        skills = corpus_skills(corpus["id"])
        ranker = ComparisonRanker.for_skills("okapi-lucene", skills)
        recall = SkillRecall(skills)
        for vector in corpus["queries"]:
            for term in vector["terms"]:
                assert ranker.search(term, top=None) == \
                    [(h.name, h.score) for h in recall.search(term, top=None)]


def test_empty_inputs() -> None:
    for kind in RANKERS:
        assert ComparisonRanker.for_skills(kind, []).search("anything") == []
        blank = ComparisonRanker.for_skills(kind, [Skill(name="a", summary="of to")])
        assert blank.search("of to a") == []
        assert blank.search("anything at all") == []
    with pytest.raises(ValueError, match="unknown ranker"):
        ComparisonRanker("bm42", [], [])


@budgeted(12, 60)
@given(st.lists(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "omega"]),
                         max_size=6), min_size=1, max_size=10),
       st.lists(st.sampled_from(["alpha", "beta", "gamma", "zeta"]), min_size=1, max_size=3))
def test_lucene_variant_matches_terms_only_scores(corpus: list[list[str]],
                                                  query: list[str]) -> None:
    """Documents whose words never sit side by side (", ") get no phrase score."""
    names = [f"d{i}" for i in range(len(corpus))]
    texts = [", ".join(doc) for doc in corpus]  # ", " breaks every phrase
    recall = SkillRecall(Skill(name=n, summary=t) for n, t in zip(names, texts, strict=True))
    ranker = ComparisonRanker("okapi-lucene", names,
                              [tokenize(document_text(n, t)) for n, t in
                               zip(names, texts, strict=True)])
    text = " ".join(query)
    ours = {h.name: h.score for h in recall.search(text, top=None)}
    theirs = dict(ranker.search(text, top=None))
    assert ours == theirs  # bit-identical: same idf, same tf grouping, same term order
    assert parse_query(text).terms  # the generator always yields a term
