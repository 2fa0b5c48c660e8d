"""Dream apply on a RockBot (current) agent (issue 20): a merge or rewrite saved over a skill
keeps its ``manifest`` (FileSkillStore.SaveAsync keeps an existing manifest when the saved skill
has none), its other unmodelled properties and its ``{name}.resources/`` folder, byte for byte;
undo restores everything. The 64e82cc profile writes the record as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import apply_plan, undo_last
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.formats import open_library
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.model.timestamps import Timestamp
from tests.rockbot_current import CREATED, SKILLS, make_current_agent, rockbot_json, snapshot

NOW_TEXT = "2026-06-10T00:00:00+00:00"
SUMMARY = "Build a CSV report with report.py"
CONTENT = "# CSV report\n\nRun report.py, then check the rows against schema.json."


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return make_current_agent(tmp_path / "agent")


def merge_plan(library: Library, target: str, sources: list[str]) -> Plan:
    reply = {"toDelete": [], "toSave": [{"name": target, "summary": SUMMARY, "content": CONTENT,
                                         "sourceNames": sources, "seeAlso": []}]}
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=Timestamp.parse(NOW_TEXT))
    return run_dream(library, options, PastedReplies([json.dumps(reply)]))


def expected_record(name: str, manifest: object, baseline: object) -> bytes:
    """The saved record, written by the test generator's own System.Text.Json oracle."""
    record = {"name": name, "summary": SUMMARY, "content": CONTENT, "createdAt": CREATED,
              "updatedAt": NOW_TEXT, "lastUsedAt": None, "seeAlso": None,
              "manifest": manifest, "surfaceBaseline": baseline}
    return rockbot_json(record)


def test_a_merge_over_a_skill_with_resources_keeps_manifest_and_folder(agent: Path) -> None:
    before = snapshot(agent)
    library = open_library(agent)
    assert isinstance(library, Library) and library.rules.current
    plan = merge_plan(library, "scripts/csv-report", ["scripts/csv-report", "web/search"])
    result = apply_plan(library, plan, [p.id for p in plan.proposals if p.kind == "merge"])
    assert result.change.updated == ("scripts/csv-report",)
    after = snapshot(agent)
    assert after["skills/scripts/csv-report.json"] == expected_record(
        "scripts/csv-report", SKILLS["scripts/csv-report"]["manifest"], None)
    folder = "skills/scripts/csv-report.resources/"
    assert {k: v for k, v in after.items() if k.startswith(folder)} == \
        {k: v for k, v in before.items() if k.startswith(folder)}  # the folder, byte for byte
    changed = {k for k in after if after[k] != before.get(k)} | (before.keys() - after.keys())
    assert changed == {"skills/scripts/csv-report.json"}
    skill = open_library(agent).get("scripts/csv-report")
    assert skill is not None and [r["filename"] for r in skill.extra_value("manifest")] == \
        ["report.py", "schema.json", "missing.md"]
    undo_last(open_library(agent))
    assert snapshot(agent) == before


def test_a_rewrite_of_an_mcp_skill_keeps_its_baseline(agent: Path) -> None:
    before = snapshot(agent)
    library = open_library(agent)
    plan = merge_plan(library, "mcp/github", ["mcp/github"])
    apply_plan(library, plan, [p.id for p in plan.proposals if p.record is not None])
    source = SKILLS["mcp/github"]
    assert (agent / "skills" / "mcp" / "github.json").read_bytes() == \
        expected_record("mcp/github", None, source["surfaceBaseline"]).replace(
            b'"lastUsedAt": null', f'"lastUsedAt": "{source["lastUsedAt"]}"'.encode())
    undo_last(open_library(agent))
    assert snapshot(agent) == before


def test_a_new_skill_gets_no_borrowed_manifest(agent: Path) -> None:
    library = open_library(agent)
    plan = merge_plan(library, "scripts/report", ["scripts/csv-report"])
    apply_plan(library, plan, [p.id for p in plan.proposals if p.record is not None])
    written = json.loads((agent / "skills" / "scripts" / "report.json").read_text())
    assert "manifest" not in written and "surfaceBaseline" not in written


def test_64e82cc_writes_the_record_as_before(agent: Path) -> None:
    library = open_library(agent, format="rockbot-64e82cc")
    assert isinstance(library, Library) and not library.rules.current
    plan = merge_plan(library, "web/search", ["web/search"])
    apply_plan(library, plan, [p.id for p in plan.proposals if p.record is not None])
    written = json.loads((agent / "skills" / "web" / "search.json").read_text())
    assert list(written) == ["name", "summary", "content", "createdAt", "updatedAt",
                             "lastUsedAt", "seeAlso"]
