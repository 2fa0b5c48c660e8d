"""Benchmark: the usage heatmap's compute and paint time at 100, 500 and 2,000 skills.

Run:  QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_heatmap.py [--sizes 100,500,2000]

Not a pytest module (the name does not match ``test_*.py``). For each size it generates a seeded,
realistic library and usage log (names in prefix families, sessions that stay mostly within one
or two families, Zipf-distributed popularity, about 3 sessions and 15 events per skill), then
times, all in one process and one run:

- ours, compute: RockBot-exact analysis (:func:`analyze`: counts, sessions, ordered pairs,
  co-used lists) + :func:`build_heatmap` (sparse co-occurrence matrix, measure, name order,
  colour levels); the clustered order is timed separately (scipy, optimal leaf order);
- ours, paint: building the indexed QImage and painting the view (labels, grid, links) at the
  cell size that fits 900 px, and at 12 px cells (a scrolled, zoomed-in view);
- baseline, compute: the obvious pure-Python version: ``itertools.combinations`` per session into
  a dict, then an n × n list of lists and per-cell Jaccard;
- baseline, paint: one ``QPainter.fillRect`` per cell (what a cell-per-item scene amounts to).

Times are the median of ``--repeat`` runs (baseline paint: one run at 2,000 skills, it is slow).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import UsageEvent
from rockskills_gui.core.usage.heatmap import HeatmapOptions, build_heatmap
from rockskills_gui.core.usage.matrix import Measure
from rockskills_gui.core.usage.matrix_order import Ordering
from rockskills_gui.core.usage.stats import UsageWindow, analyze
from rockskills_gui.ui.usage.heatmap_view import HeatmapView

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
WORDS = ("email calendar report invoice budget deploy backup search summarize paper article draft "
         "review plan schedule meeting travel flight hotel expense weather docs scrape table csv "
         "json chart clean merge export import release notes incident triage rollback audit "
         "translate proofread outline agenda standup ticket bug metric alert log query").split()
PREFIXES = ("mcp", "web", "scripts", "research", "writing", "finance", "devops", "travel", "data",
            "mail", "docs", "ops", "sales", "legal", "hr", "support", "ml", "infra", "qa", "design")
VIEW_SIDE = 900


def make_library(n: int, seed: int = 1) -> tuple[list[Skill], list[UsageEvent]]:
    rng = random.Random(seed)
    families: list[list[str]] = []
    names: set[str] = set()
    while len(names) < n:
        prefix = f"{rng.choice(PREFIXES)}{rng.randint(1, max(1, n // 60))}"
        family = []
        for _ in range(rng.randint(3, 15)):
            name = f"{prefix}/{rng.choice(WORDS)}-{rng.choice(WORDS)}"
            if name not in names and len(names) < n:
                names.add(name)
                family.append(name)
        if family:
            families.append(family)
    ordered = sorted(names)
    skills = []
    for name in ordered:
        links = tuple(rng.sample(ordered, 2)) if rng.random() < 0.1 else None
        skills.append(Skill(name=name, summary="s", content="c" * 300, created_at=NOW.add_days(-400),
                            see_also=links))
    weights = [1 / (k + 1) for k in range(len(families))]
    events: list[UsageEvent] = []
    t = NOW.add_days(-29)
    for session in range(3 * n):
        home = rng.choices(families, weights)[0]
        other = rng.choices(families, weights)[0]
        used = rng.sample(home, min(len(home), rng.randint(1, 5)))
        used += rng.sample(other, min(len(other), rng.randint(0, 2)))
        for _ in range(rng.randint(len(used), 2 * len(used) + 1)):
            t = t.add_ticks(rng.randint(1, 50_000_000))
            events.append(UsageEvent(f"{len(events):012x}", rng.choice(used), f"session-{session}", t))
    return skills, events


def timed(func: Callable[[], object], repeat: int) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, result


def baseline_compute(events: list[UsageEvent], names: list[str]) -> list[list[float]]:
    by_session: dict[str, set[str]] = {}
    for e in events:
        by_session.setdefault(str(e.session_id), set()).add(str(e.skill_name).lower())
    pairs: dict[tuple[str, str], int] = {}
    own: dict[str, int] = {}
    for used in by_session.values():
        for name in used:
            own[name] = own.get(name, 0) + 1
        for a, b in itertools.combinations(sorted(used), 2):
            pairs[(a, b)] = pairs.get((a, b), 0) + 1
    keys = [n.lower() for n in names]
    matrix = []
    for a in keys:
        row = []
        for b in keys:
            n = pairs.get((a, b) if a < b else (b, a), 0)
            union = own.get(a, 0) + own.get(b, 0) - n
            row.append(n / union if union else 0.0)
        matrix.append(row)
    return matrix


def baseline_paint(matrix: list[list[float]], cell: int) -> QImage:
    n = len(matrix)
    image = QImage(max(1, n * cell), max(1, n * cell), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value > 0:
                painter.fillRect(QRect(j * cell, i * cell, cell, cell),
                                 QColor.fromRgbF(1 - value, 1 - value / 2, 1.0))
    painter.end()
    return image


def paint_view(view: HeatmapView, data: object, cell: int) -> QImage:
    view.set_data(data)  # type: ignore[arg-type]
    view.set_cell_size(cell)
    image = QImage(VIEW_SIDE, VIEW_SIDE, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    view.paint(painter, QRect(0, 0, VIEW_SIDE, VIEW_SIDE), QPoint(view.gutter, view.gutter))
    painter.end()
    return image


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,2000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    view = HeatmapView()
    view.resize(VIEW_SIDE, VIEW_SIDE)
    options = HeatmapOptions(measure=Measure.JACCARD, ordering=Ordering.NAME, hide_empty=False)
    header = (f"{'skills':>6} {'sessions':>8} {'events':>7} | {'compute':>8} {'paint fit':>9} "
              f"{'paint 12px':>10} {'cluster':>8} | {'base compute':>12} {'base paint':>10}")
    print("times in ms (median); ours = analyze + build_heatmap, paint = QImage + view paint;")
    print("cluster = clustered order incl. optimal leaf order; base = pure Python + fillRect per cell")
    print(header)
    print("-" * len(header))
    for n in (int(s) for s in args.sizes.split(",")):
        skills, events = make_library(n)
        window = UsageWindow.all_time()

        def ours(skills: list[Skill] = skills, events: list[UsageEvent] = events,
                 window: UsageWindow = window) -> object:
            return build_heatmap(analyze(events, window), skills, options)

        compute_ms, data = timed(ours, args.repeat)
        stats = analyze(events, window)
        cluster_ms, _ = timed(lambda stats=stats, skills=skills: build_heatmap(
            stats, skills, HeatmapOptions(ordering=Ordering.CLUSTER, hide_empty=False)),
            1 if n > 1000 else args.repeat)
        fit = max(2, min(48, (VIEW_SIDE - 120) // n))
        paint_fit_ms, _ = timed(lambda data=data, fit=fit: paint_view(view, data, fit), args.repeat)
        paint_zoom_ms, _ = timed(lambda data=data: paint_view(view, data, 12), args.repeat)
        names = [s.name for s in skills]
        base_compute_ms, matrix = timed(lambda events=events, names=names: baseline_compute(events, names),
                                        args.repeat)
        base_paint_ms, _ = timed(lambda matrix=matrix, fit=fit: baseline_paint(matrix, fit),  # type: ignore[misc]
                                 1 if n > 1000 else args.repeat)
        print(f"{n:>6} {stats.session_count:>8} {len(events):>7} | {compute_ms:>8.1f} "
              f"{paint_fit_ms:>9.1f} {paint_zoom_ms:>10.1f} {cluster_ms:>8.1f} | "
              f"{base_compute_ms:>12.1f} {base_paint_ms:>10.1f}", flush=True)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
