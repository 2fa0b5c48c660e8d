"""``dream``, ``apply`` and ``undo``: RockBot's skill dream passes proposed as a reviewable plan,
applied only as accepted, as one transaction that one ``undo`` reverts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    parse_now,
    read_input,
    write_exact,
)
from rockskills_gui.core.app.keys import ENV_VAR
from rockskills_gui.core.dream.formats import no_dream_text
from rockskills_gui.core.dream.llm import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from rockskills_gui.core.dream.passes import LLM_PASSES, DreamPass, parse_passes
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES, shown_size
from rockskills_gui.core.storage.changes import ConflictError, LibraryError

if TYPE_CHECKING:  # the dream machinery is imported by the command that runs, not by the parser
    from rockskills_gui.core.dream.plan import Plan, Severity
    from rockskills_gui.core.dream.run import RunProgress
    from rockskills_gui.core.library.library import Library


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``dream``, ``apply`` and ``undo`` to the ``rockskills`` parser."""
    dream = subparsers.add_parser(
        "dream", help="run RockBot's skill dream passes and save the proposals as a plan",
        description="Build the prompts RockBot's dream would send (skill gap, consolidation after the "
                    "18-month prune, optimization), ask an OpenAI-compatible endpoint (or propose "
                    "offline), and save every proposal, checked, to a plan file. Never writes the "
                    f"library. The API key comes from ${ENV_VAR} or the OS keyring. A SKILL.md library "
                    "is dreamed over directly: skill gap and the prune need RockBot's logs and say so.")
    dream.add_argument("library", metavar="LIB", help="agent directory, its skills/ folder, or a SKILL.md "
                                                      "library")
    add_library_options(dream)
    dream.add_argument("--pass", dest="single", choices=[p.value for p in LLM_PASSES],
                       help="with --prompt-only: the pass whose user message to print")
    dream.add_argument("--prompt-only", action="store_true",
                       help="print the user message RockBot would send, exactly, and stop")
    dream.add_argument("--system", action="store_true",
                       help="with --prompt-only: print the system message (directive) instead")
    dream.add_argument("--passes", default="gap,consolidate,optimize,mcp-refresh",
                       help="passes to run, comma-separated, in RockBot's order (default: every pass "
                            "the library's RockBot runs: gap, consolidate, optimize, and for RockBot "
                            "(current) mcp-refresh)")
    dream.add_argument("--mcp-surfaces", metavar="FILE",
                       help="RockBot (current)'s mcp-refresh pass: the live MCP servers as JSON, "
                            '{"servers": [{"serverName", "serverId", "fingerprint", "version", '
                            '"identityHash", "tools"}]} (tools: the text of their tools and schemas)')
    dream.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. "
                       "http://127.0.0.1:11434/v1")
    dream.add_argument("--model", metavar="M", help="model name")
    dream.add_argument("--offline", action="store_true",
                       help="propose from the library alone (no LLM): prune, merge candidates, "
                            "cluster guides, sparse skills, see-also links")
    dream.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                       help=f"seconds per request (default {DEFAULT_TIMEOUT:g})")
    dream.add_argument("--retries", type=int, default=DEFAULT_RETRIES,
                       help=f"retries on 429/5xx/timeouts (default {DEFAULT_RETRIES})")
    dream.add_argument("--no-json-mode", action="store_true",
                       help="do not ask for response_format json_object")
    dream.add_argument("--directive", metavar="PASS=FILE", action="append", default=[],
                       help="use FILE as the system message of PASS (gap, consolidate, optimize); "
                            f"a regular file of at most {shown_size(DOCUMENT_MAX_BYTES)}: named pipes "
                            "and process substitution (<(...)) are refused")
    dream.add_argument("--protect", metavar="PREFIX", action="append", default=[],
                       help="never delete, prune or overwrite skills under PREFIX (e.g. patrol/); "
                            "repeatable")
    dream.add_argument("--now", metavar="ISO", help="the reference time (default: the current time)")
    dream.add_argument("--plan-out", metavar="PLAN.json", help="where to save the plan")
    dream.set_defaults(func=cmd_dream)

    apply = subparsers.add_parser(
        "apply", help="apply accepted proposals of a saved plan as one transaction",
        description="Apply the accepted proposals of PLAN.json as one journaled transaction. Refused, "
                    "with nothing written, when a proposal is blocked by a finding, depends on one "
                    "not accepted, or the library changed since the plan (unless --recheck). Every "
                    "check is run again on the library as it is now: findings stored in the plan "
                    "file are not trusted. A skill the plan deletes, prunes or merges away is "
                    "archived (rockskills archived LIB; rockskills restore LIB NAME).")
    apply.add_argument("library", metavar="LIB", help="agent directory, its skills/ folder, or a SKILL.md "
                                                      "library")
    add_library_options(apply)
    apply.add_argument("plan", metavar="PLAN.json")
    which = apply.add_mutually_exclusive_group(required=True)
    which.add_argument("--accept", metavar="ID,…", help="proposal ids to apply")
    which.add_argument("--accept-all", action="store_true",
                       help="every proposal that can be applied (not blocked, advisory or conflicting)")
    which.add_argument("--accept-preselected", action="store_true",
                       help="the proposals a review starts ticked: nothing destructive (no deletion "
                            "nothing replaces, no prune, no merge or rewrite that drops specifics or "
                            "most of a skill), decided again on the library as it is now")
    apply.add_argument("--recheck", action="store_true",
                       help="apply to a library that changed since the plan, after checking again")
    apply.set_defaults(func=cmd_apply)

    undo = subparsers.add_parser("undo", help="undo the last applied plan",
                                 description="Restore the files the last applied plan changed, "
                                             "from its journal; refused if they changed since.")
    undo.add_argument("library", metavar="LIB", help="agent directory, its skills/ folder, or a SKILL.md "
                                                     "library")
    add_library_options(undo)
    undo.set_defaults(func=cmd_undo)


