"""The near-duplicate lint and the offline dream's merge candidates: the threshold joins of
``core.recall.bm25_join`` give exactly what the n searches they replaced gave.

The replaced algorithms are kept here, verbatim, as references (``reference_near_duplicates``,
``reference_similar_pairs``, and the line-by-line ``reference_scan_text``); every comparison is
against them, on seeded random libraries built to be hard (near-identical clusters, identical
token sets, phrase and Unicode corner cases, ties), on the demo library and on every shipped
corpus. Nothing here is a hard-coded expected result.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from rockskills_gui.core.dream.offline import is_starter, similar_pairs
from rockskills_gui.core.dream.prompts import listed
from rockskills_gui.core.library.formats import detect
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.lint import content_scan
from rockskills_gui.core.lint.content_scan import _BASE64, _BIDI, _INVISIBLE, _RULE_FOLD
from rockskills_gui.core.lint.linter import CONTENT_RULES, near_duplicates, scan_text
from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall import bm25_join
from rockskills_gui.core.recall.bm25 import document_text, tokenize
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.bm25_join import SelfJoin, running_sums
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.conftest import REPO, SHARED
from tests.property_budget import budgeted

DEMO = REPO / "resources" / "demo-library"
CORPORA = SHARED / "corpora"
AGENT = SHARED / "fixtures" / "rockbot-agent"

# ---------------------------------------------------------------- the replaced algorithms


def reference_near_duplicates(skills: list[Skill], ratio: float = 0.8,
                              overlap: float = 0.75) -> list[tuple[str, str, float]]:
    """``lint.near_duplicates`` before the join: a top-4 search per skill, then Jaccard over an
    inverted index of token sets."""
    pairs: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, value: float) -> None:
        key = (a, b) if sort_key(a) <= sort_key(b) else (b, a)
        pairs[key] = max(pairs.get(key, 0.0), min(1.0, value))

    recall = SkillRecall(skills)
    for skill in skills:
        hits = recall.search(document_text(skill.name, skill.summary), top=4)
        own = next((h.score for h in hits if fold(h.name) == fold(skill.name)), None)
        for hit in hits:
            if own and fold(hit.name) != fold(skill.name) and hit.score >= ratio * own:
                add(skill.name, hit.name, hit.score / own)
    tokens = [(s.name, set(tokenize(document_text(s.name, s.summary)))) for s in skills]
    by_token: dict[str, list[int]] = {}
    for index, (_, toks) in enumerate(tokens):
        for tok in toks:
            by_token.setdefault(tok, []).append(index)
    for index, (name, toks) in enumerate(tokens):
        seen: set[int] = set()
        for tok in toks:
            seen.update(j for j in by_token[tok] if j > index)
        for j in seen:
            other_name, other = tokens[j]
            union = len(toks | other)
            if union and len(toks & other) / union >= overlap and fold(name) != fold(other_name):
                add(name, other_name, len(toks & other) / union)
    return [(a, b, v) for (a, b), v in pairs.items()]


def reference_bm25_pairs(skills: list[Skill], ratio: float = 0.8) -> list[tuple[str, str, float]]:
    """The BM25 half of ``reference_near_duplicates`` alone, in its insertion order."""
    out: list[tuple[str, str, float]] = []
    recall = SkillRecall(skills)
    for skill in skills:
        hits = recall.search(document_text(skill.name, skill.summary), top=4)
        own = next((h.score for h in hits if fold(h.name) == fold(skill.name)), None)
        for hit in hits:
            if own and fold(hit.name) != fold(skill.name) and hit.score >= ratio * own:
                out.append((skill.name, hit.name, hit.score / own))
    return out


def reference_similar_pairs(skills: list[Skill],
                            threshold: float = 0.2) -> list[tuple[float, Skill, Skill]]:
    """``offline.similar_pairs`` before the join: a full ranking per skill, then every pair."""
    texts = [s.model_copy(update={"summary": f"{s.summary or ''} {s.content or ''}"}) for s in skills]
    recall = SkillRecall(texts)
    scores: dict[tuple[str, str], float] = {}
    for skill in texts:
        hits = {fold(h.name): h.score for h in recall.search(document_text(skill.name, skill.summary),
                                                             top=None)}
        own = hits.get(fold(skill.name), 0.0)
        if own <= 0:
            continue
        for other, score in hits.items():
            if other != fold(skill.name):
                scores[(fold(skill.name), other)] = score / own
    by_key = {fold(s.name): s for s in skills}
    pairs: list[tuple[float, Skill, Skill]] = []
    ordered = listed(skills)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            ka, kb = fold(a.name), fold(b.name)
            value = min(scores.get((ka, kb), 0.0), scores.get((kb, ka), 0.0))
            if value >= threshold:
                pairs.append((value, by_key[ka], by_key[kb]))
    pairs.sort(key=lambda p: -p[0])
    return pairs


def reference_scan_text(text: str) -> list[tuple[int, str, str, str]]:
    """``lint.scan_text`` before its whole-text pre-checks: every check on every line."""
    out: list[tuple[int, str, str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        bidi = sorted({f"U+{ord(c):04X}" for c in line if c in _BIDI})
        if bidi:
            out.append((number, "bidi-unicode", "error", "bidirectional control character(s) "
                                                         f"{', '.join(bidi)} can hide what the text says"))
        hidden = sorted({f"U+{ord(c):04X}" for c in line
                         if c in _INVISIBLE or 0xE0000 <= ord(c) <= 0xE007F})
        if hidden:
            tags = any(0xE0000 <= ord(c) <= 0xE007F for c in line)
            out.append((number, "hidden-unicode", "error" if tags else "warning",
                        f"invisible character(s) {', '.join(hidden[:5])}"
                        + (" (Unicode tag characters can smuggle instructions)" if tags else "")))
        for kind, severity, pattern, what in CONTENT_RULES:
            m = pattern.search(line)
            if m:
                out.append((number, kind, severity, f"{what}: '{m.group(0)[:80]}'"))
        m = _BASE64.search(line)
        if m:
            out.append((number, "base64-blob", "warning", f"a {len(m.group(0))}-character base64-like "
                                                          "blob (hidden payload?)"))
    return out


# ---------------------------------------------------------------- hard libraries

# Words that collide: substrings of each other, case variants, short tokens, repeated words
# (overlapping phrase occurrences), non-ASCII that lowers to ASCII (Kelvin) or separates.
WORDS = ["plan", "meeting", "xplan", "meetingx", "Meeting", "PLAN", "aaa", "aaaa", "the", "and",
         "email", "mail", "send", "abc", "abcd", "bcd", "ab", "a", "2026", "notes", "deploy",
         "service", "vice", "ploy", "\u212aelvin", "kelvin", "İstanbul", "café", "Straße", "mak"]
SEPARATORS = [" ", " ", " ", " ", " ", "  ", "-", "_", "/", ".", ", ", "\t", "\n", "é", "İ"]


def _text(rng: random.Random, words: int) -> str:
    out = ""
    for i in range(words):
        if i:
            out += rng.choice(SEPARATORS)
        out += rng.choice(WORDS)
    return out


def hard_library(seed: int, size: int, content: bool = True) -> list[Skill]:
    """Skills in near-identical clusters (shared summary and content, a word or suffix changed),
    with repeated phrases, token-identical names, empty summaries and Unicode corner cases."""
    rng = random.Random(seed)
    skills: list[Skill] = []
    seen: set[str] = set()
    while len(skills) < size:
        base = "-".join(rng.choice(WORDS[:24]).lower() for _ in range(rng.randint(1, 3)))
        summary = rng.choice(["", "   ", _text(rng, rng.randint(1, 12))])
        body = _text(rng, rng.randint(0, 40)) if content else ""
        for variant in range(rng.choice((1, 1, 2, 3, 5))):
            suffix = rng.choice(["x", "ab", "v2", "copy", "notes", str(variant)])
            name = base if not variant else f"{base}{rng.choice(['-', '/', '_'])}{suffix}"
            if fold(name) in seen:
                continue
            seen.add(fold(name))
            words = summary.split(" ")
            if variant and words and rng.random() < 0.5:
                words[rng.randrange(len(words))] = rng.choice(WORDS)
            text = body + (f" {_text(rng, 3)}" if variant and rng.random() < 0.5 else "")
            skills.append(Skill(name=name, summary=" ".join(words), content=text))
    return skills[:size]


def _near(skills: list[Skill], **kw: float) -> list[tuple[str, str, float]]:
    return sorted(near_duplicates(skills, **kw))


def _similar(pairs: list[tuple[float, Skill, Skill]]) -> list[tuple[float, str, str]]:
    return [(v, a.name, b.name) for v, a, b in pairs]


# ---------------------------------------------------------------- lint: near-duplicates


@pytest.mark.parametrize("seed", range(40))
def test_near_duplicates_equal_the_n_searches(seed: int) -> None:
    skills = hard_library(seed, random.Random(seed).randint(2, 70), content=False)
    assert _near(skills) == sorted(reference_near_duplicates(skills))
    # the BM25 pairs alone, in the searches' order (skill, then rank)
    assert near_duplicates(skills, overlap=math.inf) == _merged(reference_bm25_pairs(skills))


def _merged(pairs: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """As ``near_duplicates`` stores pairs: first-seen order, names in List order, the larger
    value capped at 1."""
    out: dict[tuple[str, str], float] = {}
    for a, b, v in pairs:
        key = (a, b) if sort_key(a) <= sort_key(b) else (b, a)
        out[key] = max(out.get(key, 0.0), min(1.0, v))
    return [(a, b, v) for (a, b), v in out.items()]


@pytest.mark.parametrize(("ratio", "overlap"), [(0.0, 0.0), (0.5, 0.3), (1.0, 1.0), (1.3, 0.9),
                                                (0.95, 0.5), (-1.0, 1.5), (math.nan, math.nan)])
def test_near_duplicates_at_any_threshold(ratio: float, overlap: float) -> None:
    for seed in range(6):
        skills = hard_library(100 + seed, 40, content=False)
        assert _near(skills, ratio=ratio, overlap=overlap) == sorted(
            reference_near_duplicates(skills, ratio, overlap))


def test_near_duplicates_of_clones_and_ties() -> None:
    """All pairs of 60 clones (Jaccard), and BM25 ties decided by candidate order."""
    clones = [Skill(name=f"deploy-service-{i:03d}", summary="Deploy the web service safely")
              for i in range(60)]
    assert _near(clones) == sorted(reference_near_duplicates(clones))
    same = [Skill(name=f"{c}{d}-deploy", summary="the service") for c in "ab" for d in "xyz"]
    assert _near(same) == sorted(reference_near_duplicates(same))
    assert near_duplicates(same, overlap=2.0) == _merged(reference_bm25_pairs(same))


def test_near_duplicates_in_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunked paths (candidates, scores, overlaps) give the same pairs."""
    skills = hard_library(7, 80, content=False)
    expected = sorted(reference_near_duplicates(skills))
    monkeypatch.setattr(bm25_join, "CHUNK", 17)
    assert _near(skills) == expected


