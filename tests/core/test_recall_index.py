"""The inverted index against the naive port on random corpora, and incremental == rebuilt."""

from __future__ import annotations

import re
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall import bm25_index
from rockskills_gui.core.recall.bm25 import (
    count_phrase,
    document_text,
    parse_query,
    to_lower_invariant,
    tokenize,
)
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.bm25_state import snapshot
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.core import reference_bm25
from tests.property_budget import budgeted

# Words chosen to collide: substrings of each other, case variants, digits, short tokens,
# non-ASCII that lowers to ASCII (Kelvin) or acts as a separator (U+0130, é, ß).
WORDS = ["plan", "meeting", "xplan", "meetingx", "Meeting", "PLAN", "aaa", "aaaa", "the", "and",
         "email", "mail", "send", "abc", "abcd", "bcd", "ab", "a", "2026", "e123", "notes",
         "\u212aelvin", "kelvin", "İstanbul", "café", "Straße", "ΣΟΣ", "mak"]
SEPARATORS = [" ", " ", " ", " ", "  ", "-", "_", "/", ".", ", ", "\t", "\n", "\u212a", "é",
              "İ", " \u212a"]
SETTINGS = budgeted(30, 150, suppress_health_check=[HealthCheck.too_slow])

words = st.sampled_from(WORDS)


@st.composite
def texts(draw: st.DrawFn, max_words: int = 8) -> str:
    parts = draw(st.lists(words, min_size=0, max_size=max_words))
    out = ""
    for i, word in enumerate(parts):
        if i:
            out += draw(st.sampled_from(SEPARATORS))
        out += word
    return out


@st.composite
def names(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(WORDS[:20]), min_size=1, max_size=3))
    seps = draw(st.lists(st.sampled_from(["/", "-", "_"]), min_size=len(parts) - 1,
                         max_size=len(parts) - 1))
    return parts[0] + "".join(s + p for s, p in zip(seps, parts[1:], strict=True))


@st.composite
def corpora(draw: st.DrawFn, max_size: int = 12) -> list[tuple[str, str]]:
    """(name, summary) pairs with case-insensitively unique names."""
    chosen = draw(st.lists(names(), max_size=max_size, unique_by=fold))
    summaries = st.one_of(texts(), st.sampled_from(["", "   ", "\u3000"]))
    return [(name, draw(summaries)) for name in chosen]


def reference_ranking(docs: list[tuple[str, str]], query: str) -> list[tuple[str, float]]:
    return reference_bm25.search(docs, query)


def index_ranking(index: Bm25Index, query: str, top: int | None = None,
                  explain: bool = False) -> list[tuple[str, float]]:
    hits = index.search(query, top=top, explain=explain)
    for hit in hits:
        if explain:
            assert hit.explanation is not None
            assert hit.explanation.total == hit.score  # contributions add up exactly
    return [(h.key, h.score) for h in hits]


@SETTINGS
@given(corpora(), st.lists(texts(max_words=5), min_size=1, max_size=4))
def test_index_equals_naive_port(corpus: list[tuple[str, str]], queries: list[str]) -> None:
    docs = [(name, document_text(name, summary)) for name, summary in corpus]
    index = Bm25Index(docs)
    for query in queries:
        expected = reference_ranking(docs, query)
        full = index_ranking(index, query, explain=True)
        assert full == expected  # names, order (ties too) and bit-identical scores
        for top in (1, 2, 5):
            assert index_ranking(index, query, top=top) == expected[:top]


@SETTINGS
@given(corpora(), texts(max_words=5))
def test_phrase_document_frequencies_are_exact(corpus: list[tuple[str, str]],
                                               query: str) -> None:
    docs = [(name, document_text(name, summary)) for name, summary in corpus]
    stats = Bm25Index(docs).stats(query)
    for phrase in parse_query(query).phrases:
        assert stats.phrase_df[phrase] == sum(1 for _, t in docs if count_phrase(t, phrase))
        assert stats.phrase_df[phrase] == sum(
            1 for _, t in docs if reference_bm25.count_occurrences(t, phrase))
    for term in parse_query(query).terms:
        assert stats.term_df[term] == sum(1 for _, t in docs if term in tokenize(t))


