"""A "current RockBot" agent directory for tests: what a RockBot after 64e82cc leaves on disk.

Multi-file skills (``{name}.resources/`` beside the skill JSON, a ``manifest`` list in it, one
resource itself a JSON file the current loader must skip), ``mcp/{server}`` skills with a
``surfaceBaseline``, a protected ``patrol/`` skill, the embedding cache ``skills/.embeddings/``
(raw float32 vectors), ``dream-pass-ledger.json``, skill usage and resource-usage logs.

The skill files are written by an oracle independent of the app's writer: ``json.dumps`` with
2-space indentation matches System.Text.Json's indented output for the ASCII texts used here
(no ``" & ' + < > ``` in strings; dates written literally, as RockBot's date formatter does).
Property order follows the upstream records: Skill(name, summary, content, createdAt,
updatedAt, lastUsedAt, seeAlso, manifest, surfaceBaseline) and SkillResource(filename, type,
description, provisional, createdAt, verifyHint, definitionHash, toolFingerprints).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

CREATED = "2026-05-01T10:00:00+00:00"
UPDATED = "2026-06-02T11:30:00.25+00:00"


def rockbot_json(record: dict[str, Any]) -> bytes:
    """System.Text.Json's indented form for the plain ASCII records of this module."""
    return json.dumps(record, indent=2).encode("ascii")


def resource(filename: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"filename": filename, "type": type_, "description": description,
                             "provisional": False, "createdAt": CREATED, "verifyHint": None,
                             "definitionHash": None, "toolFingerprints": None}
    entry.update(more)
    return entry


def skill(name: str, summary: str, content: str, *, see_also: list[str] | None = None,
          manifest: list[dict[str, Any]] | None = None,
          baseline: dict[str, Any] | None = None, last_used: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"name": name, "summary": summary, "content": content,
                              "createdAt": CREATED, "updatedAt": UPDATED, "lastUsedAt": last_used,
                              "seeAlso": see_also}
    record["manifest"] = manifest  # System.Text.Json writes nulls: every skill has both
    record["surfaceBaseline"] = baseline
    return record


def baseline(server: str) -> dict[str, Any]:
    return {"serverName": server, "serverId": f"id-{server}", "fingerprint": "0123456789abcdef",
            "version": "1.4.0", "identityHash": None, "recordedAt": "2026-06-01T08:00:00.1234567+00:00"}


SKILLS: dict[str, dict[str, Any]] = {
    "scripts/csv-report": skill(
        "scripts/csv-report", "Build a CSV report with the bundled Python script",
        "# CSV report\n\nRun report.py with the input file; validate with schema.json.",
        manifest=[resource("report.py", "Python", "Builds the report", verifyHint="prints a table",
                           definitionHash="a1b2c3d4e5f60718"),
                  resource("schema.json", "JsonSchema", "Shape of the input rows"),
                  resource("missing.md", "Markdown", "Listed but not on disk", provisional=True)]),
    "mcp/github": skill(
        "mcp/github", "Use the GitHub MCP server for issues and pull requests",
        "# GitHub MCP\n\nCall list_issues, then get_issue for details.",
        baseline=baseline("github"), last_used="2026-06-03T09:00:00+00:00"),
    "mcp/ms365": skill(
        "mcp/ms365", "Use the ms365 MCP server for calendar and mail",
        "# ms365 MCP\n\nCall get_calendar_events for both accounts.",
        baseline=baseline("ms365"), see_also=["mcp/github"]),
    "patrol/checklist": skill(
        "patrol/checklist", "What the heartbeat patrol checks on each run",
        "# Patrol\n\n1. Check the inbox.\n2. Check the calendar."),
    "web/search": skill(
        "web/search", "Search the web and summarize the top results",
        "# Web search\n\nSearch, open the top three results, summarize them."),
}
RESOURCES: dict[str, dict[str, bytes]] = {
    "scripts/csv-report": {
        "report.py": b"import csv\nprint('report')\n",
        "schema.json": b'{\n  "type": "object",\n  "name": "not a skill"\n}',
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary\xff",  # in the folder, not in the manifest
    },
}
EMBEDDED = ("mcp/github", "web/search", "scripts/csv-report")
LEDGER = {"skill consolidation": {"fingerprint": "9F2C0A", "lastRunAt": "2026-06-04T04:00:00+00:00"}}


def make_current_agent(root: Path) -> Path:
    """Write the agent directory at ``root`` and return it."""
    skills = root / "skills"
    for name, record in SKILLS.items():
        path = skills / (name + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rockbot_json(record))
    for name, files in RESOURCES.items():
        folder = skills / (name + ".resources")
        folder.mkdir(parents=True, exist_ok=True)
        for filename, data in files.items():
            (folder / filename).write_bytes(data)
    for index, name in enumerate(EMBEDDED):
        path = skills / ".embeddings" / (name + ".bin")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(struct.pack("<4f", 0.1 * index, 0.5, -0.25, 1.0))
    (root / "dream-pass-ledger.json").write_text(json.dumps(LEDGER, indent=2))
    usage = root / "skill-usage"
    usage.mkdir(parents=True, exist_ok=True)
    (usage / "cli-session.jsonl").write_text(
        '{"id":"a1","skillName":"scripts/csv-report","sessionId":"cli-session",'
        '"timestamp":"2026-06-03T09:00:00+00:00"}\n')
    (root / "skill-resource-usage.jsonl").write_text(
        '{"skillName":"scripts/csv-report","filename":"report.py","sessionId":"cli-session",'
        '"timestamp":"2026-06-03T09:01:00+00:00"}\n')
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes), the app's own folder excluded."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".rockskills" not in p.relative_to(root).parts}
