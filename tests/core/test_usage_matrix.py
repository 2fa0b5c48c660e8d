"""Measures, orderings, derived signals and the heatmap data, on hand-computed cases."""

from __future__ import annotations

import csv
import io
import random

import numpy as np
import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import UsageEvent, read_usage
from rockskills_gui.core.usage.heatmap import (
    DIAGONAL_LEVEL,
    EMPTY_LEVEL,
    HeatmapOptions,
    build_heatmap,
    heatmap_csv,
)
from rockskills_gui.core.usage.matrix import CoMatrix, Measure
from rockskills_gui.core.usage.matrix_order import (
    Band,
    Ordering,
    bands,
    order,
    order_by_cluster,
    order_by_name,
)
from rockskills_gui.core.usage.signals import derive, prune_threshold
from rockskills_gui.core.usage.stats import UsageStats, UsageWindow, analyze
from tests.conftest import AGENT, NOW_TEXT

NOW = Timestamp.parse(NOW_TEXT)
T0 = Timestamp.parse("2026-11-01T00:00:00+00:00")


def sessions(*spec: tuple[str, str]) -> UsageStats:
    """Stats for sessions given as (id, skills as one letter each), one event per letter."""
    events = []
    t = 0
    for session_id, letters in spec:
        for letter in letters:
            t += 1
            events.append(UsageEvent("0" * 12, letter, session_id, T0.add_days(t / 1000)))
    return analyze(events, UsageWindow.all_time())


def skill(name: str, see_also: tuple[str, ...] | None = None, **dates: Timestamp | None) -> Skill:
    return Skill(name=name, summary="s", content="c", created_at=dates.get("created", T0),
                 updated_at=dates.get("updated"), last_used_at=dates.get("used"), see_also=see_also)


# S1 {a,b}, S2 {a,b,c}, S3 {a}, S4 {c}: N = 4, n(a) = 3, n(b) = 2, n(c) = 2,
# n(a,b) = 2, n(a,c) = 1, n(b,c) = 1.
SMALL = (("1", "ab"), ("2", "abc"), ("3", "a"), ("4", "c"))


def test_sessions_together_counts_each_pair_once_per_session() -> None:
    matrix = CoMatrix.from_stats(sessions(*SMALL), ["a", "b", "c"])
    assert matrix.total_sessions == 4
    assert matrix.together.tolist() == [[3, 2, 1], [2, 2, 1], [1, 1, 2]]
    assert matrix.values(Measure.SESSIONS).tolist() == [[3, 2, 1], [2, 2, 1], [1, 1, 2]]


def test_jaccard_is_both_over_either() -> None:
    values = CoMatrix.from_stats(sessions(*SMALL), ["a", "b", "c"]).values(Measure.JACCARD)
    expected = [[1, 2 / 3, 1 / 4], [2 / 3, 1, 1 / 3], [1 / 4, 1 / 3, 1]]
    assert values == pytest.approx(np.array(expected))


def test_lift_is_observed_over_expected() -> None:
    matrix = CoMatrix.from_stats(sessions(*SMALL), ["a", "b", "c"])
    values = matrix.values(Measure.LIFT)
    # lift(a,b) = 2·4/(3·2); lift(a,c) = 1·4/(3·2); lift(b,c) = 1·4/(2·2); diagonal N/n.
    expected = [[4 / 3, 4 / 3, 2 / 3], [4 / 3, 2, 1], [2 / 3, 1, 2]]
    assert values == pytest.approx(np.array(expected))
    assert matrix.value(0, 2, Measure.LIFT) == pytest.approx(2 / 3)


def test_unused_and_deleted_skills_get_rows_and_zero_measures() -> None:
    matrix = CoMatrix.from_stats(sessions(*SMALL), ["b", "z"])  # "a" and "c" are not in the library
    assert matrix.names == ["b", "z", "a", "c"]
    assert [s.exists for s in matrix.skills] == [True, True, False, False]
    assert [(s.events, s.sessions) for s in matrix.skills] == [(2, 2), (0, 0), (3, 3), (2, 2)]
    for measure in Measure:
        assert not matrix.values(measure)[1].any()