def _directives(values: list[str]) -> dict[DreamPass, str]:
    result: dict[DreamPass, str] = {}
    for value in values:
        name, sep, file = value.partition("=")
        try:
            dream_pass = DreamPass(name.strip())
        except ValueError:
            dream_pass = DreamPass.OFFLINE
        if not sep or dream_pass not in LLM_PASSES:
            raise CommandError(f"--directive {value!r}: expected PASS=FILE with PASS gap, consolidate "
                               "or optimize")
        data = read_input(file, "--directive")
        try:
            result[dream_pass] = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CommandError(f"--directive {file}: not UTF-8 text") from None
    return result


def _progress(report: RunProgress) -> None:
    if report.llm is not None and report.llm.phase == "waiting":
        return
    print(f"[{report.dream_pass.value}] {report.message}", file=sys.stderr)


def plan_summary(plan: Plan) -> str:
    """Passes and proposals, one line each, with findings indented below."""
    lines = []
    for record in plan.passes:
        line = f"pass {record.dream_pass.value}: {record.status.value}"
        if record.reason:
            line += f" ({record.reason})"
        lines.append(line)
        lines.extend(f"  error: {e}" for e in record.errors)
        lines.extend(f"  note: {n}" for n in record.notes)
    acceptable = set(plan.acceptable_ids())
    for proposal in plan.proposals:
        mark = "+" if proposal.id in acceptable else ("!" if proposal.blocked else " ")
        extra = f"  (needs {', '.join(proposal.depends_on)})" if proposal.depends_on else ""
        lines.append(f"{mark} {proposal.id:<4} {proposal.kind.value:<8} {proposal.title}{extra}")
        if proposal.preselect_reason:
            lines.append(f"        {proposal.preselect_reason}")
        for finding in proposal.findings:
            lines.append(f"        {finding.severity.value}: {finding.code}: {finding.message}")
    if not plan.proposals:
        lines.append("no proposals")
    return "\n".join(lines) + "\n"


def _open(args: argparse.Namespace) -> Library:
    """The library the dream commands work on: any whose agent has dream passes (its profile's
    ``curation.passes``: RockBot's, and the SKILL.md formats' consolidation and optimization)."""
    library = open_from_args(args)
    if not library.profile.curation.passes:
        raise CommandError(f"{args.library}: {no_dream_text(library.profile)}")
    return library


@guarded
def cmd_dream(args: argparse.Namespace) -> int:
    """Print a prompt, or run the passes and save the plan; exit 1 when a pass failed."""
    from rockskills_gui.core.app.keys import find_api_key
    from rockskills_gui.core.dream.llm import Endpoint, LlmClient
    from rockskills_gui.core.dream.plan import PassStatus
    from rockskills_gui.core.dream.prompts import printable
    from rockskills_gui.core.dream.run import RunOptions, prompt_for, run_dream

    library = _open(args)
    now = parse_now(args.now)
    options = RunOptions(now=now, directives=_directives(args.directive), protected_prefixes=args.protect)
    if args.prompt_only:
        if args.single is None:
            raise CommandError("--prompt-only needs --pass gap|consolidate|optimize")
        prompts = prompt_for(library, DreamPass(args.single), now, options)
        if args.system:
            write_exact(prompts.directive.text)
            return 0
        if prompts.user is None:
            print(f"rockskills: no {args.single} prompt: {prompts.skipped}", file=sys.stderr)
            return 1
        write_exact(printable(prompts.user))
        return 0
    if args.single is not None:
        raise CommandError("--pass is for --prompt-only; use --passes to choose what to run")
    if not args.plan_out:
        raise CommandError("--plan-out PLAN.json is required (or use --prompt-only)")
    out = Path(args.plan_out).expanduser().resolve()
    if library.skills_dir in out.parents or out == library.skills_dir:
        raise CommandError("--plan-out must not be inside the skills folder (RockBot would load it)")
    try:
        options.passes = parse_passes(args.passes)
    except ValueError as exc:
        raise CommandError(f"--passes: {exc}") from None
    if args.mcp_surfaces:
        from rockskills_gui.core.dream.mcp_refresh import SurfaceFileError, read_surfaces

        try:
            options.mcp_surfaces = read_surfaces(read_input(args.mcp_surfaces, "--mcp-surfaces"))
        except SurfaceFileError as exc:
            raise CommandError(f"--mcp-surfaces {args.mcp_surfaces}: {exc}") from None
    client = None
    if args.offline:
        if args.base_url or args.model:
            raise CommandError("use either --offline or --base-url/--model, not both")
        options.offline = True
    else:
        if not args.base_url or not args.model:
            raise CommandError("give --base-url URL and --model M (or --offline)")
        endpoint = Endpoint(args.base_url, args.model, timeout=args.timeout, retries=args.retries,
                            json_mode=not args.no_json_mode)
        client = LlmClient(endpoint, find_api_key(args.base_url))
    plan = run_dream(library, options, client, progress=_progress)
    plan.save(out)
    write_exact(plan_summary(plan))
    print(f"plan saved to {out}", file=sys.stderr)
    bad = {PassStatus.FAILED, PassStatus.REFUSED, PassStatus.CANCELLED}
    return 1 if any(p.status in bad for p in plan.passes) else 0


