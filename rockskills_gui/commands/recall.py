"""``recall``, ``simulate`` and ``recall-test``: RockBot's BM25 skill recall, headless."""

from __future__ import annotations

import argparse
import gc
import json
from collections.abc import Iterable, Iterator
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rockskills_gui.commands.common import (
    CommandError,
    add_library_options,
    guarded,
    open_from_args,
    read_input,
    write_exact,
    write_json,
)
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES, shown_size
from rockskills_gui.core.recall.limits import RECALL_TOP_N
from rockskills_gui.core.storage.appdirs import cache_dir

if TYPE_CHECKING:  # the index (numpy) is imported by the command that runs, not by the parser
    from rockskills_gui.core.library.library import Library
    from rockskills_gui.core.recall.bm25_index import Contribution
    from rockskills_gui.core.recall.queryset import QuerySetReport
    from rockskills_gui.core.recall.session import TurnResult
    from rockskills_gui.core.recall.skill_recall import RecallHit, SkillRecall


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the recall commands to the ``rockskills`` parser."""
    recall = subparsers.add_parser(
        "recall", help="rank skills for a query exactly as RockBot's BM25 does",
        description="Rank a library's skills for QUERY (or every line of --queries-file) with "
                    "RockBot's BM25: name + summary, phrase boost, ties in load order.")
    recall.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    recall.add_argument("query", metavar="QUERY", nargs="?", help="the user message")
    recall.add_argument("--queries-file", metavar="FILE",
                        help="one query per line ('-' = stdin), one result per line; a regular "
                             f"file of at most {shown_size(DOCUMENT_MAX_BYTES)}: named pipes and "
                             "process substitution (<(...)) are refused, pipe into '-' instead")
    recall.add_argument("--top", metavar="N", type=int, default=RECALL_TOP_N,
                        help=f"results per query (default {RECALL_TOP_N}; 0 = every match)")
    recall.add_argument("--json", action="store_true",
                        help="machine-readable output (with --queries-file: rank, name and score "
                             "of each hit; add --explain for the contributions)")
    recall.add_argument("--explain", action="store_true",
                        help="show each term's and phrase's contribution")
    add_library_options(recall)
    recall.set_defaults(func=cmd_recall)

    simulate = subparsers.add_parser(
        "simulate", help="show the skill messages RockBot injects turn by turn",
        description="Simulate one fresh session: the skill index on the first turn, BM25 top 5 "
                    "minus already-recalled skills, and see-also lines. RockBot (current): a "
                    "message of 30 characters or fewer recalls nothing, the first new skill's "
                    "body is framed and the others are listed by summary.")
    simulate.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    simulate.add_argument("--turn", metavar="TEXT", action="append", required=True,
                          help="a user message (repeat for several turns)")
    simulate.add_argument("--worker", action="store_true",
                          help="a worker (subagent) session, where the agent has one (RockBot "
                               "(current): every new skill framed, no list, no see-also line)")
    simulate.add_argument("--tool-calls", metavar="N", type=int, default=None,
                          help="RockBot (current): say what skill-body aging does after N tool "
                               "calls in each turn (none of them get_skill)")
    simulate.add_argument("--json", action="store_true", help="machine-readable output")
    add_library_options(simulate)
    simulate.set_defaults(func=cmd_simulate)

    test = subparsers.add_parser(
        "recall-test", help="check a saved query set against the library",
        description="Run a saved query set; exit 1 when a query misses an expected skill in "
                    "its top 5 or recalls a skill it must avoid. With --against, replay the "
                    "logged first messages and saved query sets before and after a dream plan; "
                    "with --snapshot, keep the results; with --compare, diff two snapshots. "
                    "Exit 1 when a guarded query regresses.")
    test.add_argument("library", metavar="LIB", help="agent directory or its skills/ folder")
    test.add_argument("query_set", metavar="SET.json", nargs="?",
                      help="query set file (beside the library)")
    test.add_argument("--against", metavar="PLAN.json",
                      help="replay the query corpus before/after this plan's acceptable proposals")
    test.add_argument("--accept", metavar="IDS",
                      help="with --against: comma-separated proposal ids instead of 'accept all'")
    test.add_argument("--snapshot", metavar="NAME", help="save SET's results as snapshot NAME")
    test.add_argument("--compare", metavar=("A", "B"), nargs=2,
                      help="per-query differences between snapshots A and B ('now': A's queries now)")
    test.add_argument("--json", action="store_true", help="machine-readable output")
    add_library_options(test)
    test.set_defaults(func=cmd_recall_test)


# ---------------------------------------------------------------- recall


def result_json(query: str, hits: list[RecallHit]) -> dict[str, Any]:
    return {"query": query, "results": [hit.as_json() for hit in hits]}


_text = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) writes a str as
_int, _float = int.__repr__, float.__repr__  # ... an int, a float (also of a subclass)
_NOT_FINITE = (": inf", ": -inf", ": nan")  # float.__repr__'s; json.dumps writes Infinity, NaN


Head = tuple[int, float, str]  # a term's df and idf, and the text they start its entry with


def _parts(parts: dict[str, Contribution], heads: dict[str, Head]) -> str:
    """The entries of ``parts``; ``heads`` keeps each term's start (its df and idf are the same
    in every hit of a query): a third of the formatting."""
    entries = []
    for t, c in parts.items():
        head = heads.get(t)
        if head is None or head[0] != c.df or head[1] != c.idf:
            head = heads[t] = (c.df, c.idf,
                               f'{_text(t)}: {{"df": {_int(c.df)}, "idf": {_float(c.idf)}, ')
        entries.append(f'{head[2]}"tf": {_int(c.tf)}, "tfn": {_float(c.tfn)}, '
                       f'"contribution": {_float(c.contribution)}}}')
    return ", ".join(entries)


def result_line(query: str, hits: list[RecallHit]) -> str:
    """``json.dumps(result_json(query, hits), ensure_ascii=False)``, the same text, written
    directly (300 queries x 50 explained hits: a third of the time; tests/core/
    test_recall_json_line.py compares the two)."""
    empty: dict[str, Contribution] = {}
    terms: dict[str, Head] = {}
    phrases: dict[str, Head] = {}
    try:
        line = f'{{"query": {_text(query)}, "results": [' + ", ".join(
            f'{{"rank": {_int(hit.rank)}, "name": {_text(hit.name)}, "score": {_float(hit.score)}, '
            f'"terms": {{{_parts(hit.explanation.terms if hit.explanation else empty, terms)}}}, '
            f'"phrases": {{{_parts(hit.explanation.phrases if hit.explanation else empty, phrases)}}}}}'
            for hit in hits) + "]}"
    except TypeError:  # not a plain number somewhere: json.dumps says what
        line = ""
    if not line or any(mark in line for mark in _NOT_FINITE):  # (or a name holding ": inf")
        return json.dumps(result_json(query, hits), ensure_ascii=False)
    return line


def _contribution_line(kind: str, text: str, part: Contribution) -> str:
    return (f"      {kind:<6} {text:<24} df={part.df:<4} idf={part.idf:.6f} tf={part.tf} "
            f"tfn={part.tfn:.6f} +{part.contribution:.6f}")


def _print_hits(hits: list[RecallHit], explain: bool) -> None:
    if not hits:
        write_exact("(no skill matches)\n")
        return
    for hit in hits:
        write_exact(f"{hit.rank:>3}  {hit.score!r:<20}  {hit.name}\n")
        if explain and hit.explanation is not None:
            for term, part in hit.explanation.terms.items():
                write_exact(_contribution_line("term", term, part) + "\n")
            for phrase, part in hit.explanation.phrases.items():
                write_exact(_contribution_line("phrase", f'"{phrase}"', part) + "\n")


def _read_queries(name: str) -> list[str]:
    data = read_input(name, "--queries-file", stdin=True)
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise CommandError(f"{name}: not UTF-8 text") from None


@guarded
def cmd_recall(args: argparse.Namespace) -> int:
    """Rank skills for one query or a file of queries."""
    if (args.query is None) == (args.queries_file is None):
        raise CommandError("recall needs either QUERY or --queries-file (not both)")
    lib = open_from_args(args, cache_dir=cache_dir() / "scan")
    recall = _recall_of(lib)
    # The library and its index live until the command ends: out of the cyclic collector's way
    # (each full pass would walk them again while the queries' results are made).
    gc.freeze()
    top = args.top if args.top > 0 else None
    explain = args.explain or args.json
    if args.query is not None:
        hits = recall.search(args.query, top=top, explain=explain)
        if args.json:
            write_json(result_json(args.query, hits))
        else:
            _print_hits(hits, args.explain)
        return 0
    queries = _read_queries(args.queries_file)
    if args.json and not args.explain:
        _write_ranked_lines(recall, queries, top)
        return 0
    for i, query in enumerate(queries):
        hits = recall.search(query, top=top, explain=explain)
        if args.json:
            write_exact(result_line(query, hits) + "\n")
        else:
            write_exact(("\n" if i else "") + f"# {query}\n")
            _print_hits(hits, args.explain)
    return 0


def _recall_of(lib: Library) -> SkillRecall:
    """The library's recall index: for a RockBot library the one kept beside its scan cache when
    it still holds (core.recall.index_cache: the index a build gives), else built (and kept)."""
    from rockskills_gui.core.recall.skill_recall import SkillRecall

    kept = lib.recall_cache()
    if kept is None:
        return SkillRecall(lib.skills())
    from rockskills_gui.core.recall.index_cache import RecallCache, cached_recall

    return cached_recall(lib.skills(), RecallCache(kept))[0]


LINES_PER_WRITE = 256


class _Names(dict[str, str]):
    """Index key -> its skill's name as JSON text, made when first asked for."""

    def __init__(self, recall: SkillRecall) -> None:
        super().__init__()
        self.recall = recall

    def __missing__(self, key: str) -> str:
        value = self[key] = _text(self.recall.skill_of_key(key).name)
        return value


