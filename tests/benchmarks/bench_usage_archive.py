"""Benchmark: the usage archive at RockBot's retention limits (issue 30, "Log retention").

Run:  .venv/bin/python tests/benchmarks/bench_usage_archive.py [--sessions N] [--long N] [--days N]

Not a pytest module. Generates an agent directory as RockBot leaves it at most (``--sessions``
per-session files over ``--days`` days, default 1,000 over 30, plus one long session of ``--long``
lines, default 50,000: the retention pass's limits), then times, each in this process:

- the first archive run (every line copied; one fsync per file),
- a second run with nothing new (what a cron job costs most of the time),
- reading the live logs alone (``read_usage``) and with the archive (``read_usage_with_archive``,
  every archived line also live: the whole overlap is checked),
- RockBot's retention pass 45 days later (every session file aged out), then the merged read.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rockskills_gui.core.usage.archive import archive_usage  # noqa: E402
from rockskills_gui.core.usage.archive_read import read_usage_with_archive  # noqa: E402
from rockskills_gui.core.usage.events import read_usage  # noqa: E402
from tests.usage_history import NOW, make_history_agent, rockbot_retention  # noqa: E402


def timed(label: str, work):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = work()
    print(f"{label:<48} {time.perf_counter() - started:8.2f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--long", type=int, default=50_000)
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="rockskills-bench-archive-"))
    try:
        per_day = max(1, args.sessions // args.days)
        history = make_history_agent(base / "agent", days=args.days, sessions_per_day=per_day,
                                     old_sessions_per_day=per_day, long_lines=args.long)
        agent = history.root
        print(f"{history.sessions} session files, {history.lines:,} usage lines, "
              f"{sum(p.stat().st_size for p in (agent / 'skill-usage').iterdir()) / 1e6:.1f} MB")
        first = timed("archive, first run", lambda: archive_usage(agent))
        assert first.lines == history.lines, (first.lines, history.lines)
        again = timed("archive, nothing new", lambda: archive_usage(agent))
        assert again.lines == 0
        live = timed("read_usage (live logs only)", lambda: read_usage(agent))
        merged = timed("read_usage_with_archive (all overlapping)", lambda: read_usage_with_archive(agent))
        assert len(merged.events) == len(live.events) and merged.archived == 0
        later = NOW + timedelta(days=45)
        pruned = rockbot_retention(agent / "skill-usage", later)
        print(f"RockBot's retention 45 days later: {pruned}")
        after = timed("read_usage_with_archive (sessions only archived)",
                      lambda: read_usage_with_archive(agent))
        assert len(after.events) == len(live.events), (len(after.events), len(live.events))
        print(f"{after.archived:,} of {len(after.events):,} events only in the archive")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
