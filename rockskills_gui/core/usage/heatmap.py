"""What the heatmap shows, computed without Qt: filtered, ordered matrix, colour levels, overlay.

:func:`build_heatmap` turns one window's :class:`~rockskills_gui.core.usage.stats.UsageStats` and the
library's skills into :class:`HeatmapData`: the skills shown (prefix filter, minimum count, empty
rows hidden), their order, the measure per cell, a colour *level* per cell (``0`` = nothing to
show, ``1`` = the diagonal, ``2..255`` = the colour scale) and the see-also links among them. The
UI turns the levels into one indexed image with a colour table.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.usage.matrix import CoMatrix, Measure, measure_values
from rockskills_gui.core.usage.matrix_order import Band, Ordering, order
from rockskills_gui.core.usage.stats import UsageStats

EMPTY_LEVEL = 0
DIAGONAL_LEVEL = 1
FIRST_LEVEL = 2
LEVELS = 254  # colour levels 2..255
LIFT_MAX_LOG2 = 4.0  # the lift scale never spans more than 1/16 .. 16
BLOCK_ROWS = 64  # matrix rows coloured per pass (a few MB of temporaries, not the whole matrix)


@dataclass(frozen=True, slots=True)
class HeatmapOptions:
    measure: Measure = Measure.SESSIONS
    ordering: Ordering = Ordering.NAME
    min_count: int = 1
    prefix: str = ""
    hide_empty: bool = True


@dataclass(frozen=True, slots=True)
class ColourScale:
    """Maps a measure value to a position 0..1: linear from 0, or log2 symmetric around lift 1."""

    measure: Measure
    vmax: float
    log: bool = False

    @property
    def vmin(self) -> float:
        return 2.0 ** -self.vmax if self.log else 0.0

    @property
    def top(self) -> float:
        return 2.0 ** self.vmax if self.log else self.vmax

    def position(self, values: np.ndarray) -> np.ndarray:
        if self.log:
            with np.errstate(divide="ignore"):
                logs = np.log2(np.where(values > 0, values, 1.0))
            return np.clip((logs / self.vmax + 1.0) / 2.0, 0.0, 1.0)
        if self.vmax <= 0:
            return np.ones_like(values)
        return np.clip(values / self.vmax, 0.0, 1.0)

    def levels(self, values: np.ndarray) -> np.ndarray:
        # numpy types arithmetic on an ndarray of unknown dtype as Any; the result is an array
        levels: np.ndarray = (FIRST_LEVEL + np.rint(self.position(values) * (LEVELS - 1))).astype(np.uint8)
        return levels

    def ticks(self) -> list[tuple[float, str]]:
        """Legend ticks as (position 0..1, text)."""
        if self.log:
            top = int(self.vmax)
            marks = sorted({-top, -1, 0, 1, top} if top > 1 else {-1, 0, 1})
            return [((m / self.vmax + 1) / 2, _lift_text(2.0 ** m)) for m in marks]
        if self.measure is Measure.SESSIONS:
            top = int(self.vmax)
            marks = sorted({0, top // 2, top}) if top >= 2 else [0, top]
            return [(m / self.vmax if self.vmax else 1.0, str(m)) for m in marks]
        return [(0.0, "0"), (0.5, _fmt(self.vmax / 2)), (1.0, _fmt(self.vmax))]


@dataclass
class HeatmapData:
    """The matrix as shown: every array is in display order (:attr:`values` is computed when
    asked: 72 MB of floats at 3,000 skills that only an export needs)."""

    options: HeatmapOptions
    names: list[str]
    exists: list[bool]
    events: list[int]
    own: list[int]
    together: np.ndarray
    levels: np.ndarray
    scale: ColourScale
    total_sessions: int
    bands: list[Band] = field(default_factory=list)
    links: set[tuple[int, int]] = field(default_factory=set)  # (referrer row, target column)
    note: str = ""
    hidden: int = 0  # skills left out by the filters

    def __len__(self) -> int:
        return len(self.names)

    @property
    def values(self) -> np.ndarray:
        """The measure for every cell (float64; 0 where the pair never occurred)."""
        return measure_values(self.together, self.total_sessions, self.options.measure)

    def index(self, name: str) -> int | None:
        key = fold(name)
        return next((i for i, n in enumerate(self.names) if fold(n) == key), None)

    def linked(self, i: int, j: int) -> bool:
        return (i, j) in self.links or (j, i) in self.links

    def label(self, i: int) -> str:
        return self.names[i] if self.exists[i] else f"{self.names[i]} (deleted)"

    def describe_cell(self, i: int, j: int) -> str:
        """Hover text: both names, sessions together, each skill's own counts, the measures."""
        if i == j:
            return (f"{self.label(i)}\nused in {_plural(self.own[i], 'session')} "
                    f"({_plural(self.events[i], 'use')}) of {self.total_sessions}")
        n = int(self.together[i, j])
        measure = self.options.measure
        lines = [f"{self.label(i)}  ×  {self.label(j)}",
                 f"{_plural(n, 'session')} together",
                 f"{self.names[i]}: {_plural(self.events[i], 'use')} in "
                 f"{_plural(self.own[i], 'session')}",
                 f"{self.names[j]}: {_plural(self.events[j], 'use')} in "
                 f"{_plural(self.own[j], 'session')}"]
        jaccard, lift = _jaccard(n, self.own[i], self.own[j]), _lift(n, self.own[i], self.own[j],
                                                                    self.total_sessions)
        lines.append(f"Jaccard {_fmt(jaccard)} · lift {_lift_text(lift)}"
                     + ("" if measure is Measure.SESSIONS else f"  ({measure.label} shown)"))
        if self.linked(i, j):
            lines.append("linked by see-also")
        return "\n".join(lines)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def _lift_text(value: float) -> str:
    if value <= 0:
        return "–"
    return f"{value:.2f}×" if value < 10 else f"{value:.0f}×"


