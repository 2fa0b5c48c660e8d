"""Planted journals, reused pids, a symlinked journal folder and a rename-writer (issue #14 items
1, 2, 7): every attack of attacks_journal.py a few trials each, plus the same planted journal
opened in the real window, and the seal's own rules."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.storage import journal, journal_seal
from tests.adversarial import attacks_journal
from tests.adversarial.attacks_journal import ATTACKS, snapshot

TRIALS = 2


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links (POSIX)")
@pytest.mark.parametrize("title, attack", ATTACKS, ids=[a.__name__ for _, a in ATTACKS])
def test_attack_finds_no_failure(title: str, attack, tmp_path: Path) -> None:
    attacks_journal.FAILURES.clear()
    ran, failures = attack(TRIALS, tmp_path)
    assert ran == TRIALS
    assert failures == 0, f"{title}:\n" + "\n".join(attacks_journal.FAILURES)


def _planted(tmp_path: Path, fmt: str = "rockbot") -> tuple[Path, Path]:
    return attacks_journal._planted_library(random.Random(7), tmp_path / "case", fmt)


def test_a_planted_entry_is_reported_as_a_problem_and_left_exactly_as_it_is(tmp_path: Path) -> None:
    library, outside = _planted(tmp_path)
    before = snapshot(outside)
    lib = RockBotLibrary.open(library)
    assert snapshot(outside) == before  # the entries themselves too: outside holds the library
    refused = [p for p in lib.problems if p.kind is ProblemKind.UNTRUSTED_JOURNAL]
    assert refused and all(p.path.startswith(".rockskills/journal/") for p in refused)
    assert journal.transactions(library) == []
    lib.reload()  # still listed after a reload
    assert [p for p in lib.problems if p.kind is ProblemKind.UNTRUSTED_JOURNAL] == refused


def test_an_entry_of_ours_altered_or_moved_to_another_library_is_refused(agent_copy: Path,
                                                                         tmp_path: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    lib.rename("schedule-meeting", "meetings/schedule")  # through the journal
    with pytest.raises(journal.SimulatedCrash):
        journal.run(lib.layout, _one_change(lib, "meetings/schedule"), "library", "test", crash_after=0)
    (tx,) = journal.transactions(agent_copy)
    data = json.loads((tx.folder / journal.JOURNAL_FILE).read_text())
    assert journal_seal.verify(agent_copy, data)
    assert not journal_seal.verify(tmp_path, data)  # bound to this library's real path
    data["files"][0]["path"] = "../outside.txt"
    assert not journal_seal.verify(agent_copy, data)  # any change breaks the seal
    (tx.folder / journal.JOURNAL_FILE).write_text(json.dumps(data))
    reopened = RockBotLibrary.open(agent_copy)
    assert not (agent_copy.parent / "outside.txt").exists()
    assert [p.kind for p in reopened.problems] == [ProblemKind.UNTRUSTED_JOURNAL]


def test_a_blob_that_does_not_match_its_checksum_is_never_written(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    change = _one_change(lib)
    with pytest.raises(journal.SimulatedCrash):
        journal.run(lib.layout, change, "library", "test", crash_after=0)
    (tx,) = journal.transactions(agent_copy)
    blobs = tx.folder / journal.BLOBS_FILE
    blobs.write_bytes(blobs.read_bytes().replace(b"meeting!", b"MALWARE!", 1))  # the after bytes
    before = change[0].path.read_bytes()
    reopened = RockBotLibrary.open(agent_copy)
    assert change[0].path.read_bytes() == before
    assert [p.kind for p in reopened.problems] == [ProblemKind.UNTRUSTED_JOURNAL]
    assert "checksum" in reopened.problems[0].message


def _one_change(lib: RockBotLibrary, name: str = "schedule-meeting") -> list:
    from rockskills_gui.core.storage.changes import FileChange

    path = lib.entry(name).path
    data = path.read_bytes()
    return [FileChange(path, data, data.replace(b"meeting", b"meeting!", 1))]


def test_the_key_lives_outside_every_library_and_only_its_owner_can_read_it() -> None:
    key = journal_seal.user_key()
    path = journal_seal.key_path()
    assert path.read_bytes() == key and len(key) == journal_seal.KEY_BYTES
    assert path.stat().st_mode & 0o077 == 0
    assert journal_seal.user_key() == key  # stable across calls
    path.chmod(0o644)  # readable by others: no longer a secret, so not used
    assert journal_seal.user_key() != key


def test_a_prepared_entry_of_a_dead_writer_is_completed_whatever_its_pid_says(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    change = _one_change(lib)
    with pytest.raises(journal.SimulatedCrash):
        journal.run(lib.layout, change, "library", "test", crash_after=0)
    (tx,) = journal.transactions(agent_copy)
    tx.meta["owner"] = {"pid": 1, "host": os.uname().nodename}  # pid 1 is always alive
    tx.save()
    reopened = RockBotLibrary.open(agent_copy)
    assert reopened.recovery is not None and reopened.recovery.completed == [tx.id]
    assert change[0].path.read_bytes() == change[0].after


def test_the_window_lists_a_planted_entry_and_writes_nothing(qtbot, tmp_path: Path) -> None:
    from tests.ui.conftest import open_window

    library, outside = _planted(tmp_path)
    before = snapshot(outside)
    window = open_window(qtbot, library)
    assert snapshot(outside) == before
    model = window.problems_pane.model
    kinds = [model.index(row, 1).data() for row in range(model.rowCount())]
    assert "untrusted-journal" in kinds
    assert window.problems_dock.isVisible()
