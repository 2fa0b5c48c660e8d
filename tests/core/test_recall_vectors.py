"""BM25 against shared/fixtures/bm25-vectors.json and the spec's §8.1 / §8.2 examples."""

from __future__ import annotations

import json
import math

import pytest

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import (
    count_phrase,
    document_text,
    fold_ascii,
    parse_query,
    to_lower_invariant,
    tokenize,
)
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.conftest import FIXTURES
from tests.core import reference_bm25

VECTORS = json.loads((FIXTURES / "bm25-vectors.json").read_text("utf-8"))
CORPORA = {c["id"]: c for c in VECTORS["corpora"]}
QUERIES = [(c["id"], i) for c in VECTORS["corpora"] for i in range(len(c["queries"]))]
SKILLS = [(c["id"], s) for c in VECTORS["corpora"] for s in c["skills"]]


def corpus_recall(corpus_id: str) -> SkillRecall:
    return SkillRecall(Skill(name=s["name"], summary=s["summary"])
                       for s in CORPORA[corpus_id]["skills"])


def test_fixture_shape() -> None:
    assert len(QUERIES) == 38
    assert VECTORS["parameters"]["k1"] == 1.5 and VECTORS["parameters"]["b"] == 0.75
    assert VECTORS["parameters"]["phrase_weight"] == 2.0


@pytest.mark.parametrize(("corpus_id", "skill"), SKILLS,
                         ids=[f"{c}:{s['name']}" for c, s in SKILLS])
def test_document_text_and_tokens(corpus_id: str, skill: dict) -> None:
    text = document_text(skill["name"], skill["summary"])
    assert text == skill["document_text"]
    assert tokenize(text) == skill["tokens"]
    assert reference_bm25.document_text(skill["name"], skill["summary"]) == text
    assert reference_bm25.tokenize(text) == skill["tokens"]


@pytest.mark.parametrize(("corpus_id", "qi"), QUERIES,
                         ids=[f"{c}:{CORPORA[c]['queries'][i]['query'] or '<empty>'}"
                              for c, i in QUERIES])
def test_query_vector(corpus_id: str, qi: int) -> None:
    vector = CORPORA[corpus_id]["queries"][qi]
    plan = parse_query(vector["query"])
    assert list(plan.tokens) == vector["query_tokens"]
    assert list(plan.terms) == vector["terms"]
    assert list(plan.phrases) == vector["phrases"]

    recall = corpus_recall(corpus_id)
    hits = recall.search(vector["query"], top=None, explain=True)
    # names in order, including the candidate order inside tie groups
    assert [h.name for h in hits] == [name for name, _ in vector["ranked"]]
    for hit, (_, rounded), exact in zip(hits, vector["ranked"], vector["score_repr"],
                                        strict=True):
        assert math.isclose(hit.score, rounded, rel_tol=1e-9)
        assert hit.score == float(exact)  # bit-identical (§8.1 rule 4 evaluation order)
        assert hit.explanation is not None and hit.explanation.total == hit.score
    assert [h.name for h in recall.search(vector["query"])] == vector["top5"]
    for group in vector["tie_groups"]:
        scores = {h.name: h.score for h in hits}
        assert len({scores[n] for n in group}) == 1
        positions = [[h.name for h in hits].index(n) for n in group]
        assert positions == sorted(positions)

    # the naive port agrees too (it is the cross-check oracle of the hypothesis tests)
    docs = [(s["name"], s["document_text"]) for s in CORPORA[corpus_id]["skills"]]
    assert reference_bm25.search(docs, vector["query"]) == [(h.name, h.score) for h in hits]


# ---------------------------------------------------------------- §8.1 rules, one by one


def test_lower_invariant_is_per_character() -> None:
    assert to_lower_invariant("İSTANBUL") == "İstanbul"  # U+0130 stays (Python: i + U+0307)
    assert to_lower_invariant("\u212aelvin") == "kelvin"
    assert to_lower_invariant("ΟΔΟΣ") == "οδοσ"  # no final-sigma rule
    assert "ΟΔΟΣ".lower() == "οδος"


