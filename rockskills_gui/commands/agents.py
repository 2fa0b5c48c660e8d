"""``agents``: every agent skill root on this machine and every skill in them, copies compared by
digest (the machine view, issue 33)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rockskills_gui.commands.common import CommandError, guarded, write_exact, write_json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``agents`` to the ``rockskills`` parser."""
    p = subparsers.add_parser(
        "agents", help="list every agent's skill roots and skills on this machine, copies compared",
        description="Every skill root the agent profiles find in your home folder (Claude Code, Codex, "
                    "Gemini CLI, Copilot, Cursor, Hermes, Agent Skills, PicoBot...) and in each --project, "
                    "with its agents, scope and skill count; every skill with its copies, each marked "
                    "identical or different by a sha256 digest of its folder (the Agent Skills .well-known "
                    "digest); switched-off skills, copy records, vercel-labs lock files and lint findings.")
    p.add_argument("--project", metavar="DIR", action="append", default=[],
                   help="a project folder to look in too (repeatable)")
    p.add_argument("--home", metavar="DIR", default=None,
                   help="the home folder to look in (default: yours, or $ROCKSKILLS_HOME)")
    p.add_argument("--json", action="store_true", help="machine-readable output: each root and each copy "
                                                       "with its path and digest")
    p.set_defaults(func=guarded(cmd_agents))


def _short(digest: str | None) -> str:
    return digest.removeprefix("sha256:")[:12] if digest else "(not hashed)"


def cmd_agents(args: argparse.Namespace) -> int:
    from rockskills_gui.core.machine.scan import scan_machine
    from rockskills_gui.core.storage.appdirs import home_dir

    home = Path(args.home).expanduser() if args.home else home_dir()
    projects = [Path(p).expanduser().absolute() for p in args.project]
    for folder in (home, *projects):
        if not folder.is_dir():
            raise CommandError(f"{folder}: not a folder")
    machine = scan_machine(home.absolute(), projects)
    if args.json:
        write_json(machine.as_json())
        return 0
    lines = [f"home: {machine.home}"]
    for root in machine.roots:
        aside = " (moved aside)" if root.aside else ""
        lines.append(f"  {root.scope:<9} {root.path}{aside}  [{root.agent_labels}]  {root.count} skills")
    lines.append("")
    for skill in machine.skills:
        sameness = f"  {len(skill.copies)} copies, {skill.sameness}" if skill.sameness else ""
        lines.append(f"{skill.name}{sameness}")
        marks = skill.marks()
        for i, copy in enumerate(skill.copies):
            extra = []
            if copy.disabled:
                extra.append("off for " + ", ".join(sorted(copy.disabled)))
            if copy.linked_to is not None:
                extra.append(f"link to {copy.linked_to}")
            if copy.copy_state:
                extra.append(copy.copy_state)
            if copy.lock is not None:
                extra.append(f"{copy.lock.entry.source} ({copy.lock.entry.source_type}): {copy.lock.state}")
            open_findings = [f for f in copy.gate if f.open]
            if open_findings:
                extra.append(f"{len(open_findings)} lint finding(s)")
            tail = f"  ({'; '.join(extra)})" if extra else ""
            lines.append(f"  [{marks[i]}] {_short(copy.digest)}  {copy.folder}{tail}")
    for problem in machine.problems:
        lines.append(f"problem: {problem}")
    write_exact("\n".join(lines) + "\n")
    return 0
