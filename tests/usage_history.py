"""A RockBot agent directory with weeks of per-session usage logs, and RockBot's log retention.

:func:`make_history_agent` writes ``skill-usage/<session>.jsonl`` files as a running agent does
(one line per ``get_skill``, in RockBot's exact format; each file's modification time is its last
event's), plus two long-lived sessions that span every day. Some sessions log one identical line
twice in a row (a line without an id, retried): the archive must keep both.

:func:`rockbot_retention` is RockBot's retention pass, written from its source, not from the app:
``src/RockBot.Host/JsonlLogRetention.cs`` at MarimerLLC/rockbot@5389c1634b22e14ac951c44fd5b334345dae4c61
(``PruneAgedFilesAsync``, ``TrimSessionFilesAsync``), with the limits of
``src/RockBot.Host.Abstractions/DreamOptions.cs`` at 150a84c01b39ae6b4c0a71f084d0c70889f1be70
(30 days, 1,000 files, 50,000 lines).
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.rockbot_current import rockbot_json, skill

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
NOW_TEXT = "2026-11-22T12:00:00+00:00"
SKILL_NAMES = ("mcp/email", "mcp/calendar", "plan-meeting", "daily-standup", "write-report",
               "research/paper", "web/search", "memory", "scripts/csv-report", "travel/booking")
LONG_SESSIONS = ("cli-session", "blazor-session")  # written every day: never aged out

# RockBot's defaults (DreamOptions @ 150a84c): LogRetentionMaxFileAge, ...MaxFilesPerDirectory,
# ...MaxLinesPerFile.
MAX_AGE = timedelta(days=30)
MAX_FILES = 1000
MAX_LINES = 50_000


def stamp(when: datetime) -> str:
    """A DateTimeOffset as System.Text.Json writes it (7 fraction digits, ``+00:00``)."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f") + "0+00:00"


def usage_line(event_id: str | None, name: str, session: str, when: datetime) -> str:
    """One SkillUsageEvent line (property order of the record, no spaces)."""
    record = {"id": event_id, "skillName": name, "sessionId": session, "timestamp": stamp(when)}
    if event_id is None:
        del record["id"]
    return json.dumps(record, separators=(",", ":"))


@dataclass(frozen=True)
class History:
    root: Path
    sessions: int  # per-session files written
    lines: int  # usage lines written in all


def make_history_agent(root: Path, days: int = 60, sessions_per_day: int = 35,
                       old_sessions_per_day: int = 5, long_lines: int = 60_000,
                       seed: int = 7) -> History:
    """An agent directory at ``root`` whose usage logs cover ``days`` days before :data:`NOW`:
    ``sessions_per_day`` sessions a day in the last 30 days (35: more than 1,000 files RockBot
    keeps), ``old_sessions_per_day`` before; one long session of ``long_lines`` lines."""
    rng = random.Random(seed)
    skills = root / "skills"
    for name in SKILL_NAMES:
        path = skills / (name + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rockbot_json(skill(name, f"{name} summary", f"How to {name}.")))
    usage = root / "skill-usage"
    usage.mkdir(parents=True)
    start = NOW - timedelta(days=days) + timedelta(hours=1)
    written = sessions = 0

    def write(path: Path, lines: list[str], last: datetime) -> None:
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        os.utime(path, (last.timestamp(), last.timestamp()))

    for day in range(days):
        recent = start + timedelta(days=day) >= NOW - MAX_AGE
        for number in range(sessions_per_day if recent else old_sessions_per_day):
            begin = start + timedelta(days=day, minutes=rng.randrange(0, 22 * 60))
            session = f"session-{begin:%Y-%m-%d}-{number:02d}{rng.randrange(16 ** 4):04x}"
            lines, when = [], begin
            for _ in range(rng.randint(1, 5)):
                when += timedelta(seconds=rng.randrange(5, 600))
                lines.append(usage_line(f"{rng.randrange(16 ** 12):012x}", rng.choice(SKILL_NAMES),
                                        session, when))
            if number % 7 == 0:  # the same line twice: two events, not one
                lines.append(usage_line(None, rng.choice(SKILL_NAMES), session, when))
                lines.append(lines[-1])
            write(usage / f"{session}.jsonl", lines, when)
            written += len(lines)
            sessions += 1
    for index, session in enumerate(LONG_SESSIONS):
        count = long_lines if index == 0 else 300
        step = (NOW - timedelta(hours=1) - start) / count
        lines = []
        for k in range(count):
            when = start + step * k
            event_id = None if k % 997 == 0 else f"{rng.randrange(16 ** 12):012x}"
            lines.append(usage_line(event_id, rng.choice(SKILL_NAMES), session, when))
            if event_id is None:
                lines.append(lines[-1])
        write(usage / f"{session}.jsonl", lines, NOW - timedelta(hours=1))
        written += len(lines)
    return History(root, sessions, written)


def _dotnet_lines(data: bytes) -> list[str]:
    """``File.ReadAllLines``: ``\\r\\n``, ``\\r`` and ``\\n`` end a line; no empty last line."""
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def rockbot_retention(folder: Path, now: datetime) -> dict[str, int]:
    """RockBot's retention pass over one per-session log folder (``JsonlLogRetention``):

    1. delete each top-level ``*.jsonl`` whose LastWriteTimeUtc < now - 30 days;
    2. then, if more than 1,000 remain, delete the oldest by LastWriteTimeUtc down to 1,000;
    3. each remaining file of at least 50,000 bytes that has more than 50,000 lines is rewritten
       (``{file}.tmp``, then moved over it) with its last 50,000 lines, each ending in ``\\n``.

    Returns how many files each step deleted or trimmed."""
    cutoff = (now - MAX_AGE).timestamp()
    files = sorted(p for p in folder.iterdir() if p.name.endswith(".jsonl") and p.is_file())
    aged = [p for p in files if p.stat().st_mtime < cutoff]
    for path in aged:
        path.unlink()
    files = [p for p in files if p not in aged]
    over = max(0, len(files) - MAX_FILES)
    by_age = sorted(files, key=lambda p: p.stat().st_mtime)
    for path in by_age[:over]:
        path.unlink()
    trimmed = 0
    for path in by_age[over:]:
        if path.stat().st_size < MAX_LINES:
            continue
        lines = _dotnet_lines(path.read_bytes())
        if len(lines) <= MAX_LINES:
            continue
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes("".join(line + "\n" for line in lines[-MAX_LINES:]).encode("utf-8"))
        os.replace(tmp, path)
        trimmed += 1
    return {"aged": len(aged), "over": over, "trimmed": trimmed}