def test_name_order_is_the_prefix_tree_with_family_bands() -> None:
    names = ["mcp-notes", "mcp/email", "Mcp", "a2a", "mcp/calendar", "b/x/y", "b/x"]
    ordered = [names[i] for i in order_by_name(names)]
    assert ordered == ["a2a", "b/x", "b/x/y", "Mcp", "mcp/calendar", "mcp/email", "mcp-notes"]
    assert bands(ordered) == [Band("(top level)", 0, 1), Band("b/", 1, 3), Band("Mcp/", 3, 6),
                              Band("(top level)", 6, 7)]


def test_usage_order_is_events_then_sessions_then_name() -> None:
    stats = sessions(("1", "bb"), ("2", "a"), ("3", "a"), ("4", "c"), ("5", "d"))
    matrix = CoMatrix.from_stats(stats, ["d", "c", "b", "a", "e"])
    arranged = order(matrix, Ordering.USAGE)
    # a: 2 uses/2 sessions, b: 2 uses/1 session, c and d: 1 each (name order), e: never.
    assert [matrix.names[i] for i in arranged.indices] == ["a", "b", "c", "d", "e"]
    assert arranged.bands == []


# a,b used together 3 times, c,d 3 times, and one session bridges a and d:
# J(a,b) = J(c,d) = 3/4, J(a,d) = 1/7, every other pair 0. The optimal leaf order puts the bridge
# in the middle (b a d c: adjacent distances 1/4 + 6/7 + 1/4), the plain dendrogram does not.
BRIDGE = (("1", "ab"), ("2", "ab"), ("3", "ab"), ("4", "cd"), ("5", "cd"), ("6", "cd"), ("7", "ad"))


def test_cluster_order_uses_the_optimal_leaf_order() -> None:
    matrix = CoMatrix.from_stats(sessions(*BRIDGE), ["a", "b", "c", "d", "e"])
    indices, note = order_by_cluster(matrix)
    assert [matrix.names[i] for i in indices] == ["b", "a", "d", "c", "e"]  # e: no pairs, last
    assert note == ""
    plain, note = order_by_cluster(matrix, olo_max=0)
    assert [matrix.names[i] for i in plain] == ["a", "b", "c", "d", "e"]
    assert "optimal leaf ordering skipped" in note


def test_cluster_order_does_not_depend_on_the_input_order() -> None:
    stats = sessions(*BRIDGE, ("8", "ef"), ("9", "fg"), ("10", "eg"), ("11", "hb"))
    reference = None
    rng = random.Random(7)
    for _ in range(6):
        names = list("abcdefghi")
        rng.shuffle(names)
        matrix = CoMatrix.from_stats(stats, names)
        result = [matrix.names[i] for i in order(matrix, Ordering.CLUSTER).indices]
        reference = reference or result
        assert result == reference
    assert reference is not None and reference[-1] == "i"


def test_signals_link_review_never_used_unused_and_prune() -> None:
    now = Timestamp.parse("2026-08-31T12:00:00+00:00")
    threshold = prune_threshold(now)
    assert threshold == Timestamp.parse("2025-02-28T12:00:00+00:00")  # AddMonths clamps the day
    library = [
        skill("a", ("b", "ghost")),
        skill("b"),
        skill("c", ("C",)),
        skill("d", ("a",), used=Timestamp.parse("2026-07-01T12:00:00+00:00")),
        skill("old", created=threshold.add_ticks(-1)),           # pruned: strictly before
        skill("edge", created=threshold),                         # not pruned, but soon
        skill("fresh", created=threshold, updated=now),           # updatedAt wins over createdAt
    ]
    window = sessions(("1", "ac"), ("2", "ac"), ("3", "ab"), ("4", "xc"))
    history = window
    signals = derive(library, window, history, now, unused_days=30, min_sessions=2)
    assert [(s.a, s.b, s.sessions) for s in signals.link] == [("a", "c", 2)]
    assert [(r.referrer, r.target, r.reason) for r in signals.review] == [
        ("a", "ghost", "target missing"), ("c", "c", "links to itself"),
        ("d", "a", "not used together")]
    assert signals.never_used == ["edge", "fresh", "old"]
    assert [(a.name, a.idle_days) for a in signals.unused] == [("d", 61)]
    assert [a.name for a in signals.prune] == ["old"]
    assert [a.name for a in signals.prune_soon] == ["edge"]
    assert signals.activity["FRESH"].last_activity == now


