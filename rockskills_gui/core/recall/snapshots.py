"""Named snapshots of a query set's recall results, and per-query differences between two.

A snapshot keeps, per query, the top 5 (names and exact scores) and the rank of every expected
and avoided skill, so that two configurations of a library -- before and after an edit, a dream,
a week of changes -- can be compared query by query, as relevance engineers compare runs.
Snapshots are stored beside the library in ``recall-tests/snapshots/<name>.json`` (never in
``skills/``, which RockBot reads).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.recall.limits import RECALL_TOP_N
from rockskills_gui.core.recall.queryset import QUERY_SET_DIR, AnyLayout, QuerySet, QuerySetError
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.core.storage import fileio, untrusted

SNAPSHOT_DIR = "snapshots"
M = TypeVar("M", bound=BaseModel)


class SnapshotResult(BaseModel):
    """One query's results at snapshot time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str
    expected: list[str] = Field(default_factory=list)
    avoid: list[str] = Field(default_factory=list)
    top: list[tuple[str, float]]  # the top 5: name, exact score
    ranks: dict[str, int | None]  # every expected and avoided skill's rank (None: unranked)


class Snapshot(BaseModel):
    """A query set's results at one moment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    query_set: str = Field(alias="querySet")
    taken_at: str = Field(alias="takenAt")
    skills: int
    results: list[SnapshotResult]


def take(recall: SkillRecall, query_set: QuerySet, name: str) -> Snapshot:
    """Run every query of ``query_set`` against ``recall`` and keep the results as ``name``."""
    results: list[SnapshotResult] = []
    for case in query_set.queries:
        wanted = [*case.expected, *case.avoid]
        top, ranks = recall.index.top_and_ranks(case.query, RECALL_TOP_N, [fold(n) for n in wanted])
        results.append(SnapshotResult(
            query=case.query, expected=list(case.expected), avoid=list(case.avoid),
            top=[(_spelled(recall, h.key), h.score) for h in top],
            ranks={n: ranks.get(fold(n)) for n in wanted}))
    return Snapshot(name=name, querySet=query_set.name, skills=len(recall),
                    takenAt=datetime.now(UTC).isoformat(timespec="seconds"), results=results)


def _spelled(recall: SkillRecall, key: str) -> str:
    skill = recall.get(key)
    return skill.name if skill is not None else key


def snapshot_path(layout: AnyLayout, name: str, folder: str = SNAPSHOT_DIR) -> Path:
    """``<agent>/recall-tests/<folder>/<name>.json`` (a plain file name only)."""
    if not name or "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
        raise QuerySetError(f"not a usable snapshot name: {name!r}")
    return layout.agent_dir / QUERY_SET_DIR / folder / f"{name}.json"


def write_snapshot(layout: AnyLayout, path: Path, snapshot: BaseModel, name: str) -> Path:
    """Write ``snapshot`` (by alias, indented) to ``path`` atomically and return the path."""
    text = json.dumps(snapshot.model_dump(by_alias=True), ensure_ascii=False, indent=2) + "\n"
    try:  # (a symlinked recall-tests/ or snapshots/ leaving the library: refused)
        untrusted.write_inside(path, text.encode("utf-8"), layout.agent_dir)
    except untrusted.Refused as exc:
        raise QuerySetError(f"snapshot {name!r}: {exc.why}") from None
    return path


def read_snapshot(path: Path, name: str, model: type[M], what: str = "a snapshot") -> M:
    """The ``model`` stored at ``path`` (raises :class:`QuerySetError` with one readable line)."""
    try:
        return model.model_validate_json(fileio.read_regular(path, DOCUMENT_MAX_BYTES))
    except OSError as exc:
        raise QuerySetError(f"snapshot {name!r}: {exc.strerror or exc}") from None
    except (ValueError, ValidationError) as exc:
        raise QuerySetError(f"snapshot {name!r}: not {what} ({str(exc).splitlines()[0]})") from None


def readable_in(folder: Path, load: Callable[[str], M]) -> list[M]:
    """Every snapshot ``load`` reads from ``folder`` (by file stem); unreadable ones left out."""
    try:
        paths = [p for p in folder.glob("*.json") if fileio.is_regular(p)]
    except OSError:
        return []
    found: list[M] = []
    for path in paths:
        try:
            found.append(load(path.stem))
        except QuerySetError:
            continue
    return found


def save(layout: AnyLayout, snapshot: Snapshot) -> Path:
    """Write ``snapshot`` (atomically) and return its path."""
    return write_snapshot(layout, snapshot_path(layout, snapshot.name), snapshot, snapshot.name)


def load(layout: AnyLayout, name: str) -> Snapshot:
    """The snapshot called ``name`` (raises :class:`QuerySetError` with one readable line)."""
    return read_snapshot(snapshot_path(layout, name), name, Snapshot)


@dataclass(frozen=True)
class QueryDiff:
    """One query in two snapshots."""

    query: str
    a: SnapshotResult | None
    b: SnapshotResult | None

    @property
    def lost(self) -> list[str]:
        """Expected skills in A's top 5 and not in B's."""
        if self.a is None or self.b is None:
            return []
        return [n for n in self.a.expected if _in_top(self.a, n) and not _in_top(self.b, n)]

    @property
    def pulled_in(self) -> list[str]:
        """Skills to avoid that B's top 5 has and A's had not."""
        if self.a is None or self.b is None:
            return []
        return [n for n in self.b.avoid if _in_top(self.b, n) and not _in_top(self.a, n)]

    @property
    def regressed(self) -> bool:
        return bool(self.lost or self.pulled_in)

    @property
    def changed(self) -> bool:
        return self.a is None or self.b is None or self.a.top != self.b.top or self.a.ranks != self.b.ranks

    def as_json(self) -> dict[str, Any]:
        def side(r: SnapshotResult | None) -> dict[str, Any] | None:
            return None if r is None else {"top5": [[n, s] for n, s in r.top], "ranks": r.ranks}

        return {"query": self.query, "a": side(self.a), "b": side(self.b), "lost": self.lost,
                "pulledIn": self.pulled_in, "regressed": self.regressed, "changed": self.changed}


def _in_top(result: SnapshotResult, name: str) -> bool:
    rank = next((r for n, r in result.ranks.items() if fold(n) == fold(name)), None)
    return rank is not None and rank <= RECALL_TOP_N


def compare(a: Snapshot, b: Snapshot) -> list[QueryDiff]:
    """Per query (matched by its text; A's order, then queries only B has)."""
    by_b = {r.query: r for r in b.results}
    diffs = [QueryDiff(r.query, r, by_b.pop(r.query, None)) for r in a.results]
    return diffs + [QueryDiff(q, None, r) for q, r in by_b.items()]


def names_for(layout: AnyLayout, query_set: str) -> list[str]:
    """The snapshots of ``query_set`` (newest first); unreadable files are left out."""
    folder = layout.agent_dir / QUERY_SET_DIR / SNAPSHOT_DIR
    found = [(snap.taken_at, snap.name) for snap in readable_in(folder, lambda n: load(layout, n))
             if snap.query_set == query_set]
    return [name for _taken, name in sorted(found, reverse=True)]


def default_name(query_set: str) -> str:
    """``<set>-<UTC time>``: a new snapshot's name."""
    return f"{query_set}-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
