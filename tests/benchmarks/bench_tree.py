"""Benchmark: the Library tree with a 100,000-skill library, next to an empty window.

Run:  QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_tree.py
      [--size 100000] [--dir DIR (reuse/keep the generated library)] [--check]

Not a pytest module. Generates a RockBot agent directory on disk (realistic prefixed names such
as ``mcp/<server>/<verb>-<noun>``, sentence-like summaries, a mix of sparse, never-used and
pending-summary skills, a usage log), then, in one process and one run, times what a person
waits for, each until the tree's viewport has actually been painted:

- an empty main window: construction to first paint;
- the same window opening the library: scan (worker thread) + tree build (UI thread) to first
  paint, and the longest the UI thread was unavailable (a 5 ms heartbeat timer measures it);
- filters: a few typed queries and each flag filter, and clearing the filter again;
- typing a query key by key (with the pane's debounce), as a user does;
- one create and its undo (the tree follows name by name, no rebuild).

``--check`` exits 1 when a UI-thread stall exceeds its budget (see BUDGET_MS).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import apply_theme
from rockskills_gui.ui.library.tree_pane import EXPAND_ALL_LIMIT, TreePane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.benchmarks.bench_recall import Generator

NOW = Timestamp.now()
BUDGET_MS = {"open: longest UI stall": 1500.0, "filter": 700.0, "typing: longest UI stall": 700.0}
QUERIES = ("email", "mcp/gmail", "summarize report", "zzqx-nothing")


# ---------------------------------------------------------------- the library on disk


def generate(agent: Path, size: int, seed: int = 20261122) -> None:
    """Write ``size`` skill files (and a small usage log) under ``agent``."""
    gen = Generator(seed)
    rng = random.Random(seed)
    layout = Layout(agent, agent / "skills")
    folders: set[Path] = set()
    for name, summary in gen.library(size):
        created = NOW.add_days(-rng.uniform(0, 400))
        used = None if rng.random() < 0.3 else created.add_days(rng.uniform(0, 30))
        short = rng.random() < 0.1
        content = ("Short note." if short else
                   f"# {name}\n\n## When to use\n{summary}.\n\n## Steps\n1. Check the input.\n"
                   "2. Do the work step by step and report what changed.\n3. Confirm with the user.\n")
        skill = Skill(name=name, summary="" if rng.random() < 0.02 else summary, content=content,
                      created_at=created, updated_at=created, last_used_at=used)
        path = layout.path_for(name)
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_bytes(skill_to_bytes(skill))
    usage = agent / "skill-usage"
    usage.mkdir(parents=True, exist_ok=True)
    (usage / "bench.jsonl").write_text(
        '{"id":"1","skillName":"mcp/gmail/send-email","sessionId":"s",'
        f'"timestamp":"{NOW.isoformat()}"}}\n')
    (agent / ".bench-size").write_text(str(size))


# ---------------------------------------------------------------- measuring


class PaintWatch(QObject):
    """Records when a widget was last painted."""

    def __init__(self, widget: QObject) -> None:
        super().__init__()
        self.last = 0.0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.last = time.perf_counter()
        return False


class Heartbeat(QObject):
    """A 5 ms timer on the UI thread: the longest gap between ticks is the longest freeze."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.reset()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.previous)
        self.previous = now

    def reset(self) -> None:
        self.previous = time.perf_counter()
        self.longest = 0.0


def wait_paint(app: QApplication, watch: PaintWatch, since: float, timeout: float = 120.0) -> float:
    """Process events until ``watch`` saw a paint after ``since``; returns that moment."""
    deadline = time.perf_counter() + timeout
    while watch.last <= since:
        app.processEvents()
        if time.perf_counter() > deadline:
            raise TimeoutError("no paint")
    return watch.last


