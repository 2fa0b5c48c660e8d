"""Dream apply on a RockBot (current) agent (issue 20): a merge or rewrite saved over a skill
keeps its ``manifest`` (FileSkillStore.SaveAsync keeps an existing manifest when the saved skill
has none), its other unmodelled properties and its ``{name}.resources/`` folder, byte for byte;
a deleted or pruned skill's folder goes as the library's delete removes it; a case-only rename
takes the folder along; a merged-away source hands its files and manifest entries to the merged
skill. Undo (and crash recovery) restores the whole tree byte for byte. The 64e82cc profile
writes the record as before and never touches a ``*.resources`` folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import PlanRefused, apply_plan, undo_last
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.layout import Layout
from tests.rockbot_current import (
    CREATED,
    RESOURCES,
    SKILLS,
    make_current_agent,
    resource,
    rockbot_json,
    snapshot,
)

NOW_TEXT = "2026-06-10T00:00:00+00:00"
SKILL_WITH_RESOURCES = "scripts/csv-report"
SUMMARY = "Build a CSV report with report.py"
CONTENT = "# CSV report\n\nRun report.py, then check the rows against schema.json."


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return make_current_agent(tmp_path / "agent")


def merge_plan(library: RockBotLibrary, target: str, sources: list[str]) -> Plan:
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
    assert isinstance(library, RockBotLibrary) and library.rules.current
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
    library = open_library(agent)  # the source's deletion is not accepted: it keeps its folder
    plan = merge_plan(library, "scripts/report", ["scripts/csv-report"])
    apply_plan(library, plan, [p.id for p in plan.proposals if p.record is not None])
    written = json.loads((agent / "skills" / "scripts" / "report.json").read_text())
    # Not borrowed; written null as a current RockBot writes a skill without them (FileSkillStore's
    # JsonOptions have no ignore condition: MarimerLLC/rockbot FileSkillStore.cs @ 4105def).
    assert written["manifest"] is None and written["surfaceBaseline"] is None
    assert list(written)[-2:] == ["manifest", "surfaceBaseline"]


def test_64e82cc_writes_the_record_as_before(agent: Path) -> None:
    library = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(library, RockBotLibrary) and not library.rules.current
    plan = merge_plan(library, "web/search", ["web/search"])
    apply_plan(library, plan, [p.id for p in plan.proposals if p.record is not None])
    written = json.loads((agent / "skills" / "web" / "search.json").read_text())
    assert list(written) == ["name", "summary", "content", "createdAt", "updatedAt",
                             "lastUsedAt", "seeAlso"]


# ---------------------------------------------------------------- resource folders (delete, merge, rename)

RESOURCES_DIR = "skills/scripts/csv-report.resources/"
FILES = RESOURCES[SKILL_WITH_RESOURCES]


ARCHIVE = ".rockskills/archive"


def tree(root: Path) -> tuple[dict[str, bytes], set[str]]:
    """Every file (bytes) and every folder under ``root``, the app's own folder excluded."""
    folders = {p.relative_to(root).as_posix() for p in root.rglob("*")
               if p.is_dir() and ".rockskills" not in p.relative_to(root).parts}
    return snapshot(root), folders


def reply_plan(library: RockBotLibrary, reply: dict[str, object], now: str = NOW_TEXT) -> Plan:
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=Timestamp.parse(now))
    return run_dream(library, options, PastedReplies([json.dumps(reply)]))


def delete_plan(library: RockBotLibrary, name: str) -> tuple[Plan, list[str]]:
    """A consolidation reply deleting ``name`` (beside an unrelated rewrite): the delete's id."""
    reply = {"toDelete": [name], "toSave": [{"name": "web/search", "summary": SUMMARY,
                                             "content": CONTENT, "sourceNames": ["web/search"]}]}
    plan = reply_plan(library, reply)
    return plan, [p.id for p in plan.proposals if p.deletes == [name]]


def open_current(agent: Path) -> RockBotLibrary:
    library = open_library(agent)
    assert isinstance(library, RockBotLibrary) and library.rules.current
    return library


def give_resources(agent: Path, name: str, files: dict[str, bytes], entries: list[dict[str, object]]) -> None:
    """Make ``name`` a multi-file skill too: its folder and a manifest, as RockBot writes them."""
    record = dict(SKILLS[name])
    record["manifest"] = entries
    (agent / "skills" / f"{name}.json").write_bytes(rockbot_json(record))
    folder = agent / "skills" / f"{name}.resources"
    folder.mkdir(parents=True)
    for filename, data in files.items():
        (folder / filename).write_bytes(data)


