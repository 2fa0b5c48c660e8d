"""The Usage tab's lean structures (issue 19: 100,000 skills within 1 GB) against straightforward
reference computations on generated logs and libraries (hypothesis):

- the pair table (kept as first-occurrence positions and runs of counts) equals RockBot's pairs
  counted the plain way -- a dict of ``a|b`` keys, sorted by count, first seen first -- for any
  chunk and slice size, and its top down to a count;
- the co-occurrence matrix in its compact type holds the sessions-together counts of a plain
  double loop over the sessions;
- the signals' activity table and lists equal one Activity object per skill computed and sorted
  the plain way (names spelt alike included: the last skill of a name speaks for it);
- the usage table's column rows equal a list of row objects, also sorted by every column.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.model.names import fold, sort_key
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage import heatmap as usage_heatmap
from rockskills_gui.core.usage import pairs as usage_pairs
from rockskills_gui.core.usage.events import UsageEvent
from rockskills_gui.core.usage.heatmap import HeatmapOptions, build_heatmap
from rockskills_gui.core.usage.matrix import AxisSkill, CoMatrix
from rockskills_gui.core.usage.matrix_order import order_by_name
from rockskills_gui.core.usage.pairs import PairTable
from rockskills_gui.core.usage.report import UsageRow, sort_rows, usage_rows
from rockskills_gui.core.usage.signals import Activity, derive, prune_threshold
from rockskills_gui.core.usage.stats import Pair, UsageStats, UsageWindow, analyze
from tests.property_budget import budgeted

T0 = Timestamp.parse("2026-06-01T00:00:00+00:00")
NOW = Timestamp.parse("2026-11-01T00:00:00+00:00")
# spellings folded alike, names sorting differently by ordinal and by case, non-ASCII
POOL = ["mcp/email", "MCP/Email", "web", "Web", "_x", "zed", "alpha", "ALPHA", "a-b", "a_b", "ab",
        "ümlaut", "ÜMLAUT", "straße", "K", "\u212a", "ı", "I", "i", *(f"s-{i}" for i in range(30))]

events_strategy = st.lists(
    st.tuples(st.sampled_from(POOL), st.integers(0, 7), st.integers(0, 400)),
    min_size=0, max_size=250)


def make_log(raw: list[tuple[str, int, int]]) -> list[UsageEvent]:
    return [UsageEvent(None, name, f"session-{session}", T0.add_days(day / 4))
            for name, session, day in raw]


@contextmanager
def sizes(chunk: int, slice_: int, small: int) -> Iterator[None]:
    """The pair engine's pass sizes set for the block (restored after)."""
    saved = usage_pairs.CHUNK, usage_pairs.SLICE, usage_pairs._SMALL
    usage_pairs.CHUNK, usage_pairs.SLICE, usage_pairs._SMALL = chunk, slice_, small
    try:
        yield
    finally:
        usage_pairs.CHUNK, usage_pairs.SLICE, usage_pairs._SMALL = saved


def reference_pairs(stats: UsageStats) -> list[tuple[str, int]]:
    """RockBot's loop, plainly: per session its names sorted ordinal-ignore-case, every i < j
    pair counted under the folded key (first spelling kept), stable sort by count descending."""
    counts: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for session in stats.sessions:
        names = sorted(session.skills, key=sort_key)
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                key = f"{fold(names[i])}|{fold(names[j])}"
                if key not in counts:
                    counts[key] = 0
                    spelling[key] = f"{names[i]}|{names[j]}"
                counts[key] += 1
    ordered = sorted(counts, key=lambda key: -counts[key])
    return [(spelling[key], counts[key]) for key in ordered]


@budgeted(30, 150)
@given(events_strategy, st.sampled_from([1, 3, 40, 100_000]), st.sampled_from([1, 2, 7, 262_144]),
       st.sampled_from([2, 4, 256]), st.integers(1, 4))
def test_pair_table_equals_the_plain_count(raw: list[tuple[str, int, int]], chunk: int,
                                           slice_: int, small: int, min_count: int) -> None:
    stats = analyze(make_log(raw), UsageWindow.all_time())
    want = reference_pairs(stats)
    with sizes(chunk, slice_, small):
        table = PairTable(stats.sessions, Pair)
        top = PairTable(stats.sessions, Pair, min_count)
    assert [(p.key, p.sessions) for p in table] == want
    assert len(table) == len(want)
    assert [table.sessions(i) for i in range(len(table))] == [n for _, n in want]
    if want:
        assert (table[-1].key, table[-1].sessions) == want[-1]
        assert [(p.key, p.sessions) for p in table[1:5]] == want[1:5]
    assert [(p.key, p.sessions) for p in top] == [(k, n) for k, n in want if n >= min_count]
    if not any("|" in name for name, _, _ in raw):
        assert isinstance(stats.pairs, PairTable)
    stats.forget_pairs()  # counted again when asked
    assert [(p.key, p.sessions) for p in stats.pairs] == want


