"""Named snapshots of trigger-eval results, and per-row differences between two, as query sets
have them (``core.recall.snapshots``): before and after a description edit, another model, a
dream. Stored beside the library in ``recall-tests/trigger-snapshots/<name>.json``, never in
``skills/``. A snapshot keeps no reply text and no key: per row the rate, the runs, pass/fail
and how often each skill fired.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rockskills_gui.core.evals.report import TriggerReport
from rockskills_gui.core.recall import snapshots as recall_snapshots
from rockskills_gui.core.recall.queryset import QUERY_SET_DIR, AnyLayout, QuerySetError

SNAPSHOT_DIR = "trigger-snapshots"


SnapshotError = QuerySetError  # a snapshot that cannot be read or written (one line)


class RowSnapshot(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    skill: str
    query: str
    should_trigger: bool
    rate: float
    runs: int
    passed: bool | None
    fired: dict[str, int] = Field(default_factory=dict)


class TriggerSnapshot(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str
    taken_at: str = Field(alias="takenAt")
    agent: str
    tool: str
    model: str
    runs: int
    threshold: float
    rows: list[RowSnapshot]


def take(report: TriggerReport, name: str) -> TriggerSnapshot:
    """``report``'s results kept as ``name``."""
    return TriggerSnapshot(
        name=name, taken_at=datetime.now(UTC).isoformat(timespec="seconds"), agent=report.agent,
        tool=report.tool, model=report.model, runs=report.runs, threshold=report.threshold,
        rows=[RowSnapshot(skill=r.skill, query=r.row.query, should_trigger=r.row.should_trigger,
                          rate=r.rate, runs=r.runs, passed=r.passed, fired=r.fired)
              for r in report.rows])


def snapshot_path(layout: AnyLayout, name: str) -> Path:
    """``<agent>/recall-tests/trigger-snapshots/<name>.json`` (a plain file name only)."""
    return recall_snapshots.snapshot_path(layout, name, SNAPSHOT_DIR)


def save(layout: AnyLayout, snapshot: TriggerSnapshot) -> Path:
    """Write ``snapshot`` atomically (never through a link leaving the library); its path."""
    return recall_snapshots.write_snapshot(layout, snapshot_path(layout, snapshot.name), snapshot,
                                           snapshot.name)


def load(layout: AnyLayout, name: str) -> TriggerSnapshot:
    """The snapshot called ``name`` (raises :class:`SnapshotError` with one readable line)."""
    return recall_snapshots.read_snapshot(snapshot_path(layout, name), name, TriggerSnapshot,
                                          "a trigger-eval snapshot")


def names(layout: AnyLayout) -> list[str]:
    """The library's trigger-eval snapshots, newest first (unreadable ones left out)."""
    found = recall_snapshots.readable_in(layout.agent_dir / QUERY_SET_DIR / SNAPSHOT_DIR,
                                         lambda n: load(layout, n))
    return [s.name for s in sorted(found, key=lambda s: s.taken_at, reverse=True)]


def default_name() -> str:
    return f"trigger-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"


@dataclass(frozen=True)
class RowDiff:
    """One row (skill and query) in two snapshots."""

    skill: str
    query: str
    a: RowSnapshot | None
    b: RowSnapshot | None

    @property
    def regressed(self) -> bool:
        """Passed in A, fails in B."""
        return self.a is not None and self.b is not None and self.a.passed is True and self.b.passed is False

    @property
    def fixed(self) -> bool:
        return self.a is not None and self.b is not None and self.a.passed is False and self.b.passed is True

    @property
    def rate_change(self) -> float | None:
        return None if self.a is None or self.b is None else self.b.rate - self.a.rate

    @property
    def changed(self) -> bool:
        return (self.a is None or self.b is None or self.a.rate != self.b.rate
                or self.a.passed != self.b.passed or self.a.fired != self.b.fired)

    def as_json(self) -> dict[str, Any]:
        def side(r: RowSnapshot | None) -> dict[str, Any] | None:
            return None if r is None else {"trigger_rate": r.rate, "runs": r.runs, "pass": r.passed,
                                           "fired": r.fired}

        either = self.a or self.b
        return {"skill": self.skill, "query": self.query,
                "should_trigger": either.should_trigger if either is not None else None,
                "a": side(self.a), "b": side(self.b), "rate_change": self.rate_change,
                "regressed": self.regressed, "fixed": self.fixed, "changed": self.changed}


def compare(a: TriggerSnapshot, b: TriggerSnapshot) -> list[RowDiff]:
    """Per row, matched by (skill, query): A's order, then rows only B has."""
    by_b = {(r.skill, r.query): r for r in b.rows}
    diffs = [RowDiff(r.skill, r.query, r, by_b.pop((r.skill, r.query), None)) for r in a.rows]
    return diffs + [RowDiff(s, q, None, r) for (s, q), r in by_b.items()]