def test_a_dream_delete_removes_the_folder_as_the_library_delete_does(agent: Path, tmp_path: Path) -> None:
    reference = make_current_agent(tmp_path / "reference")
    open_current(reference).delete(SKILL_WITH_RESOURCES)  # the library's own delete
    before = tree(agent)
    library = open_current(agent)
    plan, ids = delete_plan(library, SKILL_WITH_RESOURCES)
    result = apply_plan(library, plan, ids)
    assert result.change.deleted == (SKILL_WITH_RESOURCES,)
    assert sorted(library.layout.display_path(fc.path) for fc in result.change.files
                  if not fc.path.is_relative_to(agent / ARCHIVE)) == sorted(
        [f"skills/{SKILL_WITH_RESOURCES}.json", *(RESOURCES_DIR + f for f in FILES)])
    archived = {fc.path.relative_to(agent / ARCHIVE).as_posix(): fc.after for fc in result.change.files
                if fc.path.is_relative_to(agent / ARCHIVE) and not fc.path.name.endswith(".archived.json")}
    removed = {library.layout.display_path(fc.path).removeprefix("skills/"): fc.before
               for fc in result.change.files if fc.after is None}
    assert archived == {f"scripts.csv-report/{rel}": data for rel, data in removed.items()}  # byte for byte
    assert tree(agent) == tree(reference)  # the same files and folders as the library's delete
    assert not (agent / RESOURCES_DIR).exists()
    assert (agent / "skills" / ".embeddings" / "scripts" / "csv-report.bin").is_file()  # never touched
    assert SKILL_WITH_RESOURCES not in open_current(agent)
    undo_last(open_current(agent))
    assert tree(agent) == before


def test_edit_undo_and_redo_carry_the_folder_too(agent: Path) -> None:
    before = tree(agent)
    library = open_current(agent)
    plan, ids = delete_plan(library, SKILL_WITH_RESOURCES)
    apply_plan(library, plan, ids)
    applied = tree(agent)
    assert RESOURCES_DIR.rstrip("/") not in applied[1]
    library.undo()  # Edit ▸ Undo: through the journal
    assert tree(agent) == before and library.resources(SKILL_WITH_RESOURCES)[0].path is not None
    library.redo()
    assert tree(agent) == applied
    undo_last(open_current(agent))
    assert tree(agent) == before


@pytest.mark.parametrize("policy", ["complete", "rollback"])
@pytest.mark.parametrize("steps", [1, 2, 4])
def test_a_crash_while_pruning_a_multi_file_skill_is_recovered(agent: Path, tmp_path: Path,
                                                               steps: int, policy: str) -> None:
    late = "2028-06-10T00:00:00+00:00"  # every skill is inactive for 18 months by then
    reference = make_current_agent(tmp_path / "reference")
    plan = reply_plan(open_current(reference), {"toDelete": [], "toSave": []}, late)
    ids = [p.id for p in plan.proposals if p.kind == "prune" and p.deletes == [SKILL_WITH_RESOURCES]]
    assert ids
    apply_plan(open_current(reference), plan, ids)
    applied = tree(reference)
    assert not (reference / RESOURCES_DIR).exists()
    before = tree(agent)
    with pytest.raises(journal.SimulatedCrash):
        apply_plan(open_current(agent), plan, ids, crash_after=steps)
    if policy == "complete":
        library = open_current(agent)
        assert library.recovery is not None and len(library.recovery.completed) == 1
        assert tree(agent) == applied
        undo_last(library)
    else:
        report = journal.recover(Layout.locate(agent), policy="rollback")
        assert len(report.rolled_back) == 1 and not report.conflicts
    assert tree(agent) == before


def test_a_merge_into_a_new_name_takes_the_sources_manifest_and_files(agent: Path) -> None:
    before = tree(agent)
    library = open_current(agent)
    plan = merge_plan(library, "tools/merged", [SKILL_WITH_RESOURCES, "web/search"])
    result = apply_plan(library, plan, plan.acceptable_ids())
    assert result.change.created == ("tools/merged",)
    assert set(result.change.deleted) == {SKILL_WITH_RESOURCES, "web/search"}
    files, _ = tree(agent)
    record = {"name": "tools/merged", "summary": SUMMARY, "content": CONTENT, "createdAt": CREATED,
              "updatedAt": NOW_TEXT, "lastUsedAt": None, "seeAlso": None,
              "manifest": SKILLS[SKILL_WITH_RESOURCES]["manifest"], "surfaceBaseline": None}
    assert files["skills/tools/merged.json"] == rockbot_json(record)
    assert {k: v for k, v in files.items() if ".resources/" in k} == \
        {f"skills/tools/merged.resources/{f}": data for f, data in FILES.items()}
    assert not (agent / RESOURCES_DIR).exists()
    merged = open_current(agent)
    assert [(r.filename, r.path is not None) for r in merged.resources("tools/merged")] == \
        [("report.py", True), ("schema.json", True), ("missing.md", False), ("logo.png", True)]
    undo_last(merged)
    assert tree(agent) == before


