"""``archived`` and ``restore``: the skill archive a dream apply (or an archive by hand) fills,
listed, purged and restored byte for byte."""

from __future__ import annotations

import argparse
import sys

from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    parse_now,
    write_exact,
    write_json,
)
from rockskills_gui.core.storage.changes import ConflictError, LibraryError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``archived`` and ``restore`` to the ``rockskills`` parser."""
    listing = subparsers.add_parser(
        "archived", help="list the archived skills (what a dream deleted, pruned or merged away)",
        description="List the skills in the library's archive, newest first: when, why (the plan's "
                    "proposal, what absorbed it) and where it lived. RockBot keeps it in "
                    ".rockskills/archive/ (outside skills/), a SKILL.md library in <root>/.archive/: "
                    "no agent loads it. --check compares each entry's files with its record.")
    listing.add_argument("library", metavar="LIB", help="agent directory, its skills/ folder, or a "
                                                        "SKILL.md library")
    add_library_options(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.add_argument("--check", action="store_true",
                         help="read every archived file and say which changed since it was archived")
    listing.add_argument("--purge-older-than", metavar="DAYS", type=int,
                         help="first remove from the archive what was archived more than DAYS days ago")
    listing.add_argument("--now", metavar="ISO", help="the reference time of --purge-older-than")
    listing.set_defaults(func=cmd_archived)

    restore = subparsers.add_parser(
        "restore", help="restore an archived skill, byte for byte",
        description="Put an archived skill back where it was, byte for byte, and remove it from the "
                    "archive (one journaled change). Refused, with nothing written, while the name is "
                    "taken: restore it under another name with --as.")
    restore.add_argument("library", metavar="LIB", help="agent directory, its skills/ folder, or a "
                                                        "SKILL.md library")
    restore.add_argument("name", metavar="NAME", help="the archived skill's name or its entry "
                                                      "(rockskills archived LIB)")
    restore.add_argument("--as", dest="as_name", metavar="NEW", help="restore it under this name")
    add_library_options(restore)
    restore.set_defaults(func=cmd_restore)


@guarded
def cmd_archived(args: argparse.Namespace) -> int:
    """List (after purging, when asked) the archived skills; exit 0."""
    from rockskills_gui.core.library.archive import purge_archive
    from rockskills_gui.core.library.archive_records import archived

    library = open_from_args(args)
    if args.purge_older_than is not None:
        if args.purge_older_than < 0:
            raise CommandError("--purge-older-than: give a number of days (0 or more)")
        try:
            change = purge_archive(library, args.purge_older_than, parse_now(args.now))
        except LibraryError as exc:
            print(f"rockskills: {exc}", file=sys.stderr)
            return 1
        if change.files:
            print(f"{change.label}", file=sys.stderr)
    skills, problems = archived(library, check=args.check)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    if args.json:
        write_json({"archived": [{
            "name": s.name, "entry": s.entry, "folder": library.layout.display_path(s.folder),
            "archivedAt": s.record.archived_at if s.record else None,
            "action": s.record.action if s.record else None,
            "plan": s.record.plan if s.record else None,
            "proposal": s.record.proposal if s.record else None,
            "absorbedInto": s.record.absorbed_into if s.record else None,
            "origin": s.record.origin if s.record else None,
            "files": [f.path for f in s.record.files] if s.record else None,
            "why": s.why(), **({"damage": s.damage} if args.check else {})} for s in skills]})
        return 0
    if not skills:
        write_exact("the archive is empty\n")
        return 0
    lines = []
    for s in skills:
        when = s.record.archived_at[:19].replace("T", " ") if s.record else "?"
        lines.append(f"{s.name}  [{s.entry}]  {when}  {s.why()}")
        if s.record is not None:
            lines.append(f"    from {s.record.origin}; {len(s.record.files)} file(s)"
                         + (f"; {s.record.reason}" if s.record.reason else ""))
        if s.damage:
            lines.append(f"    changed: {s.damage}")
    write_exact("\n".join(lines) + "\n")
    return 0


@guarded
def cmd_restore(args: argparse.Namespace) -> int:
    """Restore one archived skill; exit 1 when refused (nothing written)."""
    from rockskills_gui.core.library.archive import ArchiveError, restore_skill

    library = open_from_args(args)
    try:
        change = restore_skill(library, args.name, args.as_name)
    except (ArchiveError, ConflictError, LibraryError) as exc:
        print(f"rockskills: {exc}", file=sys.stderr)
        return 1
    write_exact(f"{change.label}: " + ", ".join(library.layout.display_path(fc.path)
                                                for fc in change.files if fc.before is None) + "\n")
    return 0