_RANKS: list[str] = []  # '{"rank": N, "name": ' for N = 0, 1, ...


def ranked_lines(recall: SkillRecall, queries: Iterable[str], top: int | None) -> Iterator[str]:
    """One JSON line per query with each hit's rank, name and score -- no explanations (they cost
    more than the ranking: ``--explain`` adds them) -- as ``json.dumps(ranked_json(...),
    ensure_ascii=False)`` writes it (tests/core/test_recall_json_line.py compares the two)."""
    index = recall.index
    names = _Names(recall)
    for query in queries:
        hits = index.search(query, top=top)
        if not hits:
            yield f'{{"query": {_text(query)}, "results": []}}'
            continue
        while len(_RANKS) <= len(hits):
            _RANKS.append(f'{{"rank": {len(_RANKS)}, "name": ')
        body = "}, ".join(map("".join, zip(_RANKS[1:len(hits) + 1], map(names.__getitem__, hits.keys()),
                                           repeat(', "score": '), map(_float, hits.scores()),
                                           strict=False)))
        yield f'{{"query": {_text(query)}, "results": [{body}}}]}}'


def ranked_json(query: str, hits: list[RecallHit]) -> dict[str, Any]:
    return {"query": query, "results": [{"rank": hit.rank, "name": hit.name, "score": hit.score}
                                        for hit in hits]}


