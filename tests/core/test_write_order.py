"""The order of a multi-file change: every skill exists, old or new, at every checkpoint
(issue 35, item 10). The kill-at-every-step proof without recovery is in test_crash_safety.py
(``test_without_recovery_every_skill_exists_old_or_new_at_every_step``); here, in process, the
checkpoint hook looks at the disk at every step, and a case-only rename on a case-insensitive file
system (two spellings of one file; here two hard links, which is what such a system's names are
to ``samefile``) never removes the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.storage import fileio, journal
from rockskills_gui.core.storage.changes import FileChange


def test_a_rename_with_a_rewrite_keeps_every_skill_at_every_step(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    skills = agent_copy / "skills"
    old, new = skills / "schedule-meeting.json", skills / "meetings" / "schedule.json"
    original = old.read_bytes()
    gaps: list[int] = []

    def look(step: int, label: str) -> None:
        del label
        if not old.exists() and not new.exists():
            gaps.append(step)

    fileio.set_checkpoint_hook(look)
    try:
        lib.rename("schedule-meeting", "meetings/schedule")
    finally:
        fileio.set_checkpoint_hook(None)
    assert gaps == [], f"neither the old nor the new file at checkpoints {gaps}"
    assert not old.exists() and b'"meetings/schedule"' in new.read_bytes()
    lib.undo()
    assert old.read_bytes() == original


def _two_spellings(agent_copy: Path) -> tuple[RockBotLibrary, Path, Path, bytes]:
    lib = RockBotLibrary.open(agent_copy)
    skills = agent_copy / "skills"
    upper = skills / "Write-Report.json"
    lower = skills / "write-report.json"
    os.link(lower, upper)  # one file, two spellings (as on a case-insensitive file system)
    return lib, upper, lower, lower.read_bytes()


def test_a_case_only_rename_on_a_case_insensitive_system_never_removes_the_file(agent_copy: Path) -> None:
    lib, upper, lower, before = _two_spellings(agent_copy)
    after = before.replace(b'"write-report"', b'"Write-Report"', 1)
    missing: list[int] = []

    def look(step: int, label: str) -> None:
        del label
        if not upper.exists():
            missing.append(step)

    fileio.set_checkpoint_hook(look)
    try:
        journal.run(lib.layout, [FileChange(lower, before, None), FileChange(upper, None, after)],
                    "library", "Rename 'write-report' to 'Write-Report'")
    finally:
        fileio.set_checkpoint_hook(None)
    assert missing == [], f"the file was gone at checkpoints {missing}"
    assert upper.read_bytes() == after


def test_recovery_finishes_a_case_only_rename_without_a_conflict(agent_copy: Path) -> None:
    lib, upper, lower, before = _two_spellings(agent_copy)
    after = before.replace(b'"write-report"', b'"Write-Report"', 1)
    with pytest.raises(journal.SimulatedCrash):
        journal.run(lib.layout, [FileChange(lower, before, None), FileChange(upper, None, after)],
                    "library", "Rename 'write-report' to 'Write-Report'", crash_after=0)
    reopened = RockBotLibrary.open(agent_copy)
    assert reopened.recovery is not None
    assert reopened.recovery.conflicts == [] and len(reopened.recovery.completed) == 1
    assert upper.read_bytes() == after


@pytest.mark.parametrize("mode", ["journal key deleted", "library moved"])
def test_an_interrupted_rename_nobody_can_recover_is_explained(agent_copy: Path, tmp_path: Path,
                                                              mode: str) -> None:
    """Killed between writing the new file and removing the old one, and then recovery cannot
    run: both versions are there, and the problem says so and what to do."""
    import shutil

    from rockskills_gui.core.model.problems import ProblemKind
    from rockskills_gui.core.storage import journal_seal

    lib = RockBotLibrary.open(agent_copy)
    old = lib.entry("schedule-meeting")
    new = agent_copy / "skills" / "meetings" / "schedule.json"
    renamed = old.raw.replace(b'"schedule-meeting"', b'"meetings/schedule"', 1)
    with pytest.raises(journal.SimulatedCrash):
        journal.run(lib.layout, [FileChange(old.path, old.raw, None), FileChange(new, None, renamed)],
                    "library", "Rename 'schedule-meeting' to 'meetings/schedule'", crash_after=1)
    if mode == "journal key deleted":
        journal_seal.key_path().unlink()
        where = agent_copy
    else:
        where = shutil.copytree(agent_copy, tmp_path / "moved", symlinks=True)
    reopened = RockBotLibrary.open(where)
    (problem,) = [p for p in reopened.problems if p.kind is ProblemKind.UNTRUSTED_JOURNAL]
    assert (where / "skills" / "schedule-meeting.json").read_bytes() == old.raw
    assert (where / "skills" / "meetings" / "schedule.json").read_bytes() == renamed
    message = problem.message
    assert "a change (Rename 'schedule-meeting' to 'meetings/schedule') was interrupted" in message
    assert "Both versions exist now: the new skills/meetings/schedule.json and the old " \
           "skills/schedule-meeting.json" in message
    assert f"delete the folder {problem.path}" in message
