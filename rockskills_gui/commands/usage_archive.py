"""``archive-usage``: copy the usage log lines RockBot's retention pass will delete into the app's
usage archive (``<agent>/.rockskills/usage-archive``); made to run from cron."""

from __future__ import annotations

import argparse
import sys

from rockskills_gui.commands.common import CommandError, guarded, write_exact, write_json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``archive-usage`` command to the ``rockskills`` parser."""
    command = subparsers.add_parser(
        "archive-usage", help="keep usage history past RockBot's 30-day log retention",
        description="Append every skill-usage/*.jsonl line not archived yet to the app's usage "
                    "archive (AGENT/.rockskills/usage-archive/, outside skills/). A current RockBot "
                    "deletes usage logs not written for 30 days (and all but the newest 1,000, and "
                    "cuts each to its last 50,000 lines) at the start of each dream cycle; "
                    "`rockskills usage` and the Usage tab count the archive and the live logs "
                    "together, each event once. Idempotent: run it from cron, e.g. every 6 hours.")
    command.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    command.add_argument("--json", action="store_true",
                         help='machine-readable: {"archive", "added": {file: lines}, "lines", '
                              '"problems": [{"path", "reason"}]}')
    command.set_defaults(func=cmd_archive_usage)


@guarded
def cmd_archive_usage(args: argparse.Namespace) -> int:
    """Archive new usage lines; exit 0, or 1 when a log file could not be archived."""
    from rockskills_gui.core.storage.file_lock import LockBusy
    from rockskills_gui.core.storage.layout import Layout, NotALibraryError
    from rockskills_gui.core.usage.archive import ArchiveUnavailable, archive_usage

    try:
        agent_dir = Layout.locate(args.library).agent_dir
    except NotALibraryError as exc:
        raise CommandError(str(exc)) from None
    try:
        result = archive_usage(agent_dir)
    except (ArchiveUnavailable, LockBusy) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        write_json({"archive": str(result.folder), "added": result.added, "lines": result.lines,
                    "problems": [{"path": p.path, "reason": p.reason} for p in result.problems]})
    else:
        for problem in result.problems:
            print(f"rockskills: {problem.path}: {problem.reason}", file=sys.stderr)
        if result.added:
            width = len(str(max(result.added.values())))
            lines = [f"Archived {result.lines} new line(s) from {len(result.added)} log file(s) "
                     f"into {result.folder}"]
            lines += [f"  {n:>{width}}  {name}" for name, n in result.added.items()]
        else:
            lines = [f"Nothing new to archive ({result.folder})"]
        write_exact("\n".join(lines) + "\n")
    return 1 if result.problems else 0