def test_fixture_prune_signal_matches_dream_derived() -> None:
    library = RockBotLibrary.open(AGENT)
    log = read_usage(AGENT)
    signals = derive(library.skills(), analyze(log, UsageWindow.last_days(NOW)),
                     analyze(log, UsageWindow.all_time()), NOW)
    assert [[a.name, a.last_activity.isoformat()] for a in signals.prune] == [
        ["legacy/fax-sender", "2025-04-10T13:45:00.25+00:00"]]  # dream-derived.json "pruned"
    assert signals.prune_threshold == Timestamp.parse("2025-05-22T12:00:00+00:00")


def test_heatmap_filters_levels_links_and_hover_text() -> None:
    library = [skill("a", ("b",)), skill("b"), skill("c"), skill("q/x"), skill("unused")]
    stats = sessions(*SMALL)
    data = build_heatmap(stats, library, HeatmapOptions(min_count=2))
    assert data.names == ["a", "b"]  # only a-b reaches 2 sessions; unused and c hidden
    assert data.hidden == 3
    assert data.levels[0, 0] == DIAGONAL_LEVEL and data.levels[0, 1] == 255  # the maximum
    assert data.links == {(0, 1)}
    text = data.describe_cell(0, 1)
    assert text.splitlines() == ["a  ×  b", "2 sessions together", "a: 3 uses in 3 sessions",
                                 "b: 2 uses in 2 sessions", "Jaccard 0.67 · lift 1.33×",
                                 "linked by see-also"]
    everything = build_heatmap(stats, library, HeatmapOptions(hide_empty=False, prefix="Q/, b"))
    assert everything.names == ["b", "q/x"]
    data = build_heatmap(stats, library, HeatmapOptions(measure=Measure.JACCARD, min_count=1))
    assert data.names == ["a", "b", "c"]
    assert data.levels[0, 2] != EMPTY_LEVEL and data.levels[0, 1] == 255
    assert data.scale.vmax == pytest.approx(2 / 3)


def test_heatmap_csv_holds_the_shown_values() -> None:
    data = build_heatmap(sessions(*SMALL), [skill("a"), skill("b"), skill("c")],
                         HeatmapOptions(measure=Measure.LIFT, min_count=1))
    rows = list(csv.reader(io.StringIO(heatmap_csv(data))))
    assert rows[0] == ["Lift (observed / expected)", "a", "b", "c"]
    assert rows[1] == ["a", "1.3333", "1.3333", "0.6667"]
    assert rows[3] == ["c", "0.6667", "1.0000", "2.0000"]
    counts = build_heatmap(sessions(*SMALL), [skill("a"), skill("b"), skill("c")],
                           HeatmapOptions(min_count=2))
    assert list(csv.reader(io.StringIO(heatmap_csv(counts))))[1:] == [["a", "3", "2"], ["b", "2", "2"]]


def test_a_huge_library_keeps_the_most_used_skills_on_the_axis() -> None:
    """A dense n × n matrix over 100,000 skills would need 40 GB: the axis is capped."""
    from rockskills_gui.core.usage.matrix import MAX_AXIS

    names = [f"skill-{i:05d}" for i in range(MAX_AXIS + 500)]
    stats = sessions(*SMALL)
    matrix = CoMatrix.from_stats(stats, [*names, "a", "b", "c"], max_axis=MAX_AXIS)
    assert len(matrix) == MAX_AXIS and matrix.omitted == 503
    used = [matrix.index(n) for n in ("a", "b", "c")]
    assert all(i is not None for i in used)
    full = CoMatrix.from_stats(stats, ["a", "b", "c"])
    for x in ("a", "b", "c"):
        for y in ("a", "b", "c"):
            assert matrix.together[matrix.index(x), matrix.index(y)] == \
                full.together[full.index(x), full.index(y)]
