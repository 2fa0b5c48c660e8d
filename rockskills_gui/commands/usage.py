"""``usage``: per-skill usage counts and co-used pairs, computed as RockBot's dream pass does."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rockskills_gui.commands.common import (
    CommandError,
    guarded,
    open_library,
    parse_now,
    write_exact,
    write_json,
)
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.usage.limits import TOP_PAIRS, USAGE_WINDOW_DAYS

if TYPE_CHECKING:  # the analysis (numpy) is imported when the command runs, not by the parser
    from rockskills_gui.core.usage.stats import UsageStats


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``usage`` command to the ``rockskills`` parser."""
    usage = subparsers.add_parser(
        "usage", help="usage counts and co-used skill pairs, as RockBot's dream computes them",
        description="Count get_skill events per skill (names case-insensitive) and the skill pairs "
                    "used in the same session, over the last N days (RockBot: 30 days, first "
                    "10 000 events). Pairs are listed as RockBot orders them.")
    usage.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    usage.add_argument("--days", metavar="N", type=int, default=USAGE_WINDOW_DAYS,
                       help=f"window in days before --now (default {USAGE_WINDOW_DAYS})")
    usage.add_argument("--now", metavar="ISO", help="the reference time (default: the current time)")
    usage.add_argument("--json", action="store_true",
                       help='machine-readable: {"counts", "pairs", "coUsed"}')
    usage.set_defaults(func=cmd_usage)


def usage_json(stats: UsageStats) -> dict[str, object]:
    """``{"counts": {name: n}, "pairs": [{"a", "b", "sessions"}], "coUsed": {name: [names]}}``."""
    return {
        "counts": stats.counts(),
        "pairs": [{"a": p.a, "b": p.b, "sessions": p.sessions} for p in stats.pairs],
        "coUsed": stats.co_used_map(),
    }


def usage_text(stats: UsageStats, days: int, known: set[str]) -> str:
    """Counts (descending) with deleted skills marked, then the top pairs as RockBot prints them."""
    window = stats.window.describe()
    lines = [f"Usage in the {window}: {len(stats.events)} event(s) in {stats.session_count} "
             f"session(s)"]
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


@guarded
def cmd_usage(args: argparse.Namespace) -> int:
    """Print usage counts and pairs; exit 0."""
    if args.days < 0:
        raise CommandError("--days must be 0 or more")
    from rockskills_gui.core.usage.events import read_usage
    from rockskills_gui.core.usage.stats import UsageWindow, analyze

    library = open_library(args.library)
    now = parse_now(args.now)
    stats = analyze(read_usage(library.agent_dir), UsageWindow.last_days(now, args.days))
    if args.json:
        write_json(usage_json(stats))
    else:
        write_exact(usage_text(stats, args.days, {fold(n) for n in library.names()}))
    return 0
