"""Benchmark: where the Usage tab's memory goes at 100,000 skills (issue 19: the whole process
within 1 GB), phase by phase, for one or more source trees in the same run.

Run:  QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_usage_memory.py
      [--agent DIR] [--source TREE ...] [--repeat N]

Not a pytest module. ``--agent`` defaults to the 100,000-skill library ``bench_scale.py`` generates
(``$TMPDIR/rockskills-bench-scale/agent-100000``; run that once first). Each source tree is
measured in fresh processes (``PYTHONPATH`` = the tree), two kinds:

- **gui**: the main window opens the library as the app does (parsed-skill cache filled by a first
  open), then the Usage tab is shown (last 30 days), then all time: the process's resident memory
  now and its peak (``VmHWM``; the peak is reset at the start of each phase through
  ``/proc/self/clear_refs``, so each phase's peak is its own, transients included);
- **core**: no Qt: the library opened through the core, then each step of the usage report
  (reading the log, the window's and all time's analysis, heatmap, pairs, signals, table rows)
  with the same per-phase peak, and the rise of each phase's peak over the memory before it.

The first tree given is the baseline (e.g. ``git archive HEAD | tar -x -C /tmp/old``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
TARGET_MB = 1024


def _status_mb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")  # resets VmHWM (Linux >= 4.0)
    except OSError:
        pass


class Phases:
    """Per-phase (resident before, peak during, resident after) in MB."""

    def __init__(self) -> None:
        self.rows: list[dict[str, float | str]] = []
        self._before = 0.0
        self._started = 0.0

    def start(self) -> None:
        self._before = _status_mb("VmRSS")
        _reset_peak()
        self._started = time.perf_counter()

    def end(self, name: str) -> None:
        self.rows.append({"phase": name, "before": self._before, "peak": _status_mb("VmHWM"),
                          "after": _status_mb("VmRSS"),
                          "seconds": time.perf_counter() - self._started})


def child_core(agent: Path) -> list[dict[str, float | str]]:
    from rockskills_gui.core.library.rockbot.library import RockBotLibrary
    from rockskills_gui.core.usage.events import read_usage
    from rockskills_gui.core.usage.heatmap import HeatmapOptions, build_heatmap
    from rockskills_gui.core.usage.report import usage_rows
    from rockskills_gui.core.usage.signals import derive
    from rockskills_gui.core.usage.stats import UsageWindow, analyze

    phases = Phases()
    phases.start()
    library = RockBotLibrary.open(agent)
    skills = tuple(library.skills())
    now = library.clock()
    phases.end("library loaded (core)")
    results: dict[str, object] = {}
    for label, make in (
            ("read the usage log", lambda: read_usage(agent)),
            ("analyse last 30 days", lambda: analyze(results["log"],  # type: ignore[arg-type]
                                                     UsageWindow.last_days(now))),
            ("analyse all time", lambda: analyze(results["log"],  # type: ignore[arg-type]
                                                 UsageWindow.all_time())),
            ("heatmap (30 days)", lambda: build_heatmap(results["stats"],  # type: ignore[arg-type]
                                                        skills, HeatmapOptions())),
            ("pairs (30 days)", lambda: results["stats"].pairs_within()),  # type: ignore[attr-defined]
            ("signals", lambda: derive(skills, results["stats"],  # type: ignore[arg-type]
                                       results["history"], now,  # type: ignore[arg-type]
                                       pairs=results["pairs"].pairs)),  # type: ignore[attr-defined]
            ("table rows", lambda: usage_rows(skills, results["stats"],  # type: ignore[arg-type]
                                              results["signals"])),  # type: ignore[arg-type]
            ("all-time pairs (budget)", lambda: results["history"].pairs_within()),  # type: ignore[attr-defined]
    ):
        phases.start()
        value = make()
        phases.end(label)
        key = {"read the usage log": "log", "analyse last 30 days": "stats",
               "analyse all time": "history", "pairs (30 days)": "pairs",
               "signals": "signals"}.get(label)
        if key:
            results[key] = value
    return phases.rows


def child_gui(agent: Path) -> list[dict[str, float | str]]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from rockskills_gui.ui.common.context import AppContext
    from rockskills_gui.ui.common.theme import apply_theme
    from rockskills_gui.ui.shell.main_window import MainWindow

    def wait_until(done: object, timeout: float = 600.0) -> None:
        loop = QEventLoop()
        deadline = time.perf_counter() + timeout
        check = QTimer()
        check.setInterval(5)
        check.timeout.connect(lambda: loop.quit() if done() or time.perf_counter() > deadline  # type: ignore[operator]
                              else None)
        check.start()
        if not done():  # type: ignore[operator]
            loop.exec()
        check.stop()
        if not done():  # type: ignore[operator]
            raise SystemExit("timed out")

    phases = Phases()
    phases.start()
    app = QApplication([sys.argv[0]])
    apply_theme(app)
    window = MainWindow(AppContext(), interactive=False)
    window.resize(1400, 900)
    moments: set[str] = set()
    window.loadFinished.connect(lambda error: moments.add("failed" if error else "loaded"))
    window.recall_pane.indexReady.connect(lambda: moments.add("recall"))
    window.library_pane.usageLoaded.connect(lambda: moments.add("usage"))
    window.show()
    window.open_path(agent)
    wait_until(lambda: {"loaded", "recall", "usage"} <= moments or "failed" in moments)
    if "failed" in moments:
        raise SystemExit("load failed")
    phases.end("library loaded (window)")
    pane = window.usage_pane
    reports: list[float] = []
    pane.updated.connect(lambda: reports.append(time.perf_counter()))
    for label, show in (("Usage tab, last 30 days", lambda: window.show_pane("heatmap")),
                        ("then all time", lambda: pane.set_window_days(0))):
        reports.clear()
        phases.start()
        show()
        wait_until(lambda: bool(reports))
        app.processEvents()
        phases.end(label)
    window.close()
    return phases.rows


def run_child(source: Path, kind: str, agent: Path, cache: Path) -> list[dict[str, float | str]]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(source),
           "ROCKSKILLS_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, str(HERE), "--child", kind, "--agent", str(agent)],
                         env=env, capture_output=True, text=True, cwd=str(source), check=False)
    if out.returncode != 0:
        raise SystemExit(f"child {kind} ({source}) failed:\n{out.stderr[-3000:]}")
    rows: list[dict[str, float | str]] = json.loads(out.stdout.strip().splitlines()[-1])
    return rows


def table(kind: str, results: dict[Path, list[list[dict[str, float | str]]]]) -> None:
    sources = list(results)
    header = ["phase"] + [f"{s}: peak / rise / after MB" for s in sources]
    lines = [header]
    first = results[sources[0]][0]
    for index, row in enumerate(first):
        cells = [str(row["phase"])]
        for source in sources:
            runs = results[source]
            peak = min(float(r[index]["peak"]) for r in runs)
            rise = min(float(r[index]["peak"]) - float(r[index]["before"]) for r in runs)
            after = min(float(r[index]["after"]) for r in runs)
            cells.append(f"{peak:,.0f} / {rise:+,.0f} / {after:,.0f}")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    print(f"\n== {kind} (best of {len(results[sources[0]])}; peak = the process's peak resident "
          "memory during the phase; rise = peak - resident before it)")
    for line in lines:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                        enumerate(zip(line, widths, strict=True))))
    if kind == "gui":
        for source in sources:
            peak = max(min(float(r[i]["peak"]) for r in results[source])
                       for i in range(1, len(first)))
            print(f"  {source}: Usage tab peak {peak:,.0f} MB "
                  f"{'PASS' if peak <= TARGET_MB else 'FAIL'} (target ≤ {TARGET_MB} MB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp"))
                        / "rockskills-bench-scale" / "agent-100000")
    parser.add_argument("--source", type=Path, action="append",
                        help="source tree(s); the first is the baseline (default: this checkout)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--kinds", default="core,gui")
    parser.add_argument("--child", choices=("core", "gui"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        rows = child_core(args.agent) if args.child == "core" else child_gui(args.agent)
        print(json.dumps(rows))
        return 0
    if not (args.agent / "skill-usage").is_dir():
        raise SystemExit(f"no library at {args.agent}: run tests/benchmarks/bench_scale.py first")
    sources = [s.resolve() for s in (args.source or [REPO])]
    cache = Path(os.environ.get("TMPDIR", "/tmp")) / f"rockskills-bench-usage-cache-{os.getpid()}"
    print(f"CPUs: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}; agent {args.agent}")
    for kind in args.kinds.split(","):
        results: dict[Path, list[list[dict[str, float | str]]]] = {s: [] for s in sources}
        for _ in range(args.repeat):
            for number, source in enumerate(sources):  # interleaved: the same load for each tree
                own = cache / str(number)  # each tree its own parsed-skill cache (formats differ)
                if kind == "gui" and not results[source]:
                    run_child(source, "gui", args.agent, own)  # fills that cache
                results[source].append(run_child(source, kind, args.agent, own))
        table(kind, results)
    import shutil

    shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