def test_names_must_stay_unique() -> None:
    with pytest.raises(ValueError):
        near_duplicates([Skill(name="Plan"), Skill(name="plan")])
    with pytest.raises(ValueError):
        similar_pairs([Skill(name="Plan"), Skill(name="plan")])


# ---------------------------------------------------------------- dream: merge candidates


@pytest.mark.parametrize("seed", range(25))
def test_similar_pairs_equal_the_n_searches(seed: int) -> None:
    skills = hard_library(1000 + seed, random.Random(seed).randint(2, 45))
    assert _similar(similar_pairs(skills)) == _similar(reference_similar_pairs(skills))


@pytest.mark.parametrize("threshold", [0.0, 0.05, 0.5, 0.9, 1.0, 1.5, -0.5, math.nan])
def test_similar_pairs_at_any_threshold(threshold: float) -> None:
    for seed in range(4):
        skills = hard_library(2000 + seed, 30)
        assert _similar(similar_pairs(skills, threshold)) == _similar(
            reference_similar_pairs(skills, threshold))


def test_similar_pairs_in_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    skills = hard_library(11, 60)
    expected = _similar(reference_similar_pairs(skills))
    monkeypatch.setattr(bm25_join, "CHUNK", 13)
    assert _similar(similar_pairs(skills)) == expected


