"""``usage``: per-skill usage counts and co-used pairs, computed as RockBot's dream pass does;
for a RockBot (current) agent also the resource reads per skill (``skill-resource-usage.jsonl``)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from rockskills_gui.commands.common import (
    CommandError,
    add_link_option,
    guarded,
    open_library,
    parse_now,
    write_exact,
    write_json,
)
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.usage.limits import TOP_PAIRS, USAGE_WINDOW_DAYS

if TYPE_CHECKING:  # the analysis (numpy) is imported when the command runs, not by the parser
    from rockskills_gui.core.model.timestamps import Timestamp
    from rockskills_gui.core.usage.resource_usage import ResourceUsage, SkillReads
    from rockskills_gui.core.usage.stats import UsageStats


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``usage`` command to the ``rockskills`` parser."""
    usage = subparsers.add_parser(
        "usage", help="usage counts and co-used skill pairs, as RockBot's dream computes them",
        description="Count get_skill events per skill (names case-insensitive) and the skill pairs "
                    "used in the same session, over the last N days (RockBot: 30 days, first "
                    "10 000 events). Pairs are listed as RockBot orders them. A RockBot (current) "
                    "agent also gets its resource reads per skill and file over the same days "
                    "(skill-resource-usage.jsonl; resources never read listed with 0).")
    usage.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    add_link_option(usage)
    usage.add_argument("--days", metavar="N", type=int, default=USAGE_WINDOW_DAYS,
                       help=f"window in days before --now (default {USAGE_WINDOW_DAYS})")
    usage.add_argument("--now", metavar="ISO", help="the reference time (default: the current time)")
    usage.add_argument("--json", action="store_true",
                       help='machine-readable: {"counts", "pairs", "coUsed"} (RockBot current: '
                            'also "resourceReads", and "archiveDays": {day: events only the usage '
                            'archive still has}, given for 64e82cc too when there are any)')
    usage.add_argument("--no-archive", action="store_true",
                       help="count the live logs only, as RockBot itself sees them (default: also "
                            "the usage archive that `rockskills archive-usage` keeps)")
    usage.set_defaults(func=cmd_usage)


def usage_json(stats: UsageStats) -> dict[str, object]:
    """``{"counts": {name: n}, "pairs": [{"a", "b", "sessions"}], "coUsed": {name: [names]}}``."""
    return {
        "counts": stats.counts(),
        "pairs": [{"a": p.a, "b": p.b, "sessions": p.sessions} for p in stats.pairs],
        "coUsed": stats.co_used_map(),
    }


def usage_text(stats: UsageStats, days: int, known: set[str],
               archived: dict[str, int] | None = None) -> str:
    """Counts (descending) with deleted skills marked, then the top pairs as RockBot prints them;
    ``archived``: per day the events only the usage archive still has."""
    window = stats.window.describe()
    lines = [f"Usage in the {window}: {len(stats.events)} event(s) in {stats.session_count} "
             f"session(s)"]
    if archived:
        from rockskills_gui.core.usage.archive_read import describe_days

        lines.append(f"({sum(archived.values())} event(s) from the usage archive, RockBot's logs "
                     f"no longer have them: {describe_days(archived)})")
    if stats.truncated:
        lines.append(f"(RockBot reads only the first {stats.window.cap} events: "
                     f"{stats.truncated} newer one(s) left out)")
    if stats.skipped:
        lines.append(f"({len(stats.skipped)} event(s) without a skill name or session id left out)")
    width = max((len(str(u.events)) for u in stats.usage.values()), default=1)
    for entry in stats.by_usage():
        mark = "  (no such skill)" if fold(entry.name) not in known else ""
        lines.append(f"  {entry.events:>{width}}  {entry.name}{mark}")
    if stats.pairs:
        lines.append("")
        lines.append(f"Frequently co-used skill pairs (across sessions in last {days} days):")
        lines.extend(stats.top_pair_lines(TOP_PAIRS))
    return "\n".join(lines) + "\n"


def _when(stamp: Timestamp | None) -> str | None:
    return stamp.isoformat() if stamp is not None else None