def _write_ranked_lines(recall: SkillRecall, queries: list[str], top: int | None) -> None:
    lines: list[str] = []
    for line in ranked_lines(recall, queries, top):
        lines.append(line + "\n")
        if len(lines) >= LINES_PER_WRITE:
            write_exact("".join(lines))
            lines.clear()
    write_exact("".join(lines))


# ---------------------------------------------------------------- simulate


def _print_turn(number: int, turn: TurnResult, aging: list[str] | None = None) -> None:
    write_exact(f"=== turn {number}: {turn.user}\n")
    if turn.no_recall is not None:
        write_exact(f"{turn.no_recall}\n")
    else:
        shown = ", ".join(f"{h.name} ({h.score:.6f})" for h in turn.top) or "(none)"
        write_exact(f"BM25 top {len(turn.top)}: {shown}\n")
    write_exact(f"injected: {', '.join(turn.injected) or '(none)'}\n")
    if turn.extended:
        write_exact(f"listed: {', '.join(turn.listed) or '(none)'}\n")
    for line in aging or ():
        write_exact(f"aging: {line}\n")
    if not turn.messages:
        write_exact("(no skill messages)\n")
    for i, message in enumerate(turn.messages, 1):
        label = " (session index)" if i == 1 and turn.index is not None else ""
        write_exact(f"--- system message {i}{label}\n{message}\n")
    write_exact("\n")


