"""The conflict-checked writer, temp-file hygiene, journal routing, and the scan's progress,
cancel and helper processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary, ScanCancelled
from rockskills_gui.core.library.rockbot.scan import scan
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, journal, open_writers
from rockskills_gui.core.storage.changes import ConflictError
from rockskills_gui.core.storage.layout import Layout

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")


# ---------------------------------------------------------------- replace_checked


def test_replace_checked_writes_only_over_the_expected_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    fileio.replace_checked(path, None, b"one", tmp_path)
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, None, b"again", tmp_path)  # exists: not a create
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"other", b"two", tmp_path)
    assert path.read_bytes() == b"one"
    fileio.replace_checked(path, b"one", b"two", tmp_path)
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"one", None, tmp_path)
    fileio.replace_checked(path, b"two", None, tmp_path)
    assert not path.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("method", ["exchange", "link"])
def test_a_write_into_the_old_file_during_the_swap_is_put_back(tmp_path: Path, method: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """RockBot truncates and rewrites in place: a write landing between our check and our swap
    goes into the file we replace. It is detected afterwards and the agent's version restored
    (with the atomic exchange, and with the hard-link fallback where there is none). The write
    comes from this thread, so the lease that finds a writer holding the file is off (the
    writer's own tests are in test_inplace_writer.py)."""
    monkeypatch.setattr(open_writers, "_SETLEASE", None)
    path = tmp_path / "skill.json"
    path.write_bytes(b"ours-before")
    calls = {"n": 0}

    def write_in_place() -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            with open(path, "r+b") as handle:  # in place, same inode, as File.WriteAllText does
                handle.truncate(0)
                handle.write(b"the agent's update")

    if method == "exchange":
        assert fileio.exchange_supported(tmp_path)
        real_exchange = fileio.exchange

        def agent_writes_first(a: Path, b: Path) -> None:
            write_in_place()
            real_exchange(a, b)

        monkeypatch.setattr(fileio, "exchange", agent_writes_first)
    else:
        real_replace = os.replace

        def agent_writes_first_r(src: str | Path, dst: str | Path) -> None:
            if Path(dst) == path and Path(src).name.endswith(fileio.TEMP_SUFFIX):
                write_in_place()
            real_replace(src, dst)

        monkeypatch.setattr(fileio, "exchange_supported", lambda folder: False)
        monkeypatch.setattr(os, "replace", agent_writes_first_r)
    with pytest.raises(fileio.ChangedOnDisk, match="while saving"):
        fileio.replace_checked(path, b"ours-before", b"ours-after", tmp_path)
    monkeypatch.undo()
    assert path.read_bytes() == b"the agent's update"
    assert [p.name for p in tmp_path.iterdir()] == ["skill.json"]


def test_a_delete_racing_an_agent_write_puts_the_file_back(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(open_writers, "_SETLEASE", None)  # (written from this thread, as above)
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    real_rename = os.rename

    def agent_writes_first(src: str | Path, dst: str | Path) -> None:
        if Path(src) == path:
            path.write_bytes(b"agent")
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", agent_writes_first)
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"before", None, tmp_path)
    monkeypatch.undo()
    assert path.read_bytes() == b"agent"
    assert [p.name for p in path.parent.iterdir()] == ["skill.json"]


def test_temp_names_never_end_in_json_and_fit_the_name_limit(tmp_path: Path) -> None:
    for name in ("a.json", "x" * 250 + ".json"):
        temp = fileio.temp_path_for(tmp_path / name)
        assert not temp.name.endswith(".json") and temp.name.startswith(".")
        assert len(temp.name.encode()) <= fileio.NAME_MAX
        assert fileio.temp_owner(temp.name) == os.getpid()


def test_stale_temp_files_are_removed_at_open_and_live_ones_kept(agent_copy: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(dead.stdout)
    skills = agent_copy / "skills"
    stale = skills / "mcp" / f".email.json.{dead_pid}-0badc0de{fileio.TEMP_SUFFIX}"
    live = skills / f".web.json.{os.getpid()}-0123abcd{fileio.TEMP_SUFFIX}"
    stale.write_bytes(b"half a write")
    live.write_bytes(b"someone is writing")
    lib = RockBotLibrary.open(agent_copy)
    assert lib.recovery is not None and lib.recovery.removed_temps == [
        f"skills/mcp/.email.json.{dead_pid}-0badc0de{fileio.TEMP_SUFFIX}"]
    assert not stale.exists() and live.exists()


# ---------------------------------------------------------------- which writes are journaled


def test_multi_file_and_folder_changes_go_through_the_journal(agent_copy: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[tuple[str, int]] = []
    real_run = journal.run

    def spy(layout, changes, kind, label, *args, **kwargs):  # records, then really runs
        runs.append((kind, len(changes)))
        return real_run(layout, changes, kind, label, *args, **kwargs)

    monkeypatch.setattr(journal, "run", spy)
    lib = RockBotLibrary.open(agent_copy, clock=lambda: NOW)
    lib.update("mcp/email", content="x")           # one file, in place: atomic on its own
    lib.create("brand/new/skill", "s", "c")        # creates folders: journaled
    lib.rename("schedule-meeting", "meetings/x")   # several files
    lib.undo()
    lib.delete("recipes/cafe-menu")                # empties a folder: journaled
    lib.delete("write-report")                     # one file at the top: atomic
    assert runs == [("library", 1), ("library", 3), ("library", 3), ("library", 1)]
    assert not (agent_copy / ".rockskills" / "journal").exists() or \
        not list((agent_copy / ".rockskills" / "journal").iterdir())


def test_a_conflict_found_mid_transaction_rolls_everything_back(agent_copy: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    lib = RockBotLibrary.open(agent_copy, clock=lambda: NOW)
    before = {p: p.read_bytes() for p in (agent_copy / "skills").rglob("*.json")}
    referrer = next(r for r in lib.references_to(["schedule-meeting"]))
    target = lib.entry(referrer.referrer).path
    real_exchange = fileio.exchange
    monkeypatch.setattr(open_writers, "_SETLEASE", None)  # (the agent writes from this thread)

    def agent_strikes(ours: Path, dst: Path) -> None:
        if Path(dst) == target:  # the agent rewrites the referrer after our pre-check
            target.write_bytes(b'{"name": "' + referrer.referrer.encode() + b'", "content": "agent"}')
        real_exchange(ours, dst)

    monkeypatch.setattr(fileio, "exchange", agent_strikes)
    with pytest.raises(ConflictError, match="changed on disk while writing"):
        lib.rename("schedule-meeting", "meetings/schedule")
    monkeypatch.undo()
    after = {p: p.read_bytes() for p in (agent_copy / "skills").rglob("*.json")}
    assert after.pop(target).endswith(b'"agent"}')
    before.pop(target)
    assert after == before and not (agent_copy / "skills" / "meetings").exists()
    assert lib.get("schedule-meeting") is not None and not lib.history.can_undo


# ---------------------------------------------------------------- scan: progress, cancel, helpers


def make_library(root: Path, count: int) -> Path:
    skills = root / "agent" / "skills"
    for i in range(count):
        name = f"group-{i % 7}/skill-{i:05d}"
        path = skills / f"group-{i % 7}" / f"skill-{i:05d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skill_to_bytes(Skill(name=name, summary=f"does thing {i}", content="c" * (i % 50),
                                              created_at=NOW, updated_at=NOW)))
    (skills / "group-1" / "broken.json").write_text('{"name": "group-1/broken", "conte')
    (skills / "group-2" / "nameless.json").write_text('{"content": "x"}')
    return root / "agent"


def test_the_scan_reports_progress_and_can_be_cancelled(tmp_path: Path) -> None:
    agent = make_library(tmp_path, 1200)
    seen: list[tuple[int, int]] = []
    loaded, problems = scan(Layout.locate(agent), progress=lambda d, t: seen.append((d, t)), workers=1)
    assert seen[0] == (0, 1202) and seen[-1] == (1202, 1202)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) >= 3
    assert len(loaded) == 1200 and len(problems) == 2
    calls: list[int] = []
    with pytest.raises(ScanCancelled):
        RockBotLibrary.open(agent, progress=lambda d, t: calls.append(d), cancel=lambda: bool(calls[1:]))
    assert calls[-1] < 1202  # stopped part way