def test_a_merge_into_an_existing_skill_takes_the_other_sources_files(agent: Path) -> None:
    notes = resource("notes.md", "Markdown", "Search tips")
    listed_twice = resource("report.py", "Python", "The same script, listed by web/search too")
    give_resources(agent, "web/search", {"notes.md": b"# Tips\n", "report.py": FILES["report.py"]},
                   [notes, listed_twice])
    before = tree(agent)
    library = open_current(agent)
    plan = merge_plan(library, SKILL_WITH_RESOURCES, [SKILL_WITH_RESOURCES, "web/search"])
    result = apply_plan(library, plan, plan.acceptable_ids())
    assert result.change.updated == (SKILL_WITH_RESOURCES,)
    assert result.change.deleted == ("web/search",)
    files, _ = tree(agent)
    manifest = [*SKILLS[SKILL_WITH_RESOURCES]["manifest"], notes]  # report.py is listed already
    assert files[f"skills/{SKILL_WITH_RESOURCES}.json"] == \
        expected_record(SKILL_WITH_RESOURCES, manifest, None)
    assert {k: v for k, v in files.items() if ".resources/" in k} == \
        {**{RESOURCES_DIR + f: data for f, data in FILES.items()}, RESOURCES_DIR + "notes.md": b"# Tips\n"}
    assert not (agent / "skills" / "web" / "search.resources").exists()
    undo_last(open_current(agent))
    assert tree(agent) == before


def test_a_merge_never_overwrites_a_different_resource_file(agent: Path) -> None:
    give_resources(agent, "web/search", {"report.py": b"print('another script')\n"}, [])
    before = tree(agent)
    library = open_current(agent)
    plan = merge_plan(library, SKILL_WITH_RESOURCES, [SKILL_WITH_RESOURCES, "web/search"])
    with pytest.raises(PlanRefused) as refused:
        apply_plan(library, plan, plan.acceptable_ids())
    assert f"{RESOURCES_DIR}report.py already holds a different file" in str(refused.value)
    assert "nothing was written" in str(refused.value)
    assert tree(agent) == before


def test_a_case_only_rename_takes_the_folder_along(agent: Path) -> None:
    probe = agent / "skills" / "CASE-PROBE"
    probe.write_text("")
    if (agent / "skills" / "case-probe").exists():
        pytest.skip("case-insensitive file system: the folder keeps its spelling")
    probe.unlink()
    before = tree(agent)
    library = open_current(agent)
    reply = {"toDelete": [SKILL_WITH_RESOURCES], "toSave": [{
        "name": "Scripts/CSV-Report", "summary": SUMMARY, "content": CONTENT,
        "sourceNames": [SKILL_WITH_RESOURCES]}]}
    plan = reply_plan(library, reply)
    assert [p.kind for p in plan.proposals] == ["rewrite"]
    apply_plan(library, plan, plan.acceptable_ids())
    files, _ = tree(agent)
    assert files["skills/Scripts/CSV-Report.json"] == expected_record(
        "Scripts/CSV-Report", SKILLS[SKILL_WITH_RESOURCES]["manifest"], None)
    assert {k: v for k, v in files.items() if ".resources/" in k} == \
        {f"skills/Scripts/CSV-Report.resources/{f}": data for f, data in FILES.items()}
    assert not (agent / RESOURCES_DIR).exists()
    renamed = open_current(agent)
    assert renamed.problems == [] and [r.path is not None for r in renamed.resources("Scripts/CSV-Report")] \
        == [True, True, False, True]
    undo_last(renamed)
    assert tree(agent) == before


def test_64e82cc_apply_never_touches_a_resources_folder(agent: Path) -> None:
    library = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(library, RockBotLibrary) and not library.rules.resources
    before = tree(agent)
    folder = {k: v for k, v in before[0].items() if k.startswith(RESOURCES_DIR)}
    plan, ids = delete_plan(library, SKILL_WITH_RESOURCES)
    result = apply_plan(library, plan, ids)
    assert [library.layout.display_path(fc.path) for fc in result.change.files
            if not fc.path.is_relative_to(agent / ARCHIVE)] == [f"skills/{SKILL_WITH_RESOURCES}.json"]
    files, folders = tree(agent)
    assert {k: v for k, v in files.items() if k.startswith(RESOURCES_DIR)} == folder
    assert RESOURCES_DIR.rstrip("/") in folders
    undo_last(open_library(agent, OpenOptions(format="rockbot-64e82cc")))
    assert tree(agent) == before
    library = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert isinstance(library, RockBotLibrary)
    plan = merge_plan(library, "tools/merged", [SKILL_WITH_RESOURCES])
    result = apply_plan(library, plan, plan.acceptable_ids())
    assert all(fc.path.suffix == ".json" and ".resources" not in fc.path.as_posix()
               for fc in result.change.files)
    assert {k: v for k, v in tree(agent)[0].items() if k.startswith(RESOURCES_DIR)} == folder
    assert b"manifest" not in (agent / "skills" / "tools" / "merged.json").read_bytes()
