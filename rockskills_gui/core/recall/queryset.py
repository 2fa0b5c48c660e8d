"""Saved recall query sets: which skills a query should recall, and how well recall does.

A query set is a small JSON file stored *beside* the library (default: ``<agent>/recall-tests/``),
never inside ``skills/``: RockBot loads every ``skills/**/*.json`` as a skill, and a file with a
``name`` but no ``content`` would break its dream cycle (§2).

A query passes when every expected skill (case-insensitive) is in the top 5 -- what per-turn
recall asks for -- and no skill it must avoid (``avoid``: a near-miss message that must not pull
that skill in) is. Metrics: hit@1 (the first result is expected), hit@5 (some expected skill in
the top 5), MRR (1 / rank of the first expected skill in the full ranking, 0 if unranked).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rockskills_gui.core.library.library import Where
from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, SkillRecall
from rockskills_gui.core.storage import fileio, untrusted

QUERY_SET_DIR = "recall-tests"
AnyLayout = Where  # where a library lives (any format: library.layout)


class QuerySetError(ValueError):
    """The file is not a readable query set, or is stored where RockBot would read it."""


class QueryCase(BaseModel):
    """One query and the skill names it should recall."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str
    expected: list[str] = Field(default_factory=list)
    avoid: list[str] = Field(default_factory=list)  # must not be recalled in the top 5
    note: str | None = None

    @model_validator(mode="after")
    def _says_something(self) -> QueryCase:
        if not self.expected and not self.avoid:
            raise ValueError("a query needs an expected skill or a skill to avoid")
        return self


class QuerySet(BaseModel):
    """A named list of query cases."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    queries: list[QueryCase]


def default_query_set_path(layout: AnyLayout, name: str) -> Path:
    """``<agent>/recall-tests/<name>.json`` (``/`` in the name is not allowed)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise QuerySetError(f"not a usable query-set file name: {name!r}")
    return layout.agent_dir / QUERY_SET_DIR / f"{name}.json"


def check_location(layout: AnyLayout, path: Path) -> None:
    """Refuse a query-set path the agent would read: inside a RockBot library's ``skills/``
    folder, or inside a SKILL.md skill's own folder (it would become one of its files)."""
    resolved = path.expanduser().resolve()
    if layout.skill_folders:
        inside = [p for p in resolved.parents if p == layout.agent_dir.resolve()
                  or layout.agent_dir.resolve() in p.parents]
        if any(fileio.is_regular(p / "SKILL.md") for p in inside):
            raise QuerySetError(f"{path}: query sets must not be stored inside a skill's folder "
                                "(the agent would read the file as part of the skill)")
        return
    skills = layout.skills_dir.resolve()
    if resolved == skills or skills in resolved.parents:
        raise QuerySetError(
            f"{path}: query sets must be stored beside the library, not inside skills/ "
            "(RockBot would load the file as a skill)"
        )


def load_query_set(path: Path) -> QuerySet:
    try:
        # (a FIFO or a link to /dev/zero: refused, not read)
        data = loads_untrusted(fileio.read_regular(path, DOCUMENT_MAX_BYTES).decode("utf-8"))
        return QuerySet.model_validate(data)
    except OSError as exc:
        raise QuerySetError(f"{path}: {untrusted.reason(path, exc)}") from None
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()
        reason = "; ".join(line.strip() for line in first[:3])
        raise QuerySetError(f"{path}: not a query set ({reason})") from None


def save_query_set(layout: AnyLayout, path: Path, query_set: QuerySet) -> None:
    """Write ``query_set`` as indented UTF-8 JSON, atomically, refusing paths inside ``skills/``
    and paths outside the library or through a symbolic link leaving it (:class:`QuerySetError`)."""
    check_location(layout, path)
    text = json.dumps(query_set.model_dump(exclude_none=True, exclude_defaults=True), ensure_ascii=False,
                      indent=2)
    try:
        untrusted.write_inside(path, (text + "\n").encode("utf-8"), layout.agent_dir)
    except untrusted.Refused as exc:
        raise QuerySetError(str(exc)) from None


Renames = Mapping[str, str]  # old name -> new name (matched case-insensitively)


