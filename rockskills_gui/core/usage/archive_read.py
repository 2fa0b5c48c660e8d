"""Usage events from the live logs and the usage archive together, each event counted once.

Per log file name (``skill-usage/<name>``): the archive's lines the live file no longer has
(RockBot's retention deleted the file or cut its oldest lines), then every line of the live file
(:func:`~.archive_align.overlap` says where the live file continues the archive). The first are
:class:`~.events.ArchivedUsageEvent`; with no archive at all the log is exactly
:func:`~.events.read_usage`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from rockskills_gui.core.model.size_limits import LOG_FILE_MAX_BYTES, LOG_LINE_MAX_BYTES
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.layout import USAGE_ARCHIVE_DIR, USAGE_DIR
from rockskills_gui.core.storage.line_reader import read_lines
from rockskills_gui.core.usage.archive import archive_files, live_logs, read_archived, read_log, texts
from rockskills_gui.core.usage.archive_align import overlap
from rockskills_gui.core.usage.events import (
    ArchivedUsageEvent,
    EventLog,
    UsageEvent,
    parse_usage_lines,
    read_usage,
    unread_file,
)


def read_usage_with_archive(agent_dir: Path) -> EventLog[UsageEvent]:
    """``skill-usage/*.jsonl`` merged with the usage archive, in file name order (per name: the
    lines only the archive has, then the live file). ``log.archived`` counts the events only the
    archive has; an archive file that cannot be read is reported and left out (its live file
    still counts)."""
    agent_dir = Path(agent_dir)
    archived = archive_files(agent_dir)
    if not archived:
        return read_usage(agent_dir)
    log: EventLog[UsageEvent] = EventLog()
    live = {p.name: p for p in live_logs(agent_dir, USAGE_DIR, log.malformed)}
    for name in sorted(live.keys() | archived.keys()):
        shown = f"{USAGE_DIR}/{name}"
        kept: list[tuple[int, str | None]] = []
        if name in archived:
            try:  # the archive first: whatever it holds, the live file read after continues it
                kept = read_archived(archived[name])
            except OSError as exc:
                log.malformed.append(unread_file(archived[name], f"{USAGE_ARCHIVE_DIR}/{shown}", exc))
        path = live.get(name)
        try:
            if path is not None and not kept:
                parse_usage_lines(read_lines(path, LOG_LINE_MAX_BYTES, LOG_FILE_MAX_BYTES), shown, log)
                continue
            lines, whole = read_log(path) if path is not None else ([], 0)
        except OSError as exc:
            log.malformed.append(unread_file(path or archived[name], shown, exc))
            lines, whole = [], 0
        shared = overlap(texts(kept), texts(lines[:whole]))
        parse_usage_lines(kept[:len(kept) - shared], f"{USAGE_ARCHIVE_DIR}/{shown}", log, archived=True)
        parse_usage_lines(lines, shown, log)
    return log


def utc_day(stamp: Timestamp) -> str:
    """``YYYY-MM-DD`` of ``stamp`` in UTC."""
    return Timestamp.from_utc_ticks(stamp.utc_ticks).isoformat()[:10]


def archive_days(events: Iterable[UsageEvent]) -> dict[str, int]:
    """Per UTC day (``YYYY-MM-DD``, in order) the number of ``events`` only the archive has."""
    counts = Counter(utc_day(e.timestamp) for e in events if isinstance(e, ArchivedUsageEvent))
    return dict(sorted(counts.items()))


def day_ranges(days: Iterable[str]) -> list[tuple[str, str]]:
    """Consecutive ``YYYY-MM-DD`` days joined: ``[(first, last), …]``."""
    ranges: list[tuple[str, str]] = []
    previous: Timestamp | None = None
    for day in sorted(days):
        stamp = Timestamp.parse(f"{day}T00:00:00+00:00")
        if previous is not None and ranges and stamp.utc_ticks == previous.add_days(1).utc_ticks:
            ranges[-1] = (ranges[-1][0], day)
        else:
            ranges.append((day, day))
        previous = stamp
    return ranges


def describe_days(days: Iterable[str]) -> str:
    """``2026-10-01 – 2026-10-20, 2026-10-24`` for those days."""
    return ", ".join(a if a == b else f"{a} – {b}" for a, b in day_ranges(days))


def archive_bytes(agent_dir: Path) -> int:
    """The size of the usage archive's files (0 when there is none)."""
    total = 0
    for path in archive_files(agent_dir).values():
        try:
            total += path.lstat().st_size
        except OSError:
            continue
    return total
