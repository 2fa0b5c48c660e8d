"""Applying plans: RockBot's carry-forward rules byte for byte, the guard, dependencies, protected
prefixes, fingerprints, one-step undo and crash recovery, on real copies of the sample agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import PlanRefused, apply_plan, recheck, undo_last
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.layout import Layout
from tests.conftest import EXPECTED, NOW_TEXT, tree_hashes

NOW = Timestamp.parse(NOW_TEXT)
EXAMPLE = json.loads((EXPECTED / "apply-consolidation-example.json").read_text(encoding="utf-8"))
SAVED = (EXPECTED / "apply-consolidation-example.meetings-plan-and-schedule.json").read_bytes()


def skills_tree(agent: Path) -> dict[str, str]:
    return tree_hashes(agent / "skills")


def consolidation_plan(agent: Path, reply: dict, protect: list[str] | None = None) -> Plan:
    library = RockBotLibrary.open(agent)
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW, protected_prefixes=protect or [])
    return run_dream(library, options, PastedReplies([json.dumps(reply)]))


def test_applying_the_example_reply_writes_exactly_the_expected_skill(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    result = apply_plan(library, plan, plan.acceptable_ids())
    assert result.accepted == ["c1", "c2", "c3", "c4"]
    skills = agent_copy / "skills"
    assert (skills / "meetings" / "plan-and-schedule.json").read_bytes() == SAVED
    for gone in ("plan-meeting.json", "schedule-meeting.json", "legacy/fax-sender.json"):
        assert not (skills / gone).exists()
    assert set(result.change.deleted) == {"legacy/fax-sender", "plan-meeting", "schedule-meeting"}
    assert list(result.change.created) == ["meetings/plan-and-schedule"]
    assert library.get("meetings/plan-and-schedule") is not None and "plan-meeting" not in library
    merge = plan.get("c2")
    assert [f.code for f in merge.findings] == ["source-not-in-todelete", "lost-specifics"]
    assert "get_calendar_events" in merge.findings[1].message


def test_the_guard_example_is_refused_with_nothing_written(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["guard_example"]["llm_result"])
    before = tree_hashes(agent_copy)
    assert plan.passes[0].status.value == "refused"
    with pytest.raises(PlanRefused) as caught:
        apply_plan(RockBotLibrary.open(agent_copy), plan, ["c2"])
    assert "safety-guard" not in str(caught.value)
    assert any("without any replacement" in r for r in caught.value.reasons)
    assert plan.acceptable_ids() == ["c1"]  # only the prune is acceptable
    assert tree_hashes(agent_copy) == before


def test_a_deletion_needs_its_merge(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    before = tree_hashes(agent_copy)
    with pytest.raises(PlanRefused) as caught:
        apply_plan(RockBotLibrary.open(agent_copy), plan, ["c3"])
    assert caught.value.reasons == ["c3 depends on c2, which is not accepted"]
    assert plan.dependents("c2") == ["c3", "c4"]
    assert tree_hashes(agent_copy) == before
    # the merge alone keeps its sources
    apply_plan(RockBotLibrary.open(agent_copy), plan, ["c2"])
    assert (agent_copy / "skills" / "plan-meeting.json").exists()


def test_protected_prefixes_block_deleting_and_overwriting(agent_copy: Path) -> None:
    reply = {"toDelete": ["patrol/proactive-actions"],
             "toSave": [{"name": "write-report", "summary": "s", "content": "new",
                         "sourceNames": ["write-report", "PATROL/Proactive-Actions"]}]}
    plan = consolidation_plan(agent_copy, reply, protect=["patrol/"])
    delete = next(p for p in plan.proposals if p.deletes == ["patrol/proactive-actions"])
    assert delete.blocked and any(f.code == "protected" for f in delete.findings)
    assert any(f.code == "case-mismatch" for f in delete.findings) is False  # toDelete spelled it right
    unprotected = consolidation_plan(agent_copy, reply)
    assert not next(p for p in unprotected.proposals if p.deletes == ["patrol/proactive-actions"]).blocked


def test_invalid_names_and_see_also_problems_are_findings(agent_copy: Path) -> None:
    reply = {"toDelete": [], "toSave": [
        {"name": "bad name!", "summary": "x", "content": "y"},
        {"name": "notes/standup", "summary": "x", "content": "y",
         "seeAlso": ["notes/standup", "no-such-skill", "mcp/email"]}]}
    plan = consolidation_plan(agent_copy, reply)
    bad = next(p for p in plan.proposals if p.record and p.record.name == "bad name!")
    assert bad.blocked and bad.findings[0].code == "invalid-name"
    good = next(p for p in plan.proposals if p.record and p.record.name == "notes/standup")
    codes = [f.code for f in good.findings]
    assert codes == ["self-see-also", "dangling-see-also"] and not good.blocked


def test_a_changed_library_is_refused_unless_rechecked(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    unrelated = agent_copy / "skills" / "write-report.json"
    unrelated.write_bytes(unrelated.read_bytes().replace(b"Weekly report", b"Weekly status"))
    before = tree_hashes(agent_copy)
    with pytest.raises(PlanRefused) as caught:
        apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids())
    assert caught.value.reasons == ["changed skills/write-report.json"]
    assert tree_hashes(agent_copy) == before
    apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids(), recheck_first=True)
    assert (agent_copy / "skills" / "meetings" / "plan-and-schedule.json").read_bytes() == SAVED


def test_a_changed_source_makes_its_proposals_stale(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    source = agent_copy / "skills" / "plan-meeting.json"
    source.write_bytes(source.read_bytes().replace(b"2026-11-20T14:04:40.2201", b"2026-11-21T09:00:00"))
    library = RockBotLibrary.open(agent_copy)
    fresh = recheck(plan, library)
    assert {p.id for p in fresh.proposals if p.blocked} == {"c2", "c3"}
    with pytest.raises(PlanRefused):
        apply_plan(library, plan, ["c2", "c3", "c4"], recheck_first=True)


def test_plans_round_trip_through_json(agent_copy: Path, tmp_path: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    path = tmp_path / "plan.json"
    plan.save(path)
    loaded = Plan.load(path)
    assert loaded == plan
    assert json.loads(path.read_text())["proposals"][1]["pass"] == "consolidate"
    apply_plan(RockBotLibrary.open(agent_copy), loaded, loaded.acceptable_ids())
    assert (agent_copy / "skills" / "meetings" / "plan-and-schedule.json").read_bytes() == SAVED


def test_one_undo_restores_the_library_exactly(agent_copy: Path) -> None:
    original = skills_tree(agent_copy)
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids())
    assert skills_tree(agent_copy) != original
    library = RockBotLibrary.open(agent_copy)  # a later session, as `rockskills undo` runs
    result = undo_last(library)
    assert result.undone is not None and result.change is not None
    assert skills_tree(agent_copy) == original
    assert library.get("plan-meeting") is not None and library.get("meetings/plan-and-schedule") is None
    assert undo_last(RockBotLibrary.open(agent_copy)).change is None  # nothing left to undo
    assert not list((agent_copy / "skills").rglob("*.rsg-tmp"))
    assert not any(p.suffix == ".json" for p in (agent_copy / ".rockskills").rglob("*")
                   if p.name != "journal.json")


def test_in_session_undo_and_then_cli_undo_does_nothing_twice(agent_copy: Path) -> None:
    original = skills_tree(agent_copy)
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    apply_plan(library, plan, plan.acceptable_ids())
    assert library.history.undo_label() == "Apply dream plan (4 proposals)"
    library.undo()
    assert skills_tree(agent_copy) == original
    result = undo_last(RockBotLibrary.open(agent_copy))
    assert result.change is None and "nothing to undo" in result.message  # the journal knows
    assert skills_tree(agent_copy) == original


def test_undo_is_refused_when_a_file_changed_since(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids())
    merged = agent_copy / "skills" / "meetings" / "plan-and-schedule.json"
    merged.write_bytes(merged.read_bytes().replace(b"...", b"edited"))
    before = tree_hashes(agent_copy / "skills")
    result = undo_last(RockBotLibrary.open(agent_copy))
    assert result.change is None and result.changed_files == ["skills/meetings/plan-and-schedule.json"]
    assert tree_hashes(agent_copy / "skills") == before


@pytest.mark.parametrize("policy", ["complete", "rollback"])
@pytest.mark.parametrize("steps", [0, 1, 2, 3])
def test_a_crash_mid_apply_is_finished_at_the_next_open(agent_copy: Path, tmp_path: Path,
                                                         steps: int, policy: str) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(agent_copy, reference)
    original = skills_tree(agent_copy)
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    apply_plan(RockBotLibrary.open(reference), plan, plan.acceptable_ids())
    applied = skills_tree(reference)
    with pytest.raises(journal.SimulatedCrash):
        apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids(), crash_after=steps)
    assert journal.has_pending(agent_copy)
    if policy == "complete":
        library = RockBotLibrary.open(agent_copy)
        assert library.recovery is not None and len(library.recovery.completed) == 1
        assert skills_tree(agent_copy) == applied
        assert library.get("meetings/plan-and-schedule") is not None
        undo_last(library)  # the recovered transaction is the undo record
        assert skills_tree(agent_copy) == original
    else:
        report = journal.recover(Layout.locate(agent_copy), policy="rollback")
        assert len(report.rolled_back) == 1 and not report.conflicts
        assert skills_tree(agent_copy) == original
        assert RockBotLibrary.open(agent_copy).recovery is None
    assert not journal.has_pending(agent_copy)


def test_a_crash_during_undo_is_completed(agent_copy: Path) -> None:
    original = skills_tree(agent_copy)
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids())
    with pytest.raises(journal.SimulatedCrash):
        undo_last(RockBotLibrary.open(agent_copy), crash_after=2)
    library = RockBotLibrary.open(agent_copy)
    assert library.recovery is not None and skills_tree(agent_copy) == original
    assert undo_last(library).change is None  # the apply is marked undone


def test_recovery_leaves_files_changed_by_someone_else_alone(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    with pytest.raises(journal.SimulatedCrash):
        apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids(), crash_after=1)
    meddled = agent_copy / "skills" / "schedule-meeting.json"
    meddled.write_bytes(b'{"name": "schedule-meeting", "content": "agent wrote this"}')
    library = RockBotLibrary.open(agent_copy)
    assert library.recovery is not None and library.recovery.conflicts == ["skills/schedule-meeting.json"]
    assert meddled.read_bytes().endswith(b'"agent wrote this"}')


def test_recovery_leaves_a_transaction_of_a_live_process_alone(agent_copy: Path) -> None:
    """A writer that still holds the lock on the entry's owner file is at work: left alone."""
    import subprocess
    import sys

    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    with pytest.raises(journal.SimulatedCrash):
        apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids(), crash_after=1)
    (tx,) = journal.transactions(agent_copy)
    holder = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
              "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(30)")
    other = subprocess.Popen([sys.executable, "-c", holder, str(tx.folder / "owner")],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "locked"
        assert RockBotLibrary.open(agent_copy).recovery.completed == []
        assert journal.has_pending(agent_copy)
    finally:
        other.terminate()
        other.wait(timeout=10)
    assert RockBotLibrary.open(agent_copy).recovery.completed == [tx.id]


def _cli_undo(agent: Path) -> str:
    import subprocess
    import sys

    from tests.conftest import REPO

    done = subprocess.run([sys.executable, "-m", "rockskills_gui", "undo", str(agent)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def test_session_history_and_journal_tell_one_story(agent_copy: Path) -> None:
    """Edit ▸ Undo/Redo of an apply go through the journal: `rockskills undo` always agrees."""
    original = skills_tree(agent_copy)
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    result = apply_plan(library, plan, plan.acceptable_ids())
    applied = skills_tree(agent_copy)
    assert library.history.undo_stack[-1].journal == ("apply", result.tx_id)

    library.undo()  # Edit ▸ Undo
    assert skills_tree(agent_copy) == original
    assert journal.last_undoable(agent_copy) is None
    assert "nothing to undo" in _cli_undo(agent_copy)
    assert skills_tree(agent_copy) == original

    library.redo()  # Edit ▸ Redo: a new apply on record
    assert skills_tree(agent_copy) == applied
    redone = journal.last_undoable(agent_copy)
    assert redone is not None and redone.id != result.tx_id
    assert library.history.undo_stack[-1].journal == ("apply", redone.id)
    assert "undid" in _cli_undo(agent_copy)  # the CLI undoes what the session redid
    assert skills_tree(agent_copy) == original


def test_undoing_a_journal_undo_applies_the_plan_again_on_record(agent_copy: Path) -> None:
    original = skills_tree(agent_copy)
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids())  # an earlier session
    applied = skills_tree(agent_copy)
    library = RockBotLibrary.open(agent_copy)
    first = journal.last_undoable(agent_copy)
    assert first is not None
    undo_last(library)  # e.g. the wizard's Undo of a plan applied in another session
    assert skills_tree(agent_copy) == original
    assert library.history.undo_stack[-1].journal == ("undo", first.id)
    library.undo()  # Edit ▸ Undo of that undo: the plan is in effect again, and on record
    assert skills_tree(agent_copy) == applied
    again = journal.last_undoable(agent_copy)
    assert again is not None and again.id != first.id
    library.redo()  # Edit ▸ Redo: undone again, through the journal
    assert skills_tree(agent_copy) == original
    assert journal.last_undoable(agent_copy) is None
