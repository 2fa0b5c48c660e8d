"""A CortexPrism project for tests: ``memory.db`` built from the DDL in formats.md (read at test
time, so a change to the spec's table shows up here), three rows in different lifecycles and trust
tiers, and one of them also as ``.cortex/skills/<name>/SKILL.md``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.conftest import SHARED


def write_skill(root: Path, folder: str, text: str | bytes) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def cortex_ddl() -> str:
    text = (SHARED / "spec" / "formats.md").read_text()
    start = text.index("CREATE TABLE procedural_memory")
    end = text.index("```", start)
    return text[start:end]


def make_cortex(project: Path) -> Path:
    db = project / ".cortex" / "memory.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.executescript(cortex_ddl())
    rows = [
        ("skill_1", "deploy_service_safely", "Deploy a service with health checks", "deploy, release",
         json.dumps([{"step": 1, "action": "Run the tests", "description": "x", "tool": "bash"}]),
         0.9, 10, "released", 3, 1.2, 0.8, None, None, "2026-11-01 10:00:00", "2026-11-20T08:00:00.000Z"),
        ("skill_2", "deploy_service_fast", "Deploy quickly without checks", None, "[]",
         0.2, 6, "deprecated", 1, 0.0, 0.05, "---\nname: x\n---\n\n# Fast\nJust push\n",
         "Unsafe", "2026-10-01 09:00:00", None),
        ("skill_3", "summarize_logs", "Summarize error logs", None, "[]", 0.0, 0, "archived", 2, 0.0, 1.0,
         None, "Merged into \"x\"", "2026-09-01 09:00:00", None),
    ]
    conn.executemany(
        "INSERT INTO procedural_memory (id, name, description, trigger_pattern, steps, success_rate, "
        "invocation_count, lifecycle, trust_tier, utility_score, freshness, content, deprecated_reason, "
        "created_at, last_used_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    conn.commit()
    conn.close()
    write_skill(project / ".cortex" / "skills", "deploy_service_safely",
                "---\nname: deploy_service_safely\ndescription: Deploy a service with health checks\n"
                "trigger_pattern: deploy, release\n---\n\n# Deploy\n1. Run the tests\n")
    return db
