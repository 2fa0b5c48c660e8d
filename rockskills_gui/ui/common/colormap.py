"""Colour tables for the heatmap: named colormaps as data, plus two entries from the palette.

The heatmap image is 8-bit indexed (:mod:`rockskills_gui.core.usage.heatmap` levels): entry 0 (no
value) is the palette's Base colour and entry 1 (the diagonal) its Mid colour, so the empty
matrix follows a light or dark theme; entries 2..255 sample a published colormap:

- ``viridis`` (perceptually uniform, colour-blind safe; matplotlib's default, CC0) for counts and
  Jaccard — its 9-step sample, interpolated;
- ``RdBu`` reversed (ColorBrewer, Apache-2.0 licence) for lift: blue below 1, red above.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor, QPalette

from rockskills_gui.core.usage.heatmap import FIRST_LEVEL, LEVELS
from rockskills_gui.core.usage.matrix import Measure

VIRIDIS = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962",
           "#addc30", "#fde725")
RDBU_REVERSED = ("#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7",
                 "#f4a582", "#d6604d", "#b2182b", "#67001f")
COLORMAPS = {"viridis": VIRIDIS, "RdBu_r": RDBU_REVERSED}


def colormap_name(measure: Measure) -> str:
    return "RdBu_r" if measure is Measure.LIFT else "viridis"


def sample(stops: Sequence[str], position: float) -> QColor:
    """The colour at ``position`` (0..1) of a colormap given by evenly spaced stops."""
    position = min(1.0, max(0.0, position))
    scaled = position * (len(stops) - 1)
    low = min(int(scaled), len(stops) - 2)
    t = scaled - low
    a, b = QColor(stops[low]), QColor(stops[low + 1])
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                           a.greenF() + (b.greenF() - a.greenF()) * t,
                           a.blueF() + (b.blueF() - a.blueF()) * t)


def level_colour(measure: Measure, position: float) -> QColor:
    return sample(COLORMAPS[colormap_name(measure)], position)


def colour_table(measure: Measure, palette: QPalette) -> list[int]:
    """256 ARGB entries for an indexed heatmap image of ``measure``."""
    stops = COLORMAPS[colormap_name(measure)]
    table = [palette.color(QPalette.ColorRole.Base).rgba(),
             palette.color(QPalette.ColorRole.Mid).rgba()]
    assert len(table) == FIRST_LEVEL
    table += [sample(stops, k / (LEVELS - 1)).rgba() for k in range(LEVELS)]
    return table