@guarded
def cmd_simulate(args: argparse.Namespace) -> int:
    """Per-turn skill injection of one fresh session."""
    from rockskills_gui.core.recall.aging import aging_note
    from rockskills_gui.core.recall.session import RecallSession
    from rockskills_gui.core.recall.skill_recall import SkillRecall

    lib = open_from_args(args)
    if args.tool_calls is not None and args.tool_calls < 0:
        raise CommandError("--tool-calls needs 0 or more")
    try:
        session = RecallSession.of_profile(SkillRecall(lib.skills()), lib.profile, worker=args.worker)
    except ValueError as exc:
        raise CommandError(f"--worker: {exc}") from None
    turns = [session.turn(text) for text in args.turn]
    unload = lib.profile.injection.body_unload_after
    agings = [[aging_note(message, name, unload, args.tool_calls) for name, message in turn.bodies]
              if unload > 0 else [] for turn in turns]
    if args.json:
        found = [t.as_json() for t in turns]
        if unload > 0:
            for shown, aging in zip(found, agings, strict=True):
                shown["aging"] = aging
        write_json({"turns": found})
    else:
        for number, (turn, aging) in enumerate(zip(turns, agings, strict=True), 1):
            _print_turn(number, turn, aging)
    return 0


# ---------------------------------------------------------------- recall-test


def _print_report(report: QuerySetReport) -> None:
    total = len(report.cases)
    hit1 = sum(1 for c in report.cases if c.first_rank == 1)
    hit5 = sum(1 for c in report.cases if c.first_rank is not None and c.first_rank <= 5)
    write_exact(f"query set: {report.name} ({total} queries)\n")
    write_exact(f"hit@1  {report.hit_at_1:.3f}  ({hit1}/{total})\n")
    write_exact(f"hit@5  {report.hit_at_5:.3f}  ({hit5}/{total})\n")
    write_exact(f"MRR    {report.mrr:.3f}\n")
    failing = report.failing
    if not failing:
        write_exact("all queries recall their expected skills in the top 5\n")
        return
    write_exact(f"failing ({len(failing)}):\n")
    for case in failing:
        write_exact(f"  {case.case.query!r}\n")
        write_exact(f"    missing from top 5: {', '.join(case.missing)}\n")
        if case.unknown:
            write_exact(f"    not in the library: {', '.join(case.unknown)}\n")
        write_exact(f"    top 5: {', '.join(case.top) or '(no results)'}\n")


@guarded
def cmd_recall_test(args: argparse.Namespace) -> int:
    """Hit@1, hit@5 and MRR of a saved query set; exit 1 on any miss."""
    from rockskills_gui.core.recall.queryset import QuerySetError, check_location, evaluate, load_query_set
    from rockskills_gui.core.recall.skill_recall import SkillRecall

    if args.against or args.compare or args.snapshot:
        from rockskills_gui.commands.recall_safety import run_safety

        return run_safety(args)
    if args.query_set is None:
        raise CommandError("recall-test needs SET.json, --against PLAN.json or --compare A B")
    lib = open_from_args(args)
    path = Path(args.query_set)
    try:
        check_location(lib.layout, path)
        query_set = load_query_set(path)
    except QuerySetError as exc:
        raise CommandError(str(exc)) from None
    report = evaluate(SkillRecall(lib.skills()), query_set)
    if args.json:
        write_json(report.as_json())
    else:
        _print_report(report)
    return 1 if report.failing else 0
