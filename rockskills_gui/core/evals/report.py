"""What a trigger-eval run found: per row the trigger rate and pass/fail, per skill precision and
recall, and the confusion view (which skill fired instead; which descriptions compete).

As skill-creator's ``run_eval.py``: ``trigger_rate = triggers / runs``; a row that should trigger
passes when the rate is at least the threshold, a near miss (``should_trigger: false``) when it
is below. Precision and recall count runs, as its ``run_loop.py`` does: TP = runs of the skill's
should-trigger rows where it fired, FN = those where it did not, FP = runs of its near misses
where it fired; each is 1.0 when its denominator is 0. A run whose request failed, or whose reply
could not be read, counts as "no trigger" and is reported.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from rockskills_gui.core.evals.detect import ERROR, INVALID, RunOutcome
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet, TriggerRow
from rockskills_gui.core.model.names import fold

NONE = "(none)"  # no skill fired in a run
QUERIES_KEPT = 20  # per confusion entry


@dataclass(frozen=True)
class RowResult:
    """One row of one file: its runs' outcomes and what they add up to."""

    skill: str
    row: TriggerRow
    outcomes: tuple[RunOutcome, ...]
    threshold: float

    @property
    def runs(self) -> int:
        return len(self.outcomes)

    @property
    def triggers(self) -> int:
        return sum(1 for o in self.outcomes if o.skill is not None and fold(o.skill) == fold(self.skill))

    @property
    def rate(self) -> float:
        return self.triggers / self.runs if self.runs else 0.0

    @property
    def passed(self) -> bool | None:
        """None when no run finished (a cancelled run)."""
        if not self.runs:
            return None
        return self.rate >= self.threshold if self.row.should_trigger else self.rate < self.threshold

    @property
    def fired(self) -> dict[str, int]:
        """How often each skill (or :data:`NONE`) fired, most first."""
        counts = Counter(o.skill or NONE for o in self.outcomes)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def instead(self) -> dict[str, int]:
        """Other skills that fired in runs of this row."""
        return {k: v for k, v in self.fired.items() if k != NONE and fold(k) != fold(self.skill)}

    @property
    def invalid(self) -> int:
        return sum(1 for o in self.outcomes if o.status == INVALID)

    @property
    def errors(self) -> int:
        return sum(1 for o in self.outcomes if o.status == ERROR)

    def as_json(self) -> dict[str, Any]:
        return {"skill": self.skill, "query": self.row.query, "should_trigger": self.row.should_trigger,
                "trigger_rate": self.rate, "triggers": self.triggers, "runs": self.runs,
                "pass": self.passed, "fired": self.fired, "invalid": self.invalid,
                "errors": self.errors}


@dataclass(frozen=True)
class SkillScore:
    """Precision and recall of one skill over the runs of its own rows."""

    skill: str
    tp: int
    fp: int
    fn: int
    tn: int
    rows: int
    rows_passed: int
    hidden: str = ""  # why the listing leaves the skill out ("" when listed)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def as_json(self) -> dict[str, Any]:
        return {"skill": self.skill, "precision": self.precision, "recall": self.recall,
                "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn, "rows": self.rows,
                "rows_passed": self.rows_passed, "listed": not self.hidden,
                "hidden": self.hidden or None}


@dataclass(frozen=True)
class Instead:
    """Another skill fired on queries that should have triggered ``skill``."""

    skill: str
    fired: str
    runs: int
    queries: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"skill": self.skill, "fired": self.fired, "runs": self.runs, "queries": list(self.queries)}


@dataclass(frozen=True)
class Competition:
    """Two skills both in play for the same queries: one expected or fired, the other fired."""

    a: str
    b: str
    queries: tuple[str, ...]
    count: int

    def as_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "queries": self.count, "examples": list(self.queries)}