# ---------------------------------------------------------------- shipped libraries


def _shipped() -> list[tuple[str, Path, str | None]]:
    """The demo library, the fixture agent and every corpus (as detected, and as Agent Skills
    where that is another library: not when detection finds the same skill folders)."""
    out: list[tuple[str, Path, str | None]] = [("demo", DEMO, None), ("agent", AGENT, None)]
    for corpus in sorted(p for p in CORPORA.iterdir() if p.is_dir()) if CORPORA.is_dir() else []:
        out.append((corpus.name, corpus, None))
        found, forced = detect(corpus), detect(corpus, "agentskills")
        if (found.format, found.base, found.roots) != (forced.format, forced.base, forced.roots):
            out.append((f"{corpus.name}:agentskills", corpus, "agentskills"))
    return out


SHIPPED = _shipped()
# the old dream search takes minutes on these (one BM25 query per phrase of every content)
SLOW_DREAM = {"K-Dense-AI-claude-scientific-skills", "github-awesome-copilot"}


@pytest.mark.parametrize(("label", "path", "fmt"), SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_libraries_lint_the_same(label: str, path: Path, fmt: str | None) -> None:
    skills = open_library(path, OpenOptions(format=fmt)).skills()
    assert _near(skills) == sorted(reference_near_duplicates(skills))


def _dream_params() -> list[object]:
    out: list[object] = []
    for label, path, fmt in SHIPPED:
        marks = [pytest.mark.slow] if label.split(":")[0] in SLOW_DREAM else []
        out.append(pytest.param(path, fmt, id=label, marks=marks))
    return out


@pytest.mark.parametrize(("path", "fmt"), _dream_params())
def test_shipped_libraries_dream_the_same(path: Path, fmt: str | None) -> None:
    skills = [s for s in open_library(path, OpenOptions(format=fmt)).skills() if not is_starter(s.name)]
    assert _similar(similar_pairs(skills)) == _similar(reference_similar_pairs(skills))


def test_the_corpora_are_there() -> None:
    assert DEMO.is_dir() and len([s for s in SHIPPED if s[2] is None]) >= 5


# ---------------------------------------------------------------- the join itself

SETTINGS = budgeted(24, 120, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def documents(draw: st.DrawFn) -> list[str]:
    count = draw(st.integers(1, 10))
    out = []
    for _ in range(count):
        parts = draw(st.lists(st.sampled_from(WORDS), max_size=10))
        seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
        out.append("".join(w + s for w, s in zip(parts, seps, strict=True)))
    if draw(st.booleans()):
        out += [out[0]] * draw(st.integers(1, 3))
    return out


def _all_scores(texts: list[str]) -> np.ndarray:
    """score[a, b]: document b for the query a, from the index (the fidelity-tested scorer)."""
    index = Bm25Index((str(i), t) for i, t in enumerate(texts))
    slots = [index._slot_of[str(i)] for i in range(len(texts))]
    return np.array([index.scores(t)[0][slots] for t in texts])


@SETTINGS
@given(documents())
def test_join_scores_are_bit_identical_to_the_index(texts: list[str]) -> None:
    n = len(texts)
    join = SelfJoin(texts)
    a, b = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    expected = _all_scores(texts)
    assert np.array_equal(join.scores(a, b).reshape(n, n), expected)
    assert np.array_equal(join.self_scores, np.diag(expected))
    assert np.all(join.upper_scores(a, b).reshape(n, n) >= expected)


@SETTINGS
@given(documents(), st.sampled_from([0.0, 0.1, 0.5, 0.8, 1.0, 1.2]))
def test_candidates_keep_every_pair_over_the_bound(texts: list[str], fraction: float) -> None:
    join = SelfJoin(texts)
    scores = _all_scores(texts)
    bounds = fraction * join.self_scores
    found = set(zip(*(x.tolist() for x in join.candidates(bounds)), strict=True))
    n = len(texts)
    wanted = {(x, y) for x in range(n) for y in range(n)
              if x != y and scores[x, y] > 0 and scores[x, y] >= bounds[x]}
    assert wanted <= found
    assert all(x != y for x, y in found)


@SETTINGS
@given(documents(), st.sampled_from([0.0, 0.1, 0.2, 0.5, 0.8, 1.0, 1.2]),
       st.sampled_from([0.0, 0.3, 0.8, 1.0]))
def test_bounded_candidates_keep_every_pair_over_the_bound(texts: list[str], fraction: float,
                                                           extend: float) -> None:
    join = SelfJoin(texts)
    scores = _all_scores(texts)
    own = join.self_scores
    bounds = np.where(own > 0, fraction * own, np.nan)
    a, b = join.bounded_candidates(bounds, extend)
    found = set(zip(a.tolist(), b.tolist(), strict=True))
    n = len(texts)
    wanted = {(x, y) for x in range(n) for y in range(n)
              if x != y and own[x] > 0 and scores[x, y] > 0 and scores[x, y] >= bounds[x]}
    assert wanted <= found
    assert all(x != y for x, y in found)
    assert np.all(np.diff(a * n + b) > 0)  # sorted, no pair twice


def test_bounded_candidates_prune_by_accumulated_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Near-identical families over shared vocabulary: the one-sided pairs to check stay near
    the pairs over the bound (the prefix filter alone keeps many more), in any block size."""
    skills = hard_library(21, 300)
    join = SelfJoin([document_text(s.name, f"{s.summary or ''} {s.content or ''}") for s in skills])
    own = join.self_scores
    bounds = np.where(own > 0, 0.2 * own, np.nan)
    a, b = join.bounded_candidates(bounds)
    score = join.scores(a, b)
    everyone = np.repeat(np.arange(join.n), join.n), np.tile(np.arange(join.n), join.n)
    full = join.scores(*everyone)
    over = (full >= bounds[everyone[0]]) & (full > 0) & (everyone[0] != everyone[1])
    assert set(zip(everyone[0][over].tolist(), everyone[1][over].tolist(), strict=True)) <= set(
        zip(a.tolist(), b.tolist(), strict=True))
    assert len(a) <= max(10, 4 * int(over.sum())) and (score >= 0).all()
    monkeypatch.setattr(bm25_join, "CHUNK", 3)
    monkeypatch.setattr(bm25_join, "WORKERS", 3)
    small = join.bounded_candidates(bounds)
    assert np.array_equal(small[0], a) and np.array_equal(small[1], b)


@SETTINGS
@given(documents(), st.sampled_from([0.0, 0.3, 0.5, 0.75, 0.9, 1.0]))
def test_overlap_pairs_keep_every_pair_over_the_threshold(texts: list[str], threshold: float) -> None:
    join = SelfJoin(texts)
    sets = [set(tokenize(t)) for t in texts]
    i, j, inter, union = join.overlap_pairs(threshold)
    got = {(x, y): (s, u) for x, y, s, u in zip(i.tolist(), j.tolist(), inter.tolist(), union.tolist(),
                                                 strict=True)}
    for x in range(len(texts)):
        for y in range(x + 1, len(texts)):
            both, either = len(sets[x] & sets[y]), len(sets[x] | sets[y])
            if both and either and both / either >= threshold:
                assert got.get((x, y)) == (both, either)
    assert all(s == len(sets[x] & sets[y]) and u == len(sets[x] | sets[y])
               for (x, y), (s, u) in got.items())


def test_running_sums_add_left_to_right() -> None:
    rng = np.random.default_rng(5)
    values = rng.random(500) * 10.0 ** rng.integers(-8, 8, 500)
    indptr = np.r_[0, np.sort(rng.integers(0, 500, 40)), 500]
    for reverse in (False, True):
        got = running_sums(indptr, values, reverse)
        for lo, hi in itertools.pairwise(indptr.tolist()):
            total = 0.0
            for k in (range(hi - 1, lo - 1, -1) if reverse else range(lo, hi)):
                total += float(values[k])
                assert got[k] == total


def test_the_join_grows_with_the_library_not_its_square() -> None:
    """Families of four near-identical skills: the pairs to check grow like the library."""
    counts = []
    for size in (1_000, 4_000):
        skills = [Skill(name=f"svc{i}-app{i}-{suffix}", summary=f"Deploy the svc{i} app{i} service safely")
                  for i in range(size // 4) for suffix in ("alpha", "beta", "gamma", "delta")]
        pairs = near_duplicates(skills)
        assert len(pairs) == 6 * size // 4  # every family's six pairs (Jaccard 6/8), no other
        join = SelfJoin([document_text(s.name, s.summary) for s in skills])
        own = join.self_scores
        counts.append(len(join.candidates(np.minimum(0.8 * own, own))[0])
                      + len(join.overlap_pairs(0.75)[0]))
    assert 0 < counts[1] < 6 * counts[0]  # quadratic would be 16 times


# ---------------------------------------------------------------- lint: content scan

PIECES = ["IGNORE", "ıgnore", "İgnore", "ignore", "all", "previous", "Prior", "instructions", "rules",
          "\n", "\r\n", "\x0c", "\x1c", "\u2028", "\x85", " ", "  ", "\t", "curl", "wget", "http://x",
          "|", "sh", "ſh", "SH", "bash", "sudo", ";", "<|system|>", "<", "|>", "system", "im_start",
          "don't", "DO NOT", "never", "tell", "reveal to", "the", "USER", "user", "~/.ssh/id_rsa",
          ".ssh/", "id_", "rsa", "ID_ED25519", "\u0131d_rsa", ".\u212aube/config", ".aws/credentials",
          "/etc/shadow", "iex", "IEX(", "irm", "iwr", "new-object net.webclient", "$(curl",
          "sh <(wget", "zsh -c \"$(curl", "\u202e", "\u200b", "\U000e0041", "\u00ad", "A" * 120,
          "+/", "=", "é", "x", "_"]


def test_scan_text_equals_the_line_by_line_scan() -> None:
    rng = random.Random(3)
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 25)))
        assert scan_text(text) == reference_scan_text(text), repr(text)


def test_rule_words_cover_every_case_insensitive_spelling() -> None:
    """Characters re.IGNORECASE matches to an ASCII letter all fold to it (the pre-check is safe)."""
    everything = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for ch in re.findall(letter, everything, re.I):
            assert _RULE_FOLD.get(ord(ch)) == letter, (letter, hex(ord(ch)))
    assert len(content_scan._RULE_WORDS) == len(CONTENT_RULES)
