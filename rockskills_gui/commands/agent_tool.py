"""``tool``: call one of the agent's own skill tools on a library and print what the model gets back.

The tools are the library's profile's (``core/recall/agent_tools.py``): RockBot 64e82cc's
``GetSkill``/``ListSkills``/``SaveSkill``/``DeleteSkill``, RockBot (current)'s snake_case
``get_skill``, ``list_skills``, ``save_skill``, ``edit_skill``, .... Nothing is written unless
``--write`` is given (``edit_skill``, ``save_skill``), then as one undoable change.
"""

from __future__ import annotations

import argparse

from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    parse_now,
    read_input,
    write_exact,
)

TOOLS = ("tools", "get_skill", "list_skills", "save_skill", "edit_skill")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tool`` to the ``rockskills`` parser."""
    p = subparsers.add_parser(
        "tool", help="call the agent's own skill tool (get_skill, edit_skill, ...) and print its answer",
        description="Print exactly what one of the agent's skill tools returns to the model for this "
                    "library ('tools': their wire names and descriptions). edit_skill and save_skill "
                    "write only with --write (one undoable change); get_skill does not stamp "
                    "lastUsedAt or log usage here.")
    p.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    p.add_argument("tool", metavar="TOOL", help=", ".join(TOOLS) + " (get_skill or GetSkill alike)")
    p.add_argument("name", metavar="NAME", nargs="?", help="the skill name, as the model would pass it")
    p.add_argument("--old", metavar="TEXT", help="edit_skill's old_string")
    p.add_argument("--new", metavar="TEXT", default="", help="edit_skill's new_string (default: empty)")
    p.add_argument("--replace-all", action="store_true", help="edit_skill's replace_all")
    p.add_argument("--content-file", metavar="FILE", help="save_skill's content ('-' = stdin)")
    p.add_argument("--now", metavar="ISO", help="list_skills: the instant for ages (default: now)")
    p.add_argument("--write", action="store_true", help="edit_skill, save_skill: write the result")
    add_library_options(p)
    p.set_defaults(func=cmd_tool)


def _key(tool: str) -> str:
    """``GetSkill`` / ``get_skill`` -> ``get_skill``."""
    key = "".join(f"_{c.lower()}" if c.isupper() else c for c in tool).lstrip("_").lower()
    if key not in TOOLS:
        raise CommandError(f"unknown tool {tool!r}: use one of {', '.join(TOOLS)}")
    return key


@guarded
def cmd_tool(args: argparse.Namespace) -> int:
    """One agent tool call on the library."""
    from rockskills_gui.core.model.names import fold
    from rockskills_gui.core.recall import agent_tools as at
    from rockskills_gui.core.storage.changes import LibraryError

    key = _key(args.tool)
    lib = open_from_args(args)
    profile = lib.profile
    tools = profile.injection.tools
    names = at.tool_names(tools)
    if key == "tools":
        if not names:
            raise CommandError(f"{profile.label} has no skill tools of RockBot's kind")
        for k, wire in names.items():
            about = at.description(tools, k)
            write_exact(f"{wire}\n" + (f"  {about}\n" if about else ""))
        return 0
    if key not in names:
        have = ", ".join(names.values()) or "none"
        raise CommandError(f"{profile.label} has no {key} tool (its skill tools: {have})")
    if key == "list_skills":
        from rockskills_gui.core.recall.index_text import list_skills_text

        write_exact(list_skills_text(lib.skills(), parse_now(args.now), profile.listing.kind))
        return 0
    if not args.name:
        raise CommandError(f"{names[key]} needs NAME")
    try:
        if key == "get_skill":
            write_exact(at.get_skill_result(lib.get(args.name), args.name, tools))
            return 0
        if key == "edit_skill":
            if args.old is None:
                raise CommandError("edit_skill needs --old TEXT")
            if args.write:
                message = at.agent_edit(lib, args.name, args.old, args.new, args.replace_all).message
            else:
                message = at.edit_skill(lib.get(args.name), args.name, args.old, args.new,
                                        args.replace_all, lib.clock()).message
            write_exact(message + "\n")
            return 0
        if args.content_file is None:
            raise CommandError("save_skill needs --content-file FILE")
        try:
            content = read_input(args.content_file, "--content-file", stdin=True).decode("utf-8")
        except UnicodeDecodeError:
            raise CommandError(f"--content-file {args.content_file}: not UTF-8 text") from None
        if args.write:
            write_exact(at.agent_save(lib, args.name, content).message + "\n")
        else:
            now = lib.clock()
            record = at.save_skill_record(lib.get(args.name), args.name, content, now, tools,
                                          profile.storage.null_properties)
            rest = [s for s in lib.skills() if fold(s.name) != fold(args.name)]
            write_exact(at.save_skill_message(args.name, [*rest, record], now, profile) + "\n")
    except LibraryError as exc:
        raise CommandError(str(exc)) from None
    return 0
