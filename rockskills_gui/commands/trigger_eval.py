"""``trigger-eval``: which skill the model picks when the agent presents its skills, row by row
of a field trigger-eval file (``[{"query", "should_trigger"}]``); exit 1 when a row fails."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rockskills_gui.commands.arg_types import positive
from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    write_exact,
    write_json,
)
from rockskills_gui.core.app.keys import ENV_VAR

if TYPE_CHECKING:  # the engine is imported by the command that runs, not by the parser
    from rockskills_gui.core.evals.report import TriggerReport
    from rockskills_gui.core.evals.run import EvalProgress
    from rockskills_gui.core.evals.snapshots import RowDiff
    from rockskills_gui.core.evals.trigger_file import TriggerEvalSet
    from rockskills_gui.core.library.library import Library

TOOL_CHOICES = ("activate_skill", "Skill", "get_skill")  # core.evals.presentation.TOOLS
DEFAULT_TIMEOUT = 60.0


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value



def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``trigger-eval`` to the ``rockskills`` parser."""
    p = subparsers.add_parser(
        "trigger-eval", help="which skill the model picks for each query of a trigger-eval file",
        description="Send each query of EVALS.json (the field's [{\"query\", \"should_trigger\"}] "
                    "format) to an OpenAI-compatible endpoint the way the agent presents its skills: "
                    "its listing as the system message and an activation tool; N runs per query, the "
                    "trigger rate, pass/fail against the threshold (a near miss passes below it), "
                    "per-skill precision and recall, and which skill fired instead. Replies are "
                    "cached in the app's cache folder. Exit 1 when a row fails. The API key comes "
                    f"from ${ENV_VAR} or the OS keyring.")
    p.add_argument("library", metavar="LIB", help="agent directory or skills folder")
    p.add_argument("evals", metavar="EVALS.json", nargs="*",
                   help="trigger-eval file(s); each is about the skill whose folder holds it "
                        "(<skill>/evals/…) or the one given with --skill")
    p.add_argument("--skill", metavar="NAME", help="the skill the file is about (one file)")
    p.add_argument("--agent", metavar="A", default=None,
                   help="whose listing to send: rockbot, agentskills, picobot, cortex, carpenter "
                        "(default: the library's own agent)")
    p.add_argument("--tool", choices=TOOL_CHOICES, default=None,
                   help="the activation tool offered (default: get_skill for RockBot, else Gemini "
                        "CLI's activate_skill; Skill is Claude Code's)")
    p.add_argument("--runs", type=positive, default=3, metavar="N", help="runs per query (default 3)")
    p.add_argument("--threshold", type=_fraction, default=0.5, metavar="X",
                   help="trigger rate a row needs (default 0.5)")
    p.add_argument("--concurrency", type=positive, default=8, metavar="N",
                   help="requests at a time (default 8)")
    p.add_argument("--base-url", metavar="URL",
                   help="OpenAI-compatible endpoint (default: the one in Preferences)")
    p.add_argument("--model", metavar="M", help="model name (default: the one in Preferences)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"seconds per request (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--retries", type=int, default=2, help="retries on 429/5xx/timeouts (default 2)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--snapshot", metavar="NAME", help="save the results as snapshot NAME")
    which.add_argument("--compare", metavar=("A", "B"), nargs=2,
                       help="per-row differences between snapshots A and B ('now': run EVALS now)")
    p.add_argument("--estimate", action="store_true",
                   help="print the requests, prompt tokens and time a run would take; send nothing")
    p.add_argument("--no-cache", action="store_true", help="ask every run again (and keep nothing)")
    p.add_argument("--import", dest="keep", action="store_true",
                   help="also keep each file beside the library's query sets "
                        "(recall-tests/trigger-evals/<skill>.json)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_library_options(p)
    p.set_defaults(func=guarded(cmd_trigger_eval))


def _sets(args: argparse.Namespace, library: Library) -> list[TriggerEvalSet]:
    from rockskills_gui.core.budget.entries import entries_of
    from rockskills_gui.core.evals.trigger_file import (
        TriggerEvalSet,
        TriggerFileError,
        find_skill,
        import_file,
        read_trigger_file,
        skill_of_file,
    )

    if not args.evals:
        raise CommandError("give EVALS.json (a trigger-eval file)")
    if args.skill and len(args.evals) > 1:
        raise CommandError("--skill names the skill of one file; give one EVALS.json with it")
    entries = entries_of(library)
    sets = []
    for name in args.evals:
        path = Path(name)
        try:
            rows = read_trigger_file(path)
        except TriggerFileError as exc:
            raise CommandError(str(exc)) from None
        if args.skill:
            skill = find_skill(args.skill, entries)
            if skill is None:
                raise CommandError(f"--skill {args.skill}: no such skill in {library.agent_dir}")
        else:
            skill = skill_of_file(path, entries)
            if skill is None:
                raise CommandError(f"{path}: which skill is it about? It is not in a skill's evals/ "
                                   "folder of this library: give --skill NAME")
        if args.keep:
            try:
                kept = import_file(library.layout, path, skill)
            except TriggerFileError as exc:
                raise CommandError(str(exc)) from None
            print(f"kept as {kept}", file=sys.stderr)
        sets.append(TriggerEvalSet(skill, rows, path))
    return sets


def _endpoint(args: argparse.Namespace) -> tuple[str, str]:
    base_url, model = args.base_url, args.model
    if not base_url or not model:
        from rockskills_gui.core.app.settings_store import SettingsStore

        saved = SettingsStore().settings
        base_url = base_url or saved.effective_base_url
        model = model or saved.model
    if not base_url or not model:
        raise CommandError("give --base-url URL and --model M (or choose them in Preferences ▸ LLM "
                           "endpoint)")
    return base_url, model


def _progress_printer() -> Callable[[EvalProgress], None]:
    tty = sys.stderr.isatty()

    def show(p: EvalProgress) -> None:
        if tty:
            print(f"\r{p.done}/{p.total} runs ({p.cached} cached, {p.sent} sent, {p.failed} without "
                  f"a clean reply)", end="" if p.done < p.total else "\n", file=sys.stderr, flush=True)

    return show


def cmd_trigger_eval(args: argparse.Namespace) -> int:
    from rockskills_gui.core.evals import snapshots

    library = open_from_args(args)
    if args.compare and args.compare[1] != "now":
        try:
            a, b = (snapshots.load(library.layout, n) for n in args.compare)
        except snapshots.SnapshotError as exc:
            raise CommandError(str(exc)) from None
        return _print_compare(args, snapshots.compare(a, b))
    report = _run(args, library)
    if report is None:
        return 0
    if args.compare:
        try:
            a = snapshots.load(library.layout, args.compare[0])
        except snapshots.SnapshotError as exc:
            raise CommandError(str(exc)) from None
        return _print_compare(args, snapshots.compare(a, snapshots.take(report, "now")))
    if args.snapshot:
        try:
            path = snapshots.save(library.layout, snapshots.take(report, args.snapshot))
        except snapshots.SnapshotError as exc:
            raise CommandError(str(exc)) from None
        print(f"snapshot saved to {path}", file=sys.stderr)
    if args.json:
        write_json({"library": str(library.agent_dir), **report.as_json()})
    else:
        write_exact(text_report(report))
    return 1 if report.failing or not report.complete else 0


def _run(args: argparse.Namespace, library: Library) -> TriggerReport | None:
    from rockskills_gui.core.app.keys import find_api_key
    from rockskills_gui.core.budget.tokens import try_tokenizer
    from rockskills_gui.core.evals.cache import OutcomeCache
    from rockskills_gui.core.evals.presentation import present_library
    from rockskills_gui.core.evals.run import EvalOptions, estimate, run_trigger_evals
    from rockskills_gui.core.llm.endpoint import Endpoint

    sets = _sets(args, library)
    try:
        presentation = present_library(library, args.agent, args.tool)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    base_url, model = _endpoint(args)
    options = EvalOptions(runs=args.runs, threshold=args.threshold, concurrency=args.concurrency)
    cache = None if args.no_cache else OutcomeCache()
    try:
        tokenizer, _why = try_tokenizer()
        guess = estimate(sets, presentation, model, options, cache, tokenizer)
        print(f"estimate: {guess.line()}", file=sys.stderr)
        if args.estimate:
            return None
        endpoint = Endpoint(base_url, model, timeout=args.timeout, retries=args.retries)
        report = run_trigger_evals(sets, presentation, endpoint, find_api_key(base_url), options,
                                   cache, progress=_progress_printer())
    finally:
        if cache is not None:
            cache.close()
    print(f"{report.sent} requests sent, {report.cached} answered from the cache, "
          f"{report.elapsed:.1f} s", file=sys.stderr)
    if report.aborted:
        print(f"rockskills: trigger-eval {report.aborted}", file=sys.stderr)
    return report


def _mark(passed: bool | None) -> str:
    return "PASS" if passed else ("----" if passed is None else "FAIL")


def text_report(report: TriggerReport) -> str:
    """The report as a few readable lines."""
    skills = ", ".join(dict.fromkeys(r.skill for r in report.rows))
    lines = [f"trigger eval of {skills}: {report.runs} runs per query, threshold {report.threshold:g}; "
             f"{report.agent} listing, tool {report.tool}, model {report.model}"]
    lines += [f"note: {n}" for n in report.notes]
    for r in report.rows:
        want = "should trigger" if r.row.should_trigger else "near miss     "
        others = ", ".join(f"{k} {v}" for k, v in r.instead.items())
        lines.append(f"  {_mark(r.passed)}  {r.triggers}/{r.runs}  {r.rate:.2f}  {want}  {r.row.query}"
                     + (f"   (fired instead: {others})" if others else ""))
    for s in report.skills:
        lines.append(f"{s.skill}: precision {s.precision:.2f}, recall {s.recall:.2f} (TP {s.tp}, "
                     f"FP {s.fp}, FN {s.fn}, TN {s.tn} runs); {s.rows_passed} of {s.rows} rows pass")
    if report.instead:
        lines.append("fired instead:")
        lines += [f"  {i.fired} instead of {i.skill}: {i.runs} run{'s' if i.runs != 1 else ''} "
                  f"({'; '.join(i.queries[:3])})" for i in report.instead]
    if report.competing:
        lines.append("descriptions competing for the same queries:")
        lines += [f"  {c.a} / {c.b}: {c.count} quer{'ies' if c.count != 1 else 'y'}"
                  for c in report.competing[:10]]
    if report.problems:
        lines.append("runs counted as no trigger without a clean reply:")
        lines += [f"  {p}" for p in report.problems[:10]]
    passed = sum(1 for r in report.rows if r.passed)
    lines.append(f"{len(report.rows)} rows: {passed} pass, {len(report.failing)} fail"
                 + (f", {len(report.not_run)} not run" if report.not_run else ""))
    return "\n".join(lines) + "\n"


def _print_compare(args: argparse.Namespace, diffs: list[RowDiff]) -> int:
    regressed = [d for d in diffs if d.regressed]
    if args.json:
        write_json({"a": args.compare[0], "b": args.compare[1], "rows": [d.as_json() for d in diffs],
                    "regressed": len(regressed), "fixed": sum(1 for d in diffs if d.fixed)})
    else:
        lines = [f"compare {args.compare[0]} → {args.compare[1]}:"]
        for d in diffs:
            if not d.changed:
                continue
            a = "—" if d.a is None else f"{d.a.rate:.2f} {_mark(d.a.passed)}"
            b = "—" if d.b is None else f"{d.b.rate:.2f} {_mark(d.b.passed)}"
            tag = " REGRESSED" if d.regressed else (" fixed" if d.fixed else "")
            lines.append(f"  {d.skill}: {d.query}: {a} → {b}{tag}")
        lines.append(f"{sum(1 for d in diffs if d.changed)} rows changed, {len(regressed)} regressed, "
                     f"{sum(1 for d in diffs if d.fixed)} fixed")
        write_exact("\n".join(lines) + "\n")
    return 1 if regressed else 0
