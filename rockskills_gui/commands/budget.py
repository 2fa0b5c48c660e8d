"""``budget``: what each agent really sees of a library (its skill advertisement and limits)."""

from __future__ import annotations

import argparse
import dataclasses

from rockskills_gui.commands.arg_types import limit
from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    write_exact,
    write_json,
)

LIMIT_OPTIONS = (("--max-chars", "max_chars", "characters"), ("--max-skills", "max_skills", "skills"),
                 ("--max-tokens", "max_tokens", "tokens"),
                 ("--context-window", "context_window", "tokens of context window"))



def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``budget`` to the ``rockskills`` parser."""
    p = subparsers.add_parser(
        "budget", help="show the skill list each agent puts in its prompt, its size and what it hides",
        description="For each agent profile: the exact text it uses to advertise skills, its size in "
                    "characters and tokens (tiktoken cl100k_base, offline), the skills a limit leaves "
                    "out, and suggestions. Limits are the saved ones (the Budget tab) unless given.")
    p.add_argument("library", metavar="LIB", help="agent directory or skills folder")
    p.add_argument("--profile", metavar="P", default=None,
                   help="rockbot, rockbot-current, agentskills, picobot, cortex, carpenter, claude-code, "
                        "codex, gemini-cli, copilot, cursor, hermes or all (default: the library's own "
                        "agent)")
    for flag, _field, unit in LIMIT_OPTIONS:
        p.add_argument(flag, type=limit, default=argparse.SUPPRESS, metavar="N",
                       help=f"assume at most N {unit} (none: no limit) instead of the saved limit")
    p.add_argument("--text", action="store_true",
                   help="print only the exact advertised text (one profile)")
    p.add_argument("--fail-on-hidden", action="store_true",
                   help="exit 1 when a limit hides any skill (for CI)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_library_options(p)
    p.set_defaults(func=guarded(cmd_budget))


def cmd_budget(args: argparse.Namespace) -> int:
    from rockskills_gui.core.budget.limits import LimitsStore
    from rockskills_gui.core.budget.report import agents_for, limits_for, report, text_report
    from rockskills_gui.core.budget.tokens import try_tokenizer

    library = open_from_args(args)
    try:
        agents = agents_for(library, args.profile)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.text and len(agents) != 1:
        raise CommandError("--text shows one profile: give --profile")
    store = LimitsStore()
    given = {f: getattr(args, f) for _flag, f, _unit in LIMIT_OPTIONS if hasattr(args, f)}
    tokenizer, why = try_tokenizer()
    results = []
    for agent in agents:
        limits = dataclasses.replace(limits_for(agent.id, store, library), **given)
        results += report(library, [agent], store, tokenizer, limits)
    if args.text:
        text = results[0][0].text
        write_exact(text if text is not None else "")
    elif args.json:
        write_json({"library": str(library.agent_dir), "tokenizer_problem": why or None, "profiles": [
            {**b.as_json(), "suggestions": [{"kind": s.kind, "title": s.title, "detail": s.detail,
                                             "reveals": s.reveals} for s in found]}
            for b, found in results]})
    else:
        if why:
            print(f"note: token counts unavailable: {why}")
        print("\n\n".join(text_report(b, found) for b, found in results))
    hidden = any(b.cut for b, _ in results)
    return 1 if args.fail_on_hidden and hidden else 0
