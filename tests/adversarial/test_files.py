"""Hostile files in a library (issue #14 items 4, 6, 8, 11; #35 items 12, 13, 14, 18): every attack
of attacks_files.py, a few trials each, with real FIFOs, symlinks and sparse 4 GB files; each CLI
run has a timeout, so a hang fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rockskills_gui.cli import error_text
from rockskills_gui.core.dream import fingerprint
from rockskills_gui.core.library.convert.run import STAGING_MARK, convert, remove_stale_staging
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.usage.events import read_usage
from tests.adversarial import attacks_files
from tests.adversarial.attacks_files import ATTACKS, Attack

TRIALS = 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and symlinks (POSIX)")
@pytest.mark.parametrize("title, attack", ATTACKS, ids=[a.__name__ for _, a in ATTACKS])
def test_attack_finds_no_failure(title: str, attack: Attack, tmp_path: Path) -> None:
    attacks_files.FAILURES.clear()
    ran, failures = attack(TRIALS, tmp_path)
    assert ran == TRIALS
    assert failures == 0, f"{title}:\n" + "\n".join(attacks_files.FAILURES)


# ---------------------------------------------------------------- the pieces, one by one

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs (POSIX)")


@needs_fifo
def test_a_fifo_replacing_a_problem_file_is_reported_on_refresh(agent_copy: Path) -> None:
    cut = agent_copy / "skills" / "cut.json"
    cut.write_text('{"name": "cut", "content": "tru')
    lib = RockBotLibrary.open(agent_copy)
    assert any(p.path == "skills/cut.json" for p in lib.problems)
    cut.unlink()
    os.mkfifo(cut)
    lib.refresh([agent_copy / "skills"])  # read_or_none used to raise NotRegularFile here
    problem = next(p for p in lib.problems if p.path == "skills/cut.json")
    assert problem.kind is ProblemKind.UNREADABLE
    assert "named pipe (FIFO)" in problem.message
    os.mkfifo(agent_copy / "skills" / "new.json")  # appearing later: reported too
    lib.refresh([agent_copy / "skills"])
    assert any(p.path == "skills/new.json" for p in lib.problems)


def test_a_link_outside_is_a_warning_that_refresh_drops_with_the_link(agent_copy: Path,
                                                                      tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"name": "linked", "content": "outside"}))
    link = agent_copy / "skills" / "linked.json"
    link.symlink_to(outside)
    (agent_copy / "skills" / "inner.json").symlink_to("mcp.json")  # inside: no warning (name differs)
    lib = RockBotLibrary.open(agent_copy)
    assert lib.get("linked") is not None
    warnings = [p for p in lib.problems if p.kind is ProblemKind.OUTSIDE_LINK]
    assert [(w.path, w.severity, w.name) for w in warnings] == [("skills/linked.json", "warning", "linked")]
    assert str(outside) in warnings[0].message
    link.unlink()
    link.write_text(json.dumps({"name": "linked", "content": "inside now"}))
    lib.refresh([link])
    assert not [p for p in lib.problems if p.kind is ProblemKind.OUTSIDE_LINK]
    assert lib.get("linked").content == "inside now"  # type: ignore[union-attr]


def test_a_folder_named_like_a_skill_file_is_a_warning_and_its_files_load(agent_copy: Path) -> None:
    folder = agent_copy / "skills" / "odd.json"
    folder.mkdir()
    (folder / "inner.json").write_text(json.dumps({"name": "odd.json/inner", "content": "c"}))
    lib = RockBotLibrary.open(agent_copy)
    problem = next(p for p in lib.problems if p.path == "skills/odd.json")
    assert (problem.kind, problem.severity) == (ProblemKind.NOT_A_FILE, "warning")
    inner = next(p for p in lib.problems if p.path == "skills/odd.json/inner.json")  # read, as RockBot
    assert inner.kind is ProblemKind.INVALID_NAME  # '.' is not allowed in a name RockBot saves


@needs_fifo
def test_the_plan_fingerprint_records_a_fifo_without_opening_it(agent_copy: Path) -> None:
    before = fingerprint.take(Layout.locate(agent_copy))
    os.mkfifo(agent_copy / "skills" / "pipe.json")
    after = fingerprint.take(Layout.locate(agent_copy))
    assert after.files["skills/pipe.json"].startswith(fingerprint.NOT_A_FILE)
    assert fingerprint.compare(before, after).added == ("skills/pipe.json",)


@needs_fifo
def test_a_fifo_usage_log_is_reported_not_read(agent_copy: Path) -> None:
    os.mkfifo(agent_copy / "skill-usage" / "zz-pipe.jsonl")
    log = read_usage(agent_copy)
    assert [m.path for m in log.malformed] == ["skill-usage/zz-pipe.jsonl"]
    assert "named pipe (FIFO)" in log.malformed[0].reason
    assert log.events  # the other logs are read as before


def test_a_resource_linked_inside_the_library_is_copied_as_a_file(tmp_path: Path) -> None:
    root = tmp_path / "p" / ".agents" / "skills"
    for name in ("one", "two"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n\nbody\n")
    (root / "one" / "shared.md").write_text("shared text\n")
    (root / "two" / "shared.md").symlink_to("../one/shared.md")
    result = convert(open_library(tmp_path / "p"), tmp_path / "out", "agentskills")
    copied = tmp_path / "out" / ".agents" / "skills" / "two" / "shared.md"  # (its root travels with it)
    assert copied.is_file() and not copied.is_symlink() and copied.read_text() == "shared text\n"
    assert not [loss for loss in result.losses if loss.kind == "resources"]


def test_only_stale_staging_folders_of_ours_are_removed(tmp_path: Path) -> None:
    dead = next(pid for pid in range(4_000_000, 4_100_000) if not fileio.process_alive(pid))
    stale = tmp_path / f".lib.{dead}-0123abcd{fileio.TEMP_SUFFIX}"
    live = tmp_path / f".lib.{os.getpid()}-0123abcd{fileio.TEMP_SUFFIX}"
    foreign = tmp_path / f".mine.{dead}-0123abcd{fileio.TEMP_SUFFIX}"  # not marked: not ours
    for folder in (stale, live, foreign):
        (folder / "output" / "skills").mkdir(parents=True)
    for folder in (stale, live):
        (folder / STAGING_MARK).write_bytes(b"")
    assert remove_stale_staging(tmp_path) == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, foreign.name])


def test_an_error_reaching_the_command_line_is_one_sentence() -> None:
    error = fileio.NotRegularFile(Path("/lib/skills/pipe.json"), "named pipe (FIFO)")
    assert error_text(error) == "/lib/skills/pipe.json: is a named pipe (FIFO), not a regular file"
    assert error_text(FileNotFoundError(2, "No such file or directory", "/x")) == \
        "/x: No such file or directory"
    assert error_text(KeyError("k")).startswith("KeyError: 'k' (an internal error")
