"""The array pair engine (core.usage_pairs) gives exactly RockBot's pairs -- the string algorithm
as written -- on random logs: keys with their first spelling, counts, order, co-used lists and
pair lookups; also across chunk merges and for sessions of hundreds of skills."""

from __future__ import annotations

import random

import pytest

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage import pairs as usage_pairs
from rockskills_gui.core.usage.events import UsageEvent
from rockskills_gui.core.usage.pairs import PairTable, string_pairs
from rockskills_gui.core.usage.stats import Pair, UsageWindow, analyze

T0 = Timestamp.parse("2026-11-01T00:00:00+00:00")
SPELLINGS = ["mcp/email", "MCP/Email", "web", "Web", "_x", "zed", "Zed", "alpha", "ALPHA", "a-b",
             "a_b", "ab", "ümlaut", "ÜMLAUT", "straße", "K", "\u212a", "ı", "I", "i"]


def random_events(rng: random.Random, sessions: int, names: int, events: int) -> list[UsageEvent]:
    pool = SPELLINGS + [f"skill-{i}" for i in range(names)]
    weights = [1.0 / (i + 1) for i in range(len(pool))]
    out = []
    for n in range(events):
        name = rng.choices(pool, weights)[0]
        if rng.random() < 0.2:
            name = name.upper() if rng.random() < 0.5 else name.lower()
        out.append(UsageEvent(f"{n:012x}", name, f"s{rng.randrange(sessions)}",
                              T0.add_days(n / events * 20)))
    return out


def as_tuples(pairs: object) -> list[tuple[str, int]]:
    return [(p.key, p.sessions) for p in pairs]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(8))
def test_array_pairs_equal_the_string_algorithm(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(usage_pairs, "CHUNK", rng.choice([7, 50, 1000]))  # many merges
    monkeypatch.setattr(usage_pairs, "_SMALL", rng.choice([3, 16, 256]))  # row blocks too
    stats = analyze(random_events(rng, rng.randint(1, 12), rng.randint(5, 80), rng.randint(1, 600)),
                    UsageWindow.all_time())
    table = PairTable(stats.sessions, Pair)
    expected = string_pairs(stats.sessions, fold, Pair)
    assert as_tuples(table) == as_tuples(expected)
    assert len(table) == len(expected)
    assert as_tuples(table[2:7]) == as_tuples(expected[2:7])
    if expected:
        assert table[-1] == expected[-1]
    counts = {frozenset((fold(p.a), fold(p.b))): p.sessions for p in expected}
    keys = sorted({k for s in stats.sessions for k in s.keys})
    for _ in range(50):
        a, b = rng.choice(keys), rng.choice(keys)
        want = 0 if a == b else counts.get(frozenset((a, b)), 0)
        asked = a.lower() if a.isascii() else a  # any spelling of the name (the Kelvin sign
        assert stats.pair_sessions(asked, b) == want  # lower-cases to ASCII 'k': another name)
    assert stats.pair_sessions("no such skill", keys[0]) == 0
    for min_count in (2, 3):  # the top of the list down to a count, exactly
        top = [p for p in expected if p.sessions >= min_count]
        assert as_tuples(PairTable(stats.sessions, Pair, min_count)) == as_tuples(top)


def test_a_session_of_hundreds_of_skills(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usage_pairs, "CHUNK", 5000)
    rng = random.Random(7)
    events = [UsageEvent(None, f"s-{rng.randrange(700)}", "blazor-session", T0.add_days(i / 5000))
              for i in range(5000)]
    events += [UsageEvent(None, f"s-{rng.randrange(700)}", "cli-session", T0.add_days(1 + i / 900))
               for i in range(900)]
    stats = analyze(events, UsageWindow.all_time())
    assert len(stats.sessions[0].skills) > 500
    table = PairTable(stats.sessions, Pair)
    assert as_tuples(table) == as_tuples(string_pairs(stats.sessions, fold, Pair))


def test_stats_use_the_table_and_co_used_follows_pair_order() -> None:
    stats = analyze(random_events(random.Random(3), 6, 30, 300), UsageWindow.all_time())
    assert isinstance(stats.pairs, PairTable)
    walked: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    for pair in string_pairs(stats.sessions, fold, Pair):
        for x, y in ((pair.a, pair.b), (pair.b, pair.a)):
            first.setdefault(fold(x), x)
            walked.setdefault(fold(x), []).append(y)
    assert stats.co_used_map() == {first[k]: v for k, v in walked.items()}
    pair = stats.pairs[0]
    assert stats.pair_sessions(pair.b, pair.a) == pair.sessions


def test_a_name_with_a_bar_keeps_rockbots_string_keys() -> None:
    """RockBot keys pairs by "a|b": ("x|y", "z") and ("x", "y|z") share the key "x|y|z"."""
    events = [UsageEvent(None, "x|y", "1", T0), UsageEvent(None, "z", "1", T0.add_days(0.1)),
              UsageEvent(None, "x", "2", T0.add_days(1)), UsageEvent(None, "y|z", "2", T0.add_days(1.1))]
    stats = analyze(events, UsageWindow.all_time())
    assert as_tuples(stats.pairs) == [("x|y|z", 2)]
    assert not isinstance(stats.pairs, PairTable)


def test_the_pane_counts_what_fits_and_says_how_far_it_got() -> None:
    """Three sessions of 60 skills with overlapping ranges. A budget below the whole list keeps
    the pairs used together in at least the fewest sessions that fit, exactly the top of it."""
    rng = random.Random(11)
    events = [UsageEvent(None, f"k{(n % 3) * 30 + rng.randrange(60)}", f"s{n % 3}",
                         T0.add_days(n / 900)) for n in range(900)]
    stats = analyze(events, UsageWindow.all_time())
    total = usage_pairs.occurrences(stats.sessions)
    budget = usage_pairs.occurrences(stats.sessions, 2)
    assert budget < total
    view = stats.pairs_within(budget)
    assert not view.complete and view.min_count == 2 and view.occurrences == total
    full = string_pairs(stats.sessions, fold, Pair)
    assert as_tuples(view.pairs) == as_tuples([p for p in full if p.sessions >= 2])
    nothing = stats.pairs_within(1)  # no skill is in all three sessions: no pair either
    assert nothing.min_count == 3 and len(nothing.pairs) == 0
    same = analyze([UsageEvent(None, f"k{n % 60}", f"s{n // 60}", T0.add_days(n)) for n in range(120)],
                   UsageWindow.all_time())  # two sessions of the same 60 skills
    assert same.pairs_within(100).min_count is None and not same.pairs_within(100).pairs
    assert stats.pairs_within(total).complete
    assert stats.pairs_within(1).complete  # counted once, the whole list is at hand
