"""``agents``: every agent skill root on this machine and every skill in them, copies compared by
digest (the machine view, issue 33)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rockskills_gui.commands.common import CommandError, guarded, write_exact, write_json

if TYPE_CHECKING:
    from rockskills_gui.core.machine.scan import Copy, Machine, MachineRoot
    from rockskills_gui.core.model.profile import AgentProfile


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
    ops = p.add_argument_group(
        "changes", "one step, all or nothing: every file is listed first; any refusal writes nothing "
                   "(exit 1). FOLDER is a skill folder the listing shows; undo: the inverse option, or "
                   "the folder's Skill Archive")
    ops.add_argument("--copy", metavar="FOLDER", action="append", default=[],
                     help="copy this skill into --to (checked by that agent's rules and the lint gate)")
    ops.add_argument("--link", metavar="FOLDER", action="append", default=[],
                     help="symbolically link this skill into --to")
    ops.add_argument("--to", metavar="ROOT", help="the skill folder root to copy or link into")
    ops.add_argument("--disable", metavar="FOLDER", action="append", default=[],
                     help="switch this skill off for --agent (its own setting, else moved aside)")
    ops.add_argument("--enable", metavar="FOLDER", action="append", default=[],
                     help="switch this skill on again for --agent")
    ops.add_argument("--agent", metavar="ID", help="the agent (profile id) --copy/--link/--disable/--enable "
                                                   "are for")
    ops.add_argument("--archive", metavar="FOLDER", action="append", default=[],
                     help="move this skill into its root's .archive (restorable from the Skill Archive)")
    ops.add_argument("--dry-run", action="store_true", help="list what would be written; write nothing")
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
    if args.copy or args.link or args.disable or args.enable or args.archive:
        return _change(machine, args)
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


def _copy_at(machine: Machine, folder: str) -> Copy:
    path = Path(folder).expanduser().absolute()
    found = next((c for c in machine.copies() if c.folder == path), None)
    if found is None:
        raise CommandError(f"{path}: not a skill folder of the roots found (see rockskills agents)")
    return found


def _agent(machine: Machine, wanted: str | None, root: MachineRoot) -> AgentProfile:
    from rockskills_gui.core.model.profiles import PROFILES

    if wanted is None:
        return root.own_agent
    profile = PROFILES.get(wanted)
    if profile is None or profile.id not in root.agent_ids:
        readers = ", ".join(root.agent_ids)
        raise CommandError(f"--agent {wanted}: not an agent reading {root.path} (it is read by {readers})")
    return profile


def _change(machine: Machine, args: argparse.Namespace) -> int:
    """Build the asked changes as one step, list it, and write it unless refused or a dry run."""
    from rockskills_gui.core.machine import ops
    from rockskills_gui.core.machine.changes import MachineError, apply_change
    from rockskills_gui.core.storage.changes import LibraryError

    b = ops.Builder(machine)
    refused: list[str] = []
    try:
        if args.copy or args.link:
            target = machine.root_at(Path(args.to).expanduser().absolute()) if args.to else None
            if target is None:
                raise CommandError("--copy/--link need --to ROOT, one of the roots the listing shows")
            agent = _agent(machine, args.agent, target)
            for mode, folders in (("copy", args.copy), ("link", args.link)):
                for folder in folders:
                    copy = _copy_at(machine, folder)
                    check = ops.copy_to(b, copy, target, agent, mode)
                    if check.refused:
                        refused.append(f"{copy.folder}: {check.refused}")
                    elif check.findings:
                        refused.append(f"{copy.folder}: {len(check.findings)} lint finding(s) not accepted "
                                       "(accept them with a reason in the Machine tab first)")
        for on, folders in ((False, args.disable), (True, args.enable)):
            if folders and args.agent is None:
                raise CommandError("--disable/--enable need --agent ID")
            for folder in folders:
                copy = _copy_at(machine, folder)
                ops.set_enabled(b, copy, _agent(machine, args.agent, copy.root), on)
        for folder in args.archive:
            ops.archive_copy(b, _copy_at(machine, folder))
        change = b.build("rockskills agents")
    except MachineError as exc:
        print(f"rockskills: {exc}", file=sys.stderr)
        return 1
    lines = [*change.preview(), *(f"also: {n}" for n in change.notes), *(f"refused: {r}" for r in refused)]
    if refused:
        lines.append("nothing was written")
    elif args.dry_run:
        lines.append("dry run: nothing was written")
    elif not change.empty:
        try:
            apply_change(change)
        except LibraryError as exc:
            print(f"rockskills: {exc}", file=sys.stderr)
            return 1
        lines.append(f"written: {len(change.files())} file(s), {len(change.link_changes())} link(s)")
    else:
        lines.append("nothing to change")
    write_exact("\n".join(lines) + "\n")
    return 1 if refused else 0
