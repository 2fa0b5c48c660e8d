"""``recall-test --against PLAN.json``, ``--snapshot NAME`` and ``--compare A B``: the recall
safety net for an agent's CI (exit 1 when a guarded query regresses)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rockskills_gui.commands.common import CommandError, open_from_args, read_input, write_exact, write_json
from rockskills_gui.core.model.names import display_name


def run_safety(args: argparse.Namespace) -> int:
    """Dispatch the safety-net options of ``recall-test``."""
    if sum(bool(x) for x in (args.against, args.compare, args.snapshot)) > 1:
        raise CommandError("use one of --against, --snapshot and --compare at a time")
    if args.accept and not args.against:
        raise CommandError("--accept needs --against PLAN.json")
    if args.against:
        return _against(args)
    if args.snapshot:
        return _snapshot(args)
    return _compare(args)


def _rank(rank: int | None) -> str:
    return f"#{rank}" if rank is not None else "-"


def _against(args: argparse.Namespace) -> int:
    from rockskills_gui.core.dream.plan import Plan
    from rockskills_gui.core.dream.recall_guard import corpus, plan_effect
    from rockskills_gui.core.recall.queryset import QuerySetError, check_location, load_query_set
    from rockskills_gui.core.recall.replay import GuardedQuery

    lib = open_from_args(args)
    if not lib.profile.curation.passes:  # (no dream passes for this agent: no plans)
        raise CommandError("--against needs a RockBot library (dream plans are RockBot's)")
    try:
        plan = Plan.model_validate_json(read_input(args.against, "--against"))
    except ValueError as exc:
        raise CommandError(f"{args.against}: not a plan ({str(exc).splitlines()[0]})") from None
    queries, notes = corpus(lib.layout.agent_dir)
    if args.query_set:
        try:
            check_location(lib.layout, Path(args.query_set))
            extra = load_query_set(Path(args.query_set))
        except QuerySetError as exc:
            raise CommandError(str(exc)) from None
        queries += [GuardedQuery(c.query, tuple(c.expected), tuple(c.avoid), f"query set {extra.name}")
                    for c in extra.queries]
    known = {p.id for p in plan.proposals}
    if args.accept:
        accepted = [i.strip() for i in args.accept.split(",") if i.strip()]
        unknown = [i for i in accepted if i not in known]
        if unknown:
            raise CommandError(f"no proposal {', '.join(unknown)} in {args.against}")
    else:
        accepted = plan.acceptable_ids()
    effect = plan_effect(plan, lib.skills(), accepted, queries)
    report = effect.report
    if args.json:
        write_json({"plan": args.against, "accepted": list(effect.accepted), "notes": notes,
                    **report.as_json(),
                    "causes": {str(i): list(c) for i, c in effect.causes.items()}})
        return 1 if report.regressions else 0
    for note in notes:
        write_exact(f"note: {note}\n")
    write_exact(f"{len(report.outcomes)} guarded quer{'y' if len(report.outcomes) == 1 else 'ies'} "
                f"replayed with {len(effect.accepted)} accepted proposal(s): {len(report.changed)} "
                f"changed, {len(report.regressions)} regressed\n")
    for index, outcome in enumerate(report.outcomes):
        if not outcome.changed and not outcome.regressed:
            continue
        mark = "REGRESSED" if outcome.regressed else "changed"
        write_exact(f"\n{mark}: {outcome.query.query!r} ({outcome.query.source})\n")
        write_exact(f"  top 5 before: {', '.join(outcome.before) or '(none)'}\n")
        write_exact(f"  top 5 after:  {', '.join(outcome.after) or '(none)'}\n")
        for move in outcome.expected:
            if move.before == move.after and move.successor == move.name:
                continue
            via = f" as {move.successor}" if move.successor and move.successor != move.name else ""
            gone = " (deleted)" if move.successor is None else ""
            ranks = f"{_rank(move.before)} -> {_rank(move.after)}"
            write_exact(f"  {display_name(move.name)}: {ranks}{via}{gone}\n")
        for move in outcome.pulled_in:
            write_exact(f"  must not recall {display_name(move.name)}: now {_rank(move.after)}\n")
        if index in effect.causes:
            write_exact(f"  caused by: {', '.join(effect.causes[index]) or '(unknown)'}\n")
    return 1 if report.regressions else 0


def _snapshot(args: argparse.Namespace) -> int:
    from rockskills_gui.core.recall import snapshots
    from rockskills_gui.core.recall.queryset import QuerySetError, check_location, load_query_set
    from rockskills_gui.core.recall.skill_recall import SkillRecall

    if args.query_set is None:
        raise CommandError("--snapshot NAME needs SET.json")
    lib = open_from_args(args)
    try:
        check_location(lib.layout, Path(args.query_set))
        query_set = load_query_set(Path(args.query_set))
        snap = snapshots.take(SkillRecall(lib.skills()), query_set, args.snapshot)
        path = snapshots.save(lib.layout, snap)
    except QuerySetError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        write_json(snap.model_dump(by_alias=True))
    else:
        write_exact(f"snapshot {snap.name!r} of {query_set.name} ({len(snap.results)} queries) "
                    f"saved to {path}\n")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from rockskills_gui.core.recall import snapshots
    from rockskills_gui.core.recall.queryset import QueryCase, QuerySet, QuerySetError
    from rockskills_gui.core.recall.skill_recall import SkillRecall

    lib = open_from_args(args)
    name_a, name_b = args.compare
    try:
        a = snapshots.load(lib.layout, name_a)
        if name_b == "now":
            cases = [QueryCase(query=r.query, expected=r.expected, avoid=r.avoid) for r in a.results
                     if r.expected or r.avoid]
            b = snapshots.take(SkillRecall(lib.skills()), QuerySet(name=a.query_set, queries=cases), "now")
        else:
            b = snapshots.load(lib.layout, name_b)
    except QuerySetError as exc:
        raise CommandError(str(exc)) from None
    diffs = snapshots.compare(a, b)
    regressed = [d for d in diffs if d.regressed]
    if args.json:
        write_json({"a": name_a, "b": name_b, "queries": len(diffs),
                    "changed": sum(d.changed for d in diffs), "regressed": len(regressed),
                    "diffs": [d.as_json() for d in diffs]})
        return 1 if regressed else 0
    write_exact(f"{name_a} -> {name_b}: {len(diffs)} queries, {sum(d.changed for d in diffs)} changed, "
                f"{len(regressed)} regressed\n")
    for diff in diffs:
        if not diff.changed:
            continue
        mark = "REGRESSED" if diff.regressed else "changed"
        write_exact(f"\n{mark}: {diff.query!r}\n")
        for label, side in (("A", diff.a), ("B", diff.b)):
            top = ", ".join(f"{n} ({s:.4f})" for n, s in side.top) if side else "(not in this snapshot)"
            write_exact(f"  {label}: {top or '(none)'}\n")
        if diff.a and diff.b:
            for name in [*diff.a.expected, *diff.a.avoid]:
                before, after = diff.a.ranks.get(name), diff.b.ranks.get(name)
                if before != after:
                    write_exact(f"  {display_name(name)}: {_rank(before)} -> {_rank(after)}\n")
        if diff.lost:
            write_exact(f"  lost from the top 5: {', '.join(diff.lost)}\n")
        if diff.pulled_in:
            write_exact(f"  must not recall, now in the top 5: {', '.join(diff.pulled_in)}\n")
    return 1 if regressed else 0
