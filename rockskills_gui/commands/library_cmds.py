"""``list``, ``lint``, ``index`` and ``convert``: the stable CLI contract of the foundation.

Each opens a library of any format (RockBot, Agent Skills, PicoBot, carpenter, CortexPrism),
detected from the folder unless ``--format`` says otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    parse_now,
    write_exact,
    write_json,
)
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.index_text import PENDING, list_skills_text, session_index_text

# ``convert --to``: core.library.convert's TARGETS, named here so that the other commands do not
# import the converter (tests/core/test_cli_commands.py checks the two are the same).
CONVERT_TARGETS = ("rockbot", "rockbot-current", "agentskills", "picobot", "cortex-fs", "claude-code",
                   "codex", "gemini-cli", "copilot", "cursor", "hermes")


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
    if not lib.profile.holds.usage_log:  # (the agent keeps no event logs beside its skills)
        return problems
    from rockskills_gui.core.usage.events import read_conversation_log, read_feedback, read_usage

    logs = (read_usage(lib.agent_dir), read_feedback(lib.agent_dir),
            read_conversation_log(lib.agent_dir))
    per_file: dict[str, list[int]] = {}
    for log in logs:
        for bad in log.malformed:
            if bad.line == 0:  # the whole file was not read: its reason
                problems.append(Problem(path=bad.path, kind=bad.kind, severity="warning",
                                        message=bad.reason))
                continue
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
    lib = open_from_args(args)
    listed = lib.listed()
    if args.json:
        write_json([skill_json(s, lib.layout.display_path(lib.entry(s.name).path))
                    for s in listed])
    else:
        for skill in listed:
            summary = PENDING if skill.summary_pending else skill.summary
            write_exact(f"{skill.name}\t{summary}\n")
    # Files that did not load (too large, unreadable, nested too deep...): one line each on
    # stderr, so that stdout stays the list; `lint` shows them with everything else.
    for problem in lib.problems:
        if problem.severity in ("error", "warning"):
            print(f"rockskills: {problem.path}: {problem.kind}: {problem.severity}: {problem.message}",
                  file=sys.stderr)
    return 0


def _log_problems(lib: Library) -> list[Problem]:
    """Event-log files with unreadable lines (RockBot libraries only)."""
    skill_files = {p.path for p in lib.problems}
    return [p for p in all_problems(lib) if p.path not in skill_files]


@guarded
def cmd_lint(args: argparse.Namespace) -> int:
    """Every lint finding (files that could not be loaded first); exit 1 on any error or warning."""
    from rockskills_gui.core.lint.linter import fails, lint_library  # numpy: only when linting

    lib = open_from_args(args)
    findings = lint_library(lib, parse_now(args.now), extra_problems=_log_problems(lib))
    notes = [f for f in findings if f.severity == "info"]
    if not args.all:
        findings = [f for f in findings if f.severity != "info"]
    if args.json:
        write_json({"problems": [f.as_json() for f in findings]})
    else:
        for f in findings:
            at = f" (line {f.line})" if f.line else ""
            write_exact(f"{f.path}: {f.kind}: {f.severity}: {f.message}{at}\n")
        counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning")}
        counts["info"] = len(notes)
        print(f"{len(lib)} skills loaded ({lib.format}), "
              f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s)",
              file=sys.stderr)
    return 1 if fails(findings) else 0


@guarded
def cmd_index(args: argparse.Namespace) -> int:
    """The session index text, or with --list-skills the list_skills text, byte-exact."""
    lib = open_from_args(args)
    kind = lib.profile.listing.kind
    if args.list_skills:
        write_exact(list_skills_text(lib.skills(), parse_now(args.now), kind))
    else:
        text = session_index_text(lib.skills(), kind)
        if text is not None:
            write_exact(text)
    return 0


@guarded
def cmd_convert(args: argparse.Namespace) -> int:
    """Write SRC's skills as a new DST library in the --to format, with a loss report.

    Unchanged skills are written byte-identical where the formats match; what the target cannot
    hold goes to sidecars, so converting back gives the original skills.
    """
    from rockskills_gui.core.library.convert import ConvertError, convert

    lib = open_from_args(args, args.source)
    try:
        result = convert(lib, Path(args.dest), args.to)
    except ConvertError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        write_json(result.as_json())
    else:
        for loss in result.losses:
            print(f"{loss.severity}: {loss.skill}: {loss.kind}: {loss.message}", file=sys.stderr)
    for line in result.not_converted:
        print(f"not converted: {line}", file=sys.stderr)
    where = result.dest / "skills" if args.to == "rockbot" else result.dest
    print(f"wrote {len(result.written)} skills to {where} ({args.to}); {len(result.losses)} loss note(s)",
          file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the foundation commands."""
    p = subparsers.add_parser("list", help="skills in RockBot's List order")
    p.add_argument("library", metavar="LIB", help="agent data directory or its skills/ folder")
    p.add_argument("--json", action="store_true", help="a JSON list of skill objects")
    add_library_options(p)
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser("lint", help="lint findings with severities (exit 1 on errors/warnings)")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--json", action="store_true",
                   help='{"problems": [{"path", "kind", "message", "severity", "line"}]}')
    p.add_argument("--now", metavar="ISO", help="the instant for ages (default: now)")
    p.add_argument("--all", action="store_true",
                   help="also list notes (severity info: sparse, long summary, near-duplicates, …)")
    add_library_options(p)
    p.set_defaults(func=cmd_lint)

    p = subparsers.add_parser("index", help="the session index or list_skills text, byte-exact")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--list-skills", action="store_true", help="print the list_skills text")
    p.add_argument("--now", metavar="ISO", help="the instant for ages (default: now)")
    add_library_options(p)
    p.set_defaults(func=cmd_index)

    p = subparsers.add_parser("convert", help="write SRC's skills as a new library DST in another format")
    p.add_argument("source", metavar="SRC")
    p.add_argument("dest", metavar="DST", help="a new (or empty) folder")
    p.add_argument("--to", choices=CONVERT_TARGETS, default="rockbot", help="target format")
    p.add_argument("--json", action="store_true", help="print the loss report as JSON on stdout")
    add_library_options(p, "SRC's format (default: detected)")
    p.set_defaults(func=cmd_convert)