def _load_plan(path: str) -> Plan:
    from rockskills_gui.core.dream.plan import Plan

    try:
        return Plan.load(Path(path))
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CommandError(f"{path} is not a dream plan: {str(exc).splitlines()[0]}") from None


@guarded
def cmd_apply(args: argparse.Namespace) -> int:
    """Apply accepted proposals; exit 1 when refused (nothing written)."""
    from rockskills_gui.core.dream.apply import PlanRefused, apply_plan, checked, recheck
    from rockskills_gui.core.dream.preselect import preselected_ids

    library = _open(args)
    plan = _load_plan(args.plan)
    if plan.library_format != library.format:
        print(f"note: the plan was made for a {plan.library_format} library; this one is "
              f"{library.format}", file=sys.stderr)
    if args.accept_all:  # what is acceptable now, whatever findings the plan file holds
        ids = (recheck(plan, library) if args.recheck else checked(plan, library)).acceptable_ids()
        skipped = [p.id for p in plan.proposals if p.id not in ids]
        if skipped:
            print(f"not accepted (blocked, advisory, conflicting or depending on those): "
                  f"{', '.join(skipped)}", file=sys.stderr)
    elif args.accept_preselected:  # decided again now, whatever the plan file says
        fresh = recheck(plan, library) if args.recheck else checked(plan, library)
        ids = preselected_ids(fresh)
        said = {p.id: p.preselected for p in plan.proposals}
        differs = [p.id for p in fresh.proposals if said.get(p.id) != p.preselected]
        if differs:
            print(f"note: the plan file's preselection differs for {', '.join(differs)}; the one "
                  "made now is used", file=sys.stderr)
        for proposal in fresh.proposals:
            if not proposal.preselected:
                why = proposal.preselect_reason.removeprefix("Starts unticked: ")
                print(f"left unticked: {proposal.id}: {why}", file=sys.stderr)
        if not ids:
            print("rockskills: nothing is pre-selected; accept proposals by id (--accept)",
                  file=sys.stderr)
            return 1
    else:
        ids = [i.strip() for i in args.accept.split(",") if i.strip()]
    try:
        result = apply_plan(library, plan, ids, recheck_first=args.recheck)
    except PlanRefused as exc:
        print(f"rockskills: refused, nothing written: {exc}", file=sys.stderr)
        for reason in exc.reasons:
            print(f"  {reason}", file=sys.stderr)
        return 1
    except ConflictError as exc:
        print(f"rockskills: refused: {exc}", file=sys.stderr)
        return 1
    except LibraryError as exc:
        print(f"rockskills: {exc}", file=sys.stderr)
        return 1
    change = result.change
    lines = [f"applied {', '.join(result.accepted)}" + (f" (transaction {result.tx_id})"
                                                         if result.tx_id else " (nothing to change)")]
    lines += [f"  created {n}" for n in change.created] + [f"  updated {n}" for n in change.updated]
    lines += [f"  deleted {n} (archived: rockskills restore LIB {n})" for n in change.deleted]
    write_exact("\n".join(lines) + "\n")
    return 0


@guarded
def cmd_undo(args: argparse.Namespace) -> int:
    """Undo the last applied plan; exit 1 when there is none or it cannot be undone."""
    from rockskills_gui.core.dream.apply import undo_last

    library = _open(args)
    try:
        result = undo_last(library)
    except LibraryError as exc:
        print(f"rockskills: {exc}", file=sys.stderr)
        return 1
    if result.change is None:
        print(f"rockskills: {result.message}", file=sys.stderr)
        for path in result.changed_files:
            print(f"  changed since: {path}", file=sys.stderr)
        return 0 if result.undone else 1
    write_exact(result.message + "\n")
    return 0


def findings_of(plan: Plan, severity: Severity) -> list[str]:
    """``id: code: message`` for every finding of ``severity`` (for scripts and tests)."""
    return [f"{p.id}: {f.code}: {f.message}" for p in plan.proposals for f in p.findings
            if f.severity is severity]