@dataclass(frozen=True)
class TriggerReport:
    """Everything one run found (``complete`` False: cancelled or stopped, see ``aborted``)."""

    rows: tuple[RowResult, ...]
    skills: tuple[SkillScore, ...]
    instead: tuple[Instead, ...]
    competing: tuple[Competition, ...]
    runs: int
    threshold: float
    agent: str = ""
    tool: str = ""
    model: str = ""
    requests: int = 0
    sent: int = 0
    cached: int = 0
    complete: bool = True
    aborted: str = ""
    problems: tuple[str, ...] = ()
    elapsed: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failing(self) -> list[RowResult]:
        return [r for r in self.rows if r.passed is False]

    @property
    def not_run(self) -> list[RowResult]:
        return [r for r in self.rows if r.passed is None]

    def as_json(self) -> dict[str, Any]:
        passed = sum(1 for r in self.rows if r.passed)
        return {
            "agent": self.agent, "tool": self.tool, "model": self.model, "runs": self.runs,
            "threshold": self.threshold, "complete": self.complete, "aborted": self.aborted or None,
            "requests": {"total": self.requests, "sent": self.sent, "cached": self.cached},
            "summary": {"total": len(self.rows), "passed": passed, "failed": len(self.failing),
                        "not_run": len(self.not_run)},
            "rows": [r.as_json() for r in self.rows],
            "skills": [s.as_json() for s in self.skills],
            "confusion": {"instead": [i.as_json() for i in self.instead],
                          "competing": [c.as_json() for c in self.competing]},
            "problems": list(self.problems), "notes": list(self.notes),
        }


Outcomes = Mapping[tuple[str, int], RunOutcome]  # (query, run index) -> outcome


def row_results(sets: Sequence[TriggerEvalSet], outcomes: Outcomes, runs: int,
                threshold: float) -> list[RowResult]:
    """Every row of every set with the outcomes of its runs that finished."""
    return [RowResult(s.skill, row, tuple(outcomes[(row.query, i)] for i in range(runs)
                                          if (row.query, i) in outcomes), threshold)
            for s in sets for row in s.rows]


def skill_scores(rows: Sequence[RowResult], hidden: Mapping[str, str]) -> list[SkillScore]:
    """Per skill (first-seen order) over the runs of its own rows."""
    by_skill: dict[str, list[RowResult]] = {}
    for r in rows:
        by_skill.setdefault(r.skill, []).append(r)
    scores = []
    for skill, mine in by_skill.items():
        tp = sum(r.triggers for r in mine if r.row.should_trigger)
        fn = sum(r.runs - r.triggers for r in mine if r.row.should_trigger)
        fp = sum(r.triggers for r in mine if not r.row.should_trigger)
        tn = sum(r.runs - r.triggers for r in mine if not r.row.should_trigger)
        why = next((v for k, v in hidden.items() if fold(k) == fold(skill)), "")
        scores.append(SkillScore(skill, tp, fp, fn, tn, len(mine), sum(1 for r in mine if r.passed), why))
    return scores


def fired_instead(rows: Sequence[RowResult]) -> list[Instead]:
    """Which other skills fired on each skill's should-trigger rows (most runs first)."""
    runs: Counter[tuple[str, str]] = Counter()
    queries: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows:
        if not r.row.should_trigger:
            continue
        for other, n in r.instead.items():
            runs[(r.skill, other)] += n
            if r.row.query not in queries[(r.skill, other)]:
                queries[(r.skill, other)].append(r.row.query)
    order = sorted(runs, key=lambda k: (-runs[k], k))
    return [Instead(s, o, runs[(s, o)], tuple(queries[(s, o)][:QUERIES_KEPT])) for s, o in order]


def competition(rows: Sequence[RowResult]) -> list[Competition]:
    """Pairs of skills in play for the same queries (the skill a row expects, and every skill
    that fired in a run of it), most shared queries first."""
    contenders: dict[str, dict[str, str]] = {}  # query -> folded name -> spelling
    for r in rows:
        names = contenders.setdefault(r.row.query, {})
        if r.row.should_trigger:
            names.setdefault(fold(r.skill), r.skill)
        for name in r.fired:
            if name != NONE:
                names.setdefault(fold(name), name)
    shared: dict[tuple[str, str], list[str]] = defaultdict(list)
    for query, names in contenders.items():
        for a, b in combinations(sorted(names.values(), key=fold), 2):
            shared[(a, b)].append(query)
    order = sorted(shared, key=lambda k: (-len(shared[k]), fold(k[0]), fold(k[1])))
    return [Competition(a, b, tuple(shared[(a, b)][:QUERIES_KEPT]), len(shared[(a, b)]))
            for a, b in order]


def problems(rows: Sequence[RowResult]) -> list[str]:
    """Each distinct reason a run counted as "no trigger" without a clean reply, with its count."""
    seen: Counter[str] = Counter()
    for r in rows:
        for o in r.outcomes:
            if o.status in (INVALID, ERROR):
                seen[f"{o.status}: {o.detail}"] += 1
    return [f"{n} run{'s' if n != 1 else ''}: {text}" for text, n in seen.most_common()]
