"""The usage archive (issue 30, "Log retention"): usage history survives RockBot's retention pass.

A generated agent directory with 60 days of per-session usage logs is archived, then RockBot's
retention pass runs exactly as upstream writes it (tests/usage_history.py: files not written for
30 days deleted, the 1,000 newest kept, each file cut to its last 50,000 lines). The usage read
with the archive must then be the very log the untouched files give: every event once, in order.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import append_file, crash_hook
from rockskills_gui.core.storage.fileio import NotRegularFile
from rockskills_gui.core.storage.layout import USAGE_ARCHIVE_DIR
from rockskills_gui.core.usage.archive import ArchiveResult, ArchiveUnavailable, archive_usage
from rockskills_gui.core.usage.archive_align import overlap
from rockskills_gui.core.usage.archive_read import (
    archive_days,
    day_ranges,
    describe_days,
    read_usage_with_archive,
    utc_day,
)
from rockskills_gui.core.usage.events import ArchivedUsageEvent, EventLog, UsageEvent, read_usage
from rockskills_gui.core.usage.stats import UsageStats, UsageWindow, analyze
from tests.conftest import REPO
from tests.usage_history import (
    LONG_SESSIONS,
    NOW,
    NOW_TEXT,
    make_history_agent,
    rockbot_retention,
    usage_line,
)

NOW_TS = Timestamp.parse(NOW_TEXT)


def fields(log: EventLog[UsageEvent]) -> list[tuple[object, ...]]:
    return [(e.id, e.skill_name, e.session_id, e.timestamp.utc_ticks) for e in log.events]


def summary(stats: UsageStats) -> dict[str, object]:
    return {"events": len(stats.events), "sessions": stats.session_count, "counts": stats.counts(),
            "pairs": [(p.key, p.sessions) for p in stats.pairs], "coUsed": stats.co_used_map()}


WINDOWS = {"60 days": UsageWindow.last_days(NOW_TS, 60), "all time": UsageWindow.all_time(),
           "30 days": UsageWindow.last_days(NOW_TS, 30)}


def original_of(agent: Path, tmp_path: Path) -> Path:
    """An untouched copy of the agent's logs (what a fresh computation reads)."""
    copy = tmp_path / "original"
    shutil.copytree(agent / "skill-usage", copy / "skill-usage")
    return copy


def assert_same_usage(agent: Path, original: Path) -> EventLog[UsageEvent]:
    merged, fresh = read_usage_with_archive(agent), read_usage(original)
    assert not merged.malformed and not fresh.malformed
    assert fields(merged) == fields(fresh)  # every event once, in RockBot's read order
    for name, window in WINDOWS.items():
        assert summary(analyze(merged, window)) == summary(analyze(fresh, window)), name
    return merged


@dataclass(frozen=True)
class Retained:
    agent: Path  # archived, then pruned by RockBot's retention pass (never changed by the tests)
    original: Path  # the untouched logs
    archived: ArchiveResult
    pruned: dict[str, int]
    total: int  # events in the untouched logs


@pytest.fixture(scope="module")
def retained(tmp_path_factory: pytest.TempPathFactory) -> Retained:
    base = tmp_path_factory.mktemp("history")
    agent = make_history_agent(base / "agent").root
    original = original_of(agent, base)
    total = len(read_usage(agent).events)
    archived = archive_usage(agent)
    return Retained(agent, original, archived, rockbot_retention(agent / "skill-usage", NOW), total)


def test_sixty_days_survive_rockbots_retention_pass(retained: Retained) -> None:
    agent, original = retained.agent, retained.original
    assert retained.archived.lines == sum(1 for p in (original / "skill-usage").iterdir()
                                          for _ in p.open(encoding="utf-8"))
    assert not retained.archived.problems
    pruned = retained.pruned
    assert pruned["aged"] > 100 and pruned["over"] > 0 and pruned["trimmed"] == 1, pruned
    live = read_usage(agent)
    old = UsageWindow.between(None, NOW_TS.add_days(-30))
    # RockBot's own logs lost every session older than 30 days, the oldest of the newer ones
    # and the oldest lines of the long session ...
    assert {e.session_id for e in analyze(live, old).events} <= set(LONG_SESSIONS)
    assert len(live.events) < retained.total - 10_000

    merged = assert_same_usage(agent, original)  # ... the archive kept all of it
    assert merged.archived == retained.total - len(live.events)
    days = archive_days(merged.events)
    old_days = {utc_day(e.timestamp) for e in read_usage(original).events
                if e.timestamp.utc_ticks < NOW_TS.add_days(-31).utc_ticks}
    assert len(old_days) >= 29 and old_days <= set(days)
    assert sum(days.values()) == merged.archived