def _jaccard(n: int, a: int, b: int) -> float:
    union = a + b - n
    return n / union if union > 0 else 0.0


def _lift(n: int, a: int, b: int, total: int) -> float:
    return n * total / (a * b) if a and b else 0.0


def scale_for(measure: Measure, values: np.ndarray) -> ColourScale:
    """The colour scale for the values shown (``values`` holds only shown, off-diagonal cells)."""
    if measure is Measure.LIFT:
        positive = values[values > 0]
        extent = float(np.max(np.abs(np.log2(positive)))) if positive.size else 1.0
        return ColourScale(measure, min(LIFT_MAX_LOG2, max(1.0, math.ceil(extent))), log=True)
    top = float(values.max()) if values.size else 1.0
    if measure is Measure.JACCARD:
        return ColourScale(measure, max(top, 1e-9))
    return ColourScale(measure, max(top, 1.0))


def _matches(name: str, prefixes: Sequence[str]) -> bool:
    key = fold(name)
    return not prefixes or any(key.startswith(p) for p in prefixes)


def build_heatmap(stats: UsageStats, skills: Sequence[Skill], options: HeatmapOptions,
                  matrix: CoMatrix | None = None) -> HeatmapData:
    """The heatmap for ``stats`` over the library ``skills`` (``matrix`` reuses a built one)."""
    full = matrix if matrix is not None else CoMatrix.from_stats(stats, [s.name for s in skills])
    prefixes = [fold(p.strip()) for p in options.prefix.split(",") if p.strip()]
    chosen = [i for i, s in enumerate(full.skills) if _matches(s.name, prefixes)]
    minimum = max(1, options.min_count)
    if options.hide_empty and chosen:
        keep = _reaching(full.together, chosen, minimum)
        chosen = [i for i, k in zip(chosen, keep, strict=True) if k]
    arranged = order(full.take(chosen), options.ordering)
    final = [chosen[k] for k in arranged.indices]
    shown = full.take(final)
    together = _compact(shown.together)
    total, count, omitted = full.total_sessions, len(full), full.omitted
    del full  # the whole matrix (when built here) is freed before the levels are made
    matrix = None
    levels, scale = colour_levels(together, total, options.measure, minimum)
    position = {fold(s.name): k for k, s in enumerate(shown.skills)}
    links: set[tuple[int, int]] = set()
    for skill in skills:
        row = position.get(fold(skill.name))
        if row is None:
            continue
        for target in skill.see_also or ():
            col = position.get(fold(target))
            if col is not None and col != row:
                links.add((row, col))
    return HeatmapData(
        options=options, names=shown.names, exists=[s.exists for s in shown.skills],
        events=[s.events for s in shown.skills], own=[int(x) for x in shown.own],
        together=together, levels=levels, scale=scale,
        total_sessions=total, bands=arranged.bands, links=links,
        note="; ".join(n for n in (
            f"the {count:,} skills used in the most sessions (of {count + omitted:,})"
            if omitted else "", arranged.note) if n),
        hidden=count - len(final))