@pytest.mark.parametrize(("text", "tokens"), [
    ("café", ["caf"]),
    ("naïve", []),
    ("Straße", ["stra"]),
    ("İstanbul", ["stanbul"]),
    ("\u212aelvin", ["kelvin"]),
    ("Résumé", ["sum"]),
    ("don't", ["don"]),
    ("rock-music festival_2026", ["rock", "music", "festival", "2026"]),
    ("hi is a cat", ["cat"]),
    ("a.b.c abc.def", ["abc", "def"]),
    ("", []),
])
def test_tokenizer_examples(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_query_terms_and_phrases() -> None:
    plan = parse_query("Meeting meeting MEETING schedule")
    assert plan.terms == ("meeting", "schedule")
    assert plan.phrases == ("meeting meeting", "meeting schedule")
    assert parse_query("send an email").phrases == ("send email",)
    assert parse_query("a an to").empty and parse_query("").empty


def test_phrase_matching_is_raw_ascii_case_insensitive() -> None:
    assert count_phrase("xplan meetingx", "plan meeting") == 1
    assert count_phrase("Plan  meeting", "plan meeting") == 0
    assert count_phrase("plan-meeting", "plan meeting") == 0
    assert count_phrase("PLAN MEETING plan meeting", "plan meeting") == 2
    assert count_phrase("aaa aaa aaa", "aaa aaa") == 1  # non-overlapping, left to right
    assert count_phrase("ma\u212a mak", "mak mak") == 0  # Kelvin sign never equals 'k'
    assert fold_ascii("\u212aÉA") == "\u212aÉa"


def test_phrase_alone_ranks_a_document() -> None:
    index = Bm25Index([("xplan-tool", document_text("xplan-tool", "xplan meetingx notes")),
                       ("other", "nothing here")])
    hits = index.search("plan meeting", explain=True)
    assert [h.key for h in hits] == ["xplan-tool"]
    assert hits[0].explanation is not None and not hits[0].explanation.terms
    assert list(hits[0].explanation.phrases) == ["plan meeting"]


def test_phrase_across_name_summary_boundary() -> None:
    recall = SkillRecall([Skill(name="plan-meeting", summary="Schedule meetings"),
                          Skill(name="x", summary="meeting, schedule")])
    hit = recall.search("meeting schedule", explain=True)[0]
    assert hit.name == "plan-meeting"
    assert hit.explanation is not None and "meeting schedule" in hit.explanation.phrases


def test_underscore_names_do_not_match_phrases() -> None:
    recall = SkillRecall([Skill(name="send_email", summary=""),
                          Skill(name="send-email", summary="")])
    hits = recall.search("send email", explain=True)
    assert [h.name for h in hits] == ["send-email", "send_email"]
    assert hits[1].explanation is not None and not hits[1].explanation.phrases


# ---------------------------------------------------------------- §8.2 (RockBot's own tests)


def test_skill_store_examples() -> None:
    recall = SkillRecall([
        Skill(name="plan-meeting", summary="Schedule meetings and invite attendees"),
        Skill(name="send-email", summary="Send an email to a recipient"),
        Skill(name="summarize-paper", summary="Summarize a research paper"),
    ])
    assert recall.search("meeting schedule")[0].name == "plan-meeting"
    assert SkillRecall([Skill(name="plan-meeting", summary="Schedule meetings")]).search(
        "xyzzy") == []
    assert SkillRecall().search("meeting") == []
    three = SkillRecall([Skill(name=f"meeting-{i}", summary="meeting notes") for i in range(3)])
    assert len(three.search("meeting", top=2)) == 2


def memory_text(content: str, tags: list[str], category: str) -> str:
    """FileMemoryStore document: content + tags + category with / and - as spaces."""
    return " ".join([content, *tags, category.replace("/", " ").replace("-", " ")])


def test_memory_store_examples() -> None:
    index = Bm25Index([
        ("fan", memory_text("concert concert concert — huge music fan, loves concerts", [], "")),
        ("once", memory_text("I went to a concert last summer", [], "")),
    ])
    assert [h.key for h in index.search("concert music")] == ["fan", "once"]

    index = Bm25Index([
        ("loves", "loves rock music and concerts"),
        ("daily", "music and sport are daily hobbies"),
        ("ball", "plays basketball every weekend"),
    ])
    assert {h.key for h in index.search("rock music")} == {"loves", "daily"}
    index = Bm25Index([("adjacent", "Rocky loves rock music at every festival"),
                       ("apart", "Rocky plays rock. He also enjoys music sometimes.")])
    assert [h.key for h in index.search("rock music")] == ["adjacent", "apart"]

    index = Bm25Index([("x", "the weather today is sunny")])
    assert index.search("quantum physics") == [] and index.search("hi") == []
    index = Bm25Index([("tags", memory_text("weekend plans", ["fishing"], "hobbies")),
                       ("content", memory_text("went fishing at the lake", [], "events"))])
    assert {h.key for h in index.search("fishing")} == {"tags", "content"}
