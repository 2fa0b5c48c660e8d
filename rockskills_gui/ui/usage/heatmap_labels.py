"""Where the heatmap's row and column labels go along their axis: inside the label strip,
never overlapping, each as near its row (or its name family's rows) as the others allow.

Pure arithmetic over pixel positions (one axis: y for rows, x for columns); the painter
(``heatmap_painting``) draws what is placed here, with a leader line where a family's label had
to move off its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Placed:
    """One label: ``key`` (a row, column or band number), its top edge and height on the axis,
    the stretch of the axis it names (``lo``..``hi``), and whether it is the selection's."""

    key: int
    top: int
    size: int
    lo: int
    hi: int
    selected: bool = False

    @property
    def center(self) -> float:
        return self.top + self.size / 2

    @property
    def displaced(self) -> bool:
        """The label sits off the stretch it names (a leader line joins them)."""
        return not self.lo <= self.center <= self.hi


def spread(wanted: Sequence[tuple[int, int, int, float]], size: int, low: int, high: int,
           selected: int | None = None) -> list[Placed]:
    """Labels of height ``size`` for ``wanted`` = ``(key, lo, hi, priority)`` stretches (in axis
    order), inside ``low``..``high``, none overlapping, each centred on its stretch where it can
    be. When they cannot all fit, the lowest priorities are left out (``selected``, a key, never).
    """
    room = max(0, high - low)
    capacity = room // size if size > 0 else 0
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i][0] != selected, -wanted[i][3], i))
    chosen = sorted(order[:capacity])
    tops = [(wanted[i][1] + wanted[i][2]) / 2 - size / 2 for i in chosen]
    for k in range(len(tops)):  # push down: below ``low`` and below the previous label
        tops[k] = max(tops[k], low if k == 0 else tops[k - 1] + size)
    for k in reversed(range(len(tops))):  # push up: above ``high`` and above the next label
        tops[k] = min(tops[k], high - size if k == len(tops) - 1 else tops[k + 1] - size)
    return [Placed(wanted[i][0], round(t), size, wanted[i][1], wanted[i][2], wanted[i][0] == selected)
            for i, t in zip(chosen, tops, strict=True)]


def every_kth(rows: Sequence[int], centers: Sequence[float], size: int, low: int, high: int,
              selected: int | None, selected_center: float | None) -> list[Placed]:
    """Per-row labels (every row, or every k-th) kept on their rows but moved inside
    ``low``..``high``; the selected row's label always, the others where they do not overlap it
    or each other."""
    placed: list[Placed] = []
    chosen: Placed | None = None
    if selected is not None and selected_center is not None:
        chosen = _inside(selected, selected_center, size, low, high, True)
    for row, center in zip(rows, centers, strict=True):
        if row == selected:
            continue
        label = _inside(row, center, size, low, high, False)
        if chosen is not None and _overlap(label, chosen):
            continue
        if placed and _overlap(label, placed[-1]):
            continue
        placed.append(label)
    if chosen is not None:
        placed.append(chosen)  # last: drawn on top
    return placed


def _inside(key: int, center: float, size: int, low: int, high: int, selected: bool) -> Placed:
    top = round(center - size / 2)
    top = max(low, min(top, high - size))
    half = size // 2
    return Placed(key, top, size, round(center) - half, round(center) + half, selected)


def _overlap(a: Placed, b: Placed) -> bool:
    return a.top < b.top + b.size and b.top < a.top + a.size
