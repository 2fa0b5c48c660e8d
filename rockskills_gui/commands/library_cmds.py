"""``list``, ``lint``, ``index`` and ``convert``: the stable CLI contract of the foundation."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from rockskills_gui.commands.common import (
    CommandError,
    guarded,
    open_library,
    parse_now,
    write_exact,
    write_json,
)
from rockskills_gui.core.events import read_conversation_log, read_feedback, read_usage
from rockskills_gui.core.index_text import PENDING, list_skills_text, session_index_text
from rockskills_gui.core.library import Library
from rockskills_gui.core.problems import Problem, ProblemKind
from rockskills_gui.core.skill import Skill


def skill_json(skill: Skill, path: str) -> dict[str, Any]:
    """A skill as ``list --json`` prints it (timestamps in RockBot's own text)."""
    return {
        "name": skill.name,
        "summary": skill.summary,
        "createdAt": skill.created_at.isoformat(),
        "updatedAt": skill.updated_at.isoformat() if skill.updated_at else None,
        "lastUsedAt": skill.last_used_at.isoformat() if skill.last_used_at else None,
        "seeAlso": list(skill.see_also) if skill.see_also is not None else None,
        "contentLength": skill.content_units,
        "path": path,
    }


def all_problems(lib: Library) -> list[Problem]:
    """Skill-file problems plus event-log files with unreadable lines (one entry per file)."""
    problems = list(lib.problems)
    logs = (read_usage(lib.agent_dir), read_feedback(lib.agent_dir),
            read_conversation_log(lib.agent_dir))
    per_file: dict[str, list[int]] = {}
    for log in logs:
        for bad in log.malformed:
            per_file.setdefault(bad.path, []).append(bad.line)
    for path, lines in per_file.items():
        shown = ", ".join(str(n) for n in lines[:10]) + (" …" if len(lines) > 10 else "")
        problems.append(Problem(
            path=path, kind=ProblemKind.MALFORMED_LINES, severity="warning",
            message=f"{len(lines)} line(s) RockBot skips as unreadable (line {shown})",
        ))
    return problems


@guarded
def cmd_list(args: argparse.Namespace) -> int:
    """Skills in RockBot's List order."""
    lib = open_library(args.library)
    listed = lib.listed()
    if args.json:
        write_json([skill_json(s, lib.layout.display_path(lib.entry(s.name).path))
                    for s in listed])
    else:
        for skill in listed:
            summary = PENDING if skill.summary_pending else skill.summary
            write_exact(f"{skill.name}\t{summary}\n")
    return 0


@guarded
def cmd_lint(args: argparse.Namespace) -> int:
    """Files that could not be loaded, with reasons; exit 1 when there are any."""
    lib = open_library(args.library)
    problems = all_problems(lib)
    if args.json:
        write_json({"problems": [p.as_json() for p in problems]})
    else:
        for problem in problems:
            write_exact(f"{problem.path}: {problem.kind.value}: {problem.message}\n")
        print(f"{len(lib)} skills loaded, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


@guarded
def cmd_index(args: argparse.Namespace) -> int:
    """The session index text, or with --list-skills the list_skills text, byte-exact."""
    lib = open_library(args.library)
    if args.list_skills:
        write_exact(list_skills_text(lib.skills(), parse_now(args.now)))
    else:
        text = session_index_text(lib.skills())
        if text is not None:
            write_exact(text)
    return 0


@guarded
def cmd_convert(args: argparse.Namespace) -> int:
    """Write SRC's skills into a new agent directory DST (unchanged skills byte-identical)."""
    lib = open_library(args.source)
    dest = Path(args.dest).expanduser()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise CommandError(f"{dest}: already exists and is not an empty folder; nothing written")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".rsg-tmp", dir=dest.parent))
    try:
        for skill in lib.skills():
            entry = lib.entry(skill.name)
            target = staging / "skills" / entry.path.relative_to(lib.skills_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry.raw)
        (staging / "skills").mkdir(exist_ok=True)
        if dest.exists():
            dest.rmdir()
        staging.rename(dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"wrote {len(lib)} skills to {dest / 'skills'}", file=sys.stderr)
    for problem in lib.problems:
        print(f"not converted: {problem.path}: {problem.kind.value}: {problem.message}",
              file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the foundation commands."""
    p = subparsers.add_parser("list", help="skills in RockBot's List order")
    p.add_argument("library", metavar="LIB", help="agent data directory or its skills/ folder")
    p.add_argument("--json", action="store_true", help="a JSON list of skill objects")
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser("lint", help="files that could not be loaded (exit 1 if any)")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--json", action="store_true",
                   help='{"problems": [{"path", "kind", "message"}]}')
    p.set_defaults(func=cmd_lint)

    p = subparsers.add_parser("index", help="the session index or list_skills text, byte-exact")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--list-skills", action="store_true", help="print the list_skills text")
    p.add_argument("--now", metavar="ISO", help="the instant for ages (default: now)")
    p.set_defaults(func=cmd_index)

    p = subparsers.add_parser("convert", help="write SRC's skills as a new library DST")
    p.add_argument("source", metavar="SRC")
    p.add_argument("dest", metavar="DST", help="a new (or empty) folder")
    p.add_argument("--to", choices=["rockbot"], default="rockbot", help="target format")
    p.set_defaults(func=cmd_convert)