def resource_reads_json(rows: list[SkillReads]) -> list[dict[str, object]]:
    """``[{"skill", "inLibrary", "reads", "sessions", "lastRead", "files": [{"filename", "reads",
    "sessions", "lastRead", "resource"}]}]`` in :func:`reads_by_skill` order."""
    return [{"skill": r.skill, "inLibrary": r.in_library, "reads": r.reads, "sessions": r.sessions,
             "lastRead": _when(r.last_read),
             "files": [{"filename": f.filename, "reads": f.reads, "sessions": f.sessions,
                        "lastRead": _when(f.last_read), "resource": f.resource} for f in r.files]}
            for r in rows]


def resource_reads_text(usage: ResourceUsage, rows: list[SkillReads], window: str) -> str:
    """The resource-read section: per skill its reads, then each file indented below it."""
    from rockskills_gui.core.model.rules import RESOURCE_USAGE_FILE

    total = sum(r.reads for r in rows)
    lines = ["", f"Resource reads in the {window} ({RESOURCE_USAGE_FILE}): {total} read(s), "
                 f"{sum(1 for r in rows if r.reads)} skill(s) read from"]
    if not usage.log.events and not usage.log.malformed:
        lines.append(f"({RESOURCE_USAGE_FILE} is absent or empty: RockBot (current) logs each "
                     "get_skill_resource call there)")
    if usage.log.malformed:
        lines.append(f"({len(usage.log.malformed)} line(s) RockBot would skip)")
    width = max((len(str(r.reads)) for r in rows), default=1)
    for row in rows:
        mark = "" if row.in_library else "  (no such skill)"
        last = f", last read {_when(row.last_read)}" if row.last_read is not None else ""
        lines.append(f"  {row.reads:>{width}}  {row.skill}{mark}  ({row.sessions} session(s){last})")
        for f in row.files:
            note = "" if f.resource else "  (not a resource of the skill)"
            when = f"  (last read {_when(f.last_read)})" if f.last_read is not None else ""
            lines.append(f"  {'':>{width}}  {f.reads:>{width}}  {f.filename}{note}{when}")
    return "\n".join(lines) + "\n"


@guarded
def cmd_usage(args: argparse.Namespace) -> int:
    """Print usage counts and pairs; exit 0."""
    if args.days < 0:
        raise CommandError("--days must be 0 or more")
    from rockskills_gui.core.usage.archive_read import archive_days, read_usage_with_archive
    from rockskills_gui.core.usage.events import read_usage
    from rockskills_gui.core.usage.stats import UsageWindow, analyze

    library = open_library(args.library, "rockbot", link_targets=args.allow_link_target,
                           say_format=False)
    now = parse_now(args.now)
    window = UsageWindow.last_days(now, args.days)
    log = (read_usage if args.no_archive else read_usage_with_archive)(library.agent_dir)
    for bad in log.malformed:  # a log not read at all (a FIFO, too large): say why, on stderr
        if bad.line == 0:
            print(f"rockskills: {bad.path}: {bad.reason}", file=sys.stderr)
    stats = analyze(log, window)
    archived = archive_days(stats.events) if log.archived else {}
    reads: tuple[ResourceUsage, list[SkillReads]] | None = None
    if library.profile.holds.resource_reads:  # 64e82cc logs none: its output stays as it was
        from rockskills_gui.core.usage.resource_usage import reads_by_skill, resource_usage

        usage = resource_usage(library.agent_dir, window.since)
        reads = (usage, reads_by_skill(usage, library))
    if args.json:
        out = usage_json(stats)
        if library.profile.holds.usage_retention or archived:  # (64e82cc prunes no logs: as it was)
            out["archiveDays"] = archived
        if reads is not None:
            out["resourceReads"] = resource_reads_json(reads[1])
        write_json(out)
    else:
        text = usage_text(stats, args.days, {fold(n) for n in library.names()}, archived)
        if reads is not None:
            text += resource_reads_text(*reads, window.describe())
        write_exact(text)
    return 0
