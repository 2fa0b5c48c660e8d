"""The "RockBot (current)" profile: detection, multi-file skills, byte-for-byte round trips,
rename/delete carrying the resource folder with undo; the 64e82cc profile unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.core.dream.checks import CheckContext, check
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Proposal, ProposalKind, SkillRecord
from rockskills_gui.core.library.formats import detect, format_label
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary, manifest_of
from rockskills_gui.core.lint.linter import lint_library
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, ROCKBOT_CURRENT, resource_filename_error
from rockskills_gui.core.model.skill import skill_from_bytes, skill_to_bytes
from tests.conftest import SHARED
from tests.rockbot_current import SKILLS, make_current_agent, rockbot_json, snapshot

AGENT_64E82CC = SHARED / "fixtures" / "rockbot-agent"


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return make_current_agent(tmp_path / "agent")


def open_current(agent: Path) -> RockBotLibrary:
    lib = open_library(agent)
    assert isinstance(lib, RockBotLibrary)
    return lib


def test_detected_as_current_with_the_evidence(agent: Path) -> None:
    found = detect(agent)
    assert found.format == "rockbot" and found.rules is ROCKBOT_CURRENT
    for evidence in ("skill file(s) with a manifest", "1 .resources folder(s)",
                     "skills/.embeddings/", "dream-pass-ledger.json"):
        assert evidence in found.profile_reason
    lib = open_current(agent)
    assert lib.rules is ROCKBOT_CURRENT
    assert format_label(lib) == "RockBot (current)"
    assert lib.detection_note.startswith("RockBot (current): ")


def test_each_piece_of_evidence_alone_selects_current(tmp_path: Path) -> None:
    for what in ("embeddings", "ledger", "resources", "manifest"):
        agent = tmp_path / what
        (agent / "skills").mkdir(parents=True)
        (agent / "skills" / "a.json").write_bytes(rockbot_json(
            {"name": "a", "summary": "s", "content": "c", "createdAt": "2026-01-01T00:00:00+00:00"}))
        if what == "embeddings":
            (agent / "skills" / ".embeddings").mkdir()
        elif what == "ledger":
            (agent / "dream-pass-ledger.json").write_text("{}")
        elif what == "resources":
            (agent / "skills" / "a.resources").mkdir()
        else:
            (agent / "skills" / "b.json").write_bytes(rockbot_json(
                {"name": "b", "summary": "s", "content": "c", "manifest": []}))
        assert detect(agent).rules is ROCKBOT_CURRENT, what


def test_the_64e82cc_fixture_stays_64e82cc() -> None:
    found = detect(AGENT_64E82CC)
    assert found.rules is ROCKBOT_64E82CC and found.profile_reason == ""
    lib = open_library(AGENT_64E82CC)
    assert isinstance(lib, RockBotLibrary) and lib.rules is ROCKBOT_64E82CC
    assert format_label(lib) == "RockBot" and lib.detection_note == ""


def test_loads_without_problems_and_skips_resources_and_embeddings(agent: Path) -> None:
    lib = open_current(agent)
    assert sorted(lib.names()) == sorted(SKILLS)
    assert lib.problems == []  # resources/schema.json is no skill; .embeddings is never reported


def test_the_64e82cc_profile_reads_resource_json_as_64e82cc_does(agent: Path) -> None:
    lib = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(lib, RockBotLibrary) and lib.rules is ROCKBOT_64E82CC
    # 64e82cc loads every *.json under skills/: the resource schema.json is a (nameless) file
    assert [p.path for p in lib.problems] == ["skills/scripts/csv-report.resources/schema.json"]


def test_every_skill_round_trips_byte_for_byte(agent: Path) -> None:
    lib = open_current(agent)
    for name in SKILLS:
        entry = lib.entry(name)
        assert skill_to_bytes(entry.skill) == entry.raw, name
        assert skill_from_bytes(entry.raw) == entry.skill


def test_unknown_properties_keep_order_spelling_and_dates(tmp_path: Path) -> None:
    raw = (b'{\n  "name": "x",\n  "summary": "",\n  "content": "c",\n  "createdAt": '
           b'"2026-01-01T00:00:00+00:00",\n  "updatedAt": null,\n  "lastUsedAt": null,\n  '
           b'"seeAlso": null,\n  "Zeta": {\n    "recordedAt": "2026-01-01T00:00:00.5+00:00",\n'
           b'    "note": "a\\u002Bb",\n    "n": [\n      1,\n      2.5,\n      true\n    ]\n  },\n'
           b'  "alpha": []\n}')
    assert skill_to_bytes(skill_from_bytes(raw)) == raw


def test_manifest_and_resources(agent: Path) -> None:
    lib = open_current(agent)
    manifest = manifest_of(lib.entry("scripts/csv-report").skill)
    assert manifest is not None and [m["filename"] for m in manifest] == \
        ["report.py", "schema.json", "missing.md"]
    resources = lib.resources("scripts/csv-report")
    assert [(r.filename, r.type, r.path is not None) for r in resources] == [
        ("report.py", "Python", True), ("schema.json", "JsonSchema", True),
        ("missing.md", "Markdown", False), ("logo.png", None, True)]
    assert manifest_of(lib.entry("web/search").skill) is None
    assert lib.resources("web/search") == []


def test_edit_keeps_manifest_and_baseline(agent: Path) -> None:
    lib = open_current(agent)
    before = snapshot(agent)
    lib.update("scripts/csv-report", content="# CSV report\n\nNew steps.")
    path = agent / "skills" / "scripts" / "csv-report.json"
    written = json.loads(path.read_bytes())
    expected = dict(SKILLS["scripts/csv-report"], content="# CSV report\n\nNew steps.",
                    updatedAt=written["updatedAt"])
    assert path.read_bytes() == rockbot_json(expected)
    lib.update("mcp/github", summary="GitHub through MCP")
    assert json.loads((agent / "skills" / "mcp" / "github.json").read_bytes())["surfaceBaseline"] \
        == SKILLS["mcp/github"]["surfaceBaseline"]
    lib.undo()
    lib.undo()
    assert snapshot(agent) == before


def test_rename_carries_the_resource_folder_and_undo_restores_both(agent: Path) -> None:
    lib = open_current(agent)
    before = snapshot(agent)
    lib.rename("scripts/csv-report", "reports/csv")
    skills = agent / "skills"
    assert not (skills / "scripts" / "csv-report.resources").exists()
    moved = skills / "reports" / "csv.resources"
    assert {p.name for p in moved.iterdir()} == {"report.py", "schema.json", "logo.png"}
    assert (moved / "logo.png").read_bytes() == before["skills/scripts/csv-report.resources/logo.png"]
    assert manifest_of(lib.entry("reports/csv").skill) == manifest_of(
        skill_from_bytes(before["skills/scripts/csv-report.json"]))
    assert [r.filename for r in lib.resources("reports/csv")][:2] == ["report.py", "schema.json"]
    assert lib.problems == [] and len(lib) == len(SKILLS)
    # the embedding cache is the agent's: never touched
    assert {k: v for k, v in snapshot(agent).items() if ".embeddings" in k} == \
        {k: v for k, v in before.items() if ".embeddings" in k}
    lib.undo()
    assert snapshot(agent) == before
    assert "scripts/csv-report" in lib and "reports/csv" not in lib
    lib.redo()
    assert (moved / "report.py").is_file()
    lib.undo()
    assert snapshot(agent) == before
    reopened = open_current(agent)
    assert reopened.problems == [] and sorted(reopened.names()) == sorted(SKILLS)


def test_folder_move_carries_resources(agent: Path) -> None:
    lib = open_current(agent)
    before = snapshot(agent)
    lib.rename_many({"scripts/csv-report": "tools/csv-report", "web/search": "tools/search"})
    assert (agent / "skills" / "tools" / "csv-report.resources" / "report.py").is_file()
    lib.undo()
    assert snapshot(agent) == before


def test_delete_removes_the_resource_folder_and_undo_restores_it(agent: Path) -> None:
    lib = open_current(agent)
    before = snapshot(agent)
    lib.delete("scripts/csv-report")
    assert not (agent / "skills" / "scripts" / "csv-report.json").exists()
    assert not (agent / "skills" / "scripts" / "csv-report.resources").exists()
    assert (agent / "skills" / ".embeddings" / "scripts" / "csv-report.bin").exists()
    lib.undo()
    assert snapshot(agent) == before
    assert lib.entry("scripts/csv-report").raw == before["skills/scripts/csv-report.json"]


def test_the_64e82cc_profile_never_touches_resource_folders(agent: Path) -> None:
    lib = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(lib, RockBotLibrary)
    lib.rename("scripts/csv-report", "reports/csv")
    assert (agent / "skills" / "scripts" / "csv-report.resources" / "report.py").is_file()
    assert not (agent / "skills" / "reports" / "csv.resources").exists()


def test_refresh_ignores_resource_and_embedding_files(agent: Path) -> None:
    lib = open_current(agent)
    resource = agent / "skills" / "scripts" / "csv-report.resources" / "schema.json"
    resource.write_text('{"name": "still not a skill", "content": "x"}')
    cache = agent / "skills" / ".embeddings" / "web" / "extra.json"
    cache.write_text("{}")
    changes = lib.refresh([resource, cache, resource.parent, cache.parent])
    assert changes.empty and lib.problems == []


def test_resource_filename_rule() -> None:
    assert resource_filename_error("report.py") is None
    assert "path separators" in (resource_filename_error("a/b.py") or "")
    assert "'..'" in (resource_filename_error("a..b") or "")
    assert "invalid characters" in (resource_filename_error("a b.py") or "")


# ---------------------------------------------------------------- dream and lint findings

def _merge(lib: RockBotLibrary, sources: list[str], name: str, summary: str) -> Proposal:
    before = {n: SkillRecord.of(lib.entry(n).skill) for n in sources}
    record = SkillRecord(name=name, summary=summary, content="merged content",
                         created_at="2026-05-01T10:00:00+00:00")
    return Proposal(id="p1", kind=ProposalKind.MERGE, dream_pass=DreamPass.CONSOLIDATE, title="merge",
                    record=record, sources=sources, deletes=sources, before=before)


def _codes(proposal: Proposal) -> set[str]:
    return {f.code for f in proposal.findings}


def test_dream_findings_for_the_current_profile(agent: Path) -> None:
    lib = open_current(agent)
    ctx = CheckContext.of(lib.skills(), lib.problems, [], layout=lib.layout, rules=lib.rules)
    across = _merge(lib, ["mcp/github", "mcp/ms365"], "mcp/microsoft-services", "Services")
    check(across, ctx)
    assert {"namespace-merge", "summary-keywords"} <= _codes(across)
    patrol = _merge(lib, ["patrol/checklist", "web/search"], "web/search", "Search the web, patrol")
    check(patrol, ctx)
    # ProtectedSkillPrefixes is gone (MarimerLLC/rockbot src/RockBot.Host.Abstractions/
    # DreamOptions.cs @ 05346ff and @ 150a84c; design/skill-name-stability.md @ cb1a22c): a current
    # RockBot merges patrol/ skills like any other.
    assert "protected" not in _codes(patrol)
    guide = _merge(lib, ["web/search"], "mcp/guide", "Guide to mcp servers web search summarize top results")
    check(guide, ctx)
    assert "namespace-guide" in _codes(guide)
    naming = _merge(lib, ["web/search"], "mcp-github", "Search the web and summarize the top results")
    check(naming, ctx)
    assert "mcp-naming" in _codes(naming)
    kept = _merge(lib, ["web/search"], "web/search-and-summarize",
                  "Search the web and summarize the top results")
    check(kept, ctx)
    assert not _codes(kept) & {"namespace-merge", "summary-keywords", "protected"}


def test_no_current_findings_under_64e82cc(agent: Path) -> None:
    lib = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(lib, RockBotLibrary)
    ctx = CheckContext.of(lib.skills(), lib.problems, [], layout=lib.layout, rules=lib.rules)
    across = _merge(lib, ["mcp/github", "mcp/ms365", "patrol/checklist"], "mcp/all", "All")
    check(across, ctx)
    assert not _codes(across) & {"namespace-merge", "summary-keywords", "protected", "mcp-naming"}


def test_lint_findings_for_the_current_profile(agent: Path) -> None:
    (agent / "skills" / "mcp-jira.json").write_bytes(rockbot_json(
        {"name": "mcp-jira", "summary": "Jira", "content": "c", "createdAt": "2026-01-01T00:00:00+00:00"}))
    lib = open_current(agent)
    found = {(f.kind, f.name) for f in lint_library(lib)}
    assert ("resource-missing", "scripts/csv-report") in found
    assert ("resource-unlisted", "scripts/csv-report") in found
    assert ("mcp-naming", "mcp-jira") in found
    assert not any(kind == "mcp-freshness" for kind, _ in found)  # both have baselines
    (agent / "skills" / "mcp" / "jira.json").write_bytes(rockbot_json(
        {"name": "mcp/jira", "summary": "Jira", "content": "c", "createdAt": "2026-01-01T00:00:00+00:00"}))
    fresh = [f for f in lint_library(open_current(agent)) if f.kind == "mcp-freshness"]
    assert [f.name for f in fresh] == ["mcp/jira"]
    assert fresh[0].message.endswith("as Unknown (no surface baseline recorded)")
    assert not any(".embeddings" in f.path for f in lint_library(lib))
    old = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert not {f.kind for f in lint_library(old)} & {"resource-missing", "mcp-naming"}