@budgeted(12, 60)
@given(st.integers(2, 60))
def test_a_position_names_its_pair(k: int) -> None:
    """Every enumeration position of a session of ``k`` names maps back to its (i, j)."""
    expected = [(i, j) for i in range(k) for j in range(i + 1, k)]
    i, j = usage_pairs._rows_cols(np.full(len(expected), k), np.arange(len(expected)))
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == expected


@budgeted(12, 60)
@given(st.integers(2, 200_000), st.lists(st.integers(0, 10**12), min_size=1, max_size=50))
def test_rows_of_big_sessions_are_exact(k: int, picks: list[int]) -> None:
    """The floating-point square root finds the right row at row starts and ends of sessions of
    up to 200,000 names (20 billion pairs), as exact integer arithmetic does."""
    rows = np.array([p % (k - 1) for p in picks], dtype=np.int64)
    starts = rows * (2 * k - rows - 1) // 2
    offsets = np.r_[starts, starts + (k - rows - 2)]  # each row's first and last pair
    i, j = usage_pairs._rows_cols(np.full(len(offsets), k), offsets)
    assert (i == np.r_[rows, rows]).all()
    assert (j == np.r_[rows + 1, np.full(len(rows), k - 1)]).all()


@budgeted(16, 80)
@given(events_strategy, st.lists(st.sampled_from(POOL), max_size=12), st.integers(1, 60))
def test_compact_matrix_equals_the_plain_count(raw: list[tuple[str, int, int]],
                                               library: list[str], max_axis: int) -> None:
    stats = analyze(make_log(raw), UsageWindow.all_time())
    matrix = CoMatrix.from_stats(stats, library, max_axis=max_axis)
    axis: list[AxisSkill] = []  # the library's names (first of a spelling), then the log's
    for name in library:
        if all(fold(name) != fold(s.name) for s in axis):
            usage = stats.usage.get(fold(name))
            axis.append(AxisSkill(name, True, usage.events if usage else 0,
                                  usage.sessions if usage else 0))
    axis += [AxisSkill(u.name, False, u.events, u.sessions) for k, u in stats.usage.items()
             if all(k != fold(s.name) for s in axis)]
    ranked = sorted(range(len(axis)), key=lambda i: (-axis[i].sessions, -axis[i].events, i))
    assert matrix.skills == [axis[i] for i in sorted(ranked[:max_axis])]
    assert matrix.omitted == max(0, len(axis) - max_axis)
    keys = [fold(s.name) for s in matrix.skills]
    want = np.array([[sum(1 for s in stats.sessions if a in s.keys and b in s.keys) for b in keys]
                     for a in keys], dtype=np.int64).reshape(len(keys), len(keys))
    assert np.array_equal(matrix.together.astype(np.int64), want)
    assert matrix.together.dtype == np.min_scalar_type(len(stats.sessions))


def reference_activity(skills: list[Skill], history: UsageStats,
                       now: Timestamp) -> dict[str, Activity]:
    """One Activity per skill, keyed by folded name (a later skill of a name replaces the earlier
    one's value, in the earlier one's place), as the signals were first computed."""
    threshold = prune_threshold(now)
    soon = prune_threshold(now.add_days(30))
    activity: dict[str, Activity] = {}
    for skill in skills:
        logged = history.usage.get(fold(skill.name))
        last_used = skill.last_used_at
        if logged is not None and (last_used is None or logged.last.utc_ticks > last_used.utc_ticks):
            last_used = logged.last
        last = skill.last_activity()
        activity[fold(skill.name)] = Activity(
            skill.name, last, last_used,
            now.whole_days_since(last_used) if last_used is not None else None,
            last.utc_ticks < threshold.utc_ticks,
            threshold.utc_ticks <= last.utc_ticks < soon.utc_ticks)
    return activity


skill_strategy = st.tuples(st.sampled_from(POOL), st.integers(0, 900),
                           st.one_of(st.none(), st.integers(0, 900)),
                           st.one_of(st.none(), st.integers(-5, 40), st.integers(0, 900)),
                           st.booleans())


def make_skills(raw: list[tuple[str, int, int | None, int | None, bool]]) -> list[Skill]:
    """Skills created up to 900 days before NOW, maybe updated, maybe used (a few in the future),
    some linking to the next name of the pool."""
    out = []
    for name, created, updated, used, links in raw:
        out.append(Skill(
            name=name, summary="", content="", created_at=NOW.add_days(-created),
            updated_at=None if updated is None else NOW.add_days(-updated),
            last_used_at=None if used is None else NOW.add_days(-used - 0.5),
            see_also=(POOL[(POOL.index(name) + 1) % len(POOL)],) if links else None))
    return out