def test_archiving_again_after_the_trim_adds_nothing(retained: Retained, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    shutil.copytree(retained.agent, agent)
    again = archive_usage(agent)  # every line of the trimmed file moved: still none is new
    assert again.lines == 0 and not again.problems


def test_archiving_keeps_up_with_an_agent_that_goes_on_logging(retained: Retained,
                                                               tmp_path: Path) -> None:
    agent, original = tmp_path / "agent", tmp_path / "original"
    shutil.copytree(retained.agent, agent)
    shutil.copytree(retained.original, original)
    usage = agent / "skill-usage"
    # The agent goes on: the trimmed long session grows, a new session starts, and a session
    # name whose file the retention deleted is used again (a new file, same name).
    reused = next(p.name for p in sorted((agent / USAGE_ARCHIVE_DIR / "skill-usage").iterdir())
                  if not (usage / p.name).exists())
    more = {
        "cli-session.jsonl": [usage_line(f"{k:012x}", "memory", "cli-session", NOW) for k in range(3)],
        "session-new.jsonl": [usage_line("0000000000aa", "web/search", "session-new", NOW)] * 2,
        reused: [usage_line("0000000000bb", "mcp/email", reused[:-6], NOW)],
    }
    for folder in (usage, original / "skill-usage"):
        for name, lines in more.items():
            with (folder / name).open("a", encoding="utf-8") as handle:
                handle.writelines(line + "\n" for line in lines)
    assert_same_usage(agent, original)
    result = archive_usage(agent)
    assert not result.problems
    assert result.added == {f"skill-usage/{name}": len(lines) for name, lines in more.items()}
    for name in list(more):
        (usage / name).unlink()  # gone too: only the archive has them now
    assert_same_usage(agent, original)


def test_identical_lines_are_two_events_and_a_trim_is_aligned_by_position() -> None:
    a, b, c = "a", "b", "c"
    assert overlap([a, b], [a, b, b]) == 2  # untrimmed: b logged twice is new once
    assert overlap([a, b, b], [a, b, b]) == 3
    assert overlap([a, b, b, c], [b, c, c]) == 2  # trimmed before the second b
    assert overlap([a, b], [c]) == 0  # a new file under an old name
    assert overlap([], [a]) == 0 and overlap([a], []) == 0


def test_an_event_read_from_the_live_log_and_the_archive_counts_once(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    usage = agent / "skill-usage"
    usage.mkdir(parents=True)
    line = usage_line(None, "memory", "s1", NOW)  # no id: two such lines are two events
    (usage / "s1.jsonl").write_text(line + "\n" + line + "\n", encoding="utf-8")
    assert archive_usage(agent).lines == 2
    assert len(read_usage_with_archive(agent).events) == 2
    (usage / "s1.jsonl").write_text(line + "\n" + line + "\n" + line + "\n", encoding="utf-8")
    assert archive_usage(agent).added == {"skill-usage/s1.jsonl": 1}
    merged = read_usage_with_archive(agent)
    assert len(merged.events) == 3 and merged.archived == 0
    (usage / "s1.jsonl").unlink()
    merged = read_usage_with_archive(agent)
    assert len(merged.events) == 3 and merged.archived == 3


def test_a_line_still_being_written_is_not_archived_until_it_ends(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    usage = agent / "skill-usage"
    usage.mkdir(parents=True)
    line = usage_line("0000000000a1", "memory", "s1", NOW)
    (usage / "s1.jsonl").write_text(line + "\n" + line[:30], encoding="utf-8")
    assert archive_usage(agent).lines == 1
    with (usage / "s1.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(line[30:] + "\n")
    assert archive_usage(agent).lines == 1
    assert len(read_usage_with_archive(agent).events) == 2


def test_nothing_is_written_when_there_is_nothing_new(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "skills").mkdir(parents=True)
    assert archive_usage(agent).lines == 0
    (agent / "skill-usage").mkdir()
    (agent / "skill-usage" / "empty.jsonl").write_bytes(b"")
    assert archive_usage(agent).lines == 0
    assert not (agent / ".rockskills").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX-only")
def test_the_archive_is_never_written_through_a_link_or_into_a_fifo(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    usage = agent / "skill-usage"
    usage.mkdir(parents=True)
    (usage / "s1.jsonl").write_text(usage_line("a1", "memory", "s1", NOW) + "\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (agent / ".rockskills").symlink_to(elsewhere)
    with pytest.raises(ArchiveUnavailable):
        archive_usage(agent)
    assert list(elsewhere.iterdir()) == []
    assert len(read_usage_with_archive(agent).events) == 1  # (the link is not read either)
    (agent / ".rockskills").unlink()

    folder = agent / USAGE_ARCHIVE_DIR / "skill-usage"
    folder.mkdir(parents=True)
    target = tmp_path / "target.jsonl"
    target.write_text("", encoding="utf-8")
    (folder / "s1.jsonl").symlink_to(target)
    os.mkfifo(usage / "fifo.jsonl")
    result = archive_usage(agent)
    assert target.read_text(encoding="utf-8") == ""
    assert {p.path for p in result.problems} == {f"{USAGE_ARCHIVE_DIR}/skill-usage/s1.jsonl",
                                                 "skill-usage/fifo.jsonl"}
    with pytest.raises(NotRegularFile):
        append_file.append_lines(folder / "s1.jsonl", ["x"])


def test_archive_days_and_their_ranges() -> None:
    assert day_ranges(["2026-10-03", "2026-10-01", "2026-10-02", "2026-10-05"]) == [
        ("2026-10-01", "2026-10-03"), ("2026-10-05", "2026-10-05")]
    stamp = Timestamp.parse("2026-10-01T23:30:00-02:00")  # 2026-10-02 in UTC
    events = [ArchivedUsageEvent("a", "x", "s", stamp), UsageEvent("b", "x", "s", stamp)]
    assert archive_days(events) == {"2026-10-02": 1}


# ---------------------------------------------------------------- a kill at every write step


@dataclass(frozen=True)
class Small:
    agent: Path  # archived once, then grown, trimmed (the archive holds lines it lost) or new
    original: Path  # the same logs, never trimmed


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Small:
    """A few sessions: the run to be killed appends to archive files, creates new ones and
    cuts a torn line."""
    base = tmp_path_factory.mktemp("small")
    root = make_history_agent(base / "agent", days=3, sessions_per_day=2, long_lines=40).root
    archive_usage(root)
    original = original_of(root, base)
    for folder in (root / "skill-usage", original / "skill-usage"):
        more = {"cli-session": [usage_line(f"c{k:011x}", "memory", "cli-session", NOW) for k in range(4)],
                "blazor-session": [usage_line("b00000000001", "web/search", "blazor-session", NOW)],
                "session-fresh": [usage_line("f00000000001", "mcp/email", "session-fresh", NOW)]}
        for name, lines in more.items():
            with (folder / f"{name}.jsonl").open("a", encoding="utf-8") as handle:
                handle.writelines(line + "\n" for line in lines)
    blazor = root / "skill-usage" / "blazor-session.jsonl"
    blazor.write_text("".join(blazor.read_text(encoding="utf-8").splitlines(keepends=True)[5:]),
                      encoding="utf-8")  # RockBot cut its oldest lines
    return Small(root, original)


def run_killed(agent: Path, crash_at: int | None) -> int:
    """Archive ``agent`` in a child process killed (SIGKILL) at checkpoint ``crash_at``; the
    number of checkpoints when it is not killed. Appends are written 40 bytes at a time, so a
    kill between two writes leaves a torn line."""
    code = ("import sys; from rockskills_gui.core.storage import append_file, crash_hook; "
            "append_file.CHUNK = 40; from rockskills_gui.core.usage.archive import archive_usage; "
            "archive_usage(sys.argv[1]); print(crash_hook.steps())")
    env = {**os.environ, crash_hook.CRASH_ENV: str(crash_at) if crash_at else ""}
    done = subprocess.run([sys.executable, "-c", code, str(agent)], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False)
    if crash_at is None:
        assert done.returncode == 0, done.stderr
        return int(done.stdout)
    assert done.returncode == -9, (crash_at, done.returncode, done.stderr)
    return crash_at


def archive_bytes(agent: Path) -> dict[str, bytes]:
    folder = agent / USAGE_ARCHIVE_DIR / "skill-usage"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="SIGKILL is POSIX-only")
def test_a_kill_at_every_write_step_loses_and_duplicates_nothing(small: Small, tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(small.agent, reference)
    steps = run_killed(reference, None)
    expected = archive_bytes(reference)
    assert steps > 10
    torn = 0
    for crash_at in range(1, steps + 1):
        work = tmp_path / f"trial-{crash_at}"
        shutil.copytree(small.agent, work)
        run_killed(work, crash_at)
        torn += any(not data.endswith(b"\n") for data in archive_bytes(work).values())
        assert_same_usage(work, small.original)  # read right after the kill: every event once
        assert not archive_usage(work).problems  # the next run (cron, the window) finishes it
        assert archive_bytes(work) == expected, f"killed at step {crash_at}/{steps}"
        for path in (work / "skill-usage").iterdir():
            path.unlink()  # every live log gone: the archive alone holds the history
        assert fields(read_usage_with_archive(work)) == fields(read_usage(small.original))
        shutil.rmtree(work)
    assert torn, "no kill left a torn line: the test did not reach the case"


def test_a_second_archiver_waits_for_the_first_and_adds_nothing_twice(small: Small,
                                                                      tmp_path: Path) -> None:
    """Two archivers at once (the window and a cron job): the second plans while the first is
    about to write a new archive file, then waits for the lock and finds nothing left to add."""
    reference = tmp_path / "reference"
    shutil.copytree(small.agent, reference)
    expected = archive_usage(reference)
    work = tmp_path / "work"
    shutil.copytree(small.agent, work)
    results: list[ArchiveResult] = []
    inside = threading.Event()

    def first() -> None:
        results.append(archive_usage(work))

    def second() -> None:
        inside.wait(10)
        results.append(archive_usage(work))

    one, two = threading.Thread(target=first), threading.Thread(target=second)

    def pause_the_first(step: int, label: str) -> None:
        if threading.current_thread() is one and label == "created" and not inside.is_set():
            inside.set()  # the first made a new archive file, not written yet: the second runs
            two.join(timeout=1.0)  # (it plans, then waits for the lock)

    crash_hook.set_checkpoint_hook(pause_the_first)
    try:
        two.start()
        one.start()
        one.join(30)
        two.join(30)
    finally:
        crash_hook.set_checkpoint_hook(None)
    assert inside.is_set() and len(results) == 2
    assert archive_bytes(work) == archive_bytes(reference)
    assert sum(r.lines for r in results) == expected.lines


# ---------------------------------------------------------------- the commands


def rockskills(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def test_archive_usage_command_is_idempotent_and_usage_marks_archive_days(small: Small,
                                                                          tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    shutil.copytree(small.agent, agent)
    first = rockskills("archive-usage", agent, "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["lines"] == sum(out["added"].values()) > 0 and out["problems"] == []
    assert set(out["added"]) == {"skill-usage/cli-session.jsonl", "skill-usage/blazor-session.jsonl",
                                 "skill-usage/session-fresh.jsonl"}
    assert Path(out["archive"]) == (agent / USAGE_ARCHIVE_DIR).resolve()
    second = rockskills("archive-usage", agent)
    assert second.returncode == 0 and second.stdout.startswith("Nothing new to archive")

    def usage(*more: str) -> dict[str, Any]:
        done = rockskills("usage", agent, "--now", NOW_TEXT, "--days", "10", "--json", *more)
        assert done.returncode == 0, done.stderr
        return cast(dict[str, Any], json.loads(done.stdout))

    before = usage()
    assert sum(before["archiveDays"].values()) == 5  # the lines RockBot cut off blazor-session
    gone = sorted((agent / "skill-usage").glob("session-*.jsonl"))[:2]
    lines = [json.loads(line) for path in gone for line in path.open(encoding="utf-8")]
    for path in gone:
        path.unlink()
    after = usage()
    assert after["counts"] == before["counts"] and after["pairs"] == before["pairs"]
    days = sorted({line["timestamp"][:10] for line in lines})
    assert set(days) <= set(after["archiveDays"])
    assert sum(after["archiveDays"].values()) == 5 + len(lines)
    live_only = usage("--no-archive")
    assert sum(live_only["counts"].values()) == sum(after["counts"].values()) - 5 - len(lines)
    text = rockskills("usage", agent, "--now", NOW_TEXT, "--days", "10").stdout
    assert f"({5 + len(lines)} event(s) from the usage archive, RockBot's logs no longer have them: " \
           f"{describe_days(after['archiveDays'])})" in text
