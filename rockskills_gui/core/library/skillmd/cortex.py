"""CortexPrism: ``.cortex/skills/<name>/SKILL.md`` and the ``procedural_memory`` table (formats.md §B).

``memory.db`` is opened read-only; columns are discovered with ``PRAGMA table_info`` (no column
count is assumed). Each row gives a Skill view (name, description, content without any leading
frontmatter, timestamps in either of CortexPrism's two formats) plus its lifecycle, trust tier,
success rate, utility, freshness and the health score computed as CortexPrism computes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.stores.skill_dirs import (
    CORTEX_DB_CANDIDATES,
    CORTEX_DB_NAME,
    CORTEX_SKILLS_SUBDIR,
)
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.health import INACTIVE_LIFECYCLES as INACTIVE_LIFECYCLES
from rockskills_gui.core.model.health import LIFECYCLES as LIFECYCLES
from rockskills_gui.core.model.health import TRUST_TIERS as TRUST_TIERS
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp, TimestampError

SKILLS_SUBDIR = CORTEX_SKILLS_SUBDIR  # (these are defined beside the profiles: format detection)
DB_NAME = CORTEX_DB_NAME
DB_CANDIDATES = CORTEX_DB_CANDIDATES
TABLE = "procedural_memory"
JSON_COLUMNS = ("steps", "metadata", "depends_on", "conflicts_with")
STAT_COLUMNS = (
    "id", "origin", "lifecycle", "trust_tier", "success_rate", "invocation_count", "utility_score",
    "freshness", "token_cost", "version", "deprecated_reason", "last_validated_at",
    "parent_skill_id", "source_session", "user_id", "team_id", "embedding_model",
)


def parse_time(text: object) -> Timestamp | None:
    """``YYYY-MM-DD HH:MM:SS`` (SQLite, UTC) or ISO-8601 with ``Z``/offset; None if absent/unreadable."""
    if not isinstance(text, str) or not text.strip():
        return None
    value = text.strip()
    if re.match(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}", value):
        value = value.replace(" ", "T", 1)
    try:
        return Timestamp.parse(value)
    except TimestampError:
        return None


def strip_frontmatter(content: str) -> str:
    """``content`` without a leading frontmatter block (FS-imported rows keep the whole file)."""
    doc = fm.split_text(content)
    if not doc.has_frontmatter:
        return content
    return fm.split_body(doc.body)[1]


def _decode_json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return dotnet_json.loads_untrusted(value)  # (never RecursionError: a hostile database)
    except ValueError:
        return value


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return ()


@dataclass(frozen=True)
class CortexRow:
    """One ``procedural_memory`` row: the raw column values and the derived views."""

    values: dict[str, Any]
    skill: Skill
    health: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.skill.name

    @property
    def lifecycle(self) -> str:
        return str(self.values.get("lifecycle") or "candidate")

    @property
    def inactive(self) -> bool:
        """Deprecated or archived: shown, but marked (CortexPrism drops them from prompts)."""
        return self.lifecycle in INACTIVE_LIFECYCLES

    @property
    def depends_on(self) -> tuple[str, ...]:
        return _names(self.values.get("depends_on"))

    @property
    def conflicts_with(self) -> tuple[str, ...]:
        return _names(self.values.get("conflicts_with"))

    def stats(self) -> dict[str, Any]:
        """Columns for the UI: lifecycle, trust, scores, health (JSON-safe; no embedding bytes)."""
        out: dict[str, Any] = {k: self.values.get(k) for k in STAT_COLUMNS if k in self.values}
        tier = self.values.get("trust_tier")
        out["trust"] = TRUST_TIERS.get(tier, str(tier)) if tier is not None else None
        out["health"] = self.health.get("overall")
        out["inactive"] = self.inactive
        return out


def health(row: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, float]:
    """CortexPrism's health score (formats.md §B.2), with the lexical similarity fallback."""
    utility = float(row.get("utility_score") or 0.0)
    fresh = row.get("freshness")
    freshness = float(fresh if fresh is not None else 1.0)
    success = float(row.get("success_rate") or 0.0)
    count = int(row.get("invocation_count") or 0)
    name = str(row.get("name") or "")
    prefix = "_".join(name.split("_")[:2])
    head = str(row.get("description") or "")[:30]
    similar = 0
    for other in rows:
        if other is row or other.get("name") == name:
            continue
        other_name = str(other.get("name") or "")
        if ("_".join(other_name.split("_")[:2]) == prefix and prefix) or \
                (head and head in str(other.get("description") or "")):
            similar += 1
            if similar >= 10:
                break
    redundancy = min(1.0, similar * 0.3)
    failure_risk = max(0.0, 1.0 - success) if count >= 3 else 0.3
    overall = utility * 0.35 + (1 - redundancy) * 0.25 + freshness * 0.20 + (1 - failure_risk) * 0.20
    return {"overall": overall, "utility": utility, "redundancy": redundancy, "freshness": freshness,
            "failure_risk": failure_risk}


def _row_skill(values: dict[str, Any]) -> Skill:
    content = values.get("content")
    if isinstance(content, str) and content.strip():
        body = strip_frontmatter(content)
    else:
        raw_steps = values.get("steps")
        steps: list[Any] = raw_steps if isinstance(raw_steps, list) else []
        lines: list[str] = []
        for number, step in enumerate(steps, 1):
            if isinstance(step, dict):
                text = str(step.get("action") or step.get("description") or "")
                tool = f" — uses `{step['tool']}`" if step.get("tool") else ""
                lines.append(f"{step.get('step', number)}. {text}{tool}")
        body = "\n".join(lines)
    created = parse_time(values.get("created_at")) or MIN_VALUE
    raw_metadata = values.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    see_also = metadata.get("see_also")
    return Skill.model_construct(
        name=str(values.get("name")), summary=values.get("description") or "", content=body,
        created_at=created, updated_at=parse_time(values.get("updated_at")),
        last_used_at=parse_time(values.get("last_used_at")),
        see_also=tuple(str(s) for s in see_also) if isinstance(see_also, list) else None)


def read_memory_db(path: Path, display: str) -> tuple[list[CortexRow], list[Problem]]:
    """Every ``procedural_memory`` row, read-only; an unreadable DB or table becomes a problem."""
    import sqlite3  # (only a CortexPrism memory.db needs it)

    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return [], [Problem(path=display, kind=ProblemKind.UNREADABLE, message=f"cannot open: {exc}")]
    try:
        conn.row_factory = sqlite3.Row
        columns = [r["name"] for r in conn.execute(f"PRAGMA table_info({TABLE})")]
        if not columns:
            return [], [Problem(path=display, kind=ProblemKind.PARSE_ERROR, severity="warning",
                                message=f"no {TABLE} table in the database")]
        order = "rowid" if "name" not in columns else "name"
        raw_rows = [dict(r) for r in conn.execute(f"SELECT * FROM {TABLE} ORDER BY {order}")]
    except sqlite3.Error as exc:
        return [], [Problem(path=display, kind=ProblemKind.UNREADABLE, message=f"cannot read: {exc}")]
    finally:
        conn.close()
    problems: list[Problem] = []
    rows: list[CortexRow] = []
    for values in raw_rows:
        for column in JSON_COLUMNS:
            if column in values:
                values[column] = _decode_json(values[column])
        if not values.get("name"):
            problems.append(Problem(path=display, kind=ProblemKind.MISSING_NAME,
                                    message=f"row {values.get('id')!r} has no name"))
            continue
        rows.append(CortexRow(values, _row_skill(values)))
    return [CortexRow(r.values, r.skill, health(r.values, raw_rows)) for r in rows], problems
