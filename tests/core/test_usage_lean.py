"""The Usage tab's memory-lean computations (issue 19) give exactly what the dense ones gave:
the heatmap's colour levels and scale coloured a block of rows at a time equal colouring the
whole ``measure_values`` matrix at once (every measure, minimum and block size), its ``values``
are those of the shown counts, and the pair table kept in its final order equals RockBot's
string algorithm whatever the slice its order is applied in."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage import heatmap as usage_heatmap
from rockskills_gui.core.usage import pairs as usage_pairs
from rockskills_gui.core.usage.events import UsageEvent
from rockskills_gui.core.usage.heatmap import (
    DIAGONAL_LEVEL,
    EMPTY_LEVEL,
    HeatmapOptions,
    build_heatmap,
    colour_levels,
    scale_for,
)
from rockskills_gui.core.usage.matrix import CoMatrix, Measure, measure_values
from rockskills_gui.core.usage.pairs import PairTable, string_pairs
from rockskills_gui.core.usage.stats import Pair, UsageWindow, analyze

T0 = Timestamp.parse("2026-11-01T00:00:00+00:00")


def random_stats(rng: random.Random, names: int, sessions: int, events: int):  # type: ignore[no-untyped-def]
    pool = [f"fam{i % 7}/skill-{i}" for i in range(names)]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(names)]
    log = [UsageEvent(f"{n:x}", rng.choices(pool, weights)[0], f"s{rng.randrange(sessions)}",
                      T0.add_days(n / events * 20)) for n in range(events)]
    return analyze(log, UsageWindow.all_time()), pool


def dense_levels(together: np.ndarray, total: int, measure: Measure,
                 minimum: int) -> tuple[np.ndarray, object]:
    """The levels as build_heatmap made them before: the whole measure matrix at once."""
    values = measure_values(together, total, measure)
    mask = together >= minimum
    np.fill_diagonal(mask, False)
    scale = scale_for(measure, values[mask])
    levels = np.full(together.shape, EMPTY_LEVEL, dtype=np.uint8)
    levels[mask] = scale.levels(values[mask])
    np.fill_diagonal(levels, DIAGONAL_LEVEL)
    return levels, scale


@pytest.mark.parametrize("seed", range(6))
def test_block_colouring_equals_the_dense_one(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(usage_heatmap, "BLOCK_ROWS", rng.choice([1, 3, 17, 256]))
    stats, pool = random_stats(rng, rng.randint(5, 120), rng.randint(1, 40), rng.randint(1, 2000))
    matrix = CoMatrix.from_stats(stats, pool)
    for measure in Measure:
        for minimum in (1, 2, 3):
            levels, scale = colour_levels(matrix.together, matrix.total_sessions, measure, minimum)
            want_levels, want_scale = dense_levels(matrix.together, matrix.total_sessions, measure,
                                                   minimum)
            assert scale == want_scale
            assert np.array_equal(levels, want_levels)


@pytest.mark.parametrize("measure", list(Measure))
def test_heatmap_values_are_those_of_its_counts(measure: Measure) -> None:
    stats, pool = random_stats(random.Random(5), 60, 12, 900)
    skills = [Skill(name=name, summary="", content="", created_at=T0) for name in pool]
    data = build_heatmap(stats, skills, HeatmapOptions(measure=measure, min_count=2))
    assert len(data) > 5
    want = measure_values(data.together, data.total_sessions, measure)
    assert np.array_equal(data.values, want)
    shown = data.levels > DIAGONAL_LEVEL
    assert (data.together[shown] >= 2).all()


@pytest.mark.parametrize("seed", range(4))
def test_pair_table_in_slices_equals_the_string_algorithm(seed: int,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(100 + seed)
    monkeypatch.setattr(usage_pairs, "SLICE", rng.choice([1, 5, 64]))
    monkeypatch.setattr(usage_pairs, "CHUNK", rng.choice([10, 300]))
    stats, _pool = random_stats(rng, rng.randint(10, 90), rng.randint(1, 15), rng.randint(50, 900))
    table = PairTable(stats.sessions, Pair)
    expected = string_pairs(stats.sessions, fold, Pair)
    assert [(p.key, p.sessions) for p in table] == [(p.key, p.sessions) for p in expected]
    assert [table.sessions(i) for i in range(len(table))] == [p.sessions for p in expected]
    top = [(p.key, p.sessions) for p in expected if p.sessions >= 2]
    assert [(p.key, p.sessions) for p in PairTable(stats.sessions, Pair, 2)] == top


@pytest.mark.parametrize("seed", range(10))
def test_co_occurrence_in_column_blocks_equals_the_sparse_product(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from scipy import sparse

    from rockskills_gui.core.usage import matrix as usage_matrix

    rng = np.random.default_rng(seed)
    sessions, n = int(rng.integers(1, 60)), int(rng.integers(1, 80))
    dense = (rng.random((sessions, n)) < rng.random()).astype(np.int32)
    rows, cols = np.nonzero(dense)
    incidence = sparse.csc_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)),
                                  shape=(sessions, n))
    monkeypatch.setattr(usage_matrix, "BLOCK_CELLS", int(rng.integers(1, 500)))
    product = sparse.csr_matrix(incidence)
    want = np.asarray((product.T @ product).todense(), dtype=np.int32).reshape(n, n)
    got = usage_matrix._gram(incidence)
    assert got.dtype == want.dtype and np.array_equal(got, want)
