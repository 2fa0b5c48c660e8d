"""The context budget: each agent's advertised skill list, its sizes, and what a limit hides."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from rockskills_gui.core.app.demo import demo_source_dir
from rockskills_gui.core.budget import tokens as budget_tokens
from rockskills_gui.core.budget.agents import AGENT_SKILLS, AGENTS, CORTEX, PICOBOT, ROCKBOT
from rockskills_gui.core.budget.compute import (
    REASON_CHARS,
    REASON_FILTERED,
    REASON_SKILLS,
    REASON_TOKENS,
    compute_budget,
)
from rockskills_gui.core.budget.entries import AdEntry, entries_of
from rockskills_gui.core.budget.limits import Limits, LimitsStore, default_limits
from rockskills_gui.core.budget.report import agents_for, limits_for
from rockskills_gui.core.budget.suggest import PrefixGuide, Shorten, apply_changes, suggest, what_if
from rockskills_gui.core.budget.tokens import tokenizer, try_tokenizer
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.profile_settings import configured_profile
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.recall.index_text import session_index_text
from tests.conftest import AGENT, EXPECTED, SHARED, tree_hashes

CORPUS = SHARED / "corpora" / "anthropics-skills"
KDENSE = SHARED / "corpora" / "K-Dense-AI-claude-scientific-skills"


@pytest.fixture(scope="module")
def tok():
    return tokenizer()


def generated(count: int, width: int = 40) -> list[AdEntry]:
    """Skills whose descriptions differ in length, so that boundaries are not evenly spaced."""
    return [AdEntry(f"skill-{i:03d}", ("word " * ((i % 7) + 1) + "x" * (width + i))[: width + i * 3],
                    f"/lib/skill-{i:03d}/SKILL.md") for i in range(count)]


# ---------------------------------------------------------------- the tokenizer


def test_the_tokenizer_is_tiktoken_cl100k_loaded_offline(tok) -> None:
    import tiktoken.load

    assert tok.name.startswith("cl100k_base")
    assert tok.count("") == 0
    assert tok.count("hello world") == 2  # known cl100k_base counts
    assert tok.count("tiktoken is great!") == 6
    assert tok.count("antidisestablishmentarianism") == 6
    assert tok.count("crème brûlée & naïve") == 9
    assert tok.count((EXPECTED / "session-index.txt").read_text(encoding="utf-8")) == 459
    assert tok.count("<|endoftext|>") > 1  # special-token text counts as plain text
    assert tiktoken.load.check_hash(b"", "x") is False  # the hash check the loader relies on is real


def test_a_missing_data_file_is_reported_not_downloaded(monkeypatch) -> None:
    monkeypatch.setattr(budget_tokens, "DATA_FILE", "data/nope.tiktoken")
    budget_tokens._shared.cache_clear()
    try:
        counter, why = try_tokenizer()
        assert counter is None and "missing or damaged" in why
    finally:
        monkeypatch.undo()
        budget_tokens._shared.cache_clear()


def test_without_a_tokenizer_tokens_are_unknown_and_the_token_limit_is_ignored() -> None:
    budget = compute_budget(generated(5), ROCKBOT, Limits(max_tokens=1), None)
    assert budget.tokens is None and budget.hidden == () and len(budget.listed) == 5


# ---------------------------------------------------------------- exact texts


def test_rockbot_index_is_the_session_index_byte_for_byte(tok) -> None:
    lib = RockBotLibrary.open(AGENT)
    budget = compute_budget(entries_of(lib), ROCKBOT, Limits(), tok)
    expected = (EXPECTED / "session-index.txt").read_text(encoding="utf-8")
    assert budget.text == expected == session_index_text(lib.skills())
    assert budget.chars == len(expected) and budget.tokens == tok.count(expected)
    assert budget.hidden == () and len(budget.listed) == len(lib) == 24


def test_demo_library_every_profile(tok) -> None:
    lib = RockBotLibrary.open(demo_source_dir())
    entries = entries_of(lib)
    for agent in AGENTS.values():
        budget = compute_budget(entries, agent, default_limits(agent.id), tok)
        assert budget.total == len(lib)
        assert len(budget.listed) + len(budget.hidden) == len(lib)
        assert budget.chars == len(budget.text or "")
        assert budget.tokens == tok.count(budget.text or "")
    rockbot = compute_budget(entries, ROCKBOT, Limits(), tok)
    assert rockbot.text == session_index_text(lib.skills())


def test_an_empty_rockbot_library_sends_no_index(tok) -> None:
    budget = compute_budget([], ROCKBOT, Limits(), tok)
    assert budget.text is None and budget.chars == 0
    agent_skills = compute_budget([], AGENT_SKILLS, Limits(), tok)
    assert agent_skills.text == "<available_skills>\n</available_skills>"  # skills-ref's empty block


def test_agent_skills_corpus_is_the_skills_ref_block(tok) -> None:
    lib = open_library(CORPUS)
    budget = compute_budget(entries_of(lib), AGENT_SKILLS, Limits(), tok)
    text = budget.text or ""
    assert text.startswith("<available_skills>\n<skill>\n<name>\n")
    assert text.endswith("</skill>\n</available_skills>")
    for skill in lib.skills():
        assert f"<name>\n{html.escape(skill.name)}\n</name>" in text
        assert f"<description>\n{html.escape(skill.summary or '')}\n</description>" in text
        assert f"<location>\n{html.escape(str(lib.skill_path(skill.name)))}\n</location>" in text
    assert len(budget.listed) == len(lib) and budget.tokens == tok.count(text)


def test_picobot_defaults_hide_skills_of_a_large_corpus(tok) -> None:
    lib = open_library(KDENSE, OpenOptions(format="picobot"))
    budget = compute_budget(entries_of(lib), PICOBOT, default_limits("picobot"), tok)
    assert default_limits("picobot") == Limits(max_chars=4000, max_skills=32)
    assert budget.chars <= 4000 and len(budget.listed) <= 32
    filtered = sum(h.kind == REASON_FILTERED for h in budget.hidden)
    assert len(budget.cut) == len(lib) - len(budget.listed) - filtered
    assert budget.cut and budget.full_chars > 4000
    names = sorted((s.name for s in lib.skills()), key=str.casefold)
    assert list(budget.listed) == names[: len(budget.listed)]  # listed by name, cut at the end


def test_cortex_drops_deprecated_and_unreliable_skills(tok) -> None:
    learned = {"origin": "llm", "lifecycle": "candidate"}
    entries = [AdEntry("kept", "d", "/x", trust_tier=2, success_rate=0.3, **learned),
               AdEntry("old", "d", "/x", lifecycle="deprecated"),
               AdEntry("shaky", "d", "/x", trust_tier=1, success_rate=0.4, **learned),
               AdEntry("vetted", "d", "/x", trust_tier=4, utility=2.0, success_rate=1.0, trigger="go")]
    budget = compute_budget(entries, CORTEX, Limits(), tok)
    assert budget.listed == ("vetted", "kept")
    assert {h.name: h.kind for h in budget.hidden} == {"old": REASON_FILTERED, "shaky": REASON_FILTERED}
    assert budget.text == ("- **vetted** ★ [human-authored] [released] (100% success): d — Trigger: go\n"
                           "- **kept** ☆ [learned] [candidate] (30% success): d")


# ---------------------------------------------------------------- exact boundaries


@pytest.mark.parametrize("agent", [ROCKBOT, AGENT_SKILLS, PICOBOT], ids=lambda a: a.id)
@pytest.mark.parametrize("k", [0, 1, 7, 19])
def test_the_character_limit_cuts_at_the_exact_boundary(tok, agent, k) -> None:
    entries = generated(20)
    ordered = agent.order(list(entries))
    exact = len(agent.text([agent.render(e) for e in ordered[:k]]))
    at = compute_budget(entries, agent, Limits(max_chars=exact), tok)
    assert len(at.listed) == k and at.chars == exact
    assert [h.kind for h in at.hidden] == [REASON_CHARS] * (20 - k)
    if k:
        below = compute_budget(entries, agent, Limits(max_chars=exact - 1), tok)
        assert len(below.listed) == k - 1 and below.hidden[0].name == ordered[k - 1].name
    above = compute_budget(entries, agent, Limits(max_chars=exact + 1), tok)
    assert len(above.listed) == k  # one character more is not room for the next entry


@pytest.mark.parametrize("k", [1, 5, 12])
def test_the_token_limit_cuts_at_the_exact_boundary(tok, k) -> None:
    entries = generated(15)
    ordered = ROCKBOT.order(list(entries))
    exact = tok.count(ROCKBOT.text([ROCKBOT.render(e) for e in ordered[:k]]))
    at = compute_budget(entries, ROCKBOT, Limits(max_tokens=exact), tok)
    assert len(at.listed) == k and at.tokens == exact
    assert {h.kind for h in at.hidden} == {REASON_TOKENS}
    below = compute_budget(entries, ROCKBOT, Limits(max_tokens=exact - 1), tok)
    assert len(below.listed) == k - 1


def test_the_skill_count_limit_and_which_limit_is_named(tok) -> None:
    entries = generated(10)
    budget = compute_budget(entries, PICOBOT, Limits(max_skills=4, max_chars=10_000), tok)
    assert budget.listed == tuple(f"skill-{i:03d}" for i in range(4))
    assert [h.kind for h in budget.hidden] == [REASON_SKILLS] * 6
    both = compute_budget(entries, PICOBOT, Limits(max_skills=4, max_chars=len(budget.text or "") - 1), tok)
    assert len(both.listed) == 3
    assert both.hidden[0].kind == REASON_CHARS and both.hidden[1].kind == REASON_SKILLS


# ---------------------------------------------------------------- suggestions and what-if


def test_shorten_suggestion_makes_everything_fit_and_no_larger_cap_does(tok) -> None:
    entries = generated(12, width=80)
    full = compute_budget(entries, ROCKBOT, Limits(), tok)
    limits = Limits(max_chars=full.chars - 150)
    found = [s for s in suggest(entries, ROCKBOT, limits, tok) if isinstance(s.change, Shorten)]
    assert len(found) == 1
    change = found[0].change
    after = compute_budget(apply_changes(entries, [change]), ROCKBOT, limits, tok)
    assert after.hidden == () and after.chars <= limits.max_chars
    looser = Shorten(tuple(e.name for e in entries), change.cap + 1)
    assert compute_budget(apply_changes(entries, [looser]), ROCKBOT, limits, tok).hidden != ()
    assert found[0].reveals == len(compute_budget(entries, ROCKBOT, limits, tok).hidden)


def test_prefix_guide_frees_list_entries(tok) -> None:
    entries = [AdEntry(n, f"does {n}", f"/s/{n}") for n in
               ("mcp/calendar", "mcp/email", "mcp/weather", "notes", "web", "zeta")]
    limits = Limits(max_skills=4)
    budget = compute_budget(entries, ROCKBOT, limits, tok)
    assert budget.invisible == {"web", "zeta"}
    guides = [s for s in suggest(entries, ROCKBOT, limits, tok) if isinstance(s.change, PrefixGuide)]
    assert guides and guides[0].change.guide == "mcp/guide" and guides[0].reveals == 2
    effect = what_if(entries, ROCKBOT, limits, [guides[0].change], tok)
    assert set(effect.revealed) == {"web", "zeta"} and effect.after.hidden == ()
    assert "- mcp/guide: Which mcp/ skill fits a request (3 skills)" in (effect.after.text or "")
    assert effect.before == budget


def test_no_suggestions_when_nothing_is_hidden(tok) -> None:
    assert suggest(generated(5), ROCKBOT, Limits(), tok) == []


def test_what_if_writes_nothing(tok, agent_copy: Path) -> None:
    before = tree_hashes(agent_copy)
    lib = RockBotLibrary.open(agent_copy)
    entries = entries_of(lib)
    limits = Limits(max_skills=10)
    for s in suggest(entries, ROCKBOT, limits, tok):
        what_if(entries, ROCKBOT, limits, [s.change], tok)
    assert tree_hashes(agent_copy) == before
    assert entries_of(lib) == entries


# ---------------------------------------------------------------- limits


def test_limits_are_saved_beside_the_settings(tmp_path) -> None:
    store = LimitsStore(tmp_path / "budget.json")
    assert store.limits("picobot") == Limits(4000, 32) and store.limits("rockbot") == Limits()
    store.set("rockbot", Limits(max_tokens=500))
    store.set("picobot", Limits(4000, 32))  # the defaults are not stored
    assert json.loads((tmp_path / "budget.json").read_text()) == {
        "rockbot": {"max_chars": None, "max_skills": None, "max_tokens": 500}}
    again = LimitsStore(tmp_path / "budget.json")
    assert again.limits("rockbot") == Limits(max_tokens=500) and not again.is_default("rockbot")
    again.reset("rockbot")
    assert LimitsStore(tmp_path / "budget.json").limits("rockbot") == Limits()


@pytest.mark.parametrize("content", ["not json", "[]", '{"rockbot": {"max_chars": -1}}',
                                     '{"rockbot": {"bogus": 1}}'])
def test_a_damaged_limits_file_means_defaults(tmp_path, content) -> None:
    (tmp_path / "budget.json").write_text(content)
    store = LimitsStore(tmp_path / "budget.json")
    assert store.limits("picobot") == Limits(4000, 32) and store.problem


def test_a_picobot_library_uses_its_profile_limits_until_the_user_sets_some(tmp_path) -> None:
    profile = configured_profile("picobot", {"picobot": {"max_index_chars": 1234}})
    lib = open_library(KDENSE, OpenOptions(format="picobot", profile=profile))
    store = LimitsStore(tmp_path / "budget.json")
    assert limits_for("picobot", store, lib) == Limits(max_chars=1234, max_skills=32)
    assert limits_for("rockbot", store, lib) == Limits()
    store.set("picobot", Limits(max_skills=5))
    assert limits_for("picobot", store, lib) == Limits(max_skills=5)
    assert [a.id for a in agents_for(lib)] == ["picobot"]
    assert agents_for(lib, "all")[0].id == "picobot" and len(agents_for(lib, "all")) == len(AGENTS)
    with pytest.raises(ValueError, match="unknown agent profile"):
        agents_for(lib, "nobody")