@pytest.mark.skipif(sys.platform == "win32", reason="helper processes are tested on POSIX")
def test_helper_processes_read_exactly_what_the_sequential_scan_reads(tmp_path: Path) -> None:
    layout = Layout.locate(make_library(tmp_path, 1500))
    seq = scan(layout, workers=1)
    seen: list[int] = []
    par = scan(layout, workers=3, parallel_from=1, progress=lambda d, t: seen.append(d))
    assert [(x.path, x.skill, x.raw) for x in par[0]] == [(x.path, x.skill, x.raw) for x in seq[0]]
    assert par[1] == seq[1] and seen[-1] == 1502


def test_a_helper_that_cannot_start_is_replaced_by_reading_here(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.locate(make_library(tmp_path, 300))
    monkeypatch.setattr(sys, "executable", "/bin/false")  # every helper exits at once
    par = scan(layout, workers=2, parallel_from=1)
    monkeypatch.undo()
    seq = scan(layout, workers=1)
    assert [(x.path, x.raw) for x in par[0]] == [(x.path, x.raw) for x in seq[0]] and par[1] == seq[1]


def test_journal_entries_of_the_older_layout_still_undo(agent_copy: Path) -> None:
    """Entries written before blobs were packed into one file kept ``N.before``/``N.after``."""
    import json

    from rockskills_gui.core.dream.apply import apply_plan, undo_last
    from rockskills_gui.core.storage import journal_seal
    from tests.core.crash_server import consolidation

    original = {p: p.read_bytes() for p in (agent_copy / "skills").rglob("*.json")}
    lib = RockBotLibrary.open(agent_copy, clock=lambda: NOW)
    plan = consolidation(lib)
    apply_plan(lib, plan, plan.acceptable_ids())
    (tx,) = journal.transactions(agent_copy)
    data = json.loads((tx.folder / journal.JOURNAL_FILE).read_text())
    for index, entry in enumerate(data["files"]):
        for side in ("before", "after"):
            if entry[side] is not None:
                (tx.folder / f"{index}.{side}").write_bytes(tx.blob(entry[side]) or b"")
                entry[side] = f"{index}.{side}"
    (tx.folder / journal.BLOBS_FILE).unlink()
    data["seal"] = journal_seal.seal(agent_copy, data)  # still ours: only the blob layout is older
    (tx.folder / journal.JOURNAL_FILE).write_text(json.dumps(data))
    assert undo_last(RockBotLibrary.open(agent_copy)).change is not None
    assert {p: p.read_bytes() for p in (agent_copy / "skills").rglob("*.json")} == original
