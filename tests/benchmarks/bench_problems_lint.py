"""Benchmark: the Problems dock's lint off the UI thread -- how late the UI thread's timers run
while it lints, against the same run's baseline of an idle UI thread.

Run:  QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_problems_lint.py
      [--sizes 1000,5000,20000] [--dir DIR]

Not a pytest module. Libraries are ``bench_near_duplicates``'s (generated once under ``--dir``).
For each size: lint's wall time on the worker (``ctx.query``, as the dock runs it) and, for a
10 ms UI timer, the median, 95th percentile and worst lateness while lint runs, next to the same
numbers with nothing running (the baseline). A keystroke is handled between two such ticks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))

from tests.benchmarks.bench_near_duplicates import ensure_library  # noqa: E402

TICK_MS = 10


def lateness(app: object, busy: object, seconds: float | None = None) -> list[float]:
    """Lateness (ms) of a 10 ms repeating timer while ``busy()`` holds (or for ``seconds``)."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer

    late: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.nsecsElapsed()]
    loop = QEventLoop()
    end = time.monotonic() + (seconds or 3600)

    def tick() -> None:
        now = clock.nsecsElapsed()
        late.append(max(0.0, (now - last[0]) / 1e6 - TICK_MS))
        last[0] = now
        if (seconds is not None and time.monotonic() >= end) or (seconds is None and not busy()):  # type: ignore[operator]
            loop.quit()

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    timer.start()
    loop.exec()
    timer.stop()
    return late


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "rockskills-bench-nd")
    args = parser.parse_args(argv)
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication

    from rockskills_gui.core.library.open import open_library
    from rockskills_gui.ui.common.context import AppContext
    from rockskills_gui.ui.library.lint_rows import lint_findings

    app = QApplication.instance() or QApplication([])
    ctx, owner = AppContext(), QObject()
    print(f"{'skills':>7} {'lint s':>7} {'findings':>9} | {'UI tick late ms: idle p50/p95/max':>34} | "
          f"{'while linting p50/p95/max':>26}")
    for size in (int(s) for s in args.sizes.split(",")):
        library = open_library(ensure_library(args.dir, size))
        idle = lateness(app, None, seconds=1.0)
        got: list[object] = []
        start = time.perf_counter()
        job = ctx.query(owner, "lint", lambda _c, library=library: lint_findings(library),
                                 got.append)
        busy = lateness(app, lambda job=job: job.busy)
        took = time.perf_counter() - start
        findings = len(got[0]) if got and isinstance(got[0], list) else -1
        row = [f"{statistics.median(v):.1f}/{p95(v):.1f}/{max(v):.1f}" for v in (idle, busy)]
        print(f"{size:>7,} {took:>7.2f} {findings:>9,} | {row[0]:>34} | {row[1]:>26}", flush=True)
        job.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