@budgeted(60, 300)
@given(st.text())
def test_tokenizer_equals_split_of_lower_invariant(text: str) -> None:
    lowered = to_lower_invariant(text)
    assert len(lowered) == len(text)
    expected = [t for t in re.split(r"[^a-z0-9]+", lowered) if len(t) >= 3]
    assert tokenize(text) == expected == reference_bm25.tokenize(text)


# ---------------------------------------------------------------- incremental updates

ops = st.one_of(
    st.tuples(st.just("add"), names(), texts()),
    st.tuples(st.just("remove"), st.integers(0, 50), st.none()),
    st.tuples(st.just("replace"), st.integers(0, 50), texts()),
    st.tuples(st.just("rename"), st.integers(0, 50), names()),
    st.tuples(st.just("shuffle"), st.randoms(use_true_random=False), st.none()),
    st.tuples(st.just("query"), texts(max_words=4), st.none()),
)


@SETTINGS
@given(corpora(max_size=8), st.lists(ops, max_size=25), st.lists(texts(max_words=4),
                                                                 min_size=1, max_size=3),
       st.sampled_from([0, 1, 3, 256]))
def test_incremental_equals_rebuild(corpus: list[tuple[str, str]], steps: list,
                                    queries: list[str], recent: int) -> None:
    """Whatever share of the edits waits in the recent postings (``recent`` documents; 0: every
    edit merged into the main postings at once), the index is the rebuilt one."""
    with patch.object(bm25_index, "RECENT_MIN", recent):
        check_incremental(corpus, steps, queries)


def check_incremental(corpus: list[tuple[str, str]], steps: list, queries: list[str]) -> None:
    index = Bm25Index((n, document_text(n, s)) for n, s in corpus)
    model: list[tuple[str, str]] = [(n, document_text(n, s)) for n, s in corpus]  # order
    for op, a, b in steps:
        keys = [k for k, _ in model]
        if op == "add" and a not in keys:
            index.add(a, b)
            model.append((a, b))
        elif op == "remove" and keys:
            key = keys[a % len(keys)]
            index.remove(key)
            model = [(k, t) for k, t in model if k != key]
        elif op == "replace" and keys:
            i = a % len(keys)
            index.replace(keys[i], b)
            model[i] = (keys[i], b)
        elif op == "rename" and keys and b not in keys:
            i = a % len(keys)
            text = document_text(b, "renamed " + model[i][1])
            index.replace(keys[i], text, new_key=b)
            model[i] = (b, text)
        elif op == "shuffle" and keys:
            a.shuffle(model)
            index.set_order([k for k, _ in model])
        elif op == "query":  # interleaved queries exercise the lazy norm and the tf cache
            assert index_ranking(index, a) == reference_ranking(model, a)
        assert index.keys() == [k for k, _ in model]
    rebuilt = Bm25Index(index.documents())
    assert rebuilt.total_tokens == index.total_tokens
    assert rebuilt.vocabulary_size() == index.vocabulary_size()
    for query in queries:
        expected = reference_ranking(model, query)
        assert index_ranking(index, query, explain=True) == expected
        assert index_ranking(rebuilt, query) == expected
        assert index_ranking(index, query, top=3) == expected[:3]


def test_slot_reuse_keeps_candidate_order() -> None:
    index = Bm25Index([("a", "shared word"), ("b", "shared word"), ("c", "shared word")])
    index.remove("a")
    index.add("d", "shared word")  # reuses a's slot but goes to the end of the order
    assert index.keys() == ["b", "c", "d"]
    assert [h.key for h in index.search("shared", top=None)] == ["b", "c", "d"]
    index.replace("b", "shared word too", new_key="e")  # a rename keeps its place
    assert index.keys() == ["e", "c", "d"]
    index.set_order(["d", "c", "e"])
    assert [h.key for h in index.search("word", top=None)][:2] == ["d", "c"]