def compose_renames(pending: Renames, pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``pending`` followed by the renames ``pairs`` (one change set's ``renamed``), as one mapping
    from the names a query set may still use to the names they have now.

    A chain ``a -> b``, ``b -> c`` becomes ``a -> c, b -> c``; a rename undone (``a -> b``, then
    ``b -> a``) drops out. Keys keep the spelling first seen.
    """
    moves = [(old, new) for old, new in pairs if old != new]
    step = {fold(old): new for old, new in moves}
    result: dict[str, str] = {}
    for old, new in pending.items():
        result[old] = step.get(fold(new), new)
    for old, new in moves:
        if fold(old) not in {fold(k) for k in result}:
            result[old] = new
    return {old: new for old, new in result.items() if old != new}


def _renamed_names(names: list[str], step: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    for name in names:
        new = step.get(fold(name), name)
        if fold(new) not in {fold(n) for n in out}:
            out.append(new)
    return out


def query_naming(case: QueryCase, renames: Renames) -> bool:
    """True when ``case`` names one of the old names of ``renames`` (expected or avoided)."""
    olds = {fold(old) for old in renames}
    return any(fold(n) in olds for n in (*case.expected, *case.avoid))


def rename_in_query_set(query_set: QuerySet, renames: Renames) -> QuerySet:
    """``query_set`` with every expected and avoided name of ``renames`` replaced by its new name
    (case-insensitive; a name that becomes a duplicate of another in the same list is dropped)."""
    step = {fold(old): new for old, new in renames.items()}
    if not step:
        return query_set
    cases = [case.model_copy(update={"expected": _renamed_names(case.expected, step),
                                     "avoid": _renamed_names(case.avoid, step)})
             if query_naming(case, renames) else case for case in query_set.queries]
    return query_set.model_copy(update={"queries": cases})


@dataclass(frozen=True)
class CaseResult:
    """How one query did."""

    case: QueryCase
    top: tuple[str, ...]
    first_rank: int | None  # rank of the first expected skill in the full ranking
    missing: tuple[str, ...]  # expected names not in the top 5
    unknown: tuple[str, ...]  # expected names that are not skills of the library
    intruders: tuple[str, ...] = ()  # names to avoid that are in the top 5

    @property
    def passed(self) -> bool:
        return not self.missing and not self.intruders

    def as_json(self) -> dict[str, Any]:
        return {"query": self.case.query, "expected": self.case.expected,
                "top5": list(self.top), "firstRank": self.first_rank,
                "missing": list(self.missing), "unknown": list(self.unknown),
                "avoid": list(self.case.avoid), "intruders": list(self.intruders),
                "passed": self.passed}


@dataclass(frozen=True)
class QuerySetReport:
    """Metrics over a whole query set."""

    name: str
    cases: tuple[CaseResult, ...]

    def _mean(self, values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    @property
    def ranked(self) -> list[CaseResult]:
        """The cases with an expected skill (the metrics are over these)."""
        return [c for c in self.cases if c.case.expected]

    @property
    def hit_at_1(self) -> float:
        return self._mean([1.0 if c.first_rank == 1 else 0.0 for c in self.ranked])

    @property
    def hit_at_5(self) -> float:
        return self._mean([1.0 if c.first_rank is not None and c.first_rank <= RECALL_TOP_N
                           else 0.0 for c in self.ranked])

    @property
    def mrr(self) -> float:
        return self._mean([1.0 / c.first_rank if c.first_rank else 0.0 for c in self.ranked])

    @property
    def failing(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.passed]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "queries": len(self.cases), "hit@1": self.hit_at_1,
                "hit@5": self.hit_at_5, "mrr": self.mrr,
                "failing": [c.as_json() for c in self.failing],
                "results": [c.as_json() for c in self.cases]}


def evaluate_case(recall: SkillRecall, case: QueryCase, top_n: int = RECALL_TOP_N) -> CaseResult:
    """How one case does: its top ``top_n`` and every expected and avoided skill's rank from one
    scoring (the full ranking is never built)."""
    wanted = [*case.expected, *case.avoid]
    hits, ranks = recall.index.top_and_ranks(case.query, top_n, [fold(n) for n in wanted])
    top = tuple(spelled.name if (spelled := recall.get(h.key)) is not None else h.key for h in hits)
    folded_top = [fold(n) for n in top]
    found = [r for n in case.expected if (r := ranks.get(fold(n))) is not None]
    missing = tuple(n for n in case.expected if fold(n) not in folded_top)
    unknown = tuple(n for n in case.expected if recall.get(n) is None)
    intruders = tuple(n for n in case.avoid if fold(n) in folded_top)
    return CaseResult(case, top, min(found) if found else None, missing, unknown, intruders)


def evaluate(recall: SkillRecall, query_set: QuerySet) -> QuerySetReport:
    """Run every query of ``query_set`` against ``recall``."""
    return QuerySetReport(query_set.name, tuple(evaluate_case(recall, c) for c in query_set.queries))