def timed(app: QApplication, watch: PaintWatch, action: Callable[[], object]) -> float:
    """Milliseconds from ``action`` to the next paint of the watched widget."""
    app.processEvents()
    start = time.perf_counter()
    action()
    return (wait_paint(app, watch, start) - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, help="generate into / reuse this agent directory")
    parser.add_argument("--check", action="store_true", help="exit 1 when over budget")
    args = parser.parse_args()

    temp = None
    agent = args.dir
    if agent is None:
        temp = Path(tempfile.mkdtemp(prefix="bench-tree-"))
        agent = temp / "agent"
    marker = agent / ".bench-size"
    start = time.perf_counter()
    if not (marker.is_file() and marker.read_text() == str(args.size)):
        shutil.rmtree(agent, ignore_errors=True)
        generate(agent, args.size)
        print(f"generated {args.size:,} skill files in {time.perf_counter() - start:.1f} s "
              f"under {agent}")

    app = QApplication([sys.argv[0]])
    apply_theme(app)
    rows: list[tuple[str, float, str]] = []
    try:
        # An empty window, for scale.
        start = time.perf_counter()
        window = MainWindow(AppContext(), interactive=False)
        window.resize(1400, 900)
        pane = window.library_pane
        assert isinstance(pane, TreePane)
        watch = PaintWatch(pane.view.viewport())
        window.show()
        empty_ms = (wait_paint(app, watch, start) - start) * 1000
        rows.append(("empty window: construct + show → first paint", empty_ms, ""))

        # The library: scan off the UI thread, then build the tree and paint.
        beat = Heartbeat()
        loaded: list[str] = []
        window.loadFinished.connect(loaded.append)
        start = time.perf_counter()
        window.open_path(agent)
        while not loaded:
            app.processEvents()
        assert loaded == [""], loaded
        painted = wait_paint(app, watch, start)
        total_ms = (painted - start) * 1000
        count = pane.model.tree.skill_count
        rows.append((f"open {count:,} skills: open → tree painted", total_ms,
                     "scan on a worker thread + tree build"))
        rows.append(("open: longest UI stall", beat.longest * 1000,
                     "UI thread busy (tree build, first layout)"))
        pane.wait_for_usage()
        app.processEvents()

        for query in QUERIES:
            def run(q: str = query) -> None:
                pane.filter.blockSignals(True)
                pane.filter.setText(q)
                pane.filter.blockSignals(False)
                pane.apply_filter()
            ms = timed(app, watch, run)
            result = pane.model.result
            expanded = result is not None and len(result.visible) <= EXPAND_ALL_LIMIT
            rows.append((f"filter '{query}' → painted", ms,
                         f"{len(result) if result else 0:,} matches; folders "
                         f"{'expanded' if expanded else 'collapsed (too many to lay out)'}"))
        ms = timed(app, watch, pane.clear_filter)
        rows.append(("clear the filter → painted", ms, "user's expansion restored"))
        for label, flags in (("sparse", {"sparse": True}), ("never used", {"never_used": True}),
                             ("unused 30 days", {"unused_days": 30})):
            ms = timed(app, watch, lambda flags=flags: pane.set_flags(**flags))
            result = pane.model.result
            rows.append((f"flag '{label}' → painted", ms,
                         f"{len(result) if result else 0:,} matches"))
        pane.clear_filter()
        app.processEvents()

        # Typing, key by key, with the pane's debounce.
        applied: list[float] = []
        pane.model.filterApplied.connect(lambda: applied.append(time.perf_counter()))
        beat.reset()
        query = "summarize"
        for i, char in enumerate(query):
            QTest.keyClick(pane.filter, char)
            if i == len(query) - 1:
                break
            end = time.perf_counter() + 0.08  # a fast typist: 80 ms between keys
            while time.perf_counter() < end:
                app.processEvents()
        typed = time.perf_counter()
        deadline = typed + 30
        while (not applied or watch.last <= applied[-1]) and time.perf_counter() < deadline:
            app.processEvents()
        assert pane.model.spec.text == "summarize" and len(applied) == 1, applied
        rows.append(("typing 'summarize' (80 ms/key): last key → painted",
                     (watch.last - typed) * 1000, "includes the 180 ms pause the pane waits for"))
        rows.append(("typing: longest UI stall", beat.longest * 1000, "one filter run, not nine"))
        pane.clear_filter()
        app.processEvents()

        name = f"bench/new-skill-{os.getpid()}"
        changes: list[object] = []
        ms = timed(app, watch, lambda: changes.append(window.ctx.apply(
            lambda lib: lib.create(name, summary="benchmark"))))
        assert changes[0] is not None, "the create was refused"
        rows.append(("create one skill → painted", ms, "incremental insert, no rebuild"))
        ms = timed(app, watch, window.ctx.undo)
        rows.append(("undo it → painted", ms, "the file is removed again"))
        window.close()
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)

    width = max(len(r[0]) for r in rows)
    print(f"\n{'measure':<{width}}  {'ms':>9}  note")
    for label, ms, note in rows:
        print(f"{label:<{width}}  {ms:9.1f}  {note}")
    print(f"\n(ratio to the empty window: open {rows[1][1] / empty_ms:.1f}×)")
    if args.check:
        failed = [(label, ms) for label, ms, _ in rows
                  for key, budget in BUDGET_MS.items() if label.startswith(key) and ms > budget]
        for label, ms in failed:
            print(f"over budget: {label}: {ms:.0f} ms", file=sys.stderr)
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
