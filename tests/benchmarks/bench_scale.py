"""Benchmark: opening RockBot libraries of 1,000, 10,000 and 100,000 skills in the GUI.

Run:  QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_scale.py
      [--sizes 1000,10000,100000] [--events 100000] [--dir DIR] [--source TREE ...] [--repeat N]

Not a pytest module. Generates (once, kept under ``--dir``) agent directories with realistic
skills (prefixed names such as ``mcp/<server>/<verb>-<noun>``, sentence-like summaries, Markdown
content of 150-4,000 characters with steps, tables and code, see-also links, a few pending
summaries) and ``skill-usage/*.jsonl`` logs of ``--events`` usage events over several sessions.

Each measurement runs in a fresh process (cold, like a user starting the app), all in one run;
it starts as the app does, with the start-up code cache (core/app/code_cache) and its modules'
bytecode kept (in a private folder, even where PYTHONDONTWRITEBYTECODE is set: an installed
package has its .pyc files, and compiling a module as it is first imported would count in the
stalls):

- empty window: construct + show the main window until the tree's viewport is first painted;
- per size: construct + show + open the library until the tree is painted with its rows
  ("tree painted"), until the recall index is ready ("recall ready": built for the Recall tab,
  which, as for a user who has not clicked it yet, is not built itself), until the usage logs reached
  the tree ("fully loaded" = all three); the longest the UI thread was unavailable during the load
  (a 5 ms heartbeat timer: the longest gap between ticks); the progress-bar updates seen; peak
  memory (``ru_maxrss`` of that process); and, at the end, typing a filter and ranking a recall
  query on the loaded library (interactivity), then opening the Usage tab (default window, then
  all time): time to the heatmap, the longest UI stall meanwhile, peak memory;
- cancel (sizes >= 10,000): start opening, press Cancel after 25 % of the expected load, and time
  until the window is idle again and until the scan stopped.

Opens use a parsed-skill cache (core.library.stores.scan_cache) in a fresh cache folder: per size,
the first open fills it ("first open", every file read), then the measured opens use it, with the
library's files in the OS file cache ("warm") and evicted from it with ``posix_fadvise``
("cold"). The target rows (issue 19: 100,000 skills fully loaded within 5 s warm and cold, the UI
never stalled more than 50 ms, the Usage tab within 1 GB) are computed from the same run.

``--source`` runs the same children against other source trees (e.g. a checkout of the previous
commit) and prints one table per tree: a before/after comparison in one run on one machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
TARGET_RATIO_10K = 2.0
TARGET_FULL_100K_S = 5.0  # issue 19
TARGET_PEAK_MB = 1024
TARGET_STALL_MS = 50.0
SESSIONS = ("blazor-session", "cli-session", "subagent-3f2a", "subagent-91bc", "subagent-c044")


# ---------------------------------------------------------------- generating a library


def generate(agent: Path, size: int, events: int, seed: int = 20261122) -> None:
    """Write ``size`` skill files and ``events`` usage events under ``agent``."""
    sys.path.insert(0, str(REPO))
    from rockskills_gui.core.model.skill import Skill, skill_to_bytes
    from rockskills_gui.core.model.timestamps import Timestamp
    from rockskills_gui.core.storage.layout import Layout
    from tests.benchmarks.bench_recall import Generator

    now = Timestamp.parse("2026-11-22T12:00:00+00:00")
    gen = Generator(seed)
    rng = random.Random(seed)
    layout = Layout(agent, agent / "skills")
    library = gen.library(size)
    names = [name for name, _ in library]
    folders: set[Path] = set()
    for index, (name, summary) in enumerate(library):
        created = now.add_days(-rng.uniform(1, 500))
        updated = created.add_days(rng.uniform(0, 30)) if rng.random() < 0.7 else created
        used = None if rng.random() < 0.3 else updated.add_days(rng.uniform(0, 20))
        see_also = (tuple(rng.sample(names, k=rng.randint(1, 3))) if rng.random() < 0.2 else None)
        skill = Skill(name=name, summary="" if rng.random() < 0.02 else summary,
                      content=_content(rng, name, summary, index), created_at=created,
                      updated_at=updated, last_used_at=used, see_also=see_also)
        path = layout.path_for(name)
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_bytes(skill_to_bytes(skill))
    usage = agent / "skill-usage"
    usage.mkdir(parents=True, exist_ok=True)
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(names))]
    per_session: dict[str, list[tuple[int, str]]] = {s: [] for s in SESSIONS}
    start_ticks = now.add_days(-120).ticks
    span = now.ticks - start_ticks
    for n, skill_name in enumerate(rng.choices(names, weights, k=events)):
        session = SESSIONS[rng.randrange(len(SESSIONS))]
        per_session[session].append((start_ticks + rng.randrange(span), skill_name))
        del n
    for session, items in per_session.items():
        items.sort()
        with open(usage / f"{session}.jsonl", "w", encoding="utf-8") as handle:
            for ticks, skill_name in items:
                stamp = Timestamp(ticks).isoformat()
                handle.write(f'{{"id":"{rng.getrandbits(48):012x}","skillName":"{skill_name}",'
                             f'"sessionId":"{session}","timestamp":"{stamp}"}}\n')
    (agent / ".bench-scale").write_text(f"{size} {events}")


def _content(rng: random.Random, name: str, summary: str, index: int) -> str:
    """Markdown of a realistic shape and length (150-4,000 characters)."""
    if rng.random() < 0.08:
        return f"Short note about {name.rsplit('/', 1)[-1]}."
    steps = "\n".join(f"{i}. {s}" for i, s in enumerate(rng.sample(_STEPS, k=rng.randint(3, 7)), 1))
    parts = [f"# {name}", "", "## When to use", summary + ".", "", "## Steps", steps]
    if rng.random() < 0.5:
        parts += ["", "## Example", "```bash", f"rockbot run {name} --id {index} --dry-run",
                  "curl -s https://api.example.com/v1/items | jq '.items[] | .name'", "```"]
    if rng.random() < 0.3:
        parts += ["", "| field | meaning |", "|---|---|",
                  "| `id` | the record's identifier |", "| `updatedAt` | last change (UTC) |"]
    if rng.random() < 0.4:
        parts += ["", "## Pitfalls"] + [f"- {p}" for p in rng.sample(_PITFALLS, k=rng.randint(1, 4))]
    text = "\n".join(parts) + "\n"
    return text * (1 + (rng.random() < 0.1))


_STEPS = [
    "Confirm the request and the account to use.", "List what exists before changing anything.",
    "Fetch the latest data from the source of truth.", "Check the input for missing fields.",
    "Draft the change and show it to the user.", "Apply the change in small batches.",
    "Record the outcome with timestamps (UTC).", "Report what changed and what did not.",
    "Retry once on a timeout; then stop and explain.", "Clean up temporary files.",
    "Link related skills in the answer when they helped.",
]
_PITFALLS = [
    "The API paginates at 100 items: follow `nextPageToken`.", "Times are in UTC, not local time.",
    "Rate limit: 60 requests a minute.", "Attachments over 25 MB are rejected.",
    "Never delete without an explicit confirmation.", "Some accounts have two-factor prompts.",
]


def ensure_library(base: Path, size: int, events: int) -> Path:
    agent = base / f"agent-{size}"
    marker = agent / ".bench-scale"
    if not (marker.is_file() and marker.read_text() == f"{size} {events}"):
        import shutil

        shutil.rmtree(agent, ignore_errors=True)
        start = time.perf_counter()
        generate(agent, size, events)
        print(f"generated {size:,} skills and {events:,} usage events in "
              f"{time.perf_counter() - start:.1f} s under {agent}", flush=True)
    return agent


# ---------------------------------------------------------------- one measurement (child process)


def child(mode: str, agent: Path | None, cancel_after: float, launched: float) -> dict[str, object]:
    """Measure in this (fresh) process; ``mode`` is ``empty``, ``open`` or ``cancel``; ``launched``
    is the parent's wall clock just before it started this process."""
    t_process = time.perf_counter()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    code_cache = _start_code_cache()
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from rockskills_gui.ui.common.context import AppContext
    from rockskills_gui.ui.common.theme import apply_theme
    from rockskills_gui.ui.shell.main_window import MainWindow

    t_imported = time.perf_counter()

    class PaintWatch(QObject):
        def __init__(self, widget: QObject, rows: object) -> None:
            super().__init__()
            self.first_with_rows = 0.0
            self.first = 0.0
            self.rows = rows
            widget.installEventFilter(self)

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                now = time.perf_counter()
                self.first = self.first or now
                if not self.first_with_rows and self.rows():  # type: ignore[operator]
                    self.first_with_rows = now
            return False

    class Heartbeat(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.timer = QTimer(self)
            self.timer.setInterval(5)
            self.timer.timeout.connect(self.tick)
            self.previous = time.perf_counter()
            self.longest = 0.0
            self.timer.start()

        def tick(self) -> None:
            now = time.perf_counter()
            self.longest = max(self.longest, now - self.previous)
            self.previous = now

        def reset(self) -> None:
            self.previous = time.perf_counter()
            self.longest = 0.0

    def wait_until(done: Callable[[], bool], timeout: float = 600.0) -> None:
        """Run the event loop (idle, as an app does, not spinning) until ``done()``."""
        loop = QEventLoop()
        deadline = time.perf_counter() + timeout
        check = QTimer()
        check.setInterval(2)
        check.timeout.connect(lambda: loop.quit() if done() or time.perf_counter() > deadline else None)
        check.start()
        if not done():
            loop.exec()
        check.stop()
        if not done():
            raise SystemExit("timed out")

    app = QApplication([sys.argv[0]])
    apply_theme(app)
    start = time.perf_counter()
    window = MainWindow(AppContext(), interactive=False)
    window.resize(1400, 900)
    pane = window.library_pane
    watch = PaintWatch(pane.view.viewport(), lambda: pane.model.rowCount() > 0)
    result: dict[str, object] = {"imports_ms": (t_imported - t_process) * 1000}
    if mode == "empty":
        window.show()
        wait_until(lambda: bool(watch.first))
        result["paint_ms"] = (watch.first - start) * 1000
        result["launch_ms"] = (time.time() - (time.perf_counter() - watch.first) - launched) * 1000
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        code_cache.save()
        return result

    assert agent is not None
    beat = Heartbeat()
    moments: dict[str, float] = {}
    progress_values: list[int] = []
    window.progress.valueChanged.connect(progress_values.append)
    window.loadFinished.connect(lambda error: moments.setdefault("loaded", time.perf_counter())
                                if not error else moments.setdefault("failed", time.perf_counter()))
    pane.usageLoaded.connect(lambda: moments.setdefault("usage", time.perf_counter()))

    def recall_ready() -> bool:
        """The open library's recall index is built (ctx.prepared, where the Recall tab takes it
        when first shown: the pane is not built here, as a user who has not opened the tab)."""
        if "recall" not in moments and window.ctx.library is not None \
                and window.ctx.prepared.get("recall") is not None:
            moments["recall"] = time.perf_counter()
        return "recall" in moments

    window.show()
    window.open_path(agent)  # (the app shows it when loaded, at the latest after 0.1 s: at once)
    wait_until(lambda: bool(watch.first))
    result["first_frame_ms"] = (watch.first - start) * 1000
    beat.reset()  # from the first frame on, every stall is the load's
    if mode == "cancel":
        wait_until(lambda: time.perf_counter() - start >= cancel_after)
        pressed = time.perf_counter()
        window.cancel_button.click()
        wait_until(lambda: not window.loader.busy)
        result["idle_ms"] = (time.perf_counter() - pressed) * 1000
        window.loader.wait()
        result["stopped_ms"] = (time.perf_counter() - pressed) * 1000
        result["stall_ms"] = beat.longest * 1000
        result["progress_updates"] = len(progress_values)
        result["library_open"] = window.ctx.library is not None
        return result

    wait_until(lambda: (recall_ready() and {"loaded", "usage"} <= moments.keys()
                        and bool(watch.first_with_rows)) or "failed" in moments)
    if "failed" in moments:
        raise SystemExit(f"load failed: {moments}")
    stall = beat.longest
    library = window.ctx.library
    assert library is not None
    result.update({
        "skills": len(library),
        "tree_ms": (watch.first_with_rows - start) * 1000,
        "launch_tree_ms": (time.time() - (time.perf_counter() - watch.first_with_rows) - launched) * 1000,
        "recall_ms": (moments["recall"] - start) * 1000,
        "full_ms": (max(moments["recall"], moments["usage"], watch.first_with_rows) - start) * 1000,
        "stall_ms": stall * 1000,
        "progress_updates": len(progress_values),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    })
    # interactivity on the loaded library
    watch.first = 0.0
    t0 = time.perf_counter()
    pane.filter.setText("email")
    pane.apply_filter()
    wait_until(lambda: bool(watch.first))
    result["filter_ms"] = (watch.first - t0) * 1000
    recall = window.recall_pane
    ranked: list[float] = []
    for query in ("send the weekly report to Dana", "schedule a meeting with the team",
                  "summarize this paper"):
        t0 = time.perf_counter()
        recall.set_query(query, immediate=True)
        app.processEvents()
        ranked.append((time.perf_counter() - t0) * 1000)
    result["recall_query_ms"] = statistics.median(ranked)
    # The heatmap tab: usage analysis of the 100,000 events on a worker, first for the default
    # window (last 30 days, RockBot's 10,000-event cap), then for all time. These logs put the
    # events in 5 sessions (RockBot's Blazor UI has one constant session id), so all time means
    # sessions of up to 10,000 skills: 246 million pair occurrences at 100,000 skills, which the
    # pane counts only within its memory budget (core.usage.PAIR_BUDGET).
    usage_pane = window.usage_pane
    reports: list[float] = []
    usage_pane.updated.connect(lambda: reports.append(time.perf_counter()))
    for key, show in (("heatmap", lambda: window.show_pane("heatmap")),
                      ("heatmap_all", lambda: usage_pane.set_window_days(0))):
        reports.clear()
        beat.reset()
        t0 = time.perf_counter()
        show()
        wait_until(lambda: bool(reports), timeout=600)
        result[f"{key}_ms"] = (reports[0] - t0) * 1000
        result[f"{key}_stall_ms"] = beat.longest * 1000
        result[f"{key}_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    window.close()
    code_cache.save()
    return result


class _NoCodeCache:
    def save(self) -> None:
        """(a source tree from before the start-up code cache)"""


def _start_code_cache() -> Any:
    """Start the way the app does: the start-up code cache installed, PySide6 imported through
    it (what a user's second start has); a tree from before that cache starts without it."""
    try:
        from rockskills_gui.core.app import code_cache
        from rockskills_gui.ui.common.pyside_support import support_code_cached
    except ImportError:
        return _NoCodeCache()
    cache = code_cache.start()
    with support_code_cached(cache):
        import PySide6.QtCore  # noqa: F401
    return cache


# ---------------------------------------------------------------- driver


def evict(*folders: Path) -> None:
    """Drop the files under ``folders`` from the OS file cache (``posix_fadvise`` DONTNEED: no
    privileges needed; folder entries and inodes may stay cached): a cold start's reads."""
    for folder in folders:
        for where, _dirs, names in os.walk(folder):
            for name in names:
                try:
                    fd = os.open(os.path.join(where, name), os.O_RDONLY | os.O_NONBLOCK)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                except (OSError, AttributeError):
                    pass
                finally:
                    os.close(fd)


def warm(*folders: Path) -> None:
    """Read every file under ``folders`` (into the OS file cache): a previous tree's cold runs
    evicted them, and a first open would otherwise read them from disk for one tree only."""
    for folder in folders:
        for where, _dirs, names in os.walk(folder):
            for name in names:
                try:
                    with open(os.path.join(where, name), "rb") as handle:
                        while handle.read(1 << 20):
                            pass
                except OSError:
                    continue


def run_child(source: Path, mode: str, agent: Path | None, cancel_after: float = 0.0,
              cache: Path | None = None) -> dict:
    """Measure ``mode`` in a fresh process. Its modules' bytecode is kept (in a private folder,
    even where ``PYTHONDONTWRITEBYTECODE`` is set), as an installed package has its .pyc files:
    compiling a module as it is first imported would count in the stalls."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(source),
               PYTHONPYCACHEPREFIX=str(Path(os.environ.get("TMPDIR", "/tmp"))
                                       / "rockskills-bench-pycache"))
    if cache is not None:
        env["ROCKSKILLS_CACHE_DIR"] = str(cache)
    cmd = [sys.executable, str(HERE), "--child", mode, "--cancel-after", str(cancel_after),
           "--launched", repr(time.time())]
    if agent is not None:
        cmd += ["--agent", str(agent)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(source), check=False)
    if out.returncode != 0:
        raise SystemExit(f"child {mode} {agent} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(runs: list[dict], key: str) -> float:
    return statistics.median(float(r[key]) for r in runs)


def report(source: Path, sizes: list[int], agents: dict[int, Path],
           repeat: int) -> tuple[list[str], dict[str, float]]:
    """Measure with ``source`` and print its table; returns the target verdict lines and the
    100,000-skill figures (empty without that size)."""
    cache = Path(os.environ.get("TMPDIR", "/tmp")) / f"rockskills-bench-cache-{os.getpid()}"
    run_child(source, "empty", None, cache=cache)  # (fills the bytecode and code caches)
    empty_runs = [run_child(source, "empty", None, cache=cache) for _ in range(repeat)]
    empty_ms = best(empty_runs, "paint_ms")
    empty_launch = best(empty_runs, "launch_ms")
    rows = [("empty window", f"{empty_launch:,.0f}", "", f"{empty_ms:,.0f}", "", "", "", "",
             f"{best(empty_runs, 'peak_mb'):,.0f}", "", "", "", "", "")]
    verdicts: list[str] = []
    opened: dict[int, dict[str, float]] = {}
    for size in sizes:
        # The first open fills the parsed-skill cache (core.library.stores.scan_cache) in a
        # fresh cache folder; the runs measured after it use it, with the files in the OS file
        # cache (warm) and evicted from it (cold).
        import shutil

        shutil.rmtree(cache, ignore_errors=True)
        warm(agents[size])  # every tree's first open starts from the same file cache state
        first = run_child(source, "open", agents[size], cache=cache)
        runs = [run_child(source, "open", agents[size], cache=cache) for _ in range(repeat)]
        cold_runs = []
        for _ in range(repeat):
            evict(agents[size], cache)
            cold_runs.append(run_child(source, "open", agents[size], cache=cache))
        m = {k: best(runs, k) for k in ("launch_tree_ms", "tree_ms", "first_frame_ms", "recall_ms",
                                        "full_ms", "stall_ms", "peak_mb", "progress_updates",
                                        "filter_ms", "recall_query_ms", "heatmap_ms",
                                        "heatmap_stall_ms", "heatmap_peak_mb", "heatmap_all_ms",
                                        "heatmap_all_stall_ms", "heatmap_all_peak_mb")}
        m["first_full_ms"] = float(first["full_ms"])
        m["first_stall_ms"] = float(first["stall_ms"])
        m["cold_full_ms"] = best(cold_runs, "full_ms")
        m["cold_stall_ms"] = best(cold_runs, "stall_ms")
        opened[size] = m
        rows.append((f"{size:,} skills", f"{m['launch_tree_ms']:,.0f}",
                     f"{m['launch_tree_ms'] / empty_launch:.1f}×", f"{m['tree_ms']:,.0f}",
                     f"{m['tree_ms'] / empty_ms:.1f}×", f"{m['recall_ms']:,.0f}",
                     f"{m['full_ms']:,.0f} ({m['first_full_ms']:,.0f} / {m['cold_full_ms']:,.0f})",
                     f"{m['first_frame_ms']:,.0f}", f"{m['peak_mb']:,.0f}", f"{m['stall_ms']:,.0f}",
                     f"{m['progress_updates']:,.0f}",
                     f"{m['filter_ms']:,.0f} / {m['recall_query_ms']:,.1f}",
                     f"{m['heatmap_ms']:,.0f} / {m['heatmap_stall_ms']:,.0f} / "
                     f"{m['heatmap_peak_mb']:,.0f}",
                     f"{m['heatmap_all_ms']:,.0f} / {m['heatmap_all_stall_ms']:,.0f} / "
                     f"{m['heatmap_all_peak_mb']:,.0f}"))
    header = ("library", "launch→tree ms", "÷ empty", "window→tree ms", "÷ empty", "recall ready ms",
              "fully loaded ms (first open / cold)", "first frame ms", "peak MB", "longest stall ms",
              "progress updates",
              "filter / recall ms", "heatmap 30 d: ms / stall / peak MB",
              "heatmap all time: ms / stall / peak MB")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n== source: {source}")
    for row in [header, *rows]:
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in
                        enumerate(zip(row, widths, strict=True))))
    print("launch→: from starting the process (interpreter, imports) to the paint; window→: from\n"
          "constructing the main window; the others from constructing the window too. Stalls are\n"
          "counted from the window's first frame on.")
    cancels = [s for s in sizes if s >= 10_000]
    for size in cancels:
        after = opened[size]["tree_ms"] / 4000  # a quarter of the way to the tree
        c = run_child(source, "cancel", agents[size], after, cache=cache)
        print(f"cancel at {after:.2f} s into {size:,}: idle after {c['idle_ms']:.0f} ms, scan "
              f"stopped after {c['stopped_ms']:.0f} ms, longest stall {c['stall_ms']:.0f} ms, "
              f"{c['progress_updates']} progress updates before cancel")
    if 10_000 in opened:
        for what, ratio in (("launch", opened[10_000]["launch_tree_ms"] / empty_launch),
                            ("window", opened[10_000]["tree_ms"] / empty_ms)):
            verdicts.append(f"10k tree painted ≤ {TARGET_RATIO_10K}× empty window ({what}): "
                            f"{ratio:.2f}× {'OK' if ratio <= TARGET_RATIO_10K else 'MISSED'}")
    if 100_000 in opened:
        m = opened[100_000]
        for what, key in (("fully loaded", "full_ms"), ("fully loaded, cold file cache", "cold_full_ms")):
            if key in m:
                full = m[key] / 1000
                verdicts.append(f"100k {what} ≤ {TARGET_FULL_100K_S:.0f} s: {full:.1f} s "
                                f"{'PASS' if full <= TARGET_FULL_100K_S else 'FAIL'}")
        # (no target: the opens above use what this first one put in the parsed-skill cache)
        verdicts.append(f"100k fully loaded, first open (nothing cached): "
                        f"{m['first_full_ms'] / 1000:.1f} s (info)")
        for what, key in (("loading", "stall_ms"), ("loading, cold file cache", "cold_stall_ms")):
            if key in m:
                verdicts.append(f"100k longest UI stall while {what} ≤ {TARGET_STALL_MS:.0f} ms: "
                                f"{m[key]:.0f} ms {'PASS' if m[key] <= TARGET_STALL_MS else 'FAIL'}")
        peak = max(m["heatmap_peak_mb"], m["heatmap_all_peak_mb"])
        verdicts.append(f"100k Usage tab peak memory ≤ 1 GB: {peak:,.0f} MB "
                        f"{'PASS' if peak <= TARGET_PEAK_MB else 'FAIL'}")
    worst = max(m["stall_ms"] for m in opened.values()) if opened else 0.0
    verdicts.append(f"longest UI stall while loading ≤ {TARGET_STALL_MS:.0f} ms: {worst:.0f} ms "
                    f"{'OK' if worst <= TARGET_STALL_MS else 'MISSED'}")
    worst = max(max(m["heatmap_stall_ms"], m["heatmap_all_stall_ms"]) for m in opened.values()) \
        if opened else 0.0
    verdicts.append(f"longest UI stall while the heatmap computes ≤ {TARGET_STALL_MS:.0f} ms: "
                    f"{worst:.0f} ms {'OK' if worst <= TARGET_STALL_MS else 'MISSED'}")
    for line in verdicts:
        print("  " + line)
    return verdicts, opened.get(100_000, {})


# The issue-19 figures at 100,000 skills: (label, key, target, unit); a target of None is shown
# without a verdict. "Usage tab" peaks are the process's peak memory (ru_maxrss), library included.
TARGET_ROWS = (
    ("fully loaded, warm file cache", "full_ms", TARGET_FULL_100K_S * 1000, "ms"),
    ("fully loaded, cold file cache", "cold_full_ms", TARGET_FULL_100K_S * 1000, "ms"),
    ("fully loaded, first open (cache filled)", "first_full_ms", None, "ms"),
    ("longest UI stall while loading, warm", "stall_ms", TARGET_STALL_MS, "ms"),
    ("longest UI stall while loading, cold", "cold_stall_ms", TARGET_STALL_MS, "ms"),
    ("longest UI stall while loading, first open", "first_stall_ms", TARGET_STALL_MS, "ms"),
    ("peak memory, library loaded", "peak_mb", None, "MB"),
    ("Usage tab peak memory, last 30 days", "heatmap_peak_mb", TARGET_PEAK_MB, "MB"),
    ("Usage tab peak memory, then all time", "heatmap_all_peak_mb", TARGET_PEAK_MB, "MB"),
    ("longest UI stall, Usage tab 30 days / all time", "heatmap_stall_ms", TARGET_STALL_MS, "ms"),
)


def target_table(figures: dict[Path, dict[str, float]]) -> None:
    """One table of the 100,000-skill figures beside their targets, a column per source tree (the
    first is the same-run baseline when several are given)."""
    sources = [source for source, m in figures.items() if m]
    if not sources:
        return
    header = ["100,000 skills", "target", *(str(source) for source in sources)]
    rows = [header]
    for label, key, target, unit in TARGET_ROWS:
        cells = [label, f"≤ {target:,.0f} {unit}" if target is not None else ""]
        for source in sources:
            m = figures[source]
            value = m[key]
            if key == "heatmap_stall_ms":
                value = max(m["heatmap_stall_ms"], m["heatmap_all_stall_ms"])
            verdict = "" if target is None else (" PASS" if value <= target else " FAIL")
            cells.append(f"{value:,.0f} {unit}{verdict}")
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    print(f"\n== issue 19 at 100,000 skills (load average {os.getloadavg()[0]:.1f} at the end)")
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp"))
                        / "rockskills-bench-scale")
    parser.add_argument("--source", type=Path, action="append",
                        help="source tree(s) to measure (default: this checkout)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    parser.add_argument("--child", choices=("empty", "open", "cancel"), help=argparse.SUPPRESS)
    parser.add_argument("--agent", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cancel-after", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--launched", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.agent, args.cancel_after, args.launched)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    agents = {size: ensure_library(args.dir, size, args.events) for size in sizes}
    print(f"CPUs: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start")
    figures: dict[Path, dict[str, float]] = {}
    for source in args.source or [REPO]:
        figures[source.resolve()] = report(source.resolve(), sizes, agents, args.repeat)[1]
    target_table(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
