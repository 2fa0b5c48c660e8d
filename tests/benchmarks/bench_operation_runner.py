"""The UI thread's longest stall during a bulk delete and its undo: run on the UI thread
(``ctx.apply``, the baseline) beside run through the operation runner off it (``ctx.run`` /
``ctx.request_undo``), in one run (issue 15). Also the cost per file that sets ``LONG_CHANGE``.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_operation_runner.py \
        [--skills 5000] [--delete 50,100,500,2000]

The stall is the longest gap between ticks of a 5 ms QTimer on the UI thread while the
operation runs, until its result is delivered (signals emitted). A generated RockBot library.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import OperationTicket
from tests.ui.test_operation_runner import generate


def stall(app: QApplication, start: Callable[[], OperationTicket | object]) -> tuple[float, float]:
    """(longest UI gap, wall time) in seconds while ``start``'s operation runs and is delivered."""
    ticks: list[float] = [time.perf_counter()]
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(5)
    app.processEvents()
    began = time.perf_counter()
    ticks.append(began)
    ticket = start()
    while isinstance(ticket, OperationTicket) and not ticket.done:
        app.processEvents()
        time.sleep(0.001)
    ended = time.perf_counter()
    ticks.append(ended)
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks) if b >= began]
    return max(gaps), ended - began


def measure(app: QApplication, agent: Path, count: int, mode: str) -> list[float]:
    """[delete stall, delete wall, undo stall, undo wall] for deleting ``count`` skills."""
    ctx = AppContext()
    ctx.set_library(RockBotLibrary.open(agent), remember=False)
    library = ctx.library
    assert library is not None
    doomed = library.names()[:count]
    if mode == "sync":
        delete = stall(app, lambda: ctx.apply(lambda lib: lib.delete_many(doomed)))
        undo = stall(app, ctx.undo)
    else:
        delete = stall(app, lambda: ctx.run(lambda lib: lib.delete_many(doomed), "delete"))
        undo = stall(app, lambda: ctx.runner.submit(library, library.undo, "undo"))
    assert len(library) == len(library.names()) and not ctx.busy
    ctx.deleteLater()
    return [*delete, *undo]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=5000)
    parser.add_argument("--delete", default="50,100,500,2000")
    args = parser.parse_args()
    counts = [int(c) for c in args.delete.split(",")]
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    with tempfile.TemporaryDirectory() as tmp:
        source = generate(Path(tmp) / "source", args.skills)
        print(f"| at {args.skills:,} skills | UI thread (baseline): longest stall | runner: "
              "longest stall | wall time (runner) | per file (baseline) |")
        print("|---|---:|---:|---:|---:|")
        for count in counts:
            rows: dict[str, list[float]] = {}
            for mode in ("sync", "runner"):
                agent = Path(shutil.copytree(source, Path(tmp) / f"{mode}-{count}"))
                rows[mode] = measure(app, agent, count, mode)
                shutil.rmtree(agent)
            sync, run = rows["sync"], rows["runner"]
            for i, what in ((0, "delete"), (2, "undo")):
                print(f"| {what} {count:,} skills | {sync[i] * 1000:.0f} ms | {run[i] * 1000:.0f} ms "
                      f"| {run[i + 1] * 1000:.0f} ms | {sync[i + 1] / count * 1000:.2f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