def test_skill_recall_sync_follows_library_changes() -> None:
    skills = [Skill(name="mcp/email", summary="Send email"),
              Skill(name="plan-meeting", summary="Plan a meeting"),
              Skill(name="notes", summary="Meeting notes")]
    recall = SkillRecall(skills)
    assert [h.name for h in recall.search("meeting")] == ["plan-meeting", "notes"]
    changed = [skills[2], Skill(name="Plan-Meeting", summary="Plan a meeting"), skills[0],
               Skill(name="agenda", summary="meeting agenda")]
    recall.sync(changed)
    fresh = SkillRecall(changed)
    for query in ("meeting", "send email", "plan meeting agenda"):
        assert [(h.name, h.score) for h in recall.search(query, top=None)] == \
            [(h.name, h.score) for h in fresh.search(query, top=None)]
    assert recall.get("plan-meeting") is not None
    assert recall.get("plan-meeting").name == "Plan-Meeting"  # type: ignore[union-attr]
    recall.rename("agenda", Skill(name="meetings/agenda", summary="meeting agenda"))
    assert [s.name for s in recall.skills()] == ["notes", "Plan-Meeting", "mcp/email",
                                                 "meetings/agenda"]
    recall.remove("NOTES")
    assert "notes" not in [h.name for h in recall.search("meeting", top=None)]


def test_top_k_keeps_ties_at_the_cut_in_candidate_order() -> None:
    index = Bm25Index([(f"d{i}", "alpha beta" if i % 3 else "alpha") for i in range(30)])
    full = index.search("alpha", top=None)
    for k in range(1, 31):
        assert index.search("alpha", top=k) == full[:k]
    assert index.search("alpha", top=0) == []


def test_avgdl_returning_to_its_old_value_still_renormalises_edited_documents() -> None:
    """Two edits whose lengths cancel out leave avgdl unchanged but change both documents."""
    index = Bm25Index([("a", "alpha beta"), ("b", "alpha beta gamma delta"), ("c", "alpha")])
    index.search("alpha")  # norms computed
    index.replace("a", "alpha beta gamma delta epsilon")  # +3 tokens: avgdl changes
    index.replace("b", "alpha")  # -3 tokens: avgdl is back where it was
    docs = list(index.documents())
    expected = reference_bm25.search(docs, "alpha beta")
    assert index_ranking(index, "alpha beta") == expected
    assert index_ranking(Bm25Index(docs), "alpha beta") == expected


def test_ties_at_the_cut_follow_imposed_order_not_slots() -> None:
    keys = [f"d{i:02d}" for i in range(20)]
    index = Bm25Index((k, "same words here") for k in keys)
    index.set_order(list(reversed(keys)))
    for top in (1, 3, 7, 19):
        assert [h.key for h in index.search("words", top=top)] == list(reversed(keys))[:top]
    index.remove("d05")
    index.add("zz", "same words here")  # reuses d05's slot, ranks last among ties
    assert [h.key for h in index.search("words", top=None)][-1] == "zz"
    assert [h.key for h in index.search("words", top=19)][-1] == "d00"  # zz is 20th


def test_building_in_one_pass_gives_the_index_adding_one_by_one_gives() -> None:
    """Bm25Index(documents) (one pass, issue 19) holds exactly what add() in turn builds: slots,
    postings, word ids, lengths, order (its whole state); so every later edit and every score is
    the same."""
    import random as _random

    rng = _random.Random(7)
    words = ["send", "weekly", "report", "Dana", "mcp/gmail", "deploy", "the", "server", "café",
             "x", "ab", "report-weekly", "SEND", "  ", "2026", "naïve"]
    docs = [(f"k{i}", " ".join(rng.choice(words) for _ in range(rng.randint(0, 12))))
            for i in range(400)]
    bulk = Bm25Index(docs)
    one_by_one = Bm25Index()
    for key, text in docs:
        one_by_one.add(key, text)
    assert snapshot(bulk) == snapshot(one_by_one)  # slots, words, postings, lengths, order, texts
    for index in (bulk, one_by_one):
        index.remove("k3")
        index.replace("k10", "send the weekly report to Dana")
        index.add("new", "deploy the weekly server")
    for query in ("send weekly report", "deploy the server", "report weekly", "café naïve 2026"):
        assert [(h.key, h.score) for h in bulk.search(query, top=None)] == \
            [(h.key, h.score) for h in one_by_one.search(query, top=None)]
    with pytest.raises(KeyError):
        Bm25Index([("a", "x"), ("a", "y")])