def _reaching(together: np.ndarray, chosen: list[int], minimum: int) -> np.ndarray:
    """For each of the ``chosen`` skills, whether another chosen one was used with it in at least
    ``minimum`` sessions; a block of rows at a time (not a boolean copy of the whole matrix)."""
    idx = np.asarray(chosen, dtype=np.intp)
    everything = len(idx) == len(together)
    keep = np.zeros(len(idx), dtype=bool)
    for start in range(0, len(idx), BLOCK_ROWS):
        rows = idx[start:start + BLOCK_ROWS]
        block = together[rows] if everything else together[np.ix_(rows, idx)]
        reach = block >= minimum
        inner = np.arange(len(rows))
        reach[inner, inner + start] = False  # the diagonal
        keep[start:start + len(rows)] = reach.any(axis=1)
    return keep


def _compact(counts: np.ndarray) -> np.ndarray:
    """``counts`` (non-negative) in the smallest unsigned type that holds them: the same numbers
    in a quarter of int32's memory while fewer than 256 sessions are in the window."""
    top = int(counts.max()) if counts.size else 0
    return counts.astype(np.min_scalar_type(top), copy=False)


def _shown_values(together: np.ndarray, own: np.ndarray, total_sessions: int, measure: Measure,
                  minimum: int, start: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``start`` to ``start + BLOCK_ROWS`` of the shown cells (off the diagonal, at least
    ``minimum`` sessions together): their mask, and their measure in row-major order, exactly as
    ``measure_values(together, ...)[mask]`` gives them (the same operations per cell)."""
    block = together[start:start + BLOCK_ROWS]
    mask = block >= minimum
    diagonal = np.arange(start, start + len(block))
    mask[diagonal - start, diagonal] = False
    if measure is Measure.SESSIONS:
        return mask, block[mask].astype(np.float64)
    rows, cols = np.nonzero(mask)
    n_ab = block[rows, cols].astype(np.float64)
    rows += start
    if measure is Measure.JACCARD:
        return mask, n_ab / (own[rows] + own[cols] - n_ab)
    return mask, n_ab * total_sessions / (own[rows] * own[cols])


def colour_levels(together: np.ndarray, total_sessions: int, measure: Measure,
                  minimum: int) -> tuple[np.ndarray, ColourScale]:
    """Each cell's colour level and the scale, a block of rows at a time: the same levels as
    colouring ``measure_values(together, ...)`` at once, without its dense copies."""
    own = np.diagonal(together).astype(np.float64)
    extremes: list[float] = []  # what decides the scale: each block's largest (and, for lift,
    for start in range(0, len(together), BLOCK_ROWS):  # smallest positive) value
        values = _shown_values(together, own, total_sessions, measure, minimum, start)[1]
        if measure is Measure.LIFT:
            values = values[values > 0]
            if values.size:
                extremes += [float(values.min()), float(values.max())]
        elif values.size:
            extremes.append(float(values.max()))
    scale = scale_for(measure, np.array(extremes, dtype=np.float64))
    levels = np.full(together.shape, EMPTY_LEVEL, dtype=np.uint8)
    for start in range(0, len(together), BLOCK_ROWS):
        mask, values = _shown_values(together, own, total_sessions, measure, minimum, start)
        levels[start:start + BLOCK_ROWS][mask] = scale.levels(values)
    np.fill_diagonal(levels, DIAGONAL_LEVEL)
    return levels, scale


def heatmap_csv(data: HeatmapData) -> str:
    """The shown matrix as CSV: a header of names, one row per skill; blank = not shown.

    Sessions are integers, Jaccard and lift 4 decimals; the diagonal holds the skill's own value
    (sessions that used it, Jaccard 1, lift N / n).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([data.options.measure.label, *data.names])
    integer = data.options.measure is Measure.SESSIONS
    values = data.values
    for i, name in enumerate(data.names):
        row: list[str] = [name]
        for j in range(len(data.names)):
            if data.levels[i, j] == EMPTY_LEVEL:
                row.append("")
            else:
                value = float(values[i, j])
                row.append(str(int(value)) if integer else f"{value:.4f}")
        writer.writerow(row)
    return buffer.getvalue()


def save_heatmap_csv(data: HeatmapData, path: Path) -> None:
    """Write :func:`heatmap_csv` to ``path`` (the user's choice) atomically: a temp file renamed
    over it, so a link or FIFO planted there is replaced, never written through."""
    fileio.atomic_write(Path(path), heatmap_csv(data).encode("utf-8"))