@budgeted(24, 120)
@given(events_strategy, st.lists(skill_strategy, max_size=25), st.integers(-3, 40))
def test_signals_equal_one_activity_per_skill(raw: list[tuple[str, int, int]],
                                              raw_skills: list[tuple[str, int, int | None,
                                                                     int | None, bool]],
                                              unused_days: int) -> None:
    skills = make_skills(raw_skills)
    log = make_log(raw)
    window = analyze(log, UsageWindow.last_days(NOW, 200))
    history = analyze(log, UsageWindow.all_time())
    signals = derive(skills, window, history, NOW, unused_days=unused_days)
    activity = reference_activity(skills, history, NOW)
    by_name = sorted(activity.values(), key=lambda a: sort_key(a.name))
    stale = sorted(by_name, key=lambda a: a.last_activity.utc_ticks)
    assert dict(signals.activity) == activity
    assert list(signals.activity) == list(activity)
    for key in activity:
        assert signals.activity[key] == activity[key]
    assert signals.activity.get("no such skill") is None
    assert signals.never_used == [a.name for a in by_name if a.last_used is None]
    assert list(signals.unused) == sorted(
        (a for a in by_name if a.idle_days is not None and a.idle_days >= unused_days),
        key=lambda a: -(a.idle_days or 0))
    assert list(signals.prune) == [a for a in stale if a.prune_due]
    assert list(signals.prune_soon) == [a for a in stale if a.prune_soon]
    assert signals.prune[:3] == [a for a in stale if a.prune_due][:3]
    present = {fold(s.name): s.name for s in skills}
    assert [(r.referrer, r.target, r.reason) for r in signals.review] == [
        (s.name, present.get(fold(t), t),
         "target missing" if fold(t) not in present else
         "links to itself" if fold(t) == fold(s.name) else "not used together")
        for s in skills for t in s.see_also or ()
        if fold(t) not in present or fold(t) == fold(s.name) or not window.pair_sessions(s.name, t)]

    # the usage table: one row per skill, then the names only the log has
    rows, gone = usage_rows(skills, window, signals)
    want = [UsageRow(s.name, True, window.count(s.name),
                     window.usage[fold(s.name)].sessions if fold(s.name) in window.usage else 0,
                     activity[fold(s.name)].last_used, s.last_activity()) for s in skills]
    assert [u.name for u in gone] == [u.name for k, u in window.usage.items() if k not in present]
    want += [UsageRow(u.name, False, u.events, u.sessions, u.last, None) for u in gone]
    assert list(rows) == want and rows == want and len(rows) == len(want)
    for column in range(4):
        for descending in (False, True):
            plain = sort_rows(want, column, descending)
            assert list(sort_rows(rows, column, descending)) == plain
            assert sort_rows(rows, column, descending) == plain


@budgeted(16, 80)
@given(events_strategy, st.lists(st.sampled_from(POOL), max_size=12),
       st.sampled_from(["", "s-", "mcp, web", "S-1"]), st.integers(1, 3), st.booleans(),
       st.sampled_from([1, 2, 64]))
def test_heatmap_rows_equal_the_dense_filter(raw: list[tuple[str, int, int]], library: list[str],
                                             prefix: str, minimum: int, hide_empty: bool,
                                             block: int) -> None:
    """The skills shown (prefix, minimum, empty rows hidden, a block of rows at a time) are those
    the whole boolean matrix gives, in name order, with their counts."""
    stats = analyze(make_log(raw), UsageWindow.all_time())
    skills = [Skill(name=name, summary="", content="", created_at=T0) for name in library]
    options = HeatmapOptions(prefix=prefix, min_count=minimum, hide_empty=hide_empty)
    saved = usage_heatmap.BLOCK_ROWS
    usage_heatmap.BLOCK_ROWS = block
    try:
        data = build_heatmap(stats, skills, options)
    finally:
        usage_heatmap.BLOCK_ROWS = saved
    full = CoMatrix.from_stats(stats, library)
    prefixes = [fold(p.strip()) for p in prefix.split(",") if p.strip()]
    chosen = [i for i, s in enumerate(full.skills)
              if not prefixes or any(fold(s.name).startswith(p) for p in prefixes)]
    if hide_empty and chosen:
        reach = (full.together >= minimum)[np.ix_(chosen, chosen)]
        np.fill_diagonal(reach, False)
        chosen = [i for i, k in zip(chosen, reach.any(axis=1), strict=True) if k]
    names = [full.skills[i].name for i in chosen]
    want = [chosen[k] for k in order_by_name(names)]
    assert data.names == [full.skills[i].name for i in want]
    assert np.array_equal(data.together.astype(np.int64),
                          full.together[np.ix_(want, want)].astype(np.int64))
    assert data.hidden == len(full) - len(want)