def test_top_k_of_a_large_index_is_the_head_of_the_full_ranking() -> None:
    """Enough documents for top-k to guess a threshold from a sample of the scores: many equal
    scores (ties at every cut), candidate order imposed or not, after edits that reuse slots."""
    import random as _random

    rng = _random.Random(5)
    words = ["send", "email", "weekly", "report", "the", "and", "plan", "meeting", "notes", "x1z"]
    docs = [(f"d{i:04d}", " ".join(rng.choice(words) for _ in range(rng.randint(1, 4))))
            for i in range(3000)]
    index = Bm25Index(docs)
    queries = ("the", "send the email", "weekly report and notes", "plan meeting", "x1z the")

    def check() -> None:
        for query in queries:
            full = index.search(query, top=None)
            assert [(h.key, h.score) for h in full] == reference_bm25.search(
                list(index.documents()), query)
            for top in (1, 5, 50, 51, 200):
                assert index.search(query, top=top) == full[:top]

    check()
    keys = [k for k, _ in docs]
    rng.shuffle(keys)
    index.set_order(keys)
    check()
    for key in keys[:40]:
        index.remove(key)
    for i in range(40):
        index.add(f"n{i}", " ".join(rng.choice(words) for _ in range(3)))  # reuses slots
    check()


def test_long_words_and_words_of_every_width_are_found() -> None:
    """Words are kept as fixed-width bytes; longer ones apart: terms and phrases still match."""
    long_word = "w" * 45 + "end"
    docs = [("a", f"{long_word} tail"), ("b", "ab abc abcd abcde"), ("c", f"x{long_word} tailx"),
            ("d", "abcde abc")]
    index = Bm25Index(docs)
    index.add("e", "abcdefghij klm")  # a wider word after the build
    model = [*docs, ("e", "abcdefghij klm")]
    for query in (long_word, f"{long_word} tail", "w" * 40, "abcd abcde", "abc abcd", "abcde abc",
                  "cdefghij klm", "abcdefghij"):
        assert [(h.key, h.score) for h in index.search(query, top=None)] == \
            reference_bm25.search(model, query), query


def test_a_few_new_words_go_in_place_also_when_wider_than_every_word_so_far() -> None:
    """A few new words are inserted into the sorted word arrays (a wider one widens them):
    terms, and phrases matched by the words' starts and ends, as the port finds them."""
    docs = [(f"d{i}", f"w{i:02d}x pre{i:02d} post{i:02d}") for i in range(40)]
    index = Bm25Index(docs)
    index.search("w01x")
    model = list(docs)
    for key, text in (("n1", "prefixlongerthanall01 post03"), ("n2", "w05x pre07 xpost01"),
                      ("n3", "abcdefghijklmnopqrstuvwxyz0123456789 w07x")):
        index.add(key, text)
        model.append((key, text))
        for query in ("prefixlongerthanall01 post03", "all01 post", "w05x pre07", "pre07 xpost01",
                      "pre07 post", "w07x", "0123456789 w07x", "abcdefghijklmnopqrstuvwxyz0123456789",
                      "wxyz0123456789 w07x"):
            assert [(h.key, h.score) for h in index.search(query, top=None)] == \
                reference_bm25.search(model, query), query


def test_a_search_gives_keys_and_scores_as_arrays_and_hits_when_read() -> None:
    """``search`` returns a sequence of hits kept as keys and scores: every way of reading it gives
    the hits a list of them gives, and an edit after the search leaves it as it was."""
    docs = [("a", "send weekly report"), ("b", "weekly report"), ("c", "send email"),
            ("d", "report weekly send")]
    index = Bm25Index(docs)
    hits = index.search("send weekly report", top=None, explain=True)
    expected = reference_bm25.search(docs, "send weekly report")
    assert hits.keys() == [k for k, _ in expected] and hits.scores() == [s for _, s in expected]
    listed = list(hits)
    assert [(h.rank, h.key, h.score) for h in listed] == \
        [(i, k, s) for i, (k, s) in enumerate(expected, 1)]
    assert len(hits) == len(listed) and hits == listed and hits[:2] == listed[:2]
    assert hits[0] == listed[0] and hits[-1] == listed[-1] and hits[1].explanation is not None
    assert all(h.explanation is not None and h.explanation.total == h.score for h in hits)
    with pytest.raises(IndexError):
        hits[len(listed)]
    index.remove("a")
    index.replace("b", "nothing alike")
    assert list(hits) == listed and index.search("send weekly report", top=None) != listed
    assert index.search("zzz") == [] and not index.search("zzz", top=0)
